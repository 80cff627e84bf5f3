"""Which of redis-py's errors pass (StoreUnavailable: retry later) and which are refusals
(StoreError), said once for every room of the Redis store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from time import perf_counter
from typing import TYPE_CHECKING

from redis import exceptions as redis_errors

from serai.metrics import STORE_ERRORS, observe_store
from serai.store import StoreError, StoreFull, StoreUnavailable

if TYPE_CHECKING:
    from serai.store.redis.breaker import Breaker

# Failures that pass: a server down or loading, a cluster resharding or electing, a failover.
UNAVAILABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.MasterDownError,
    redis_errors.ReadOnlyError,
    redis_errors.RedisClusterException,  # no node of the cluster answers
    OSError,
)
REDIS_ERRORS = (*UNAVAILABLE, redis_errors.RedisError)


@asynccontextmanager
async def errors(op: str = "", breaker: Breaker | None = None) -> AsyncIterator[None]:
    """Raises the store's error for one of redis-py's raised inside. With ``op``, the block is
    one round trip (a command or a pipeline) timed under that name (see serai.metrics). With
    ``breaker``, the block is not entered while Redis is known down (StoreUnavailable at once),
    and a failure to reach Redis inside makes it ping now (see breaker.py)."""
    if breaker is not None:
        breaker.check()
    start = perf_counter()
    try:
        yield
    except REDIS_ERRORS as error:
        if breaker is not None and isinstance(error, UNAVAILABLE):
            breaker.suspect()
        raise store_error(error) from error
    if op:
        observe_store(op, perf_counter() - start)


def store_error(error: Exception) -> StoreError:
    """The store's error for one of redis-py's: unavailable, or a command refused (each counted
    in serai_store_errors by kind: every failure of the store passes here)."""
    if isinstance(error, UNAVAILABLE):
        STORE_ERRORS.labels("unavailable").inc()
        return StoreUnavailable(f"Redis cannot be reached: {error}")
    # A primary with min-replicas-to-write refuses writes while too few replicas keep up with
    # it (cut off from them): a state that passes, as a failover or their return ends it.
    if "NOREPLICAS" in str(error):
        STORE_ERRORS.labels("unavailable").inc()
        return StoreUnavailable(f"Redis refuses writes while too few replicas follow it: {error}")
    # Full (maxmemory with noeviction): it refuses writes until memory is freed or added, a
    # state that passes, not a bug. A script's write refused says so inside its error's text.
    if isinstance(error, redis_errors.OutOfMemoryError) or "OOM command not allowed" in str(error):
        STORE_ERRORS.labels("full").inc()
        return StoreFull(f"Redis is full and refuses writes: {error}")
    STORE_ERRORS.labels("refused").inc()
    return StoreError(f"Redis refused a command: {error}")
