"""The community's part of :class:`serai.store.memory.MemoryStore`: queues and rating boards in
dictionaries, with the Redis scripts' semantics (serai.store.redis.community), each method one
step (no await inside), as a script is one step in Redis."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from serai.store.community import (
    RATED_KEPT_MS,
    WAITS_KEPT,
    Applied,
    PairingPolicy,
    QueueEntry,
    QueueKey,
    QueuePoll,
    RatedMatch,
    RatingBoard,
    RatingRow,
    RatingUpdate,
)

HISTORY_KEPT = 100
ASSIGNMENT_KEPT_MS = 86_400_000


@dataclass
class _Queue:
    waiting: dict[str, float] = field(default_factory=dict)  # player -> rating
    since: dict[str, int] = field(default_factory=dict)
    alive: dict[str, int] = field(default_factory=dict)
    entries: dict[str, str] = field(default_factory=dict)
    assigned: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # id, JSON, at
    turn: int = 0
    waits: list[int] = field(default_factory=list)  # the last players seated's, newest first

    def drop(self, player: str) -> None:
        for part in (self.waiting, self.since, self.alive, self.entries):
            part.pop(player, None)


@dataclass
class _Board:
    rows: dict[str, RatingRow] = field(default_factory=dict)
    applied: set[str] = field(default_factory=set)
    history: dict[str, list[str]] = field(default_factory=dict)


class MemoryCommunity:
    """A base of MemoryStore (see :class:`serai.store.Store` for each method)."""

    def __init__(self, clock_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self._community_clock_ms = clock_ms
        self._queues: dict[str, _Queue] = {}  # by the queue's tag
        self._boards: dict[RatingBoard, _Board] = {}
        self._rated: dict[str, tuple[RatedMatch, int]] = {}  # match id -> match, due ms
        self._rated_kept: dict[str, tuple[RatedMatch, int]] = {}  # rated: match, when done (ms)

    def _queue(self, queue: QueueKey) -> _Queue:
        return self._queues.setdefault(queue.tag, _Queue())

    async def queue_enter(
        self, queue: QueueKey, entry: QueueEntry, now_ms: int, clear: str = ""
    ) -> str | None:
        q = self._queue(queue)
        held = q.assigned.get(entry.player)
        if held is not None:
            if held[0] != clear:
                return f"{held[0]}\n{held[1]}"
            del q.assigned[entry.player]
        q.waiting[entry.player] = entry.rating
        q.since.setdefault(entry.player, now_ms)
        q.alive[entry.player] = now_ms
        q.entries[entry.player] = entry.entry
        return None

    async def queue_poll(self, queue: QueueKey, player: str, now_ms: int) -> QueuePoll:
        q = self._queue(queue)
        held = q.assigned.get(player)
        if held is not None:
            return QueuePoll(assignment=f"{held[0]}\n{held[1]}")
        if player not in q.since:
            return QueuePoll()
        q.alive[player] = now_ms
        order = sorted(q.since, key=lambda p: (q.since[p], p))
        return QueuePoll(None, order.index(player), len(order), q.since[player], tuple(q.waits))

    async def queue_leave(self, queue: QueueKey, player: str) -> bool:
        q = self._queue(queue)
        was = player in q.waiting
        q.drop(player)
        return was

    async def queue_pair(
        self, queue: QueueKey, player: str, now_ms: int, policy: PairingPolicy, pairing_id: str
    ) -> bool:
        q = self._queue(queue)
        for p in [p for p, seen in q.alive.items() if seen <= now_ms - policy.stale_ms]:
            q.drop(p)
        for p in [p for p, a in q.assigned.items() if a[2] <= now_ms - ASSIGNMENT_KEPT_MS]:
            del q.assigned[p]
        if player not in q.waiting:
            return False
        ranked = sorted(q.waiting, key=lambda p: (q.waiting[p], p))
        me, seats = ranked.index(player), queue.seats
        widen = policy.widen_per_second / 1000
        best: list[str] | None = None
        for i in range(max(0, me - seats + 1), min(me, len(ranked) - seats) + 1):
            group = ranked[i : i + seats]
            spread = q.waiting[group[-1]] - q.waiting[group[0]]
            if best is not None and spread >= q.waiting[best[-1]] - q.waiting[best[0]]:
                continue
            if all(spread <= policy.window + widen * (now_ms - q.since[p]) for p in group):
                best = group
        if best is None:
            return False
        self._seat(q, [q.entries[p] for p in best], pairing_id, now_ms)
        return True

    async def queue_fill(
        self, queue: QueueKey, player: str, fill: Sequence[str], now_ms: int, pairing_id: str
    ) -> bool:
        q = self._queue(queue)
        if player not in q.waiting:
            return False
        self._seat(q, [q.entries[player], *fill], pairing_id, now_ms)
        return True

    @staticmethod
    def _seat(q: _Queue, entries: list[str], pairing: str, now_ms: int) -> None:
        q.turn += 1
        seats = len(entries)
        seated = [json.loads(entries[(j + q.turn) % seats]) for j in range(seats)]
        for j, entry in enumerate(seated):
            told = {"pairing": pairing, "seat": j, "players": seated, "at": now_ms}
            player = entry["p"]
            if player not in q.since:  # a fill's bot: no one to tell, no wait to keep
                continue
            q.waits.insert(0, now_ms - q.since[player])
            q.assigned[player] = (pairing, json.dumps(told), now_ms)
            q.drop(player)
        del q.waits[WAITS_KEPT:]

    async def rating_rows(self, board: RatingBoard, players: Sequence[str]) -> dict[str, RatingRow]:
        rows = self._boards.get(board, _Board()).rows
        return {p: rows[p] for p in players if p in rows}

    async def apply_ratings(
        self, board: RatingBoard, match_id: str, updates: Sequence[RatingUpdate]
    ) -> Applied:
        b = self._boards.setdefault(board, _Board())
        if match_id in b.applied:
            return "duplicate"
        for u in updates:
            stored = b.rows.get(u.player)
            if (stored.games if stored else 0) != u.games_before:
                return "conflict"
        for u in updates:
            b.rows[u.player] = u.row
            lines = b.history.setdefault(u.player, [])
            lines.insert(0, u.history)
            del lines[HISTORY_KEPT:]
        b.applied.add(match_id)
        return "applied"

    async def leaderboard(
        self, board: RatingBoard, bots: bool, offset: int, limit: int
    ) -> list[tuple[str, RatingRow]]:
        rows = self._boards.get(board, _Board()).rows
        # As Redis' ZREVRANGE: by score, then by member, both descending.
        chosen = sorted(
            ((p, r) for p, r in rows.items() if r.bot == bots),
            key=lambda pr: (pr[1].score, pr[0]),
            reverse=True,
        )
        return chosen[offset : offset + limit]

    async def rating_history(self, board: RatingBoard, player: str, limit: int) -> list[str]:
        return self._boards.get(board, _Board()).history.get(player, [])[:limit]

    async def register_rated(self, rated: RatedMatch, due_ms: int) -> None:
        self._rated.setdefault(rated.match_id, (rated, due_ms))

    async def rated_due(self, now_ms: int, lease_ms: int, limit: int) -> list[RatedMatch]:
        due = sorted((d, i) for i, (_, d) in self._rated.items() if d <= now_ms)[:limit]
        for _, match_id in due:
            rated = self._rated[match_id][0]
            self._rated[match_id] = (rated, now_ms + lease_ms)
        return [self._rated[i][0] for _, i in due]

    async def rated_done(self, match_id: str) -> None:
        done = self._rated.pop(match_id, None)
        if done is not None:
            self._rated_kept[match_id] = (done[0], self._now_ms())

    async def rated_match(self, match_id: str) -> RatedMatch | None:
        if match_id in self._rated:
            return self._rated[match_id][0]
        kept = self._rated_kept.get(match_id)
        if kept is None or kept[1] <= self._now_ms() - RATED_KEPT_MS:
            self._rated_kept.pop(match_id, None)
            return None
        return kept[0]

    def _now_ms(self) -> int:
        return self._community_clock_ms()
