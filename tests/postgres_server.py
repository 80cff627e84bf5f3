"""A PostgreSQL server of the tests' own, from the distribution's package: initdb and pg_ctl in a
temporary folder, listening only on a unix socket there (never a server that happens to run).

Debian puts the binaries in /usr/lib/postgresql/<version>/bin (the newest is taken), others on
PATH. initdb and postgres refuse to run as root: as root they run as the user ``nobody``, through
util-linux's setpriv, in a folder given to that user. :func:`find_binaries` returns None where
PostgreSQL is not installed (the tests then skip, saying so; .ci/run installs it).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


def find_binaries() -> Path | None:
    """The folder of initdb, pg_ctl and postgres, or None."""
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    found.sort(key=lambda path: int(Path(path).parts[4]) if Path(path).parts[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class PostgresServer:
    """``start()``, then ``url(database)`` for asyncpg or ``--archive-url``; ``stop()``."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="serai-test-pg-"))
        self.data = self.folder / "data"
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
            self._as_user = [
                "setpriv",
                f"--reuid={nobody.pw_uid}",
                f"--regid={nobody.pw_gid}",
                "--clear-groups",
                "--",
            ]

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as_user, str(self.binaries / tool), *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.folder,
            env={**os.environ, "LC_ALL": "C"},
        )
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stdout}\n{done.stderr}")

    def start(self) -> PostgresServer:
        self._run(
            "initdb", "-D", str(self.data), "-U", "serai", "--auth=trust", "-E", "UTF8",
            "--locale=C", "--no-sync",
        )  # fmt: skip
        options = f"-k {self.folder} -c listen_addresses='' -c fsync=off -c max_connections=200"
        log = str(self.folder / "postgres.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://serai@/{database}?host={self.folder}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        self._psql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def _psql(self, statement: str) -> None:
        psql = self.binaries / "psql"
        command = [str(psql) if psql.exists() else "psql", "-h", str(self.folder), "-U", "serai"]
        done = subprocess.run(
            [*command, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", statement],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql {statement!r} failed: {done.stderr}")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
