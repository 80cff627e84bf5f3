"""Fixtures of the reliability tests: a three-master Redis Cluster, and serai replicas.

- ``redis_cluster`` (session): three redis-server processes in cluster mode on loopback, flushed
  before each test that asks for it (``redis_cluster_nodes`` gives "host:port,...").
- ``start_replicas(n, *args)``: ``n`` ``serai serve`` subprocesses with ``args`` (a --redis-url or
  --redis-cluster), each on a free loopback port; stopped after the test.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_helpers import RedisCluster


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    with tempfile.TemporaryDirectory(prefix="serai-test-cluster-") as folder:
        cluster = RedisCluster(Path(folder)).start()
        try:
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture
def redis_cluster_nodes(redis_cluster: RedisCluster) -> str:
    import redis

    for port in redis_cluster.ports:
        client = redis.Redis(host="127.0.0.1", port=port)
        try:
            client.flushall()
        finally:
            client.close()
    return redis_cluster.nodes


@pytest.fixture
def start_replicas(start_serve: Callable[..., Any]) -> Callable[..., list[Any]]:
    """``start_replicas(n, *args)``: n ``serai serve --move-rate 0 ARGS`` processes."""

    def start(count: int, *args: str) -> list[Any]:
        return [
            start_serve("--move-rate", "0", "--sweep-seconds", "0.2", *args) for _ in range(count)
        ]

    return start
