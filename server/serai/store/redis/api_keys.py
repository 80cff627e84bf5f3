"""API keys in Redis: one hash per key, holding only a SHA-256 of its secret, so that neither a
copy of the store nor its operator can call as an app.

A key is ``sk_<name>.<secret>``: the name says which hash to read (one round trip, no scan), the
secret is checked against the hash in constant time (see :mod:`serai.rpc.auth`). Revoking keeps
the hash, marked, so that a revoked name is never handed out again to another app.

A key may also say how the app's *player tokens* are checked (see :mod:`serai.rpc.players`):
an HS256 signing secret serai made (stored as such: HMAC needs the secret itself to check a
signature, unlike the key, whose hash is enough; shown once, like the key), or a PEM public key
or JWKS URL (RS256/ES256), with the issuer and audience the tokens must carry. Example::

    keys = ApiKeys(store.client)
    made = await keys.create("acme", max_open_matches=100, players=PlayerTokenRules(secret=True))
    print(made.token, made.player_secret)  # shown once: only the key's hash is stored
    await keys.revoke("acme")
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from serai.store.redis.breaker import Breaker
from serai.store.redis.encoding import text
from serai.store.redis.errors import errors
from serai.store.redis.keys import API_KEYS_KEY, api_key_key

NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
TOKEN_PREFIX = "sk_"


class KeyExists(Exception):
    """A key of that name exists (or existed: revoked names are not reused)."""


def secret_hash(secret: str) -> str:
    """What a key stores of its secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def split_token(token: str) -> tuple[str, str] | None:
    """(name, secret) of a token shaped as :meth:`ApiKeys.create` makes them, or None if it is
    not one. The name is not checked against :data:`NAME` here (the caller does, before it
    reads the store for a name it has not seen)."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    name, dot, secret = token[3:].partition(".")  # 3: len(TOKEN_PREFIX)
    if not dot or not secret or not name:
        return None
    return name, secret


@dataclass(frozen=True, slots=True)
class PlayerTokenRules:
    """How an app's player tokens are checked: by ``secret`` (HS256; as asked for, True makes
    one, and as read, the secret), a ``public_key`` (PEM text) or a ``jwks_url`` (RS256, ES256),
    one of them; the ``issuer`` and ``audience`` they must name ("": not checked)."""

    secret: str | bool = ""
    public_key: str = ""
    jwks_url: str = ""
    issuer: str = ""
    audience: str = ""

    @property
    def method(self) -> str:
        """How tokens are verified, in words for ``serai keys list`` ("" for not at all)."""
        if self.secret:
            return "HS256 secret"
        if self.public_key:
            return "public key"
        if self.jwks_url:
            return f"JWKS {self.jwks_url}"
        return ""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One app's key as stored: its name (the tenant), its secret's hash and its limits (0: the
    server's own), when it was made and revoked (0: it is not)."""

    name: str
    secret_hash: str
    created_ms: int
    revoked_ms: int = 0
    max_open_matches: int = 0
    move_rate: float = 0.0
    move_burst: float = 0.0
    players: PlayerTokenRules | None = None  # None: the key takes no player tokens


@dataclass(frozen=True, slots=True)
class CreatedKey:
    """A key just made, with the token to hand the app (it is never shown again), and the
    player-token signing secret when one was asked for ("" otherwise; shown once too)."""

    key: ApiKey
    token: str
    player_secret: str = ""


