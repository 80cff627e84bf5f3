"""What the core holds callers to, as one value named as ``serai serve``'s flags name each limit,
so that a flag, the setting, the check and the message that refuses say the same word. 0 is no
limit, for each. Example::

    Matches(store, games, limits=Limits(max_open_per_peer=100, max_watches=20_000))

(The rates, per second, are the handlers' own: :class:`serai.rpc.limits.RateLimiter`.)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """``max_open_matches``: unfinished matches of one ``client_id`` (a label the client chooses,
    so no bound on a client that changes it; an API key's own limit replaces it for that key's
    calls); ``max_open_per_peer``: unfinished matches one caller created (its API key, else its
    address: see serai.rpc.limits.quota_key_of); ``max_open_total``: unfinished matches of the
    whole store; ``max_watches``: watches this process serves at once, ``max_watches_per_peer``
    those of one address, ``max_watches_per_match`` those of one match."""

    max_open_matches: int = 0
    max_open_per_peer: int = 0
    max_open_total: int = 0
    max_watches: int = 0
    max_watches_per_peer: int = 0
    max_watches_per_match: int = 0


NO_LIMITS = Limits()
"""Every limit off: the default of a core made without any (tests, an embedded server)."""
