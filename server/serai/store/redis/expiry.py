"""Finished matches handed to the archive, then let go: the index of those not archived yet that
any replica drains, and the expiry of a match's keys (and, later, its index entries) once the
archive has it (see serai.matches.archiving for the loop).

The handoff, so that a crash anywhere loses nothing and writes nothing twice:

1. index() of a finished match (after its fold) adds it to ``serai:unarchived`` (due now).
2. :meth:`Expiry.unarchived` leases due ids to one drainer (due again after the lease).
3. The drainer puts the match in the archive (idempotent on its id), then calls
   :meth:`Expiry.archived`: the match's keys expire after ``--keep-finished``, its index entries
   are scheduled for removal then (``serai:expiring``), and it leaves ``serai:unarchived``, in
   that order. A drainer killed between 3's put and its last step leaves the id in
   ``serai:unarchived``; whoever leases it next puts it again (no second copy) and expires it.

The index entries of an expired match (every match, the finished ones, its players') are removed
by the next :meth:`Expiry.unarchived` after its expiry, so Redis holds nothing of it any more.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from serai.store import MatchRecord
from serai.store.redis.encoding import text
from serai.store.redis.errors import errors
from serai.store.redis.keys import (
    EXPIRING_KEY,
    UNARCHIVED_KEY,
    index_key,
    match_keys,
    player_index_key,
)
from serai.store.redis.scripts import LEASE_SCRIPT, Script

ScriptRunner = Callable[[Script, Sequence[str], Sequence[Any]], Awaitable[Any]]


class Expiry:
    """A base of RedisStore (as :class:`serai.store.redis.indexes.Indexes` is)."""

    _redis: Any
    _run: ScriptRunner

    async def unarchived(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        await self._forget_expired(now_ms, limit)
        leased = await self._run(LEASE_SCRIPT, (UNARCHIVED_KEY,), (now_ms, lease_ms, limit))
        ids = [text(i) for i in leased]
        if not ids:
            return []
        async with errors("unarchived"):
            pipe = self._redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.exists(match_keys(match_id)[0])
            present = await pipe.execute()
            gone = [i for i, here in zip(ids, present, strict=True) if not here]
            if gone:  # deleted behind the store's back: nothing left to archive
                await self._redis.zrem(UNARCHIVED_KEY, *gone)
        return [i for i, here in zip(ids, present, strict=True) if here]

    async def archived(self, record: MatchRecord, keep_ms: int, now_ms: int) -> None:
        match_id, tenant = record.match_id, record.tenant
        indexes = [
            index_key(None, None),
            index_key("finished", None, tenant),
            index_key("finished", record.game, tenant),
            *sorted({player_index_key(tenant, s.player) for s in record.seats if s.player}),
        ]
        async with errors("archived"):
            pipe = self._redis.pipeline(transaction=False)
            for key in match_keys(match_id):
                pipe.pexpire(key, keep_ms)
            member = json.dumps([match_id, *indexes], separators=(",", ":"))
            pipe.zadd(EXPIRING_KEY, {member: now_ms + keep_ms})
            pipe.zrem(UNARCHIVED_KEY, match_id)  # last: until here a crash archives it again
            await pipe.execute()

    async def _forget_expired(self, now_ms: int, limit: int) -> None:
        """Remove the index entries of up to ``limit`` archived matches whose keys expired."""
        async with errors("unarchived"):
            due = await self._redis.zrangebyscore(EXPIRING_KEY, "-inf", now_ms, start=0, num=limit)
            if not due:
                return
            pipe = self._redis.pipeline(transaction=False)
            for member in due:
                match_id, *indexes = json.loads(member)
                for key in indexes:
                    pipe.zrem(key, match_id)
                pipe.zrem(EXPIRING_KEY, member)
            await pipe.execute()
