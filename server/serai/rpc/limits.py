"""Rate limits on calls, keyed by whatever the call context gives: the peer today, a key later."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class RateLimiter:
    """A token bucket per key (the peer: one per client connection): ``rate`` per second on
    average, bursts of up to ``burst``. ``rate`` 0 allows everything. Keeps at most ``keys``
    buckets (least recently used dropped: a dropped one starts full again). Example::

        limiter = RateLimiter(rate=50, burst=100)
        if not limiter.allow(ctx.peer): ...   # RESOURCE_EXHAUSTED
    """

    def __init__(
        self,
        rate: float,
        burst: float,
        *,
        keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = max(burst, 1.0)
        self._keys = keys
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        if self.rate <= 0:
            return True
        now = self._clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        if len(self._buckets) > self._keys:
            self._buckets.popitem(last=False)
        return allowed
