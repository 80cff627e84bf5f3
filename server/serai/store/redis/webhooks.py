"""The webhook outbox in Redis (:class:`serai.store.webhooks.WebhookOutbox`): a sorted set of the
followed matches by when each is due, hashes of their leases and progress, each change one Lua
script over keys of one hash tag (keys.WEBHOOK_KEYS), so that a claim and its lease, or a save
and its lease check, are one step on any replica; and a capped list per key for its delivery
log."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict
from typing import Any

from serai.store.redis.encoding import text
from serai.store.redis.errors import errors
from serai.store.redis.keys import WEBHOOK_KEYS, webhook_log_key
from serai.store.redis.scripts import (
    WEBHOOK_CLAIM_SCRIPT,
    WEBHOOK_FOLLOW_SCRIPT,
    WEBHOOK_SETTLE_SCRIPT,
    Script,
)
from serai.store.webhooks import LOG_LINES, Claimed, DeliveryLine

ScriptRunner = Callable[[Script, Sequence[str], Sequence[Any]], Awaitable[Any]]


class RedisWebhookOutbox:
    """``RedisStore.webhooks``: ``run`` is the store's script runner (EVALSHA, loaded once)."""

    def __init__(self, redis: Any, run: ScriptRunner) -> None:
        self._redis = redis
        self._run = run

    async def follow(self, match_id: str, due_ms: int) -> None:
        await self._run(WEBHOOK_FOLLOW_SCRIPT, WEBHOOK_KEYS, (match_id, due_ms))

    async def claim(self, now_ms: int, lease_ms: int, limit: int, lease: str) -> list[Claimed]:
        reply = await self._run(
            WEBHOOK_CLAIM_SCRIPT, WEBHOOK_KEYS, (now_ms, lease_ms, limit, lease)
        )
        pairs = [text(item) for item in reply]
        return [Claimed(pairs[i], lease, pairs[i + 1]) for i in range(0, len(pairs), 2)]

    async def settle(
        self, match_id: str, lease: str, progress: str, now_ms: int, due_ms: int
    ) -> bool:
        return await self._settle(match_id, lease, progress, now_ms, due_ms, "settle")

    async def keep(self, match_id: str, lease: str, progress: str, until_ms: int) -> bool:
        return await self._settle(match_id, lease, progress, until_ms, until_ms, "keep")

    async def drop(self, match_id: str, lease: str) -> bool:
        return await self._settle(match_id, lease, "", 0, 0, "drop")

    async def _settle(
        self, match_id: str, lease: str, progress: str, now_ms: int, due_ms: int, mode: str
    ) -> bool:
        args = (match_id, lease, progress, now_ms, due_ms, mode)
        return bool(await self._run(WEBHOOK_SETTLE_SCRIPT, WEBHOOK_KEYS, args))

    async def record(self, key_name: str, line: DeliveryLine) -> None:
        key = webhook_log_key(key_name)
        async with errors("webhook_log"):
            pipe = self._redis.pipeline(transaction=True)  # one key: fine on a cluster too
            pipe.lpush(key, json.dumps(asdict(line), separators=(",", ":")))
            pipe.ltrim(key, 0, LOG_LINES - 1)
            await pipe.execute()

    async def delivery_log(self, key_name: str, limit: int) -> list[DeliveryLine]:
        async with errors():
            items = await self._redis.lrange(webhook_log_key(key_name), 0, max(0, limit - 1))
        return [DeliveryLine(**json.loads(text(item))) for item in items]
