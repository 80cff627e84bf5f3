"""Limits per caller: rate limits on calls, and the key a caller's quotas count under (the peer's
address today, an API key later)."""

from __future__ import annotations

import ipaddress
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable

from serai.matches import LimitExceeded


class RateLimiter:
    """A token bucket per key (the peer: one per client connection): ``rate`` per second on
    average, bursts of up to ``burst`` (0: twice the rate). ``rate`` 0 allows everything. Keeps at
    most ``keys`` buckets (least recently used dropped: a dropped one starts full again). Example::

        limiter = RateLimiter(rate=50, burst=100)
        limiter.check(ctx.peer, "moves", "on this connection")   # else RESOURCE_EXHAUSTED
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
        self.burst = max(burst or 2 * rate, 1.0)
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

    def check(self, key: str, calls: str, whose: str) -> None:
        """LimitExceeded once ``key`` is past the rate, in one sentence for every limit: "more
        than 5 ``calls`` per second (bursts of 10) ``whose``: slow down ..."."""
        if not self.allow(key):
            raise LimitExceeded(
                f"more than {self.rate:g} {calls} per second (bursts of {self.burst:g}) {whose}: "
                "slow down, and retry in a moment"
            )


def quota_key_of(peer: str) -> str:
    """The key a caller's quotas (its unfinished matches, its ListMatches rate) are counted under:
    ``peer:<host>``, from a peer as the transports write it (gRPC's ``ipv4:1.2.3.4:5678``,
    ``ipv6:%5B::1%5D:5678``, ``unix:...``; Connect's ``http:<host>:<port>``). "" for no peer.

    The host alone, not the port: a new connection is free, a new address is not. An IPv6 host
    counts by its /64 network, which one machine usually has whole (but ::1 as itself); an
    IPv4-mapped IPv6 address as the IPv4 one; every caller on a unix socket as one. Once callers
    carry API keys, the key replaces the peer here (``key:<id>``), and nothing that counts by it
    changes. Example::

        quota_key_of("ipv6:%5B2001:db8::7%5D:443")   # "peer:2001:db8::/64"
    """
    scheme, _, rest = urllib.parse.unquote(peer).partition(":")
    if scheme.startswith("unix"):
        return "peer:unix"
    host = rest.rpartition(":")[0] if ":" in rest else rest  # drop the port
    host = host.strip("[]").partition("%")[0]  # brackets, and an IPv6 zone (fe80::1%eth0)
    if not host:
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"peer:{host[:64]}"  # not an IP address (a name?): itself, shortened
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"peer:{address.ipv4_mapped}"
        if address.is_loopback:
            return f"peer:{address}"
        return f"peer:{ipaddress.IPv6Network((address, 64), strict=False)}"
    return f"peer:{address}"
