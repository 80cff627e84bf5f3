"""Who a call's player is: a guest (a key the client made itself) or the player an app's token
vouches for (checked by :mod:`serai.rpc.player_tokens`, loaded only for keys that take player
tokens, with PyJWT and cryptography). A refusal is UNAUTHENTICATED, says no more than that, and
is audit-logged with the key's name and the reason (never the token). Example::

    player = await player_of(context.principal, token, "JoinMatch")   # Player(id="u-17", ...)
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, NoReturn

import structlog

from serai.rpc.status import Code, RpcError

# A guest key: made by the client (see guest_of), never a JWT (those start "eyJ").
GUEST_PREFIX = "guest_"
GUEST_KEY = re.compile(r"guest_[A-Za-z0-9_-]{43}")

_audit = structlog.get_logger("serai.audit")


@dataclass(frozen=True, slots=True)
class Player:
    """A player an app vouched for: its id (the token's ``sub``) and display name ("": none)."""

    id: str
    name: str


class PlayerTokenRefused(Exception):
    """A player token that does not pass; ``reason`` is for the audit log, not the caller."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def refuse(key: str | None, reason: str, method: str, message: str) -> NoReturn:
    """Audit-log a refused player token by the key's name and the reason (never the token), and
    raise UNAUTHENTICATED with ``message``."""
    _audit.warning("player token refused", key=key, reason=reason, rpc=method)
    raise RpcError(Code.UNAUTHENTICATED, message)


def guest_of(token: str) -> Player | None:
    """The guest a guest key names (None: ``token`` is no guest key): a client with no app to
    vouch for its player (a browser's "Play rated") makes the key itself, 32 random bytes, and
    is that guest for as long as it keeps it. No signature to check and nothing stored: the id
    is the key's hash, which only its holder can present; a guest's matches and ratings are its
    caller's API key's (tenant's), as an app's players' are."""
    if not token.startswith(GUEST_PREFIX):
        return None
    if GUEST_KEY.fullmatch(token) is None:
        raise RpcError(
            Code.UNAUTHENTICATED,
            f"a guest key is {GUEST_PREFIX!r} and 43 base64url characters (32 random bytes): "
            "make a new one",
        )
    return Player("guest:" + hashlib.sha256(token.encode()).hexdigest(), "")


async def player_of(principal: Any, token: str, method: str) -> Player:
    """The player ``token`` names for the app whose key the call carries (``principal``, a
    :class:`serai.rpc.context.Principal` or None), or UNAUTHENTICATED. A guest key
    (:func:`guest_of`) names a guest, with or without a key."""
    guest = guest_of(token)
    if guest is not None:
        return guest
    if principal is None:
        refuse(
            None,
            "no api key",
            method,
            "a player token needs the API key of the app that signed it: send the key with the "
            "call as `authorization: Bearer <key>`",
        )
    checker = principal.players  # a serai.rpc.player_tokens.PlayerTokens, or None
    if checker is None:
        refuse(
            principal.name,
            "key takes no player tokens",
            method,
            "this API key takes no player tokens: its operator registers how they are checked "
            "(serai keys create or set, --player-token-secret, --player-token-public-key or "
            "--player-token-jwks-url)",
        )
    try:
        return await checker.verify(token)
    except PlayerTokenRefused as refused:
        refuse(
            principal.name,
            refused.reason,
            method,
            "this player token is not valid (expired, badly signed, or made for another app or "
            "server): ask the app for a fresh one",
        )
