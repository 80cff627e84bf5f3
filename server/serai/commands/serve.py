"""``serai serve``: run the game server.

With no --redis-url, a private redis-server is started with its append-only file in --data-dir
(./data by default) and stopped on exit; a restart on the same folder finds every match. It
listens only on a socket in that folder, with a password drawn at each start, and without the
administrative commands serai does not use: no other local user can reach it.
CreateMatch may not choose the seed unless --chosen-seeds allow: whoever chose it can work out
the deal. With
--redis-url (redis://host:port/db, unix:///path/redis.sock, redis+sentinel://host:port,.../name or
redis+cluster://host:port,...) or --redis-cluster host:port,..., that Redis is used and left alone.
Any number of replicas may share one Redis: they keep nothing of their own.
The same API is served over HTTP on --http-port (50052 by default; off for none): the Connect
protocol in JSON or binary (curl works: see the README's "From any language"), gRPC-Web for
browsers (--http-allow-origin lets a page of another origin call it), and grpc.health.v1.
On the same port, GET /bots lists the bots this process plays itself for each game, and POST
/bots {"matchId": ID, "strategy": "greedy"} starts one in that match's free seat (it joins over
the gRPC port with the caller's API key, plays to the end and stops; --house-bots caps them; see
the README's "Using it").
Every limit applies on both ports alike; those per client address (--max-open-per-peer,
--list-rate) count a client's calls on both ports together.
With --webhook-allow-host, every replica sends the webhooks of API keys that have one (serai keys
--webhook-url: your turn, match finished, seat reclaimed; see the README's "Webhooks"), only to
URLs on those hosts and never to serai's own ports; serai webhooks log NAME shows the attempts.
SIGTERM or SIGINT stops the server gracefully: new requests are refused, in-flight moves finish.
--workers N runs N server processes on the one port, to use N cores (see serai.commands.workers).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import importlib
import os
import signal
import socket
import sys
from collections.abc import Callable
from typing import Any

import structlog

from serai import config, house_bots, registry
from serai import logging as serai_logging
from serai.archive import SQLITE_FILE, Archive, ArchiveError
from serai.archive.opening import open_archive
from serai.commands import workers
from serai.community import Community
from serai.matches import Matches
from serai.matches.limits import Limits
from serai.registry import Registry
from serai.rpc.auth import Authenticator, HousePasses
from serai.rpc.handlers import MatchHandlers
from serai.rpc.limits import RateLimiter
from serai.runtime import Runtime
from serai.store import Store, StoreError
from serai.store.embedded import EmbeddedRedis, EmbeddedRedisError
from serai.store.redis import open_store, printable_url
from serai.store.redis.replication import ReplicaWait
from serai.transports.grpc.server import build_server
from serai.webhooks.dispatch import Webhooks, WebhookSettings
from serai.webhooks.urls import AllowedHosts


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the game server: gRPC, and Connect/gRPC-Web/JSON over HTTP (embedded Redis "
        "unless --redis-url)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    config.add_arguments(parser)
    for flag in ("--worker-index", "--ready-fd", "--supervisor-pid"):  # set by the supervisor
        parser.add_argument(flag, type=int, help=argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, games: Registry | None = None) -> int:
    """Serve the installed games (or ``games``, for tests) until SIGTERM/SIGINT."""
    _leave_on_sigterm_until_serving()
    settings = config.from_args(args)
    is_worker = args.ready_fd is not None
    serai_logging.configure(
        settings.log_format,
        settings.log_level,
        fields={"worker": args.worker_index or 0} if is_worker else None,
    )
    if not is_worker:
        taken = taken_port_message(settings)
        if taken:
            print(taken, file=sys.stderr)
            return 1
    loop_factory = event_loop_factory(settings.event_loop)
    if is_worker:
        worker = workers.Worker(args.worker_index or 0, args.ready_fd, args.supervisor_pid or 0)
        if not worker.watch_supervisor():
            return 1
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            return runner.run(serve(settings, games, worker))
    count = workers.worker_count(settings)
    if count > 1:
        return asyncio.run(supervise(settings, count))
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(serve(settings, games))


def event_loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The loop factory ``--event-loop`` names (None: asyncio's own); SystemExit, saying what
    to install, when it names uvloop and uvloop is not installed (an optional dependency)."""
    if name != "uvloop":
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        raise SystemExit(
            "serai serve: --event-loop uvloop needs the uvloop package, which is not installed "
            "(pip install uvloop), or use --event-loop asyncio"
        ) from None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def taken_port_message(settings: config.Settings) -> str:
    """One line saying which of the ports serai would listen on is taken, or "" if none is.

    Checked before Redis starts, so a second ``serai serve`` says so at once, in one line, rather
    than after Redis is up and behind gRPC's own log line. (Another process may still take the
    port meanwhile: listening reports that too, later.)"""
    ports = [("--port", settings.port)]
    if settings.http_port is not None:
        ports.append(("--http-port", settings.http_port))
    for flag, port in ports:
        if port and not _can_listen(settings.host, port):
            return (
                f"serai: port {port} on {settings.host} is taken (another serai serve?): stop "
                f"what listens there, or choose another port with {flag}"
            )
    return ""


