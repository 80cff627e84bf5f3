"""API keys in Redis (:class:`serai.store.api_keys.ApiKeyStore`): one hash per key, holding only a
SHA-256 of its secret (see :mod:`serai.store.api_keys` for what a key is), and a set of every
key's name; each call reads or writes one key or the set, so it works on a cluster too."""

from __future__ import annotations

import time
from typing import Any

from serai.store.api_keys import (
    ApiKey,
    CreatedKey,
    KeyExists,
    PlayerTokenRules,
    new_key,
    with_players,
    with_webhook,
)
from serai.store.redis.breaker import Breaker
from serai.store.redis.encoding import text
from serai.store.redis.errors import errors
from serai.store.redis.keys import API_KEYS_KEY, api_key_key


class RedisApiKeys:
    """The API keys of one Redis (a redis-py client, plain or cluster): ``RedisStore.api_keys``.
    With the store's ``breaker``, a key is not looked up while Redis is known down: the call
    answers UNAVAILABLE at once (see breaker.py)."""

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
        webhook_url: str = "",
        now_ms: int | None = None,
    ) -> CreatedKey:
        made = new_key(
            name,
            int(time.time() * 1000) if now_ms is None else now_ms,
            max_open_matches=max_open_matches,
            move_rate=move_rate,
            move_burst=move_burst,
            players=players,
            webhook_url=webhook_url,
        )
        key = made.key
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
                    **_player_fields(key.players),
                    **_webhook_fields(key),
                },
            )
            await self._redis.sadd(API_KEYS_KEY, name)
        return made

    async def set_players(self, name: str, players: PlayerTokenRules | None) -> CreatedKey | None:
        key = await self.get(name)
        if key is None or key.revoked_ms:
            return None
        updated = with_players(key, players)
        fields = _player_fields(updated.key.players)
        async with errors():
            pipe = self._redis.pipeline(transaction=True)  # one key: fine on a cluster too
            pipe.hdel(api_key_key(name), *_PLAYER_FIELDS)
            if fields:
                pipe.hset(api_key_key(name), mapping=fields)
            await pipe.execute()
        return updated

    async def set_webhook(
        self, name: str, url: str, now_ms: int | None = None
    ) -> CreatedKey | None:
        key = await self.get(name)
        if key is None or key.revoked_ms:
            return None
        updated = with_webhook(key, url, int(time.time() * 1000) if now_ms is None else now_ms)
        fields = _webhook_fields(updated.key)
        async with errors():
            pipe = self._redis.pipeline(transaction=True)  # one key: fine on a cluster too
            pipe.hdel(api_key_key(name), *_WEBHOOK_FIELDS)
            if fields:
                pipe.hset(api_key_key(name), mapping=fields)
            await pipe.execute()
        return updated

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
        key = await self.get(name)
        if key is None or key.revoked_ms:
            return False
        revoked = int(time.time() * 1000) if now_ms is None else now_ms
        async with errors():
            await self._redis.hset(api_key_key(name), "revoked", revoked)
        return True


# The hash's fields of a key's player-token rules.
_PLAYER_FIELDS = ("pt_secret", "pt_pem", "pt_jwks", "pt_iss", "pt_aud")


def _player_fields(rules: PlayerTokenRules | None) -> dict[str, str]:
    """The hash fields of stored rules (none for None)."""
    if rules is None:
        return {}
    values = (str(rules.secret), rules.public_key, rules.jwks_url, rules.issuer, rules.audience)
    return {f: v for f, v in zip(_PLAYER_FIELDS, values, strict=True) if v}


# The hash's fields of a key's webhook: its URL and signing secret.
_WEBHOOK_FIELDS = ("wh_url", "wh_secret", "wh_since")


def _webhook_fields(key: ApiKey) -> dict[str, str]:
    if not key.webhook_url:
        return {}
    since = str(key.webhook_since_ms)
    return {"wh_url": key.webhook_url, "wh_secret": key.webhook_secret, "wh_since": since}


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
        webhook_url=got.get("wh_url", ""),
        webhook_secret=got.get("wh_secret", ""),
        webhook_since_ms=int(got.get("wh_since") or 0),
    )
