"""Redis URLs to redis-py clients, each on the pool the store wants: one Redis, a Sentinel group
or a Redis Cluster, and URLs printed without their passwords.

The forms: one Redis (``redis://``, ``rediss://``, ``unix://``), a Sentinel group
(``redis+sentinel://[:password@]host:port[,host:port...]/service_name[/db]``) or a Redis Cluster
(``redis+cluster://[:password@]host:port[,host:port...]``, or the ``cluster`` argument).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import ExponentialWithJitterBackoff

from serai.store.redis.pools import BoundedPool, WaitingSentinelPool, lean_pool_fits

DEFAULT_MAX_CONNECTIONS = 1000
# How long a command may wait for its reply, and a new connection to be made (seconds). A read
# must outlast the Watch hub's blocking XREAD (1 s); a Redis that is down is told apart sooner by
# the store's probe (see breaker.py), so these bound only the calls already waiting on it.
DEFAULT_TIMEOUT = 5.0
DEFAULT_CONNECT_TIMEOUT = 2.0


def client_for(
    url: str,
    *,
    cluster: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> aioredis.Redis | RedisCluster:
    """A client of ``url`` (any of the forms above), or of the Redis Cluster whose nodes
    ``cluster`` lists ("host:port,host:port,..."; ``url`` is then ignored). ``timeout`` bounds
    each command's wait for its reply (and for a free connection), ``connect_timeout`` each new
    connection's, whatever the form (a plain URL's own ``?socket_timeout=`` still wins there)."""
    pool: dict[str, Any] = {
        "timeout": timeout,
        "connect_timeout": connect_timeout,
        "max_connections": max_connections,
    }
    if cluster:
        return cluster_client(_nodes(cluster), **pool)
    if url.startswith("redis+cluster://"):
        password, hosts, _path = _split_multi_host(url, "redis+cluster://")
        return cluster_client(_nodes(hosts), password=password, **pool)
    if url.startswith("redis+sentinel://"):
        return sentinel_client(url, **pool)
    return url_client(url, **pool)


def url_client(
    url: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    **connection: Any,
) -> aioredis.Redis:
    """``redis://host:port/db``, ``rediss://…`` or ``unix:///path/to/redis.sock``.

    ``timeout`` bounds every command (a hung Redis answers UNAVAILABLE instead of holding
    requests for ever); Watch blocks for less than that at a time. At most
    ``max_connections`` are open in the pool, plus the one that loads and commits share
    (see multiplexed.py); a request finding them all busy waits up to ``timeout`` for one
    (redis-py's default pool would fail it at once beyond 100). ``connection``:
    more of redis-py's connection options (``credential_provider``, ``protocol``, ...);
    with some of them, redis-py's own BlockingConnectionPool and command path serve the
    store instead of the leaner ones here (see pools.lean_pool_fits).
    """
    options: dict[str, Any] = {
        "max_connections": max_connections,
        "timeout": timeout,
        "decode_responses": False,
        "socket_timeout": timeout,
        "socket_connect_timeout": connect_timeout,
        **connection,
    }
    fits = lean_pool_fits({**options, **parse_url(url)})  # as from_url merges them
    pool_class = BoundedPool if fits else aioredis.BlockingConnectionPool
    return aioredis.Redis.from_pool(pool_class.from_url(url, **options))


def cluster_client(
    nodes: Sequence[tuple[str, int]],
    *,
    password: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> RedisCluster:
    """A Redis Cluster, found from any of its ``nodes``. Each match lives in one slot (its
    keys share a hash tag), so every script runs on one node."""
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in nodes],
        password=password,
        max_connections=max_connections,
        decode_responses=False,
        socket_timeout=timeout,
        socket_connect_timeout=connect_timeout,
        # A moved slot or a failover is retried briefly; a cluster that stays down answers
        # UNAVAILABLE within about a second instead of holding the request.
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries=2),
    )


def sentinel_client(
    url: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> aioredis.Redis:
    """The master a Sentinel group names (``redis+sentinel://…``); a failover is followed:
    the next command after it goes to the new master. A command finding all
    ``max_connections`` busy waits up to ``timeout`` for one (:class:`WaitingSentinelPool`)."""
    sentinels, service, db, password = parse_sentinel_url(url)
    sentinel = Sentinel(
        sentinels,
        sentinel_kwargs={
            "password": password,
            "socket_timeout": min(timeout, 5.0),
            "socket_connect_timeout": connect_timeout,
        },
        password=password,
        socket_timeout=timeout,
        socket_connect_timeout=connect_timeout,
    )
    return sentinel.master_for(
        service,
        connection_pool_class=WaitingSentinelPool,
        db=db,
        decode_responses=False,
        max_connections=max_connections,
        wait_seconds=timeout,
    )


def _split_multi_host(url: str, scheme: str) -> tuple[str | None, str, str]:
    """(password, "h:p,h:p", path) of ``scheme[:password@]h:p,h:p[/path]``."""
    rest = url[len(scheme) :]
    hosts, _, path = rest.partition("/")
    password: str | None = None
    if "@" in hosts:
        credentials, _, hosts = hosts.rpartition("@")
        password = unquote(credentials.partition(":")[2] or credentials) or None
    return password, hosts, path


def _nodes(text: str) -> list[tuple[str, int]]:
    nodes = []
    for item in text.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not (sep and host and port.isdigit()):
            raise ValueError(f"{item.strip()!r} is not host:port (give host:port,host:port,...)")
        nodes.append((host.strip("[]"), int(port)))
    return nodes


def printable_url(url: str) -> str:
    """The URL as it may be printed: what it holds before ``@`` and a ``password=`` query value
    (redis-py reads both as the password) replaced by ***.

    >>> printable_url("redis+sentinel://:pw@h1:26379/mymaster")
    'redis+sentinel://:***@h1:26379/mymaster'
    >>> printable_url("redis://h:6379/0?password=pw&db=1")
    'redis://h:6379/0?password=***&db=1'
    """
    url = re.sub(r"([?&]password=)[^&#]*", r"\1***", url)
    scheme, sep, rest = url.partition("://")
    hosts_part, slash, path = rest.partition("/")
    credentials, at, hosts = hosts_part.rpartition("@")
    if not (sep and at):
        return url
    user, colon, _password = credentials.partition(":")
    shown = f"{user}:***" if colon else "***"  # with no colon, our multi-host forms read a password
    return f"{scheme}://{shown}@{hosts}{slash}{path}"


def parse_sentinel_url(url: str) -> tuple[list[tuple[str, int]], str, int, str | None]:
    """(sentinels, service name, db, password) of a ``redis+sentinel://`` URL.

    >>> parse_sentinel_url("redis+sentinel://:pw@h1:26379,h2:26379/mymaster/2")
    ([('h1', 26379), ('h2', 26379)], 'mymaster', 2, 'pw')
    """
    password, hosts, path = _split_multi_host(url, "redis+sentinel://")
    service, _, db = path.strip("/").partition("/")
    shown = printable_url(url)
    if not service:
        raise ValueError(
            f"{shown!r} names no service: redis+sentinel://host:port[,host:port]/service_name[/db]"
        )
    if db and not db.isdigit():
        raise ValueError(f"{shown!r}: the database after the service name must be a number")
    return _nodes(hosts), service, int(db or 0), password