def _can_listen(host: str, port: int) -> bool:
    """Whether a listening socket can be bound on ``host:port`` now (as servers bind it, with
    SO_REUSEADDR, so a port in TIME_WAIT counts as free)."""
    try:
        addresses = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror:
        return True  # an unknown host: listening says so, in its own words
    for family, kind, proto, _name, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return False
    return True


def _leave_on_sigterm_until_serving() -> None:
    """Until serai listens (and takes SIGTERM for a graceful stop), SIGTERM exits at once,
    status 143, unwinding as it goes. The default action does that too, except for PID 1 (a
    container's main process), which ignores signals it has no handler for: a pod stopped
    while serai started (loading a large Redis file takes minutes) waited for SIGKILL."""

    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, leave)


async def supervise(settings: config.Settings, count: int) -> int:
    """Start Redis unless given one, then ``count`` workers (serai.commands.workers) on it."""
    try:
        url, where, embedded = _redis(settings)
    except EmbeddedRedisError as error:
        print(f"serai: {error}", file=sys.stderr)
        return 1
    try:
        store = await _connect(settings, url)
        if store is None:
            return 1
        await store.close()  # the workers open their own; this one only checked Redis answers
        place = {"SERAI_REDIS_CLUSTER": settings.redis_cluster or ""}
        place["SERAI_REDIS_URL"] = url or ""
        # The archive: the same for every worker; with the embedded Redis, the SQLite file of the
        # supervisor's data folder (the workers are given that Redis as a URL, so say it here).
        archive_url = settings.archive_url or ""
        if not archive_url and embedded is not None:
            archive_url = f"sqlite://{(settings.data_dir / SQLITE_FILE).resolve()}"
        place["SERAI_ARCHIVE_URL"] = archive_url
        redis_exit = embedded.exited if embedded is not None else None
        return await workers.supervise(settings, count, place, where, redis_exit)
    finally:
        if embedded is not None:
            embedded.stop()  # after the workers: they finish their in-flight moves first


def _redis(settings: config.Settings) -> tuple[str | None, str, EmbeddedRedis | None]:
    """Where Redis is: its URL (None for a cluster), that in words, and the embedded Redis
    started for it, if any (raises EmbeddedRedisError if that cannot start)."""
    if settings.redis_cluster:
        return None, f"Redis Cluster at {settings.redis_cluster}", None
    if settings.redis_url is not None:
        return settings.redis_url, f"Redis at {printable_url(settings.redis_url)}", None
    embedded = EmbeddedRedis(
        settings.data_dir,
        maxmemory=config.memory_bytes(settings.redis_maxmemory),
        appendfsync=settings.redis_fsync,
    )
    embedded.start()  # from the main thread: Redis outlives no thread of ours
    where = f"embedded Redis on {embedded.where}, data in {settings.data_dir.resolve()}"
    return embedded.url, where, embedded  # the URL holds its password: never print it


async def _connect(settings: config.Settings, url: str | None) -> Store | None:
    """The store, once it answers; None (having said why on stderr) if it cannot be used."""
    try:
        store = open_store(
            url or "",
            cluster=settings.redis_cluster,
            max_connections=settings.redis_connections,
            timeout=settings.redis_timeout,
            connect_timeout=settings.redis_connect_timeout,
            probe_interval=settings.redis_probe_seconds,
            replica_wait=(
                ReplicaWait(settings.redis_wait_replicas, settings.redis_wait_ms)
                if settings.redis_wait_replicas
                else None
            ),
        )
    except ValueError as error:
        print(f"serai: {error}; check --redis-url / --redis-cluster", file=sys.stderr)
        return None
    try:
        await store.ping()
    except StoreError as error:  # unreachable, or refused (a DB index past the server's range)
        print(f"serai: {error}; check --redis-url / --redis-cluster", file=sys.stderr)
        await store.close()
        return None
    return store


