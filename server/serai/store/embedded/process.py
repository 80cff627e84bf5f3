"""The redis-server child process of one serai: started (on a free port, or its socket), waited for
until it answers, watched for dying, and stopped. See :mod:`serai.store.embedded`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Collection
from pathlib import Path
from types import TracebackType

from serai.store.embedded.folder import LONGEST_SOCKET_PATH, lock_folder, write_privately
from serai.store.embedded.probe import free_port, reply_to_ping, served_by
from serai.store.embedded.settings import (
    ADMIN_COMMANDS,
    APPENDFSYNC,
    EmbeddedRedisError,
    default_maxmemory,
    private_settings,
    redis_server_binary,
    server_args,
)


class EmbeddedRedis:
    """One redis-server child process, private (see :mod:`serai.store.embedded`) by default.

    ``persistent=True`` (the default) keeps an append-only file in ``data_dir``; ``False`` keeps
    nothing on disk (tests). ``start()`` returns once the server answers PING; ``startup_timeout``
    bounds the wait for a first answer, and a server that answers that it is loading its data
    (a large append-only file takes minutes) is waited for as long as it loads. On Linux the
    child gets SIGTERM when the thread that started it dies, so start it from a long-lived thread.

    ``maxmemory``: bytes of data Redis may hold; beyond them it refuses writes (``noeviction``:
    a match key is never dropped to make room); None: :func:`default_maxmemory`; 0: no limit.
    ``appendfsync``: ``everysec`` (the default) or ``always`` (see deploy/README.md).
    ``keep_commands``: those of :data:`ADMIN_COMMANDS` a private server keeps (a benchmark that
    empties its own Redis between rounds).

    ``private=False``: loopback TCP on ``host``:``port`` (a free port if None), or
    ``unix_socket`` alone if given, with no password and every command: a test's own Redis.
    """

    def __init__(
        self,
        data_dir: Path | str,
        *,
        persistent: bool = True,
        private: bool = True,
        host: str = "127.0.0.1",
        port: int | None = None,
        unix_socket: Path | str | None = None,
        maxmemory: int | None = None,
        appendfsync: str = "everysec",
        keep_commands: Collection[str] = (),
        binary: str | None = None,
        startup_timeout: float = 20.0,
    ) -> None:
        if private and (port or unix_socket):
            raise ValueError("a private embedded Redis listens on its own socket only")
        if appendfsync not in APPENDFSYNC:
            raise ValueError(f"appendfsync {appendfsync!r} is not one of {APPENDFSYNC}")
        self.data_dir = Path(data_dir)
        self.persistent = persistent
        self.private = private
        self.host = host
        self.port = port or 0
        if private:
            self.unix_socket: Path | None = self.data_dir.resolve() / "redis.sock"
        else:
            self.unix_socket = Path(unix_socket).resolve() if unix_socket else None
        self.maxmemory = default_maxmemory() if maxmemory is None else maxmemory
        self.appendfsync = appendfsync
        kept = {name.upper() for name in keep_commands}
        self.renamed_commands = tuple(name for name in ADMIN_COMMANDS if name not in kept)
        self.binary = binary
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.log_file = str((self.data_dir / "redis.log").resolve()) if persistent else ""
        self._password: str | None = None  # a private server's, drawn at each start
        self._lock: int | None = None  # the folder's lock file, while this server runs

    @property
    def url(self) -> str:
        """How to reach it: a private server's holds its password (print
        :func:`serai.store.redis.connect.printable_url` of it, never the URL itself)."""
        if self.unix_socket is not None:
            secret = f":{self._password}@" if self._password else ""
            return f"unix://{secret}{self.unix_socket}?db=0"
        return f"redis://{self.host}:{self.port}/0"

    @property
    def where(self) -> str:
        """Where it listens, in words fit for a log (no password)."""
        if self.unix_socket is not None:
            return f"socket {self.unix_socket}"
        return f"port {self.port}"

    @property
    def info_file(self) -> Path:
        return self.data_dir / "redis.json"

    def start(self) -> EmbeddedRedis:
        binary = self.binary or redis_server_binary()
        try:
            # The data holds every hand and deck: a folder made here is its owner's alone.
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            raise EmbeddedRedisError(
                f"cannot use {self.data_dir} as the data folder: {error.strerror or error}"
            ) from None
        if (
            self.unix_socket is not None
            and len(os.fsencode(self.unix_socket)) > LONGEST_SOCKET_PATH
        ):
            raise EmbeddedRedisError(
                f"the data folder's path is too long for a unix socket ({self.unix_socket} is "
                f"over {LONGEST_SOCKET_PATH} bytes): give a shorter --data-dir"
            )
        if self.persistent:
            self._lock = lock_folder(self.data_dir)
        try:
            return self._start(binary)
        except BaseException:
            self._unlock()
            raise

    def _start(self, binary: str) -> EmbeddedRedis:
        last_error = ""
        for _attempt in range(5):
            port = 0 if self.unix_socket else self.port or free_port(self.host)
            self._password = secrets.token_hex(32) if self.private else None
            args = server_args(
                binary,
                private=self.private,
                port=port,
                host=self.host,
                data_dir=self.data_dir,
                persistent=self.persistent,
                appendfsync=self.appendfsync,
                maxmemory=self.maxmemory,
                log_file=self.log_file,
                unix_socket=self.unix_socket,
            )
            process = subprocess.Popen(
                [*_dying_with_parent(), *args],
                stdin=subprocess.PIPE if self.private else subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                # Its own session: a Ctrl-C meant for serai must not stop Redis before serai has
                # finished its in-flight moves; serai stops it afterwards.
                start_new_session=True,
                # Its files (append-only file, log) are its owner's alone: they hold hidden cards.
                # Set by Popen itself, not by Python code in the forked child: a fork taken while
                # gRPC's threads run must not run the interpreter (it crashed doing so).
                umask=0o077,
                pass_fds=() if self._lock is None else (self._lock,),  # the lock outlives us
            )
            try:
                if process.stdin is not None:
                    with contextlib.suppress(BrokenPipeError), process.stdin:
                        process.stdin.write(private_settings(self._password, self.renamed_commands))
                started = self._wait_for(process, port)
            except BaseException:  # a signal while it starts: it must not outlive us
                process.kill()
                process.wait()
                raise
            if started:
                return self
            if process.poll() is None:  # alive but silent: give up on it
                process.kill()
                process.wait()
            last_error = (process.stderr.read() if process.stderr else b"").decode(errors="replace")
            if self.port or self.unix_socket:  # a fixed port or socket that failed will again
                break
        raise EmbeddedRedisError(
            f"redis-server did not start ({binary}): {last_error.strip() or self._log_tail()}"
        )

    def _wait_for(self, process: subprocess.Popen[bytes], port: int) -> bool:
        """Whether ``process`` came to answer PING on ``port`` (then it is ours, and recorded)."""
        deadline = time.monotonic() + self.startup_timeout
        where = (self.host, port, self.unix_socket, self._password)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            reply = reply_to_ping(self.host, port, 0.5, self.unix_socket, self._password)
            # Ours, not another server already on a fixed port: that one answers before our
            # child has failed to bind.
            if reply and served_by(process.pid, *where):
                if reply.startswith(b"+PONG"):
                    self.process, self.port = process, port
                    if self.persistent:
                        info = {"pid": process.pid, "port": port, "url": self.url}
                        write_privately(self.info_file, json.dumps(info))
                    return True
                if reply.startswith(b"-LOADING"):  # alive and reading its data: let it
                    deadline = time.monotonic() + self.startup_timeout
                    time.sleep(0.2)
                    continue
            time.sleep(0.02)
        return False

    def _log_tail(self) -> str:
        """Why, from the end of its log (it writes there, not to stderr)."""
        try:
            lines = Path(self.log_file).read_text(errors="replace").strip().splitlines()
        except OSError:
            return "it said nothing"
        return f"{lines[-1].strip()} (see {self.log_file})" if lines else "it said nothing"

    def _unlock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            os.close(lock)  # the lock goes once the redis-server has closed its copy too

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM (Redis then flushes its append-only file and exits), SIGKILL after timeout."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr:
            process.stderr.close()
        with contextlib.suppress(FileNotFoundError):
            if self.persistent and json.loads(self.info_file.read_text())["pid"] == process.pid:
                self.info_file.unlink()
        self._unlock()

    async def exited(self, every: float = 0.5) -> str:
        """Return once the server has exited without being stopped: why, in words (a Redis that
        dies under a running serai leaves every call UNAVAILABLE for good, so it must be seen)."""
        while (process := self.process) is None or process.poll() is None:
            await asyncio.sleep(every)
        return (
            f"the embedded redis-server (pid {process.pid}) exited with status "
            f"{process.returncode}: {self._log_tail()}"
        )

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


def _dying_with_parent() -> list[str]:
    """The command that makes redis-server get SIGTERM when the thread that started it dies (no
    orphans), on Linux where util-linux's ``setpriv`` is found: it sets the parent-death signal,
    then execs redis-server in the same process. Elsewhere nothing (the child may then outlive a
    serai killed with -9)."""
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    return [setpriv, "--pdeathsig", "SIGTERM", "--"] if setpriv else []
