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
in two matches of a queue.

Where the host allows it (:meth:`Matchmaking.fill_with`), a player who waited ``after_ms`` is
seated with house bots instead (:meth:`serai.store.Store.queue_fill`, the same kind of
assignment): each bot's seat is joined here, like every seat, and its token handed to the
process's house bots (:class:`HouseSeats`) to play. Example::

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
from typing import Any, Protocol

import structlog

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
HOUSE_PLAYER = "house-bot"  # the player id of a house bot's seat: house-bot:<strategy>:<n>

log = structlog.get_logger("serai.community")


class HouseSeats(Protocol):
    """The house bots the queue seats beside a player who waited long enough: the process's
    (see :mod:`serai.house_bots`), behind the little the queue needs of them."""

    def strategy(self, game: str) -> str | None:
        """The strategy a house bot would play ``game`` with now; None when there is none (no
        bot for the game, or every house bot is busy): then no one is seated with one."""
        ...

    async def play(self, joined: Joined, tenant: str, strategy: str) -> None:
        """Play the seat joined (its token in ``joined``), a match of ``tenant``, to its end."""
        ...


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
    """A waiting player's place: ``position`` (0: the longest waiting) among ``waiting``
    players, how long it has waited, and :func:`estimate_ms`."""

    position: int
    waiting: int
    waited_ms: int
    estimate_ms: int = 0


def estimate_ms(recent_waits: tuple[int, ...], waited_ms: int, fill_after_ms: int = 0) -> int:
    """How much longer the player will likely wait: of the queue's recent waits (the last
    players seated) longer than this one's so far, the median, less what it waited; at most
    until a house bot is due (``fill_after_ms``, 0: none). 0: no guess (no one seated lately
    waited this long, and no house bot is due). A median, not a mean: one player who waited an
    hour at night does not move it."""
    longer = sorted(w for w in recent_waits if w > waited_ms)
    guess = longer[len(longer) // 2] - waited_ms if longer else 0
    if fill_after_ms:
        until_bot = max(fill_after_ms - waited_ms, 1)
        guess = min(guess, until_bot) if guess else until_bot
    return guess


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
        self.house: HouseSeats | None = None
        self.fill_after_ms = 0

    def fill_with(self, house: HouseSeats, after_seconds: float) -> None:
        """Seat a player who waited ``after_seconds`` with ``house``'s bots (the host's choice:
        serve's --queue-bot-after)."""
        self.house = house
        self.fill_after_ms = int(after_seconds * 1000)

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
            waited_ms = max(0, now_ms - poll.since_ms)
            if await self._fill(queue, seeker, waited_ms, now_ms):
                continue  # the next poll finds the assignment
            house = self.house
            fill_after = self.fill_after_ms if house and house.strategy(queue.game) else 0
            update = Waiting(
                poll.position,
                poll.waiting,
                waited_ms,
                estimate_ms(poll.recent_waits, waited_ms, fill_after),
            )
            if _worth_telling(update, last):
                yield update
                last = update
            await asyncio.sleep(self.poll_seconds)

    async def _fill(self, queue: QueueKey, seeker: Seeker, waited_ms: int, now_ms: int) -> bool:
        """Seat the player with house bots if it waited long enough and the house has one for
        the game; whether it did (it was still waiting: not paired meanwhile)."""
        if self.house is None or not self.fill_after_ms or waited_ms < self.fill_after_ms:
            return False
        strategy = self.house.strategy(queue.game)
        if strategy is None:
            return False
        numbered = queue.seats > 2
        fill = [
            json.dumps(
                {
                    "p": f"{HOUSE_PLAYER}:{strategy}:{n}",
                    "n": f"{strategy} bot {n}" if numbered else f"{strategy} bot",
                    "b": True,
                    "h": strategy,
                }
            )
            for n in range(1, queue.seats)
        ]
        pairing = secrets.token_hex(16)
        return await self.store.queue_fill(queue, seeker.player, fill, now_ms, pairing)

    async def rematch_house_bots(self, old: MatchRecord, new: MatchRecord) -> int:
        """The house bots of ``old`` (a match the queue filled) ask for its rematch ``new`` too,
        as ``serai play``'s own bots do, so that the person who asked does not wait for them
        for ever: each joins the seat after its own (idempotent: a repeat starts no second
        bot). How many bots were started now."""
        if self.house is None:
            return 0
        started = 0
        for seat, held in enumerate(old.seats):
            who, _, strategy = held.player.rpartition(":")[0].partition(":")
            if who != HOUSE_PLAYER or not strategy:
                continue
            joined = await self.matches.join(
                new.match_id,
                (seat + 1) % len(old.seats),
                held.name,
                request_id=f"house-rematch-{old.match_id}-{seat}",
                entropy=secrets.token_bytes(16),
                tenant=new.tenant,
                player_key=held.player,
            )
            if not joined.replayed:
                await self._start_house_bot(joined, new.tenant, strategy)
                started += 1
        return started

    async def _start_house_bot(self, joined: Joined, tenant: str, strategy: str) -> None:
        """Hand the seat joined for a house bot to the house; a bot that cannot start is logged
        (the match goes on: its seat loses on time)."""
        assert self.house is not None
        try:
            await self.house.play(joined, tenant, strategy)
        except Exception as error:
            log.warning("house bot not started", match=joined.record.match_id, error=repr(error))

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
            strategy = player.get("h")
            # A bot's seat joined before (replayed) has its bot already: a second would play
            # the same seat. (One lost with a replica that died here: the player wins on time.)
            if strategy and not joined.replayed and self.house is not None:
                await self._start_house_bot(joined, queue.tenant, strategy)
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