async def serve(
    settings: config.Settings, games: Registry | None = None, worker: workers.Worker | None = None
) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status. ``worker``: one of several processes
    on the port (see serai.commands.workers), which reports to its supervisor when listening."""
    log = structlog.get_logger("serai.serve")
    try:
        url, where, embedded = _redis(settings)
    except EmbeddedRedisError as error:
        print(f"serai: {error}", file=sys.stderr)
        return 1
    store = await _connect(settings, url)
    if store is None:
        if embedded is not None:
            embedded.stop()
        return 1
    usable, archive = await _open_archive(settings, embedded is not None)
    if not usable:
        await store.close()
        if embedded is not None:
            embedded.stop()
        return 1
    try:
        games = games if games is not None else registry.load()
        for broken in games.broken:
            log.warning("plugin not loaded", game=broken.name, error=broken.error)
        matches = _matches(settings, store, games, archive)
        webhooks = _webhooks(settings, matches)
        runtime = Runtime(matches, webhooks=webhooks, community=_community(settings, matches))
        servers = await _servers(settings, runtime, games, reuse_port=worker is not None)
        if not await servers.listen(settings, worker is not None):
            return 1
        if webhooks is not None:  # never called: serai's own ports, as bound
            ports = (servers.port, servers.http_port, servers.metrics_port, settings.port)
            webhooks.own_ports = tuple(p for p in ports if p)
        runtime.start()  # once per process, whatever transports it serves
        _tune_garbage_collection()
        if worker is None:
            servers.say_where(settings, where)
        else:
            log.info("worker listening", worker=worker.index, pid=os.getpid(), port=servers.port)
            worker.listening(servers.port)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        lost = await _until_stopped(stop, embedded)
        if lost:  # exit non-zero, so that whatever runs serai restarts it with its Redis
            print(f"serai: {lost}; stopping", file=sys.stderr, flush=True)
        log.info("stopping", grace_seconds=settings.grace_seconds)
        await servers.stop(settings.grace_seconds, runtime)
        log.info("stopped")
        return 1 if lost else 0
    finally:
        if archive is not None:
            await archive.close()
        await store.close()
        if embedded is not None:
            embedded.stop()


def _matches(
    settings: config.Settings, store: Store, games: Registry, archive: Archive | None
) -> Matches:
    return Matches(
        store,
        games,
        cache_size=settings.cache_size,
        watch_block_ms=settings.watch_block_ms,
        idle_seconds=settings.idle_seconds,
        limits=Limits(
            max_open_matches=settings.max_open_matches,
            max_open_per_peer=settings.max_open_per_peer,
            max_open_total=settings.max_open_total,
            # Watches share the runtime's hub (two Redis connections per node), not the pool
            max_watches=settings.max_watches,
            max_watches_per_peer=settings.max_watches_per_peer,
            max_watches_per_match=settings.max_watches_per_match,
        ),
        sweep_seconds=settings.sweep_seconds,
        allow_chosen_seeds=settings.chosen_seeds == "allow",
        archive=archive,
        keep_finished_seconds=settings.keep_finished,
    )


def _webhooks(settings: config.Settings, matches: Matches) -> Webhooks | None:
    """The process's webhook worker, when the operator allows some host (else none runs)."""
    if not settings.webhook_allow_host:
        return None
    allowed = AllowedHosts.parse(settings.webhook_allow_host)
    return Webhooks(matches.store, matches.registry, WebhookSettings(allowed), matches.now_ms)


def _community(settings: config.Settings, matches: Matches) -> Community:
    return Community(
        matches,
        people_vs_bots=settings.rate_people_against_bots,
        queue_move_seconds=settings.queue_move_seconds,
        provisional_games=settings.provisional_games,
    )


