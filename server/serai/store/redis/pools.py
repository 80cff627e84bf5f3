"""Connection pools that make a burst of requests wait for a connection (up to a timeout) rather
than fail, and cost less per checkout than redis-py's own waiting pool."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.sentinel import SentinelConnectionPool

from serai.store.redis.wire import quick_send


async def _take_slot(slots: asyncio.Semaphore, timeout: float | None) -> None:
    """One of a pool's connection slots, waiting up to ``timeout`` seconds (None: for ever) when
    all are taken, then ConnectionError as redis-py's BlockingConnectionPool raises; a free slot
    arms no timeout."""
    if not slots.locked():
        await slots.acquire()  # returns at once
        return
    try:
        async with asyncio.timeout(timeout):
            await slots.acquire()
    except TimeoutError:
        raise redis_errors.ConnectionError("No connection available.") from None


class BoundedPool(aioredis.ConnectionPool):
    """At most ``max_connections`` connections; a caller finding them all busy waits up to
    ``timeout`` seconds for one (None: for ever), then fails with ConnectionError, as redis-py's
    BlockingConnectionPool does.

    Cheaper per checkout than redis-py's BlockingConnectionPool, which takes a Condition, a
    timeout and a lock on every checkout and release (about a tenth of a SubmitMove's CPU): here
    a free connection costs a semaphore's fast path, and only a caller that must wait arms a
    timeout. Pool mutations that do not await need no lock, as asyncio runs one task at a time,
    unless another task holds the pool's ``_lock`` across an await: redis-py's maintenance
    notification handlers (on by default: redis-py 8.1 speaks RESP3 unless told otherwise, and
    enables them for a TCP host) and its re-authentication do, so then a checkout or release
    waits for that lock, as BlockingConnectionPool's do in maintenance.

    It uses redis-py internals (tested in tests/reliability/test_reliability_store_pool.py) and
    leaves out two things of redis-py's release: its AsyncAfterConnectionReleasedEvent (how a
    streaming credential provider re-authenticates connections) and its connection-count
    metrics. RedisStore.from_url takes redis-py's BlockingConnectionPool instead where they
    matter (see :func:`lean_pool_fits`).
    """

    def __init__(self, *, timeout: float | None = 20.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.connection_class = quick_send(self.connection_class)
        self._slots = asyncio.Semaphore(self.max_connections)
        self.timeout = timeout

    async def get_connection(self, *_args: Any, **_options: Any) -> AbstractConnection:
        await _take_slot(self._slots, self.timeout)
        try:
            if self._lock.locked():  # a maintenance handler is changing the pool: wait for it
                async with self._lock:
                    connection = self.get_available_connection()
            else:
                connection = self.get_available_connection()
        except BaseException:
            self._slots.release()
            raise
        try:
            await self.ensure_connection(connection)
        except BaseException:
            await self.release(connection)
            raise
        return connection

    async def release(self, connection: AbstractConnection) -> None:
        """Put ``connection`` back and free its slot, whatever happens: a connection that is
        not in use here (the pool was reset since) is not put back, and raises KeyError as
        redis-py's release does."""
        try:
            if self._lock.locked() or connection.should_reconnect():
                # As redis-py's release: under the lock that maintenance handlers hold, and a
                # connection marked by a maintenance notification is disconnected first.
                async with self._lock:
                    self._in_use_connections.remove(connection)
                    try:
                        if connection.should_reconnect():
                            await connection.disconnect()
                    finally:
                        self._available_connections.append(connection)
            else:  # nothing awaited: no other task runs in between
                self._in_use_connections.remove(connection)
                self._available_connections.append(connection)
        finally:
            self._slots.release()


class WaitingSentinelPool(SentinelConnectionPool):
    """redis-py's Sentinel pool, but a caller finding all ``max_connections`` busy waits up to
    ``wait_seconds`` for one (then ConnectionError, as BoundedPool), instead of failing at once
    with "Too many connections": a burst of requests queues rather than answers UNAVAILABLE.

    A slot is taken before redis-py's checkout and given back when the connection handed out is
    released (redis-py's own checkout releases a connection it could not connect: that one was
    never handed out, so its slot is given back here instead)."""

    def __init__(self, service_name: str, sentinel_manager: Any, **kwargs: Any) -> None:
        self.wait_seconds: float | None = kwargs.pop("wait_seconds", 20.0)
        super().__init__(service_name, sentinel_manager, **kwargs)
        self._slots = asyncio.Semaphore(self.max_connections)
        self._handed_out: set[AbstractConnection] = set()

    async def get_connection(self, *args: Any, **kwargs: Any) -> AbstractConnection:
        await _take_slot(self._slots, self.wait_seconds)
        try:
            connection = await super().get_connection(*args, **kwargs)
        except BaseException:
            self._slots.release()
            raise
        self._handed_out.add(connection)
        return connection

    async def release(self, connection: AbstractConnection) -> None:
        try:
            await super().release(connection)
        finally:
            if connection in self._handed_out:
                self._handed_out.discard(connection)
                self._slots.release()


def lean_pool_fits(connection_kwargs: Mapping[str, Any]) -> bool:
    """Whether :class:`BoundedPool` may serve connections made with ``connection_kwargs``:
    not with a ``credential_provider`` (a streaming one re-authenticates pooled connections on
    the release event that BoundedPool does not send) nor an ``event_dispatcher`` of the
    caller's (whose listeners would miss that event too). RESP3 and maintenance notifications
    (redis-py 8.1's defaults) are handled by BoundedPool itself."""
    return (
        connection_kwargs.get("credential_provider") is None
        and connection_kwargs.get("event_dispatcher") is None
    )
