"""``serai serve --workers N``: N server processes on one port, and the process that minds them.

One Python process runs on one core at a time, and a SubmitMove costs about 0.8 ms of CPU (the
development machine, benchmarks/README.md), so one process saturates one core. Replicas keep
nothing of their own (every match is in Redis), so N of them on one machine behave like N
servers: each worker is a plain ``serai serve`` (grpc.aio, its own Matches and Redis connections)
listening on the same host:port with SO_REUSEPORT, and the kernel spreads incoming connections
over them (a connection stays with its worker).

The supervisor (the ``serai serve`` process the user started) starts the embedded Redis if there
is one, then starts each worker as a fresh interpreter (the way it was started itself, so a script
that adds games adds them to the workers too): grpc does not survive fork, and the supervisor has
imported it. It prints ``serai listening on host:port (...)`` once every worker listens; on
SIGTERM/SIGINT it passes the signal on and waits for the workers to finish their in-flight
requests; if a worker dies, it stops the others and exits 1. Only worker 0 sweeps turn clocks (the
others get --sweep-seconds 0). Workers get SIGTERM if the supervisor dies (Linux).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import math
import os
import secrets
import signal
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serai import config
from serai.rpc.auth import HOUSE_PASS_VARIABLE


def http_listening_line(host: str, port: int) -> str:
    """What serai prints once its HTTP port listens (before the gRPC port's line)."""
    return f"serai HTTP (Connect, gRPC-Web, JSON) listening on {host}:{port}"


def web_client_line(host: str, port: int) -> str:
    """Where people open the web client: a wildcard host is reachable here as localhost."""
    bare = host.strip("[]")
    shown = "localhost" if bare in ("", "0.0.0.0", "::") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"serai web client: http://{shown}:{port}/"


# The workers' Redis, in their environment rather than on their command line (ps shows those).
_REDIS_VARIABLES = ("SERAI_REDIS_URL", "SERAI_REDIS_CLUSTER")


@dataclass(frozen=True)
class Worker:
    """What a worker is told by its supervisor (hidden ``serai serve`` flags)."""

    index: int
    ready_fd: int  # the worker writes its port here once it listens, then closes it
    supervisor_pid: int

    def watch_supervisor(self) -> bool:
        """Get SIGTERM when the supervisor dies (Linux); False if it is gone already."""
        if sys.platform.startswith("linux"):
            with contextlib.suppress(Exception):
                ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PDEATHSIG
        return os.getppid() == self.supervisor_pid

    def listening(self, port: int) -> None:
        with os.fdopen(self.ready_fd, "w") as ready:
            ready.write(f"{port}\n")


def worker_count(settings: config.Settings) -> int:
    """--workers, with 0 meaning one per CPU core this process may use (:func:`usable_cores`)."""
    return settings.workers or usable_cores()


def usable_cores(cgroup_root: Path = Path("/sys/fs/cgroup")) -> int:
    """The cores this process may run on: its CPU affinity (taskset, a cpuset), capped by its
    cgroup's CPU quota rounded up (a container's CPU limit). Not os.cpu_count(): a pod limited
    to 2 CPUs on a 64-core node would start 64 workers, each with its memory and connections."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota(cgroup_root)
    return max(1, min(cores, math.ceil(quota))) if quota else max(1, cores)


def cgroup_cpu_quota(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """CPUs the cgroup may use (quota / period), or None without a limit. Reads cgroup v2's
    ``cpu.max`` ("max 100000" or "200000 100000"), else v1's ``cpu/cpu.cfs_quota_us`` (-1: none)."""
    try:
        quota, _, period = (root / "cpu.max").read_text().strip().partition(" ")
    except OSError:
        try:
            quota = (root / "cpu" / "cpu.cfs_quota_us").read_text().strip()
            period = (root / "cpu" / "cpu.cfs_period_us").read_text().strip()
        except OSError:
            return None
    try:
        shares, every = int(quota), int(period)
    except ValueError:  # "max"
        return None
    return shares / every if shares > 0 and every > 0 else None


def entry_command() -> list[str]:
    """How to start ``serai`` as this process was started: python -m serai.cli, the serai
    script, or a script of one's own (tests add games that way); the subcommand comes next."""
    tail = sys.argv[1:]
    cut = len(sys.orig_argv) - len(tail)
    if tail[:1] == ["serve"] and cut >= 2 and sys.orig_argv[cut:] == tail:
        return [sys.executable, *sys.orig_argv[1:cut]]
    return [sys.executable, "-m", "serai.cli"]  # serve.run called from Python: no such line


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (0: a free port) with SO_REUSEPORT, not listening: the port
    stays ours while the workers bind it too, and gets no connections of its own.

    Raises OSError if anything listens there already, even another server's workers: SO_REUSEPORT
    would let ours join them and take half their connections without a word.
    """
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    if port:
        with socket.socket(family, socket.SOCK_STREAM) as probe:  # no SO_REUSEPORT: must be free
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((bare, port))
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((bare, port))
    except OSError:
        sock.close()
        raise
    return sock


async def supervise(
    settings: config.Settings,
    count: int,
    redis: dict[str, str],
    where: str,
    redis_exit: Callable[[], Awaitable[str]] | None = None,
) -> int:
    """Run ``count`` workers on settings.host:settings.port until SIGTERM/SIGINT or one dies,
    or ``redis_exit()`` returns (the embedded Redis died, if there is one), saying why.

    ``redis`` holds the workers' SERAI_REDIS_URL or SERAI_REDIS_CLUSTER; ``where`` says in words
    where Redis is. Returns the exit status.
    """
    reserved = _reserve_ports(settings)
    if reserved is None:
        return 1
    grpc_socket, http_socket = reserved
    port = grpc_socket.getsockname()[1]
    http_port = http_socket.getsockname()[1] if http_socket is not None else None
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    env, metrics_dir = _workers_environment(settings, redis)
    workers: list[asyncio.subprocess.Process] = []
    readiness: list[asyncio.Future[bytes]] = []
    try:
        for index in range(count):
            process, said = await _start_worker(settings, port, http_port, index, env)
            workers.append(process)
            readiness.append(said)
        ready = asyncio.gather(*readiness)
        exits = [asyncio.ensure_future(worker.wait()) for worker in workers]
        stopped = asyncio.ensure_future(stop.wait())
        waiting: list[asyncio.Future[Any]] = [stopped, *exits]
        lost = asyncio.ensure_future(redis_exit()) if redis_exit is not None else None
        if lost is not None:
            waiting.append(lost)
        await asyncio.wait([ready, *waiting], return_when=asyncio.FIRST_COMPLETED)
        listening = ready.done() and all(ready.result())
        ready.cancel()
        if listening:
            grpc_socket.close()
            if http_socket is not None and http_port is not None:
                http_socket.close()
                print(http_listening_line(settings.host, http_port), flush=True)
                print(web_client_line(settings.host, http_port), flush=True)
            print(
                f"serai listening on {settings.host}:{port} ({where}; {count} workers)", flush=True
            )
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if lost is not None and not lost.done():
            lost.cancel()
        elif lost is not None and not stop.is_set():
            print(f"serai: {lost.result()}; stopping the workers", file=sys.stderr, flush=True)
        if not stop.is_set():
            _say_which_exited(workers, listening)
        codes = await _stop_all(workers, settings.grace_seconds)
        # A worker stopped while starting up exits 128 + SIGTERM (serve's start-up handler), or
        # -SIGTERM if the signal came before even that: both are a clean stop.
        stopped_early = {-signal.SIGTERM, 128 + signal.SIGTERM}
        return 0 if stop.is_set() and set(codes) <= {0, *stopped_early} else 1
    finally:
        grpc_socket.close()
        if http_socket is not None:
            http_socket.close()
        for reading in readiness:  # stops reading and closes each pipe still open
            reading.cancel()
        for worker in workers:  # only if something above failed: never leave one running
            if worker.returncode is None:
                worker.kill()
                await worker.wait()
        if metrics_dir is not None:
            metrics_dir.cleanup()


def _reserve_ports(
    settings: config.Settings,
) -> tuple[socket.socket, socket.socket | None] | None:
    """The gRPC port and, with --http-port, the HTTP one, held for the workers (each worker
    serves both); None, having said why, when one cannot be had."""
    try:
        grpc_socket = reserve_port(settings.host, settings.port)
    except OSError as error:
        print(f"serai: cannot listen on {settings.host}:{settings.port}: {error}", file=sys.stderr)
        return None
    if settings.http_port is None:
        return grpc_socket, None
    try:
        return grpc_socket, reserve_port(settings.host, settings.http_port)
    except OSError as error:
        grpc_socket.close()
        print(
            f"serai: cannot listen on {settings.host}:{settings.http_port} (--http-port): {error}",
            file=sys.stderr,
        )
        return None


def _workers_environment(
    settings: config.Settings, redis: dict[str, str]
) -> tuple[dict[str, str], tempfile.TemporaryDirectory[str] | None]:
    """The workers' environment: this one with their Redis and the settings that are secrets
    (never flags: ps shows those), and a metrics folder.

    Every worker writes its figures to files in one folder, and the one answering a scrape adds
    them up (prometheus-client's multiprocess mode); a fresh folder for each run, returned to be
    cleaned up, unless the operator named one."""
    env = {key: value for key, value in os.environ.items() if key not in _REDIS_VARIABLES}
    env.update(redis)
    for field, variable in config.SECRET_SETTINGS.items():
        env[variable] = str(getattr(settings, field))
    # one house pass for every worker: a house bot's connection may land on any of them
    env[HOUSE_PASS_VARIABLE] = secrets.token_urlsafe(32)
    metrics_dir = None
    if not env.get("PROMETHEUS_MULTIPROC_DIR"):
        metrics_dir = tempfile.TemporaryDirectory(prefix="serai-metrics-")
        env["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir.name
    return env, metrics_dir


async def _start_worker(
    settings: config.Settings, port: int, http_port: int | None, index: int, env: dict[str, str]
) -> tuple[asyncio.subprocess.Process, asyncio.Future[bytes]]:
    """Worker ``index``, and what it will write to its readiness pipe (its port, once it
    listens; nothing if it dies first)."""
    read_fd, write_fd = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *_worker_command(settings, port, http_port, index, write_fd),
            env=env,
            pass_fds=(write_fd,),
            start_new_session=True,  # Ctrl-C reaches the supervisor; it passes it on
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    return process, _read_to_end(read_fd)


def _say_which_exited(workers: list[asyncio.subprocess.Process], listening: bool) -> None:
    for index, worker in enumerate(workers):
        if worker.returncode is not None:
            print(
                f"serai: worker {index} (pid {worker.pid}) exited with status "
                f"{worker.returncode}{'' if listening else ' before listening'}; "
                "stopping the other workers",
                file=sys.stderr,
                flush=True,
            )


def _worker_command(
    settings: config.Settings, port: int, http_port: int | None, index: int, ready_fd: int
) -> list[str]:
    flags = config.worker_flags(settings)
    flags += ["--http-port", "off" if http_port is None else str(http_port)]
    if index > 0:  # one sweeper is enough: every worker sees the same matches
        flags += ["--sweep-seconds", "0"]
    return [
        *entry_command(),
        "serve",
        "--workers", "1",
        "--host", settings.host,
        "--port", str(port),
        *flags,
        "--worker-index", str(index),
        "--ready-fd", str(ready_fd),
        "--supervisor-pid", str(os.getpid()),
    ]  # fmt: skip


def _read_to_end(fd: int) -> asyncio.Future[bytes]:
    """All a pipe gives until its writer closes it (a worker that dies closes it too)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[bytes] = loop.create_future()
    chunks: list[bytes] = []

    def readable() -> None:
        chunk = os.read(fd, 4096)
        if chunk:
            chunks.append(chunk)
            return
        finish()

    def finish(_: object = None) -> None:
        if loop.remove_reader(fd):
            os.close(fd)
        if not done.done():
            done.set_result(b"".join(chunks))

    os.set_blocking(fd, False)
    loop.add_reader(fd, readable)
    done.add_done_callback(finish)  # cancelled: stop reading, close the pipe
    return done


async def _stop_all(workers: Sequence[asyncio.subprocess.Process], grace: float) -> list[int]:
    """SIGTERM every worker still running; wait for each (SIGKILL after grace + 10 s)."""
    for worker in workers:
        if worker.returncode is None:
            worker.send_signal(signal.SIGTERM)
    codes = []
    for worker in workers:
        try:
            codes.append(await asyncio.wait_for(worker.wait(), grace + 10))
        except TimeoutError:
            worker.kill()
            codes.append(await worker.wait())
    return codes