def _handlers(
    settings: config.Settings,
    matches: Matches,
    community: Community | None = None,
    house: HousePasses | None = None,
) -> MatchHandlers:
    """One set of handlers for both ports: a key's revocation and move rate, the list and create
    rates and the response caches are the process's, not each port's (per-connection move
    limits stay apart: a connection's peer names its port's protocol). ``house``: the passes
    of this process's house bots, which the handlers accept as a key."""
    auth = Authenticator(
        matches.store.api_keys,
        required=settings.require_api_key,
        count_tenants=settings.metrics_tenants,
        house=house,
    )
    return MatchHandlers(
        matches,
        RateLimiter(settings.move_rate, settings.move_burst),
        RateLimiter(settings.list_rate, settings.list_burst),
        auth,
        create_limiter=RateLimiter(settings.create_rate, settings.create_burst),
        play_open_seconds=settings.play_open_seconds,
        community=community,
    )


async def _servers(
    settings: config.Settings, runtime: Runtime, games: Registry, *, reuse_port: bool
) -> _Servers:
    """The process's servers, not yet listening: gRPC, and HTTP (with its house bots) and a
    metrics port where the settings ask for them. The house bots play for POST /bots (on the
    HTTP port) and for the queue (--queue-bot-after)."""
    passes = HousePasses()
    handlers = _handlers(settings, runtime.matches, runtime.community, passes)
    grpc_server = await build_server(
        runtime.matches,
        max_message_bytes=settings.max_message_bytes,
        reuse_port=reuse_port,
        runtime=runtime,
        handlers=handlers,
        handshake_seconds=settings.header_seconds,
        idle_seconds=settings.grpc_idle_seconds,
        max_connections=settings.max_connections,
        max_connections_per_peer=settings.max_connections_per_peer,
    )
    servers = _Servers(grpc_server, reuse_port=reuse_port)
    wanted = settings.http_port is not None or settings.queue_bot_after > 0
    if settings.house_bots > 0 and wanted:
        # its target, this process's own gRPC port, is set once that listens
        servers.house = house_bots.load(
            "", games.games, limit=settings.house_bots, per_owner=settings.house_bots_per_client
        )
    if servers.house is not None and settings.queue_bot_after > 0:
        runtime.community.matchmaking.fill_with(
            house_bots.QueueBots(servers.house, passes.token), settings.queue_bot_after
        )
    elif settings.queue_bot_after > 0:
        structlog.get_logger("serai.serve").warning(
            "--queue-bot-after has no house bots to seat (--house-bots 0, or none installed)"
        )
    if settings.http_port is not None:
        # uvicorn: only if used
        from serai.transports.connect.connections import ConnectionLimits
        from serai.transports.connect.server import build_http_server

        servers.http = build_http_server(
            handlers,
            runtime,
            max_message_bytes=settings.max_message_bytes,
            allow_origins=settings.http_allow_origin,
            house_bots=servers.house,
            limits=ConnectionLimits(
                per_peer=settings.max_connections_per_peer, total=settings.max_connections
            ),
            header_seconds=settings.header_seconds,
            idle_seconds=settings.http_idle_seconds,
            metrics=settings.metrics_port == "http",
            metrics_token=settings.metrics_token,
            admin_token=settings.admin_token,
        )
    if settings.metrics_port.isdigit():
        from serai.transports.connect.server import build_metrics_server

        servers.metrics = build_metrics_server(runtime, settings.metrics_token)
    return servers


