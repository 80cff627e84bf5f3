"""Who is calling, as the handlers see it: the caller's address and the app whose API key it
carries. Its own module so that authentication (which makes it) and the handlers (which read it)
need not import each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from serai.rpc.limits import quota_key_of

if TYPE_CHECKING:
    from serai.rpc.player_tokens import PlayerTokens


@dataclass(frozen=True, slots=True)
class Principal:
    """An app calling with a valid API key: the key's ``name`` is its tenant, and its limits
    replace the server's for it (None or 0: the server's)."""

    name: str
    max_open_matches: int | None = None
    move_rate: float = 0.0
    move_burst: float = 0.0
    players: PlayerTokens | None = None  # how its player tokens are checked (None: it takes none)


@dataclass(frozen=True, slots=True)
class CallContext:
    """What a handler may know of the call besides its request: who is calling (``peer``, in the
    transport's words, e.g. ``ipv4:10.0.0.7:51234``; the key of per-connection limits)."""

    peer: str = ""
    principal: Principal | None = None  # the app whose API key the call carries
    # The key itself, for a stream to check again as it goes (see MatchHandlers.recheck)
    api_key: str = field(default="", repr=False)

    @property
    def quota_key(self) -> str:
        """Whom the caller's quotas count (see :func:`serai.rpc.limits.quota_key_of`): its API
        key (``key:<name>``), else its address without the port, so that a new connection or
        client_id does not reset them."""
        if self.principal is not None:
            return f"key:{self.principal.name}"
        return quota_key_of(self.peer)

    @property
    def tenant(self) -> str:
        """Whose matches the caller sees: its API key's name ("" without a key)."""
        return "" if self.principal is None else self.principal.name
