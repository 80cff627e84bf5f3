"""The community's keys in Redis: matchmaking queues and rating boards, each changed by one Lua
script (scripts.py), so that a pairing or a rating update is one atomic step whatever the
replicas (see serai.community for the loops around them).

Keys (each queue's, and each board's, share a hash tag: one slot, so scripts work on a
cluster)::

    serai:{q:<queue>}:waiting      zset   waiting player -> rating (what pairing sorts by)
    serai:{q:<queue>}:since        zset   waiting player -> when it joined (ms)
    serai:{q:<queue>}:alive        zset   waiting player -> when its stream last polled (ms)
    serai:{q:<queue>}:entries      hash   waiting player -> its entry (JSON: p, n, b)
    serai:{q:<queue>}:assigned     hash   paired player -> "<pairing id>\\n<assignment JSON>"
    serai:{q:<queue>}:assigned_at  zset   paired player -> when (ms): unread ones go after a day
    serai:{q:<queue>}:turn         string pairings made (rotates the first seat)
    serai:{q:<queue>}:waits        list   the last players seated's waits (ms), newest first
    serai:{r:<board>}:rows         hash   player -> RatingRow JSON
    serai:{r:<board>}:people       zset   player -> score (the people's leaderboard)
    serai:{r:<board>}:bots         zset   player -> score (the bots' leaderboard)
    serai:{r:<board>}:applied      set    the rated matches already applied (exactly once)
    serai:{r:<board>}:history:<p>  list   a player's last 100 rating changes, newest first
    serai:rated:due                zset   rated matches not rated yet -> when due (ms, leased)
    serai:rated:<match id>         string the RatedMatch JSON, until a day after it is rated
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

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
from serai.store.redis.encoding import text
from serai.store.redis.errors import errors
from serai.store.redis.scripts import (
    LEASE_SCRIPT,
    QUEUE_ENTER_SCRIPT,
    QUEUE_FILL_SCRIPT,
    QUEUE_LEAVE_SCRIPT,
    QUEUE_PAIR_SCRIPT,
    QUEUE_POLL_SCRIPT,
    RATINGS_APPLY_SCRIPT,
    Script,
)

ScriptRunner = Callable[[Script, Sequence[str], Sequence[Any]], Awaitable[Any]]
RATED_DUE_KEY = "serai:rated:due"
HISTORY_KEPT = 100

_QUEUE_PARTS = (
    "waiting",
    "since",
    "alive",
    "entries",
    "assigned",
    "assigned_at",
    "turn",
    "waits",
)


def queue_keys(queue: QueueKey) -> tuple[str, ...]:
    """The queue's eight keys, in the order the scripts take them."""
    return tuple(f"serai:{{q:{queue.tag}}}:{part}" for part in _QUEUE_PARTS)


def board_keys(board: RatingBoard) -> tuple[str, str, str, str]:
    """The board's rows, people's and bots' leaderboards, and applied matches."""
    base = f"serai:{{r:{board.tag}}}"
    return f"{base}:rows", f"{base}:people", f"{base}:bots", f"{base}:applied"


def history_key(board: RatingBoard, player: str) -> str:
    return f"serai:{{r:{board.tag}}}:history:{player}"


def rated_key(match_id: str) -> str:
    return f"serai:rated:{match_id}"


