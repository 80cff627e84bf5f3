"""API keys in Redis: one hash per key, holding only a SHA-256 of its secret, so that neither a
copy of the store nor its operator can call as an app.

A key is ``sk_<name>.<secret>``: the name says which hash to read (one round trip, no scan), the
secret is checked against the hash in constant time (see :mod:`serai.rpc.auth`). Revoking keeps
the hash, marked, so that a revoked name is never handed out again to another app. Example::

    keys = ApiKeys(store.client)
    made = await keys.create("acme", max_open_matches=100)
    print(made.token)                     # shown once: only its hash is stored
    await keys.revoke("acme")
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True, slots=True)
class CreatedKey:
    """A key just made, with the token to hand the app (it is never shown again)."""

    key: ApiKey
    token: str


class ApiKeys:
    """The API keys of one Redis (a redis-py client, plain or cluster: each call reads or writes
    one key, or the set of names)."""

    def __init__(self, redis: Any) -> None:
        self._redis = redis

    async def create(
        self,
        name: str,
        *,
        max_open_matches: int = 0,
        move_rate: float = 0.0,
        move_burst: float = 0.0,
        now_ms: int | None = None,
    ) -> CreatedKey:
        if NAME.fullmatch(name) is None:
            raise ValueError(
                f"bad key name {name!r}: 1 to 40 lower-case letters, digits and -, "
                "starting with a letter or digit"
            )
        secret = secrets.token_urlsafe(32)
        key = ApiKey(
            name=name,
            secret_hash=secret_hash(secret),
            created_ms=int(time.time() * 1000) if now_ms is None else now_ms,
            max_open_matches=max_open_matches,
            move_rate=move_rate,
            move_burst=move_burst,
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
                },
            )
            await self._redis.sadd(API_KEYS_KEY, name)
        return CreatedKey(key, f"{TOKEN_PREFIX}{name}.{secret}")

    async def get(self, name: str) -> ApiKey | None:
        async with errors():
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


def _key(name: str, fields: dict[Any, Any]) -> ApiKey:
    got = {text(k): text(v) for k, v in fields.items()}
    return ApiKey(
        name=name,
        secret_hash=got.get("sha256", ""),
        created_ms=int(got.get("created") or 0),
        revoked_ms=int(got.get("revoked") or 0),
        max_open_matches=int(got.get("max_open") or 0),
        move_rate=float(got.get("rate") or 0),
        move_burst=float(got.get("burst") or 0),
    )