class ApiKeys:
    """The API keys of one Redis (a redis-py client, plain or cluster: each call reads or writes
    one key, or the set of names). With the store's ``breaker``, a key is not looked up while
    Redis is known down: the call answers UNAVAILABLE at once (see breaker.py)."""

    def __init__(self, redis: Any, breaker: Breaker | None = None) -> None:
        self._redis = redis
        self._breaker = breaker

    async def create(
        self,
        name: str,
        *,
        max_open_matches: int = 0,
        move_rate: float = 0.0,
        move_burst: float = 0.0,
        players: PlayerTokenRules | None = None,
        now_ms: int | None = None,
    ) -> CreatedKey:
        if NAME.fullmatch(name) is None:
            raise ValueError(
                f"bad key name {name!r}: 1 to 40 lower-case letters, digits and -, "
                "starting with a letter or digit"
            )
        secret = secrets.token_urlsafe(32)
        player_fields, players = _player_fields(players)
        key = ApiKey(
            name=name,
            secret_hash=secret_hash(secret),
            created_ms=int(time.time() * 1000) if now_ms is None else now_ms,
            max_open_matches=max_open_matches,
            move_rate=move_rate,
            move_burst=move_burst,
            players=players,
        )
        async with errors():
            # HSETNX on the hash field: two creates of one name cannot both win
            if not await self._redis.hsetnx(api_key_key(name), "sha256", key.secret_hash):
                raise KeyExists(f"a key named {name!r} exists or existed: choose another name")
            await self._redis.hset(
                api_key_key(name),
                mapping={
                    "created": key.created_ms,
                    "max_open": max_open_matches,
                    "rate": repr(move_rate),
                    "burst": repr(move_burst),
                    **player_fields,
                },
            )
            await self._redis.sadd(API_KEYS_KEY, name)
        made_secret = players.secret if players is not None else ""
        return CreatedKey(key, f"{TOKEN_PREFIX}{name}.{secret}", str(made_secret))

    async def set_players(self, name: str, players: PlayerTokenRules | None) -> CreatedKey | None:
        """Replace how the key's player tokens are checked (None: it takes none any more); the
        key with the new signing secret if one was asked for; None if there is no active key."""
        key = await self.get(name)
        if key is None or key.revoked_ms:
            return None
        fields, players = _player_fields(players)
        async with errors():
            pipe = self._redis.pipeline(transaction=True)  # one key: fine on a cluster too
            pipe.hdel(api_key_key(name), *_PLAYER_FIELDS)
            if fields:
                pipe.hset(api_key_key(name), mapping=fields)
            await pipe.execute()
        made_secret = players.secret if players is not None else ""
        updated = ApiKey(**{**_asdict(key), "players": players})
        return CreatedKey(updated, "", str(made_secret))

    async def get(self, name: str) -> ApiKey | None:
        async with errors("api_key", self._breaker):
            fields = await self._redis.hgetall(api_key_key(name))
        return _key(name, fields) if fields else None

    async def list(self) -> list[ApiKey]:
        async with errors():
            names = sorted(text(n) for n in await self._redis.smembers(API_KEYS_KEY))
        keys = [await self.get(name) for name in names]
        return [key for key in keys if key is not None]

    async def revoke(self, name: str, now_ms: int | None = None) -> bool:
        """Mark the key revoked; False if there is no such key (or it was revoked already)."""
        key = await self.get(name)
        if key is None or key.revoked_ms:
            return False
        revoked = int(time.time() * 1000) if now_ms is None else now_ms
        async with errors():
            await self._redis.hset(api_key_key(name), "revoked", revoked)
        return True


# The hash's fields of a key's player-token rules.
_PLAYER_FIELDS = ("pt_secret", "pt_pem", "pt_jwks", "pt_iss", "pt_aud")


def _player_fields(
    players: PlayerTokenRules | None,
) -> tuple[dict[str, str], PlayerTokenRules | None]:
    """The hash fields of ``players`` (a secret made for ``secret=True``), and the rules as
    stored."""
    if players is None:
        return {}, None
    ways = sum(map(bool, (players.secret, players.public_key, players.jwks_url)))
    if ways != 1:
        raise ValueError(
            "player tokens are checked one way: a signing secret, a public key or a JWKS URL"
        )
    secret = players.secret
    if secret is True:
        secret = secrets.token_urlsafe(32)
    if players.jwks_url and not players.jwks_url.startswith(("https://", "http://")):
        raise ValueError(f"the JWKS URL must be http(s): {players.jwks_url!r}")
    stored = PlayerTokenRules(
        secret=str(secret or ""),
        public_key=players.public_key,
        jwks_url=players.jwks_url,
        issuer=players.issuer,
        audience=players.audience,
    )
    values = (
        str(secret or ""),
        players.public_key,
        players.jwks_url,
        players.issuer,
        players.audience,
    )
    return {f: v for f, v in zip(_PLAYER_FIELDS, values, strict=True) if v}, stored


def _asdict(key: ApiKey) -> dict[str, Any]:
    return {name: getattr(key, name) for name in ApiKey.__slots__}


def _key(name: str, fields: dict[Any, Any]) -> ApiKey:
    got = {text(k): text(v) for k, v in fields.items()}
    players = None
    if got.get("pt_secret") or got.get("pt_pem") or got.get("pt_jwks"):
        players = PlayerTokenRules(
            secret=got.get("pt_secret", ""),
            public_key=got.get("pt_pem", ""),
            jwks_url=got.get("pt_jwks", ""),
            issuer=got.get("pt_iss", ""),
            audience=got.get("pt_aud", ""),
        )
    return ApiKey(
        name=name,
        secret_hash=got.get("sha256", ""),
        created_ms=int(got.get("created") or 0),
        revoked_ms=int(got.get("revoked") or 0),
        max_open_matches=int(got.get("max_open") or 0),
        move_rate=float(got.get("rate") or 0),
        move_burst=float(got.get("burst") or 0),
        players=players,
    )
