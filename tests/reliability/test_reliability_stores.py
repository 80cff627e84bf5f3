"""The store behind Sentinel and Cluster addresses: URL forms, and a real Sentinel that names the
master ``serai serve`` then uses."""

from __future__ import annotations

import subprocess
import time

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.cli import build_parser
from serai.config import from_args
from serai.store.embedded import free_port, ping, redis_server_binary
from serai.store.redis_store import RedisStore, open_store, parse_sentinel_url


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


@pytest.mark.slow
def test_serve_finds_its_master_through_a_real_sentinel(start_serve, redis_server, tmp_path):
    port = free_port()
    config = tmp_path / "sentinel.conf"  # Sentinel rewrites its config file: it must be writable
    config.write_text(
        f"bind 127.0.0.1\nport {port}\ndir {tmp_path}\n"
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
        server = start_serve("--redis-url", f"redis+sentinel://127.0.0.1:{port}/serai-main/0")
        assert "Redis at redis+sentinel://" in server.log()
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id
        import redis

        client = redis.Redis(port=redis_server.port)  # it landed on the master the Sentinel named
        assert client.exists(f"serai:{{{match_id}}}:match")
        client.close()
    finally:
        sentinel.terminate()
        sentinel.wait(10)
