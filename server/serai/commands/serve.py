"""``serai serve``: run the game server.

With no --redis-url, a private redis-server is started with its append-only file in --data-dir
(./data by default) and stopped on exit; a restart on the same folder finds every match. With
--redis-url (redis://host:port/db, unix:///path/redis.sock, redis+sentinel://host:port,.../name or
redis+cluster://host:port,...) or --redis-cluster host:port,..., that Redis is used and left alone.
Any number of replicas may share one Redis: they keep nothing of their own.
SIGTERM or SIGINT stops the server gracefully: new requests are refused, in-flight moves finish.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

import structlog

from serai import config, registry
from serai import logging as serai_logging
from serai.matches import Matches
from serai.registry import Registry
from serai.service import build_server
from serai.store import StoreUnavailable
from serai.store.embedded import EmbeddedRedis, EmbeddedRedisError
from serai.store.redis_store import open_store


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the gRPC game server (embedded Redis unless --redis-url)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    config.add_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, games: Registry | None = None) -> int:
    """Serve the installed games (or ``games``, for tests) until SIGTERM/SIGINT."""
    settings = config.from_args(args)
    serai_logging.configure(settings.log_format, settings.log_level)
    return asyncio.run(serve(settings, games))


async def serve(settings: config.Settings, games: Registry | None = None) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status."""
    log = structlog.get_logger("serai.serve")
    embedded: EmbeddedRedis | None = None
    url = settings.redis_url
    if settings.redis_cluster:
        url = None
        where = f"Redis Cluster at {settings.redis_cluster}"
    elif url is None:
        embedded = EmbeddedRedis(settings.data_dir)
        try:
            embedded.start()  # from the main thread: Redis outlives no thread of ours
        except EmbeddedRedisError as error:
            print(f"serai: {error}", file=sys.stderr)
            return 1
        url = embedded.url
        where = f"embedded Redis on port {embedded.port}, data in {settings.data_dir.resolve()}"
    else:
        where = f"Redis at {_without_password(url)}"
    try:
        store = open_store(
            url or "", cluster=settings.redis_cluster, max_connections=settings.redis_connections
        )
    except ValueError as error:
        print(f"serai: {error}; check --redis-url / --redis-cluster", file=sys.stderr)
        if embedded is not None:
            embedded.stop()
        return 1
    try:
        try:
            await store.ping()
        except StoreUnavailable as error:
            print(f"serai: {error}; check --redis-url / --redis-cluster", file=sys.stderr)
            return 1
        games = games if games is not None else registry.load()
        for broken in games.broken:
            log.warning("plugin not loaded", game=broken.name, error=broken.error)
        matches = Matches(
            store,
            games,
            cache_size=settings.cache_size,
            watch_block_ms=settings.watch_block_ms,
            idle_seconds=settings.idle_seconds,
            max_open_per_client=settings.max_open_matches,
            sweep_seconds=settings.sweep_seconds,
        )
        server = await build_server(
            matches,
            max_message_bytes=settings.max_message_bytes,
            move_rate=settings.move_rate,
            move_burst=settings.move_burst,
        )
        try:
            port = await server.start(settings.host, settings.port)
        except (OSError, RuntimeError) as error:
            print(
                f"serai: cannot listen on {settings.host}:{settings.port}: {error}", file=sys.stderr
            )
            return 1
        print(f"serai listening on {settings.host}:{port} ({where})", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        log.info("stopping", grace_seconds=settings.grace_seconds)
        await server.stop(settings.grace_seconds)
        log.info("stopped")
        return 0
    finally:
        await store.close()
        if embedded is not None:
            embedded.stop()


def _without_password(url: str) -> str:
    """The URL as it may be printed: a password in it replaced by ***."""
    scheme, sep, rest = url.partition("://")
    credentials, at, hosts = rest.rpartition("@")
    if not (sep and at and ":" in credentials):
        return url
    return f"{scheme}://{credentials.partition(':')[0]}:***@{hosts}"
