"""The global sorted sets that index matches (by status, game, client, caller and clock), the
listings and quotas read from them, and the fold they trigger when a match finishes.

Each is updated with single-key commands after a commit and repaired when a reader finds it stale
(an expired match is pruned, one that moved on is indexed again), so a cluster never needs a
cross-slot script. The key names are in keys.py.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from serai.store import STATUSES, MatchRecord, Status
from serai.store.redis.breaker import Breaker
from serai.store.redis.encoding import SUMMARY_FIELDS, record_from_fields, text
from serai.store.redis.errors import errors
from serai.store.redis.folding import fold, joined, missing_pieces
from serai.store.redis.keys import (
    API_KEYS_KEY,
    CLOCKS_KEY,
    UNARCHIVED_KEY,
    UNFINISHED_KEY,
    client_key,
    index_key,
    match_keys,
    player_index_key,
    quota_index_key,
)
from serai.store.redis.scripts import (
    CLAIM_SCRIPT,
    FOLD_READ_SCRIPT,
    FOLD_SCRIPT,
    INDEX_SCRIPT,
    Script,
)

# Runs a script with its keys and arguments (RedisStore._run).
ScriptRunner = Callable[[Script, Sequence[str], Sequence[Any]], Awaitable[Any]]

# A claim whose match is not there (yet) is pruned only after this long: it may be a create still
# on its way, and pruning it would give its place to another.
_CLAIM_GRACE_MS = 60_000

# A caller's index is not told when its matches finish (their records do not name it): it is
# pruned when full, and expires once no create renewed it for this long, when its matches have
# long finished or expired (at worst the caller then has some matches it is not counted for).
_QUOTA_TTL_MS = 7 * 86_400_000

# The index of every unfinished match loses a match when it finishes (index()) or is found gone
# (a listing, the sweeper); what that misses (an idle match that expired unlisted) is pruned only
# when the cap is reached, _PRUNE_CHUNK entries a round trip, at most once every
# _UNFINISHED_PRUNE_SECONDS per process, so that callers refused at the cap cost little.
_PRUNE_CHUNK = 1000
_UNFINISHED_PRUNE_SECONDS = 10.0

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
    breaker: Breaker  # whether Redis answers (see breaker.py)
    _run: ScriptRunner
    _shared: Any  # the shared connection where one Redis holds every key (None: a cluster, ...)
    _unfinished_pruned_at = -_UNFINISHED_PRUNE_SECONDS  # time.monotonic() of the last prune

    async def existed(self, match_id: str) -> bool:
        async with errors("existed", self.breaker):
            return await self._redis.zscore(index_key(None, None), match_id) is not None

    async def index(self, record: MatchRecord, previous: Status | None, current: Status) -> None:
        score = record.created_ms
        if current != "finished" and self._shared is not None:
            await self._index_in_one_step(record, current)
            return
        async with errors("index", self.breaker):
            pipe = self._redis.pipeline(transaction=False)
            if current == "finished":
                pipe.zrem(CLOCKS_KEY, record.match_id)
                pipe.zrem(UNFINISHED_KEY, record.match_id)
                if record.client_id:
                    pipe.zrem(client_key(record.client_id), record.match_id)
            else:
                pipe.zadd(UNFINISHED_KEY, {record.match_id: score})
                if record.move_seconds:
                    pipe.zadd(CLOCKS_KEY, {record.match_id: score})
                if record.client_id:
                    pipe.zadd(client_key(record.client_id), {record.match_id: score})
            tenant = record.tenant
            for status in STATUSES:
                if status != current:
                    pipe.zrem(index_key(status, None, tenant), record.match_id)
                    pipe.zrem(index_key(status, record.game, tenant), record.match_id)
            pipe.zadd(index_key(None, None), {record.match_id: score})
            pipe.zadd(index_key(current, None, tenant), {record.match_id: score})
            pipe.zadd(index_key(current, record.game, tenant), {record.match_id: score})
            keys = match_keys(record.match_id)
            if current == "finished":  # its last events are delivered: fold the match
                # EVAL, not EVALSHA: a cluster pipeline cannot load scripts; once per match.
                pipe.eval(FOLD_READ_SCRIPT.text, 5, *keys)
            replies = await pipe.execute()
            if current == "finished" and replies[-1]:  # not folded yet
                version, args = fold(replies[-1])
                await self._run(FOLD_SCRIPT, keys, [version, *args])
            if current == "finished":
                # To the archive (expiry.py), once folded: a fold after the keys were given a TTL
                # would write them anew, without one. NX: a drainer's lease stays.
                await self._redis.zadd(UNARCHIVED_KEY, {record.match_id: 0}, nx=True)

    async def _index_in_one_step(self, record: MatchRecord, current: Status) -> None:
        """What index() does for an unfinished match, as one script where one Redis holds every
        key (see RedisStore._shared): one round trip on the shared connection, not a pipeline of
        a dozen commands through a pooled one (most of a set-up's Redis CPU in the server)."""
        keys, args = index_step(record, current)
        await self._run(INDEX_SCRIPT, keys, args)

    async def list_matches(
        self,
        status: Status | None,
        game: str | None,
        limit: int,
        *,
        after: tuple[int, str] | None = None,
        tenant: str = "",
    ) -> list[MatchRecord]:
        if status is not None:
            return await self._listed(status, game, limit, after, tenant)
        # Every status: the newest of each status index, merged. (The index of all matches keeps
        # the ids of expired ones for existed(), so it cannot be listed past them.)
        found = [r for st in STATUSES for r in await self._listed(st, game, limit, after, tenant)]
        found.sort(key=lambda record: (record.created_ms, record.match_id), reverse=True)
        return found[:limit]

    async def _listed(
        self,
        status: Status,
        game: str | None,
        limit: int,
        after: tuple[int, str] | None,
        tenant: str = "",
    ) -> list[MatchRecord]:
        """The newest ``limit`` matches of one status index (those after the position ``after``
        only), paging on past (and pruning) the entries of expired matches and repairing those
        of matches that moved on (bounded)."""
        key = index_key(status, game, tenant)
        records: list[MatchRecord] = []
        seen: set[str] = set()  # a create between two pages moves the rest one place back
        # Scores are created_ms; equal ones are in descending id order, as in the listing. Read
        # from the score of ``after`` down, passing the ids at that score not after it.
        top: int | str = "+inf" if after is None else after[0]
        offset, size = 0, max(limit, _LIST_PAGE)
        for _page in range(_LIST_PAGES):
            ids, scores, rows = await self._page(key, top, offset, size, "list")
            offset += len(ids)
            gone = []
            for match_id, score, fields in zip(ids, scores, rows, strict=True):
                if match_id in seen:
                    continue
                seen.add(match_id)
                if after is not None and score == after[0] and match_id >= after[1]:
                    continue  # on an earlier page
                if fields["status"] is None:  # expired, or deleted behind the index's back
                    gone.append(match_id)
                    continue
                record = record_from_fields(match_id, joined(fields))
                if record.tenant != tenant:  # indexed before it had a tenant: never listed
                    continue
                if record.status != status:
                    await self.index(record, status, record.status)  # a stale entry: repaired
                    offset -= 1  # it left this index
                    continue
                records.append(record)
                if len(records) == limit:
                    return records
            if gone:
                async with errors("list", self.breaker):
                    await self._redis.zrem(key, *gone)
                    await self._redis.zrem(index_key(status, None, tenant), *gone)
                    await self._redis.zrem(UNFINISHED_KEY, *gone)
                offset -= len(gone)
            if len(ids) < size:
                break
        return records

    async def index_player(self, tenant: str, player: str, match_id: str, created_ms: int) -> None:
        async with errors("index_player", self.breaker):
            await self._redis.zadd(player_index_key(tenant, player), {match_id: created_ms})

    async def player_matches(
        self,
        tenant: str,
        player: str,
        status: Status | None,
        game: str | None,
        limit: int,
        *,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        # One index of all the player's matches, whatever their status: filtered here (a player
        # has few matches), pruned of the expired ones it passes, in pages as _listed reads.
        key = player_index_key(tenant, player)
        records: list[MatchRecord] = []
        top: int | str = "+inf" if after is None else after[0]
        offset, size = 0, max(limit, _LIST_PAGE)
        for _page in range(_LIST_PAGES):
            ids, scores, rows = await self._page(key, top, offset, size, "list_player")
            offset += len(ids)
            gone = []
            for match_id, score, fields in zip(ids, scores, rows, strict=True):
                if after is not None and score == after[0] and match_id >= after[1]:
                    continue  # on an earlier page
                if fields["status"] is None:
                    gone.append(match_id)
                    continue
                record = record_from_fields(match_id, joined(fields))
                if record.tenant != tenant or not any(s.player == player for s in record.seats):
                    continue  # never listed for another's player (the index is only a hint)
                if (status is not None and record.status != status) or (
                    game is not None and record.game != game
                ):
                    continue
                records.append(record)
                if len(records) == limit:
                    return records
            if gone:
                async with errors("list_player", self.breaker):
                    await self._redis.zrem(key, *gone)
                offset -= len(gone)
            if len(ids) < size:
                break
        return records

    async def _page(
        self, key: str, top: int | str, offset: int, size: int, op: str
    ) -> tuple[list[str], list[int], list[dict[str, bytes | None]]]:
        """One page of an index, from the score ``top`` down: the ids, their scores (created_ms)
        and the summary fields of each (:meth:`_listed_rows`)."""
        async with errors(op, self.breaker):
            page = await self._redis.zrevrangebyscore(
                key, top, "-inf", start=offset, num=size, withscores=True
            )
            ids = [text(i) for i, _score in page]
            rows = await self._listed_rows(ids)
        return ids, [int(score) for _id, score in page], rows

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
        async with errors("quota", self.breaker):
            statuses = await self._client_statuses(client_key(client_id))
        return sum(status not in (None, b"finished") for _id, _score, status in statuses)

    async def claim_open_slot(
        self, client_id: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        key = client_key(client_id)
        open_now = await self._claim(key, match_id, now_ms, limit)
        # Full: some may have expired since (a finished match leaves the index in index()). Pruned
        # only then, not before every claim: a prune reads the status of every match indexed.
        if open_now is not None:
            async with errors("quota", self.breaker):
                if await self._prune(key, now_ms):
                    open_now = await self._claim(key, match_id, now_ms, limit)
        return open_now

    async def claim_quota_slot(
        self, quota_key: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        key = quota_index_key(quota_key)
        open_now = await self._claim(key, match_id, now_ms, limit)
        async with errors("quota", self.breaker):
            # Full: some may have finished since (nothing takes them out when they do).
            if open_now is not None and await self._prune(key, now_ms):
                open_now = await self._claim(key, match_id, now_ms, limit)
            await self._redis.pexpire(key, _QUOTA_TTL_MS)
        return open_now

    async def claim_unfinished_slot(self, match_id: str, now_ms: int, limit: int) -> int | None:
        open_now = await self._claim(UNFINISHED_KEY, match_id, now_ms, limit)
        now = time.monotonic()
        if open_now is not None and now - self._unfinished_pruned_at >= _UNFINISHED_PRUNE_SECONDS:
            self._unfinished_pruned_at = now
            async with errors("quota", self.breaker):
                pruned = await self._prune(UNFINISHED_KEY, now_ms)
            if pruned:
                open_now = await self._claim(UNFINISHED_KEY, match_id, now_ms, limit)
        return open_now

    async def release_open_slots(
        self, match_id: str, *, client_id: str = "", quota_key: str = ""
    ) -> None:
        async with errors("quota", self.breaker):
            pipe = self._redis.pipeline(transaction=False)
            pipe.zrem(UNFINISHED_KEY, match_id)
            if client_id:
                pipe.zrem(client_key(client_id), match_id)
            if quota_key:
                pipe.zrem(quota_index_key(quota_key), match_id)
            await pipe.execute()

    async def _claim(self, key: str, match_id: str, now_ms: int, limit: int) -> int | None:
        """CLAIM_SCRIPT on one quota index: None when counted, else how many it holds."""
        open_now = await self._run(CLAIM_SCRIPT, (key,), (match_id, now_ms, limit))
        return None if open_now == -1 else int(open_now)

    async def _prune(self, key: str, now_ms: int) -> int:
        """Remove from a quota index the matches that are no longer unfinished: finished behind
        its back, expired, or a create that never was (a claim older than _CLAIM_GRACE_MS).
        Returns how many were removed."""
        removed, start = 0, 0
        while True:
            entries = await self._redis.zrange(
                key, start, start + _PRUNE_CHUNK - 1, withscores=True
            )
            gone = [
                i
                for i, score, status in await self._statuses(entries)
                if status == b"finished" or (status is None and score < now_ms - _CLAIM_GRACE_MS)
            ]
            if gone:
                await self._redis.zrem(key, *gone)
                removed += len(gone)
            if len(entries) < _PRUNE_CHUNK:
                return removed
            start += len(entries) - len(gone)

    async def _client_statuses(self, key: str) -> list[tuple[str, float, bytes | None]]:
        """(match id, score, status) of every match in a client's index."""
        return await self._statuses(await self._redis.zrange(key, 0, -1, withscores=True))

    async def _statuses(
        self, entries: Sequence[tuple[bytes, float]]
    ) -> list[tuple[str, float, bytes | None]]:
        """(match id, score, status) of each (match id, score) of an index."""
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
        async with errors("deadlines", self.breaker):
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
                await self._redis.zrem(UNFINISHED_KEY, *gone)
        # The ones removed leave the index: the next page starts that much closer.
        return found, (offset + len(ids) - len(gone) if len(ids) == limit else 0)

    async def match_counts(self) -> dict[Status, int]:
        # The status indexes of the matches made without a key and of each key's (tenant's).
        async with errors("match_counts"):
            tenants = ["", *(text(n) for n in await self._redis.smembers(API_KEYS_KEY))]
            pipe = self._redis.pipeline(transaction=False)
            for status in STATUSES:
                for tenant in tenants:
                    pipe.zcard(index_key(status, None, tenant))
            counts = iter(await pipe.execute())
        return {status: sum(next(counts) for _ in tenants) for status in STATUSES}


def index_step(record: MatchRecord, current: Status) -> tuple[list[str], list[Any]]:
    """The keys and arguments of index.lua for an unfinished match (create.lua takes the same
    after its own): the keys it leaves, then those it enters; the match id, its score and how
    many keys it leaves."""
    match_id, tenant = record.match_id, record.tenant
    leaves = [
        key
        for status in STATUSES
        if status != current
        for key in (index_key(status, None, tenant), index_key(status, record.game, tenant))
    ]
    enters = [UNFINISHED_KEY]
    if record.move_seconds:
        enters.append(CLOCKS_KEY)
    if record.client_id:
        enters.append(client_key(record.client_id))
    enters += (
        index_key(None, None),
        index_key(current, None, tenant),
        index_key(current, record.game, tenant),
    )
    return [*leaves, *enters], [match_id, record.created_ms, len(leaves)]
