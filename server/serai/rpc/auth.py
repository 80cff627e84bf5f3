"""Who is calling, by API key: the one place either transport turns a call's headers into the
:class:`~serai.rpc.context.CallContext` its handler gets.

A key comes as ``authorization: Bearer sk_<name>.<secret>`` or ``x-serai-key: sk_...`` (gRPC
metadata or HTTP headers alike). With a valid key the call acts for that key's app (its
*tenant*: it sees only the matches made with the same key, and the key's limits count it);
without one it is the "" tenant, unless keys are required, when every method but ListGames
answers UNAUTHENTICATED. A wrong, unknown or revoked key is always refused, and says no more
than that (the audit log says which). Keys are read from the store at most once a
``cache_seconds`` per process, so a revocation reaches every replica within that. A
:class:`HousePasses` token is this process's own house bots' (a bot the queue seated beside a
player, which plays in that player's tenant though the player holds no API key). Example::

    auth = Authenticator(store.api_keys, required=True)
    ctx = await auth.context("GetMatch", "ipv4:10.0.0.7:5678", [("x-serai-key", token)])
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NoReturn, Protocol

import structlog

from serai.metrics import count_tenant_call
from serai.rpc.context import CallContext, Principal
from serai.rpc.status import Code, RpcError
from serai.store.api_keys import NAME, ApiKey, secret_hash, split_token

if TYPE_CHECKING:
    from serai.rpc.player_tokens import PlayerTokens

# The methods a caller may use without a key: the catalogue of games, for a landing page.
OPEN_METHODS = frozenset({"ListGames"})
HEADERS = ("authorization", "x-serai-key")

_audit = structlog.get_logger("serai.audit")

HOUSE_PREFIX = "house_"
# The supervisor of --workers gives its workers one secret here: a bot of one worker may connect
# to another (SO_REUSEPORT spreads connections), which must know its pass.
HOUSE_PASS_VARIABLE = "SERAI_HOUSE_PASS"


class HousePasses:
    """The credentials of this process's house bots: ``house_<secret>.<tenant>``, with a secret
    made at start (or given by the supervisor, see :data:`HOUSE_PASS_VARIABLE`), kept in memory
    and handed only to the bots this process plays on its own port. So a house bot the queue
    seated plays in the player's tenant as an app's key would, and no person or app holds a
    credential that could do the same."""

    def __init__(self, secret: str = "") -> None:
        self._secret = secret or os.environ.get(HOUSE_PASS_VARIABLE) or secrets.token_urlsafe(32)

    def token(self, tenant: str) -> str:
        """The pass of a bot playing in ``tenant`` (an API key's name; "" for none)."""
        return f"{HOUSE_PREFIX}{self._secret}.{tenant}"

    def tenant_of(self, token: str) -> str | None:
        """The tenant a pass of this process names; None for any other token."""
        secret, dot, tenant = token.removeprefix(HOUSE_PREFIX).partition(".")
        if not token.startswith(HOUSE_PREFIX) or not dot:
            return None
        # as bytes: a header's text may hold any latin-1 character, which str comparison refuses
        same = hmac.compare_digest(secret.encode(), self._secret.encode())
        return tenant if same else None


# A key as last read from the store: when (the clock's time), the key, its principal.
_Cached = tuple[float, ApiKey | None, Principal | None]


class KeySource(Protocol):
    async def get(self, name: str) -> ApiKey | None: ...

    async def list(self) -> list[ApiKey]: ...


def token_of(headers: Iterable[tuple[str, str | bytes]]) -> str:
    """The API key a call's headers carry ("" for none); header names lower-case, as gRPC and
    ASGI give them."""
    for name, value in headers:
        if name in HEADERS:
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            if name == "authorization":
                scheme, _, rest = value.partition(" ")
                if scheme.lower() != "bearer":
                    continue
                value = rest
            return value.strip()
    return ""


class Authenticator:
    """API keys to principals, with a per-process cache of at most ``cache_seconds``."""

    def __init__(
        self,
        keys: KeySource,
        *,
        required: bool = False,
        cache_seconds: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        count_tenants: bool = False,
        house: HousePasses | None = None,
    ) -> None:
        self.keys = keys
        self.house = house
        self.required = required
        # calls counted by key name on /metrics (every tenant's name shown there): opt-in
        self.count_tenants = count_tenants
        self.cache_seconds = cache_seconds
        self._clock = clock
        self._cache: dict[str, _Cached] = {}
        # Each key's player-token check, kept while its rules stay the same (a JWKS client's
        # cache outlives the key's cache_seconds).
        self._players: dict[str, PlayerTokens] = {}

    async def context(
        self, method: str, peer: str, headers: Iterable[tuple[str, str | bytes]]
    ) -> CallContext:
        """The call's context; RpcError(UNAUTHENTICATED) for a bad key, or none when one is due."""
        token = token_of(headers)
        if not token:
            if self.required and method not in OPEN_METHODS:
                raise RpcError(
                    Code.UNAUTHENTICATED,
                    "this server needs an API key: send it as `authorization: Bearer <key>` "
                    "or `x-serai-key: <key>`",
                )
            if self.count_tenants:
                count_tenant_call("")
            return CallContext(peer)
        principal = await self.principal(token, method)
        if self.count_tenants:
            count_tenant_call(principal.name)
        return CallContext(peer, principal, token)

    async def keys_exist(self) -> bool:
        """Whether any API key was ever made (revoked ones too): a server with keys is one
        whose operator means callers to be known (see serai.transports.connect.bots)."""
        return bool(await self.keys.list())

    async def principal(self, token: str, method: str = "") -> Principal:
        if self.house is not None and token.startswith(HOUSE_PREFIX):
            tenant = self.house.tenant_of(token)
            if tenant is None:
                self._refuse(None, "not this server's house pass", method)
            return Principal(tenant)  # the server's own limits
        parts = split_token(token)
        if parts is None:
            self._refuse(None, "malformed", method)
        name, secret = parts
        now = self._clock()
        cached = self._cache.get(name)
        if cached is None or now - cached[0] >= self.cache_seconds:
            if NAME.fullmatch(name) is None:
                self._refuse(None, "malformed", method)
            cached = await self._fetch(name, now)
        _fetched, key, principal = cached
        if key is None or principal is None:
            self._refuse(name, "unknown", method)
        if not hmac.compare_digest(key.secret_hash, secret_hash(secret)):
            self._refuse(name, "wrong secret", method)
        if key.revoked_ms:
            self._refuse(name, "revoked", method)
        return principal

    async def _fetch(self, name: str, now: float) -> _Cached:
        key = await self.keys.get(name)
        principal = None
        if key is not None:  # built once per fetch, not per call: a dataclass costs ~2 us
            principal = Principal(
                name,
                max_open_matches=key.max_open_matches or None,
                move_rate=key.move_rate,
                move_burst=key.move_burst,
                players=self._player_tokens(key),
            )
        if len(self._cache) > 10_000:  # names are the caller's choice: bounded
            self._cache.clear()
        cached = self._cache[name] = (now, key, principal)
        return cached

    def _player_tokens(self, key: ApiKey) -> PlayerTokens | None:
        rules = key.players
        if rules is None:
            self._players.pop(key.name, None)
            return None
        checker = self._players.get(key.name)
        if checker is None or checker.rules != rules:
            # PyJWT and cryptography are loaded for the keys that take player tokens only.
            from serai.rpc.player_tokens import PlayerTokens

            try:
                checker = self._players[key.name] = PlayerTokens(rules)
            except ValueError:  # a PEM that `serai keys` would not have stored
                _audit.warning("player token rules unusable", key=key.name)
                return None
        return checker

    def _refuse(self, name: str | None, reason: str, method: str) -> NoReturn:
        # the name only, never the secret; a name is logged only if it is one a key may have
        shown = name if name is not None and NAME.fullmatch(name) else None
        _audit.warning("api key refused", key=shown, reason=reason, rpc=method)
        raise RpcError(
            Code.UNAUTHENTICATED,
            "this API key is not valid (unknown, revoked or mistyped): ask the server's "
            "operator for a key",
        )
