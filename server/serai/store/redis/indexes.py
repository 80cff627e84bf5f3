"""The global sorted sets that index matches (by status, game, client and clock), the listings
and quotas read from them, and the fold they trigger when a match finishes.

Each is updated with single-key commands after a commit and repaired when a reader finds it stale
(an expired match is pruned, one that moved on is indexed again), so a cluster never needs a
cross-slot script. The key names are in keys.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from serai.store import STATUSES, MatchRecord, Status
from serai.store.redis.encoding import SUMMARY_FIELDS, record_from_fields, text
from serai.store.redis.errors import errors
from serai.store.redis.folding import fold, joined, missing_pieces
from serai.store.redis.keys import CLOCKS_KEY, client_key, index_key, match_keys
from serai.store.redis.scripts import CLAIM_SCRIPT, FOLD_READ_SCRIPT, FOLD_SCRIPT, Script

# Runs a script with its keys and arguments (RedisStore._run).
ScriptRunner = Callable[[Script, Sequence[str], Sequence[Any]], Awaitable[Any]]

# A claim whose match is not there (yet) is pruned only after this long: it may be a create still
# on its way, and pruning it would give its place to another.
_CLAIM_GRACE_MS = 60_000

# ListMatches reads an index in pages of the limit asked, or of this many if more (so that a run of
# expired entries is passed in few round trips), and at most _LIST_PAGES of them a call (each page
# prunes the expired entries it passes, so later calls find fewer).
_LIST_PAGE = 64
_LIST_PAGES = 8


# ListMatches reads a folded record's long summary values in pieces (see folding.py): the usual
# number of pieces is read with the rest, any more in a second round trip.
_LISTED_FIELDS = (
    *SUMMARY_FIELDS,
    "~",
    *(f"seats~{i}" for i in range(8)),
    *(f"outcome~{i}" for i in range(4)),
)


class Indexes:
    """The global part of a :class:`serai.store.Store` on Redis: a base of RedisStore, whose
    client and script runner it uses (a base, not a member: no call through a second object)."""

    _redis: Any  # the redis-py client
    _run: ScriptRunner

    async def existed(self, match_id: str) -> bool:
        async with errors():
            return await self._redis.zscore(index_key(None, None), match_id) is not None

    async def index(self, record: MatchRecord, previous: Status | None, current: Status) -> None:
        score = record.created_ms
        async with errors():
            pipe = self._redis.pipeline(transaction=False)
            if current == "finished":
                pipe.zrem(CLOCKS_KEY, record.match_id)
                if record.client_id:
                    pipe.zrem(client_key(record.client_id), record.match_id)
            else:
                if record.move_seconds:
                    pipe.zadd(CLOCKS_KEY, {record.match_id: score})
                if record.client_id:
                    pipe.zadd(client_key(record.client_id), {record.match_id: score})
            for status in STATUSES:
                if status != current:
                    pipe.zrem(index_key(status, None), record.match_id)
                    pipe.zrem(index_key(status, record.game), record.match_id)
            pipe.zadd(index_key(None, None), {record.match_id: score})
            pipe.zadd(index_key(current, None), {record.match_id: score})
            pipe.zadd(index_key(current, record.game), {record.match_id: score})
            keys = match_keys(record.match_id)
            if current == "finished":  # its last events are delivered: fold the match
                # EVAL, not EVALSHA: a cluster pipeline cannot load scripts; once per match.
                pipe.eval(FOLD_READ_SCRIPT.text, 5, *keys)
            replies = await pipe.execute()
            if current == "finished" and replies[-1]:  # not folded yet
                version, args = fold(replies[-1])
                await self._run(FOLD_SCRIPT, keys, [version, *args])

    async def list_matches(
        self, status: Status | None, game: str | None, limit: int
    ) -> list[MatchRecord]:
        if status is not None:
            return await self._listed(status, game, limit)
        # Every status: the newest of each status index, merged. (The index of all matches keeps
        # the ids of expired ones for existed(), so it cannot be listed past them.)
        found = [r for st in STATUSES for r in await self._listed(st, game, limit)]
        found.sort(key=lambda record: (record.created_ms, record.match_id), reverse=True)
        return found[:limit]

    async def _listed(self, status: Status, game: str | None, limit: int) -> list[MatchRecord]:
        """The newest ``limit`` matches of one status index, paging on past (and pruning) the
        entries of expired matches and repairing those of matches that moved on (bounded)."""
        key = index_key(status, game)
        records: list[MatchRecord] = []
        seen: set[str] = set()  # a create between two pages moves the rest one place back
        offset, size = 0, max(limit, _LIST_PAGE)
        for _page in range(_LIST_PAGES):
            async with errors():
                page = await self._redis.zrevrange(key, offset, offset + size - 1)
                ids = [text(i) for i in page]
                rows = await self._listed_rows(ids)
            offset += len(ids)
            gone = []
            for match_id, fields in zip(ids, rows, strict=True):
                if match_id in seen:
                    continue
                seen.add(match_id)
                if fields["status"] is None:  # expired, or deleted behind the index's back
                    gone.append(match_id)
                    continue
                record = record_from_fields(match_id, joined(fields))
                if record.status != status:
                    await self.index(record, status, record.status)  # a stale entry: repaired
                    offset -= 1  # it left this index
                    continue
                records.append(record)
                if len(records) == limit:
                    return records
            if gone:
                async with errors():
                    await self._redis.zrem(key, *gone)
                    await self._redis.zrem(index_key(status, None), *gone)
                offset -= len(gone)
            if len(ids) < size:
                break
        return records

    async def _listed_rows(self, ids: Sequence[str]) -> list[dict[str, bytes | None]]:
        """The summary fields of each match (all None for one that is gone)."""
        pipe = self._redis.pipeline(transaction=False)
        for match_id in ids:
            pipe.hmget(match_keys(match_id)[0], _LISTED_FIELDS)
        rows = [dict(zip(_LISTED_FIELDS, row, strict=True)) for row in await pipe.execute()]
        # A folded record's value cut into more pieces than _LISTED_FIELDS names: read them.
        more = {i: missing_pieces(row) for i, row in enumerate(rows)}
        more = {i: names for i, names in more.items() if names}
        if more:
            pipe = self._redis.pipeline(transaction=False)
            for i, names in more.items():
                pipe.hmget(match_keys(ids[i])[0], names)
            for (i, names), values in zip(more.items(), await pipe.execute(), strict=True):
                rows[i].update(zip(names, values, strict=True))
        return rows

    async def open_matches(self, client_id: str) -> int:
        async with errors():
            statuses = await self._client_statuses(client_key(client_id))
        return sum(status not in (None, b"finished") for _id, _score, status in statuses)

    async def claim_open_slot(
        self, client_id: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        key = client_key(client_id)
        async with errors():
            statuses = await self._client_statuses(key)
            gone = [  # finished behind the index's back, expired, or a create that never was
                i
                for i, score, status in statuses
                if status == b"finished" or (status is None and score < now_ms - _CLAIM_GRACE_MS)
            ]
            if gone:
                await self._redis.zrem(key, *gone)
        open_now = await self._run(CLAIM_SCRIPT, (key,), (match_id, now_ms, limit))
        return None if open_now == -1 else int(open_now)

    async def _client_statuses(self, key: str) -> list[tuple[str, float, bytes | None]]:
        """(match id, score, status) of every match in a client's index."""
        entries = await self._redis.zrange(key, 0, -1, withscores=True)
        if not entries:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for match_id, _score in entries:
            pipe.hget(match_keys(text(match_id))[0], "status")
        statuses = await pipe.execute()
        return [
            (text(i), score, status) for (i, score), status in zip(entries, statuses, strict=True)
        ]

    async def deadlines(self, limit: int, offset: int = 0) -> tuple[list[tuple[str, int]], int]:
        async with errors():
            ids = [
                text(i) for i in await self._redis.zrange(CLOCKS_KEY, offset, offset + limit - 1)
            ]
            if not ids:
                return [], 0
            pipe = self._redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.hmget(match_keys(match_id)[0], ["deadline", "status"])
            rows = await pipe.execute()
            found, gone = [], []
            for match_id, (deadline, status) in zip(ids, rows, strict=True):
                if status is None or status == b"finished":
                    gone.append(match_id)
                elif deadline:
                    found.append((match_id, int(deadline)))
            if gone:
                await self._redis.zrem(CLOCKS_KEY, *gone)
        # The ones removed leave the index: the next page starts that much closer.
        return found, (offset + len(ids) - len(gone) if len(ids) == limit else 0)
