"""Matchmaking: players wait in a queue, any replica pairs them (atomically, in the store), and
whichever replica serves a paired player's stream makes the match and tells it.

The pairing (:meth:`serai.store.Store.queue_pair`) only writes each member's assignment: a
random pairing id and the players in seat order. Making the match from it is idempotent, so any
of the group's streams (on any replica) may do it, and more than one may: the match is created
with a request id derived from the pairing id (the same match whoever creates it), and every
seat is joined with its own derived request id (the same seat and token whoever joins it). So a
replica that dies after pairing, or after creating the match, loses no one: the group's other
streams, or a player's next JoinQueue (which finds its assignment), finish the work. A player
holds one assignment per queue at a time and is out of the queue while it does: no player is
in two matches of a queue. Example::

    async for update in matchmaking.wait(queue, seeker):
        ...   # Waiting(position=0, ...), then Matched(joined, rated)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from serai.community.ratings import POOLS, RATED_POOL, Ratings
from serai.matches import BadRequest, Joined, Matches
from serai.matches.request_ids import created_match_id
from serai.store import MatchRecord, Store
from serai.store.community import (
    DEFAULT_POLICY,
    PairingPolicy,
    QueueEntry,
    QueueKey,
    RatedMatch,
    RatedSeat,
    RatingBoard,
)

QUEUE_CLIENT = "serai-queue"  # the client_id of the matches the queue makes
HEARTBEAT_MS = 10_000  # the longest a waiting stream goes without an update


@dataclass(frozen=True)
class Seeker:
    """Who waits: ``player`` (a player id's :func:`~serai.matches.access.player_key`, or a
    guest's random id when ``guest``), a display name, and whether it is a bot."""

    player: str
    name: str
    bot: bool = False
    guest: bool = False


@dataclass(frozen=True)
class Waiting:
    position: int
    waiting: int
    waited_ms: int
    estimate_ms: int = 0


@dataclass(frozen=True)
class Matched:
    joined: Joined
    rated: bool


@dataclass(frozen=True)
class _Assignment:
    pairing: str
    seat: int
    players: tuple[Mapping[str, Any], ...]

    @classmethod
    def loads(cls, held: str) -> _Assignment:
        told = json.loads(held.partition("\n")[2])
        return cls(told["pairing"], int(told["seat"]), tuple(told["players"]))


class Matchmaking:
    """JoinQueue and LeaveQueue over ``matches``. ``move_seconds``: the turn clock of the
    matches the queue makes (so that a player who vanished loses, and the others go on)."""

    def __init__(
        self,
        matches: Matches,
        ratings: Ratings,
        *,
        policy: PairingPolicy = DEFAULT_POLICY,
        poll_seconds: float = 0.25,
        move_seconds: int = 60,
        clock_ms: Callable[[], int] | None = None,
    ) -> None:
        self.matches = matches
        self.store: Store = matches.store
        self.ratings = ratings
        self.policy = policy
        self.poll_seconds = poll_seconds
        self.move_seconds = move_seconds
        # The replica's clock: it only times waits (the window, a stale player), where replicas
        # a little apart change nothing that matters.
        self.clock_ms = clock_ms or (lambda: int(time.time() * 1000))

    def queue(
        self, tenant: str, game: str, options: Mapping[str, str], seats: int, pool: str
    ) -> QueueKey:
        """The queue named so, checked: an installed game (else GameNotFound), its options and
        a seat count it takes, a known pool (else BadRequest)."""
        pool = pool or RATED_POOL
        if pool not in POOLS:
            raise BadRequest(f"unknown pool {pool!r}: use one of {', '.join(POOLS)}")
        if not game:
            raise BadRequest("game is empty: name one of the games ListGames lists")
        plugin = self.matches.game(game)
        players = seats or plugin.info.min_players
        plugin.check_players(players)
        resolved = plugin.resolve_options(dict(options))
        return QueueKey(tenant, game, resolved, players, pool)

    def board(self, queue: QueueKey) -> RatingBoard:
        """The board the queue's players are rated on (a casual queue pairs by it too)."""
        return RatingBoard(queue.tenant, queue.game, RATED_POOL)

    async def wait(self, queue: QueueKey, seeker: Seeker) -> AsyncIterator[Waiting | Matched]:
        """Queue ``seeker``, answer its place while it waits, then its match; a stream closed
        before it is matched takes it out of the queue."""
        matched = await self._enter(queue, seeker)
        if matched is not None:
            yield matched
            return
        told = False
        try:
            async for update in self._waiting(queue, seeker):
                told = isinstance(update, Matched)
                yield update
        finally:
            if not told:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self.store.queue_leave(queue, seeker.player))

    async def leave(self, queue: QueueKey, player: str) -> bool:
        return await self.store.queue_leave(queue, player)

    async def _enter(self, queue: QueueKey, seeker: Seeker) -> Matched | None:
        """Queue the player; or, when an unfinished match of an earlier pairing holds it, that
        match (a stream lost after pairing: the same answer again)."""
        row = await self.ratings.row(self.board(queue), seeker.player, seeker.name, seeker.bot)
        entry = json.dumps(
            {"p": seeker.player, "n": seeker.name, "b": seeker.bot, "g": seeker.guest}
        )
        clear = ""
        while True:
            held = await self.store.queue_enter(
                queue, QueueEntry(seeker.player, entry, row.mu), self.clock_ms(), clear
            )
            if held is None:
                return None
            assignment = _Assignment.loads(held)
            if await self._still_playing(queue, assignment):
                return await self._settle(queue, assignment)
            clear = assignment.pairing  # done with: queue the player anew

    async def _waiting(self, queue: QueueKey, seeker: Seeker) -> AsyncIterator[Waiting | Matched]:
        last: Waiting | None = None
        while True:
            now_ms = self.clock_ms()
            pairing = secrets.token_hex(16)
            await self.store.queue_pair(queue, seeker.player, now_ms, self.policy, pairing)
            poll = await self.store.queue_poll(queue, seeker.player, now_ms)
            if poll.assignment is not None:
                yield await self._settle(queue, _Assignment.loads(poll.assignment))
                return
            if poll.position is None:  # dropped as stale (a long pause): queue again
                if (matched := await self._enter(queue, seeker)) is not None:
                    yield matched
                    return
                continue
            update = Waiting(poll.position, poll.waiting, max(0, now_ms - poll.since_ms))
            if _worth_telling(update, last):
                yield update
                last = update
            await asyncio.sleep(self.poll_seconds)

    async def _still_playing(self, queue: QueueKey, assignment: _Assignment) -> bool:
        """Whether the assignment's match is still to be played (or not made yet)."""
        match_id = created_match_id(QUEUE_CLIENT, _create_id(assignment.pairing), queue.tenant)
        record = await self.store.load(match_id)
        if isinstance(record, MatchRecord):
            return record.status != "finished"
        return not await self.store.existed(match_id)

    async def _settle(self, queue: QueueKey, assignment: _Assignment) -> Matched:
        """Make the assignment's match (or find it made), join every seat, and answer the
        player's own; idempotent, on any replica."""
        record = await self.matches.create(
            queue.game,
            seats=queue.seats,
            options={k: str(v) for k, v in queue.options.items()},
            client_id=QUEUE_CLIENT,
            move_seconds=self.move_seconds,
            request_id=_create_id(assignment.pairing),
            tenant=queue.tenant,
        )
        rated = queue.pool == RATED_POOL
        seats = tuple(RatedSeat(p["p"], p["n"], bool(p["b"])) for p in assignment.players)
        if rated:
            rated_match = RatedMatch(
                record.match_id,
                RatingBoard(queue.tenant, queue.game, queue.pool),
                seats,
                self.clock_ms(),
            )
            await self.store.register_rated(rated_match, self.clock_ms())
        mine: Joined | None = None
        for seat, player in enumerate(assignment.players):
            joined = await self.matches.join(
                record.match_id,
                seat,
                player["n"],
                request_id=f"queue-{assignment.pairing}-{seat}",
                entropy=secrets.token_bytes(16),
                tenant=queue.tenant,
                player_key="" if player.get("g") else player["p"],
            )
            if seat == assignment.seat:
                mine = joined
        assert mine is not None
        return Matched(mine, rated)


def _worth_telling(update: Waiting, last: Waiting | None) -> bool:
    """A new place in the queue, or :data:`HEARTBEAT_MS` since the last update: a waiting stream
    is never silent for long (proxies and idle timeouts close silent streams)."""
    if last is None or (update.position, update.waiting) != (last.position, last.waiting):
        return True
    return update.waited_ms - last.waited_ms >= HEARTBEAT_MS


def _create_id(pairing: str) -> str:
    return f"queue-{pairing}"
