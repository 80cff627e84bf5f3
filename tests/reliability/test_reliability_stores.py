"""The store behind Sentinel and Cluster addresses: URL forms, a real Sentinel that names the
master ``serai serve`` then uses, and the Sentinel store's connection pool waiting when full."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.cli import build_parser
from serai.config import from_args
from serai.store import StoreUnavailable
from serai.store.embedded import free_port, ping, redis_server_binary
from serai.store.redis.connect import parse_sentinel_url, printable_url
from serai.store.redis.store import RedisStore, open_store


def test_sentinel_urls_name_the_sentinels_service_database_and_password():
    assert parse_sentinel_url("redis+sentinel://h1:26379,h2:26380/mymaster") == (
        [("h1", 26379), ("h2", 26380)],
        "mymaster",
        0,
        None,
    )
    assert parse_sentinel_url("redis+sentinel://:s%40cret@h:1/m/3") == (
        [("h", 1)],
        "m",
        3,
        "s@cret",
    )
    for bad in ("redis+sentinel://h:1", "redis+sentinel://h/m", "redis+sentinel://h:1/m/x"):
        with pytest.raises(ValueError):
            parse_sentinel_url(bad)


@pytest.mark.parametrize(
    "url", ["redis+sentinel://:s3cretpw@h:26379", "redis+sentinel://s3cretpw@h:1/m/x"]
)
def test_a_bad_sentinel_url_is_refused_without_printing_its_password(url):
    with pytest.raises(ValueError) as refused:
        parse_sentinel_url(url)
    assert "s3cretpw" not in str(refused.value) and "***@h:" in str(refused.value)


def test_printable_urls_hide_passwords_and_keep_the_rest():
    assert printable_url("redis://:pw@host:6379/0") == "redis://:***@host:6379/0"
    assert printable_url("redis://me:pw@host:6379") == "redis://me:***@host:6379"
    assert printable_url("redis+cluster://pw@h1:1,h2:2") == "redis+cluster://***@h1:1,h2:2"
    assert printable_url("redis://host:6379/0") == "redis://host:6379/0"
    assert printable_url("redis://host:6379/0?password=pw&db=1") == (
        "redis://host:6379/0?password=***&db=1"
    )


def test_cluster_addresses_by_flag_url_or_environment(monkeypatch):
    from redis.asyncio.cluster import RedisCluster

    for store in (
        open_store("", cluster="127.0.0.1:7000,127.0.0.1:7001"),
        open_store("redis+cluster://:pw@127.0.0.1:7000,127.0.0.1:7001"),
    ):
        assert isinstance(store, RedisStore) and isinstance(store.client, RedisCluster)
    monkeypatch.setenv("SERAI_REDIS_CLUSTER", "10.0.0.1:6379,10.0.0.2:6379")
    settings = from_args(build_parser().parse_args(["serve"]))
    assert settings.redis_cluster == "10.0.0.1:6379,10.0.0.2:6379"
    with pytest.raises(ValueError):
        open_store("", cluster="no-port-here")


@contextmanager
def running_sentinel(redis_server: Any, folder: Path) -> Iterator[str]:
    """A real Sentinel (redis-server --sentinel) naming the test Redis as master "serai-main":
    the store URL to reach it by."""
    port = free_port()
    config = folder / "sentinel.conf"  # Sentinel rewrites its config file: it must be writable
    config.write_text(
        f"bind 127.0.0.1\nport {port}\ndir {folder}\n"
        f"sentinel monitor serai-main 127.0.0.1 {redis_server.port} 1\n"
    )
    sentinel = subprocess.Popen(
        [redis_server_binary(), str(config), "--sentinel"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not ping("127.0.0.1", port):
            assert time.monotonic() < deadline, "the Sentinel did not start"
            time.sleep(0.05)
        yield f"redis+sentinel://127.0.0.1:{port}/serai-main/0"
    finally:
        sentinel.terminate()
        sentinel.wait(10)


def test_serve_finds_its_master_through_a_real_sentinel(start_serve, redis_server, tmp_path):
    with running_sentinel(redis_server, tmp_path) as url:
        server = start_serve("--redis-url", url)
        assert "Redis at redis+sentinel://" in server.log()
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id
        import redis

        client = redis.Redis(port=redis_server.port)  # it landed on the master the Sentinel named
        assert client.exists(f"serai:{{{match_id}}}:match")
        client.close()


def test_a_sentinel_store_queues_a_burst_beyond_its_connections(redis_server, tmp_path):
    """redis-py's Sentinel pool answers "Too many connections" at once; the store's waits."""

    async def scenario(url: str) -> None:
        store = RedisStore.for_sentinel(url, max_connections=2, timeout=10)
        try:
            await asyncio.gather(*(store.ping() for _ in range(60)))
            pool = store.client.connection_pool
            assert len(pool._available_connections) + len(pool._in_use_connections) <= 2
            await asyncio.gather(*(store.ping() for _ in range(60)))  # every slot came back
        finally:
            await store.close()

    with running_sentinel(redis_server, tmp_path) as url:
        asyncio.run(scenario(url))


def test_a_sentinel_store_gives_up_waiting_for_a_connection_after_its_timeout(
    redis_server, tmp_path
):
    async def scenario(url: str) -> None:
        store = RedisStore.for_sentinel(url, max_connections=1, timeout=0.5)
        pool = store.client.connection_pool
        try:
            held = await pool.get_connection()
            began = time.monotonic()
            with pytest.raises(StoreUnavailable, match="No connection available"):
                await store.ping()
            assert time.monotonic() - began >= 0.4
            await pool.release(held)
            await store.ping()  # the slot is free again
        finally:
            await store.close()

    with running_sentinel(redis_server, tmp_path) as url:
        asyncio.run(scenario(url))