class _Servers:
    """The servers of one process: started in turn (each failure said in one line, the ones
    started stopped again) and stopped together."""

    def __init__(self, grpc_server: Any, *, reuse_port: bool) -> None:
        self.grpc = grpc_server
        self.reuse_port = reuse_port
        self.http: Any = None
        self.metrics: Any = None
        self.house: house_bots.HouseBots | None = None
        self.port = self.http_port = self.metrics_port = 0

    async def listen(self, settings: config.Settings, quiet: bool) -> bool:
        """Start listening on every port; False, having said why, if one cannot be had."""
        host = settings.host
        try:
            self.port = await self.grpc.start(host, settings.port)
        except (OSError, RuntimeError) as error:
            print(f"serai: cannot listen on {host}:{settings.port}: {error}", file=sys.stderr)
            return False
        if self.house is not None:
            self.house.target = house_bots.local_target(host, self.port)
        started = [(self.http, settings.http_port or 0, "--http-port")]
        if self.metrics is not None:
            started.append((self.metrics, int(settings.metrics_port), "--metrics-port"))
        for index, (server, port, flag) in enumerate(started):
            if server is None:
                continue
            try:
                bound = await server.start(host, port, reuse_port=self.reuse_port)
            except OSError as error:
                print(f"serai: cannot listen on {host}:{port} ({flag}): {error}", file=sys.stderr)
                await self.grpc.stop(0)
                for earlier, _, _ in started[:index]:
                    if earlier is not None:
                        await earlier.stop(0)
                return False
            if server is self.http:
                self.http_port = bound
            else:
                self.metrics_port = bound
        return True

    def say_where(self, settings: config.Settings, where: str) -> None:
        if self.metrics is not None:
            print(f"serai metrics listening on {settings.host}:{self.metrics_port}", flush=True)
        if self.http is not None:
            print(workers.http_listening_line(settings.host, self.http_port), flush=True)
            print(workers.web_client_line(settings.host, self.http_port), flush=True)
        print(f"serai listening on {settings.host}:{self.port} ({where})", flush=True)

    async def stop(self, grace_seconds: float, runtime: Runtime) -> None:
        if self.house is not None:
            await self.house.close()  # its bots are clients of this process: they go first
        stopping = [asyncio.ensure_future(self.grpc.stop(grace_seconds))]
        if self.http is not None:
            stopping.append(asyncio.ensure_future(self.http.stop(grace_seconds)))
        if self.metrics is not None:
            stopping.append(asyncio.ensure_future(self.metrics.stop(0)))
        await asyncio.sleep(0)  # each has begun: new calls are refused from here on
        # Then the open Watches end, so the grace is for moves; a client that calls again once
        # its Watch ended is refused (UNAVAILABLE: retry elsewhere), not cut short mid-call.
        await runtime.close()
        await asyncio.gather(*stopping)


async def _open_archive(
    settings: config.Settings, embedded_redis: bool
) -> tuple[bool, Archive | None]:
    """(usable, the archive of finished matches once it answers, its schema migrated): with
    --archive-url, that one; else, beside an embedded Redis, the SQLite file in the data folder;
    else none (a Redis of the operator's keeps finished matches, as before the archive: its
    replicas may be on several hosts, which one SQLite file cannot serve). Not usable (having
    said why on stderr): serve stops."""
    log = structlog.get_logger("serai.serve")
    if settings.archive_url is None and not embedded_redis:
        log.warning(
            "no archive of finished matches: they stay in Redis; give --archive-url "
            "(postgresql://..., or sqlite:///path on one host) to let them go"
        )
        return True, None
    try:
        archive = open_archive(settings.archive_url, settings.data_dir)
    except ValueError as error:
        print(f"serai: --archive-url: {error}", file=sys.stderr)
        return False, None
    try:
        await archive.get("")  # connects and migrates: fail now rather than at the first finish
    except ArchiveError as error:
        print(f"serai: the archive of finished matches: {error}", file=sys.stderr)
        await archive.close()
        return False, None
    return True, archive


async def _until_stopped(stop: asyncio.Event, embedded: EmbeddedRedis | None) -> str:
    """Wait for ``stop``, or for the embedded Redis to die: "" or why it died."""
    waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(stop.wait())]
    if embedded is not None:
        waits.append(asyncio.ensure_future(embedded.exited()))
    done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for waiting in waits:
        waiting.cancel()
    return "" if stop.is_set() else str(done.pop().result())


def _tune_garbage_collection() -> None:
    """Make the garbage collector's long pauses smaller and rarer: they stall every request in
    flight, so they are what a p99 sees.

    A full (generation 2) collection walks every tracked object. gc.freeze() leaves what startup
    made (modules, plugins, grpc, the server: about 52,000 objects) out of every later collection,
    which halves a full collection; the thresholds keep young collections as they are (700, 10)
    and make full ones ten times rarer (100 instead of 10 generation-1 collections between).
    Measured on serai x2 under floor.py's load (CPU time in gc callbacks, a worker serving ~30,000
    calls): untouched, 13 full collections of up to 105 ms; frozen, 7-12 of up to 57 ms; frozen
    with these thresholds, 0-1 of up to 49 ms, young ones at most 8 ms, and GC's CPU from 3.8% to
    1.5%. A larger young generation (5,000 or 50,000) made young collections the long ones (16 ms,
    82 ms).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 100)