class Community:
    """A base of RedisStore: queues and ratings (see :class:`serai.store.Store`)."""

    _redis: Any
    _run: ScriptRunner

    async def queue_enter(
        self, queue: QueueKey, entry: QueueEntry, now_ms: int, clear: str = ""
    ) -> str | None:
        keys = queue_keys(queue)
        args = (entry.player, entry.entry, repr(entry.rating), now_ms, clear)
        held = await self._run(QUEUE_ENTER_SCRIPT, keys[:6], args)
        return None if held is None else text(held)

    async def queue_poll(self, queue: QueueKey, player: str, now_ms: int) -> QueuePoll:
        keys = queue_keys(queue)
        reply = await self._run(
            QUEUE_POLL_SCRIPT, keys[:3] + keys[4:5] + keys[7:8], (player, now_ms)
        )
        kind = text(reply[0])
        if kind == "assigned":
            return QueuePoll(assignment=text(reply[1]))
        if kind == "absent":
            return QueuePoll()
        waits = tuple(int(w) for w in reply[4])
        return QueuePoll(None, int(reply[1]), int(reply[2]), int(float(text(reply[3]))), waits)

    async def queue_leave(self, queue: QueueKey, player: str) -> bool:
        return bool(await self._run(QUEUE_LEAVE_SCRIPT, queue_keys(queue)[:4], (player,)))

    async def queue_pair(
        self, queue: QueueKey, player: str, now_ms: int, policy: PairingPolicy, pairing_id: str
    ) -> bool:
        args = (
            now_ms,
            queue.seats,
            repr(policy.window),
            repr(policy.widen_per_second / 1000),
            policy.stale_ms,
            player,
            pairing_id,
            WAITS_KEPT,
        )
        return bool(await self._run(QUEUE_PAIR_SCRIPT, queue_keys(queue), args))

    async def queue_fill(
        self, queue: QueueKey, player: str, fill: Sequence[str], now_ms: int, pairing_id: str
    ) -> bool:
        args = (now_ms, player, pairing_id, WAITS_KEPT, *fill)
        return bool(await self._run(QUEUE_FILL_SCRIPT, queue_keys(queue), args))

    async def rating_rows(self, board: RatingBoard, players: Sequence[str]) -> dict[str, RatingRow]:
        if not players:
            return {}
        async with errors("rating_rows"):
            got = await self._redis.hmget(board_keys(board)[0], list(players))
        return {p: RatingRow.loads(row) for p, row in zip(players, got, strict=True) if row}

    async def apply_ratings(
        self, board: RatingBoard, match_id: str, updates: Sequence[RatingUpdate]
    ) -> Applied:
        keys = [*board_keys(board), *(history_key(board, u.player) for u in updates)]
        args: list[Any] = [match_id, len(updates)]
        for u in updates:
            bot = "1" if u.row.bot else "0"
            args += [u.player, u.row.dumps(), repr(u.row.score), bot, u.games_before, u.history]
        answer: Applied = text(await self._run(RATINGS_APPLY_SCRIPT, keys, args))  # type: ignore[assignment]
        return answer

    async def leaderboard(
        self, board: RatingBoard, bots: bool, offset: int, limit: int
    ) -> list[tuple[str, RatingRow]]:
        rows_key, people, bots_key, _ = board_keys(board)
        async with errors("leaderboard"):
            players = [
                text(p)
                for p in await self._redis.zrevrange(
                    bots_key if bots else people, offset, offset + limit - 1
                )
            ]
            rows = await self._redis.hmget(rows_key, players) if players else []
        return [(p, RatingRow.loads(r)) for p, r in zip(players, rows, strict=True) if r]

    async def rating_history(self, board: RatingBoard, player: str, limit: int) -> list[str]:
        async with errors("rating_history"):
            lines = await self._redis.lrange(history_key(board, player), 0, limit - 1)
        return [text(line) for line in lines]

    async def register_rated(self, rated: RatedMatch, due_ms: int) -> None:
        async with errors("register_rated"):
            pipe = self._redis.pipeline(transaction=False)
            pipe.set(rated_key(rated.match_id), rated.dumps())
            pipe.zadd(RATED_DUE_KEY, {rated.match_id: due_ms}, nx=True)
            await pipe.execute()

    async def rated_due(self, now_ms: int, lease_ms: int, limit: int) -> list[RatedMatch]:
        leased = [
            text(i)
            for i in await self._run(LEASE_SCRIPT, (RATED_DUE_KEY,), (now_ms, lease_ms, limit))
        ]
        if not leased:
            return []
        async with errors("rated_due"):
            found = await self._redis.mget([rated_key(i) for i in leased])
            gone = [i for i, f in zip(leased, found, strict=True) if f is None]
            if gone:
                await self._redis.zrem(RATED_DUE_KEY, *gone)
        return [RatedMatch.loads(f) for f in found if f is not None]

    async def rated_done(self, match_id: str) -> None:
        async with errors("rated_done"):
            pipe = self._redis.pipeline(transaction=False)
            pipe.zrem(RATED_DUE_KEY, match_id)
            pipe.pexpire(rated_key(match_id), RATED_KEPT_MS)
            await pipe.execute()

    async def rated_match(self, match_id: str) -> RatedMatch | None:
        async with errors("rated_match"):
            found = await self._redis.get(rated_key(match_id))
        return None if found is None else RatedMatch.loads(found)
