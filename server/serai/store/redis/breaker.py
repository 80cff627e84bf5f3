"""Whether Redis answers, known without waiting on it: a probe pings Redis on a client of its own,
and while no PONG comes, the store's calls fail at once (StoreUnavailable) instead of each waiting
out a timeout; health (grpc.health.v1, ``/readyz``) reads the same state: one source of truth.

The probe pings every ``interval`` seconds while Redis answers, and gives a ping ``2 * interval``
to answer, twice in a row before calling Redis down (one late reply on a busy machine is not an
outage): a Redis hung (stopped, partitioned, stalled) is marked down within ``5 * interval``; a
refused connection (Redis killed) as soon as a call fails on it, as a call's failure wakes the
probe. While down it pings again every ``interval / 5``, so the store is back within about that of
Redis answering. A stall of this process's own event loop (the ping's reply waiting behind our
own work) is not taken for Redis down: a ping whose deadline fired late is sent again.

Example::

    breaker = Breaker(probe_client.ping, interval=0.5)
    breaker.start()                      # on the running loop; Runtime.start does it
    breaker.check()                      # raises StoreUnavailable while Redis is down
    breaker.on_change(lambda up: ...)    # health follows
    await breaker.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from serai.metrics import STORE_ERRORS
from serai.store import StoreUnavailable

DEFAULT_PROBE_INTERVAL = 0.5
# A deadline that fired this much later than due (as a share of the ping's wait) says our own
# loop was busy, not that Redis was silent.
_LATE_SHARE = 0.25
# Pings in a row that get no reply in time before Redis counts as down.
_MISSES_DOWN = 2

log = structlog.get_logger("serai.store")


class Breaker:
    """Redis up or down, as the last ping said; see the module docstring.

    ``probe`` sends one ping (a coroutine that raises if Redis does not answer). Until
    :meth:`start`, Redis counts as up and nothing is probed (one-off commands, tests)."""

    def __init__(
        self, probe: Callable[[], Awaitable[Any]], *, interval: float = DEFAULT_PROBE_INTERVAL
    ) -> None:
        self.up = True
        self.interval = interval
        self.reason = ""  # why the last ping failed, while down
        self.down_since = 0.0  # time.monotonic() of the ping that found it down
        self._probe = probe
        self._listeners: list[Callable[[bool], None]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def check(self) -> None:
        """Raise StoreUnavailable at once while Redis is known down."""
        if not self.up:
            raise self.unavailable()

    def unavailable(self) -> StoreUnavailable:
        STORE_ERRORS.labels("unavailable").inc()
        down_for = time.monotonic() - self.down_since
        return StoreUnavailable(
            f"Redis cannot be reached: no answer to a ping for {down_for:.1f} s ({self.reason})"
        )

    def suspect(self) -> None:
        """A call found Redis unavailable: ping now rather than at the next interval."""
        if self.up and self._task is not None:
            self._wake.set()

    def on_change(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(up)`` on the loop each time Redis goes down or comes back."""
        self._listeners.append(listener)

    def start(self) -> None:
        """Probe from now on (on the running loop); a second call does nothing."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        missed = 0  # pings in a row with no reply in time
        while True:
            wait = 2 * self.interval
            deadline = loop.time() + wait
            try:
                async with asyncio.timeout(wait):
                    await self._probe()
            except asyncio.CancelledError:
                raise
            except TimeoutError:
                if loop.time() - deadline > _LATE_SHARE * wait:
                    continue  # our loop was late, not Redis: ask again
                missed += 1
                if self.up and missed < _MISSES_DOWN:
                    continue  # ask again at once
                self._set(False, f"no reply within {wait:g} s, {missed} times in a row")
            except Exception as error:  # whatever the client raises: refused, reset, OOM...
                self._set(False, str(error) or type(error).__name__)
            else:
                missed = 0
                self._set(True, "")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval if self.up else self.interval / 5):
                    await self._wake.wait()

    def _set(self, up: bool, reason: str) -> None:
        if up == self.up:
            return
        self.up = up
        if up:
            log.warning("store answers again", down_seconds=time.monotonic() - self.down_since)
        else:
            self.down_since = time.monotonic()
            self.reason = reason
            log.warning("store does not answer", reason=reason)
        for listener in self._listeners:
            listener(up)
