"""Which of redis-py's errors pass (StoreUnavailable: retry later) and which are refusals
(StoreError), said once for every room of the Redis store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis import exceptions as redis_errors

from serai.store import StoreError, StoreFull, StoreUnavailable

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
async def errors() -> AsyncIterator[None]:
    """Raises the store's error for one of redis-py's raised inside."""
    try:
        yield
    except REDIS_ERRORS as error:
        raise store_error(error) from error


def store_error(error: Exception) -> StoreError:
    """The store's error for one of redis-py's: unavailable, or a command refused."""
    if isinstance(error, UNAVAILABLE):
        return StoreUnavailable(f"Redis cannot be reached: {error}")
    # Full (maxmemory with noeviction): it refuses writes until memory is freed or added, a
    # state that passes, not a bug. A script's write refused says so inside its error's text.
    if isinstance(error, redis_errors.OutOfMemoryError) or "OOM command not allowed" in str(error):
        return StoreFull(f"Redis is full and refuses writes: {error}")
    return StoreError(f"Redis refused a command: {error}")
