"""The community's core (serai.community) on each store, in memory and on a real Redis: a rated
match moves ratings once however often it is re-driven, and by any number of raters; a pairing
that no stream told is found by the players' next JoinQueue; guests play casual matches; people
against bots move no rating unless the host says so; a closed stream leaves the queue; a rated
match's rematch is rated; a waiting player is told an estimate; a player who waited long
enough is seated with house bots where the host allows it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from serai import registry
from serai.community import Community, Matched, Seeker, Waiting
from serai.community.queue import HEARTBEAT_MS, estimate_ms
from serai.community.rater import Rater
from serai.matches import Joined, Matches
from serai.store import Store
from serai.store.community import PairingPolicy, QueueEntry, RatedMatch, RatedSeat, RatingBoard
from serai.store.memory import MemoryStore
from serai.store.redis import RedisStore

GAMES = registry.load()
BOARD = RatingBoard("", "jaipur", "rated")


@pytest.fixture(params=["memory", "redis"])
def open_store(request: pytest.FixtureRequest) -> Callable[[], Store]:
    if request.param == "memory":
        return MemoryStore
    url = request.getfixturevalue("redis_url")
    return lambda: RedisStore.from_url(url)


def scenario(open_store: Callable[[], Store], test: Callable[[Store], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        store = open_store()
        try:
            return await asyncio.wait_for(test(store), 60)
        finally:
            await store.close()

    return asyncio.run(main())


def community(store: Store, **options: Any) -> Community:
    return Community(Matches(store, GAMES), **options)


async def matched(updates: AsyncIterator[Waiting | Matched]) -> Matched:
    """The match a queue stream ends with (its waiting updates skipped)."""
    async with contextlib.aclosing(updates):  # type: ignore[type-var]
        async for update in updates:
            if isinstance(update, Matched):
                return update
    raise AssertionError("the stream ended unmatched")


async def finish(c: Community, loser: Matched) -> None:
    """End the match: ``loser`` resigns."""
    await c.matchmaking.matches.resign(loser.joined.record.match_id, loser.joined.token)


async def pair(
    c: Community, *seekers: Seeker, seats: int = 2, pool: str = "rated"
) -> list[Matched]:
    queue = c.matchmaking.queue("", "nile" if seats > 2 else "jaipur", {}, seats, pool)
    return list(await asyncio.gather(*(matched(c.matchmaking.wait(queue, s)) for s in seekers)))


def test_a_rated_match_counts_once_however_often_it_is_re_driven(open_store) -> None:
    """Rating the same finished match again (a retry, another replica, a restart) is a
    "duplicate" that changes nothing: one game each, one line of history."""

    async def test(store: Store) -> None:
        c = community(store)
        ada, bo = await pair(c, Seeker("p-ada", "ada"), Seeker("p-bo", "bo"))
        assert ada.joined.record.match_id == bo.joined.record.match_id and ada.rated
        await finish(c, bo)
        assert await c.rater.drain() == 1
        rated = RatedMatch(
            ada.joined.record.match_id, BOARD, (RatedSeat("p-ada", "ada"), RatedSeat("p-bo", "bo"))
        )
        for _ in range(3):
            assert await c.ratings.rate(rated, [1, 0], 0) == "duplicate"
        rows = await store.rating_rows(BOARD, ["p-ada", "p-bo"])
        assert {p: r.games for p, r in rows.items()} == {"p-ada": 1, "p-bo": 1}
        assert rows["p-ada"].mu > rows["p-bo"].mu  # bo resigned
        assert len(await c.ratings.history(BOARD, "p-ada")) == 1

    scenario(open_store, test)


def test_a_rater_that_died_holding_a_match_is_replaced_and_nothing_counts_twice(
    open_store,
) -> None:
    """A rater leases a finished match and dies before rating it: once the lease runs out
    another rates it; the first, come back, finds it rated ("duplicate") and counts nothing."""

    async def test(store: Store) -> None:
        c = community(store)
        ada, _ = await pair(c, Seeker("p-ada", "ada"), Seeker("p-bo", "bo"))
        await finish(c, ada)
        now = [1e12]  # seconds: far after the match was registered (now), so it is due
        dead = await store.rated_due(int(now[0] * 1000), 60_000, 10)  # leased, never rated
        assert [r.match_id for r in dead] == [ada.joined.record.match_id]
        other = Rater(store, c.ratings, lambda: now[0], lease_ms=60_000)
        assert await other.drain() == 0  # still leased to the dead one
        now[0] += 61
        assert await other.drain() == 1
        assert await c.ratings.rate(dead[0], [0, 1], 0) == "duplicate"  # the dead one, back
        rows = await store.rating_rows(BOARD, ["p-ada", "p-bo"])
        assert [rows[p].games for p in ("p-ada", "p-bo")] == [1, 1]
        assert rows["p-bo"].mu > rows["p-ada"].mu

    scenario(open_store, test)


def test_two_raters_at_once_count_each_match_once(open_store) -> None:
    async def test(store: Store) -> None:
        c = community(store)
        for _ in range(3):
            ada, _bo = await pair(c, Seeker("p-ada", "ada"), Seeker("p-bo", "bo"))
            await finish(c, ada)
        raters = [Rater(store, c.ratings, lambda: 1e12, lease_ms=0) for _ in range(3)]
        await asyncio.gather(*(r.drain() for r in raters))
        rows = await store.rating_rows(BOARD, ["p-ada", "p-bo"])
        assert [rows[p].games for p in ("p-ada", "p-bo")] == [3, 3]

    scenario(open_store, test)


def test_a_pairing_no_stream_told_is_found_by_the_players_next_join(open_store) -> None:
    """A replica paired two players and died before any stream told them: each player's next
    JoinQueue (on another replica) answers the same match, each its own seat."""

    async def test(store: Store) -> None:
        dead, alive = community(store), community(store)
        queue = dead.matchmaking.queue("", "jaipur", {}, 2, "rated")
        ada, bo = Seeker("p-ada", "ada"), Seeker("p-bo", "bo")
        for seeker in (ada, bo):
            assert await dead.matchmaking._enter(queue, seeker) is None
        now_ms = int(time.time() * 1000)
        assert await store.queue_pair(queue, "p-bo", now_ms, PairingPolicy(), secrets.token_hex(16))
        got = await pair(alive, ada, bo)
        assert got[0].joined.record.match_id == got[1].joined.record.match_id
        assert {m.joined.seat for m in got} == {0, 1}
        again = await pair(alive, ada)  # the stream lost once more: the same seat again
        assert again[0].joined.token == got[0].joined.token

    scenario(open_store, test)


def test_three_players_fill_a_three_seat_nile_queue(open_store) -> None:
    async def test(store: Store) -> None:
        c = community(store)
        got = await pair(c, *(Seeker(f"p-{n}", n) for n in "abc"), seats=3)
        assert len({m.joined.record.match_id for m in got}) == 1
        assert sorted(m.joined.seat for m in got) == [0, 1, 2]
        assert got[0].joined.record.status == "running"

    scenario(open_store, test)


def test_guests_play_casual_matches_that_move_no_rating(open_store) -> None:
    async def test(store: Store) -> None:
        c = community(store)
        ada, _ = await pair(
            c, Seeker("g-1", "ada", guest=True), Seeker("g-2", "bo", guest=True), pool="casual"
        )
        assert not ada.rated and not ada.joined.record.seats[0].player
        await finish(c, ada)
        assert await c.rater.drain() == 0
        assert await store.leaderboard(RatingBoard("", "jaipur", "casual"), False, 0, 10) == []

    scenario(open_store, test)


@pytest.mark.parametrize("host_rates_them", [False, True])
def test_people_against_bots_move_ratings_only_when_the_host_says(
    open_store, host_rates_them: bool
) -> None:
    async def test(store: Store) -> None:
        c = community(store, people_vs_bots=host_rates_them)
        _, bot = await pair(c, Seeker("p-ada", "ada"), Seeker("p-bot", "bot", bot=True))
        await finish(c, bot)
        await c.rater.drain()
        people = await store.leaderboard(BOARD, False, 0, 10)
        bots = await store.leaderboard(BOARD, True, 0, 10)
        assert [p for p, _ in people] == (["p-ada"] if host_rates_them else [])
        assert [p for p, _ in bots] == (["p-bot"] if host_rates_them else [])

    scenario(open_store, test)


def test_a_closed_stream_takes_its_player_out_of_the_queue(open_store) -> None:
    async def test(store: Store) -> None:
        c = community(store)
        queue = c.matchmaking.queue("", "jaipur", {}, 2, "rated")
        updates = c.matchmaking.wait(queue, Seeker("p-ada", "ada"))
        first = await anext(updates)
        assert isinstance(first, Waiting) and first.position == 0
        await updates.aclose()  # type: ignore[attr-defined]
        assert (await store.queue_poll(queue, "p-ada", 0)).position is None

    scenario(open_store, test)


def test_a_bad_queue_is_refused_before_anyone_waits(open_store) -> None:
    from serai.game import InvalidOptions, NotPlayable
    from serai.matches import BadRequest, GameNotFound

    async def test(store: Store) -> None:
        mm = community(store).matchmaking
        with pytest.raises(GameNotFound):
            mm.queue("", "chess", {}, 0, "rated")
        with pytest.raises(BadRequest):
            mm.queue("", "jaipur", {}, 0, "ranked")
        with pytest.raises((BadRequest, InvalidOptions, NotPlayable, ValueError)):
            mm.queue("", "jaipur", {}, 3, "rated")
        with pytest.raises((BadRequest, InvalidOptions)):
            mm.queue("", "jaipur", {"no-such-option": "1"}, 0, "rated")

    scenario(open_store, test)


@pytest.mark.parametrize("bound", [True, False])
def test_a_match_created_rated_is_rated_if_every_seat_has_a_player(open_store, bound) -> None:
    """CreateMatch's ``rated``: the seats are read when the match ends; a seat joined without
    a player token leaves the match unrated (and out of the registry all the same)."""

    async def test(store: Store) -> None:
        c = community(store)
        matches = c.matchmaking.matches
        record = await matches.create("jaipur")
        await c.register_created(record)
        ada = await matches.join(record.match_id, player_name="ada", player_id="ada")
        await matches.join(record.match_id, player_name="bo", player_id="bo" if bound else "")
        await matches.resign(record.match_id, ada.token)
        await c.rater.drain()
        rated = await store.leaderboard(BOARD, False, 0, 10)
        assert [r.name for _, r in rated] == (["bo", "ada"] if bound else [])
        assert await store.rated_due(10**13, 0, 10) == []

    scenario(open_store, test)


def test_a_rated_match_s_rematch_is_rated_on_its_board_once(open_store) -> None:
    """Both seats of a finished rated match ask for a rematch (the Rematch RPC, which registers
    it each time): it is rated on the same board, each player in its rotated seat, and once
    however often it is registered (a late repeat counts nothing)."""
    from serai.api import match_service_pb2 as pb
    from serai.rpc.context import CallContext
    from serai.rpc.handlers import MatchHandlers

    async def test(store: Store) -> None:
        c = community(store)
        matches = c.matchmaking.matches
        handlers = MatchHandlers(matches, community=c)
        ada, bo = await pair(c, Seeker("p-ada", "ada"), Seeker("p-bo", "bo"))
        old_id = ada.joined.record.match_id
        await finish(c, bo)
        assert await c.rater.drain() == 1
        again = [
            await handlers.Rematch(
                pb.RematchRequest(match_id=old_id, seat_token=m.joined.token), CallContext()
            )
            for m in (ada, bo)
        ]
        assert [j.seat for j in again] == [(ada.joined.seat + 1) % 2, (bo.joined.seat + 1) % 2]
        new_id = again[0].match.match_id
        await matches.resign(new_id, again[0].seat_token)  # ada loses the rematch
        assert await c.rater.drain() == 1
        rematch = await matches.get(new_id)
        assert await c.rematched(old_id, rematch.record)  # a late repeat
        await c.rater.drain()
        rows = await store.rating_rows(BOARD, ["p-ada", "p-bo"])
        assert [rows[p].games for p in ("p-ada", "p-bo")] == [2, 2]
        ada_lines = await c.ratings.history(BOARD, "p-ada")
        bo_lines = await c.ratings.history(BOARD, "p-bo")
        assert [line.match_id for line in ada_lines] == [new_id, old_id]
        assert [line.place for line in ada_lines] == [1, 0]
        assert [line.place for line in bo_lines] == [0, 1]

    scenario(open_store, test)


def test_a_casual_match_s_rematch_is_not_rated(open_store) -> None:
    async def test(store: Store) -> None:
        c = community(store)
        ada, bo = await pair(
            c, Seeker("g-1", "ada", guest=True), Seeker("g-2", "bo", guest=True), pool="casual"
        )
        await finish(c, ada)
        old_id = ada.joined.record.match_id
        joined = await c.matchmaking.matches.rematch(old_id, bo.joined.token)
        assert not await c.register_rematch(old_id, joined.record)
        assert await store.rated_due(10**13, 0, 10) == []

    scenario(open_store, test)


def test_a_waiting_player_is_told_its_place_and_an_estimate_from_recent_waits(open_store) -> None:
    """Two players seated after a minute's wait: the next player waiting is told it is first
    of one, and to expect about a minute, less as it waits; once it waited as long as anyone
    lately, no guess."""

    async def test(store: Store) -> None:
        c = community(store)
        now = [0]
        c.matchmaking.clock_ms = lambda: now[0]
        c.matchmaking.poll_seconds = 0.01
        queue = c.matchmaking.queue("", "jaipur", {}, 2, "rated")
        for player in ("p-a", "p-b"):
            await store.queue_enter(queue, QueueEntry(player, json.dumps({"p": player}), 25), 0)
            await store.queue_poll(queue, player, 60_000)  # still there (not stale)
        assert await store.queue_pair(queue, "p-a", 60_000, PairingPolicy(), "g1")
        now[0] = 100_000
        updates = c.matchmaking.wait(queue, Seeker("p-cy", "cy"))
        first = await anext(updates)
        assert first == Waiting(position=0, waiting=1, waited_ms=0, estimate_ms=60_000)
        guesses = []
        for _ in range(6):  # the clock on by a heartbeat each time (not so far it looks gone)
            now[0] += HEARTBEAT_MS
            later = await anext(updates)
            guesses.append((later.waited_ms, later.estimate_ms))
        assert guesses[0] == (10_000, 50_000) and guesses[-1] == (60_000, 0)
        await updates.aclose()  # type: ignore[attr-defined]

    scenario(open_store, test)


def test_the_estimate_is_a_median_of_longer_waits_capped_by_a_house_bot() -> None:
    assert estimate_ms((), 0) == 0
    assert estimate_ms((1_000, 9_000, 3_000), 0) == 3_000
    assert estimate_ms((1_000, 9_000, 3_000, 600_000), 2_000) == 7_000  # of 3_000, 9_000, 600_000
    assert estimate_ms((1_000,), 5_000) == 0
    assert estimate_ms((1_000,), 5_000, fill_after_ms=30_000) == 25_000
    assert estimate_ms((60_000,), 0, fill_after_ms=30_000) == 30_000


class FakeHouse:
    """House bots that play nothing: the seats handed to them, to play from the test."""

    def __init__(self, strategy: str | None = "greedy") -> None:
        self.offered = strategy
        self.seats: list[tuple[Joined, str, str]] = []

    def strategy(self, game: str) -> str | None:
        return self.offered

    async def play(self, joined: Joined, tenant: str, strategy: str) -> None:
        self.seats.append((joined, tenant, strategy))


async def filled(c: Community, seeker: Seeker, seats: int, after_s: float) -> Matched:
    """The match ``seeker`` is seated in once it waited ``after_s`` (the clock moved on at its
    first update, no one else queued; ``after_s`` is under the policy's stale_ms, past which a
    stream that did not poll looks gone)."""
    now = [1_000_000]
    c.matchmaking.clock_ms = lambda: now[0]
    c.matchmaking.poll_seconds = 0.01
    queue = c.matchmaking.queue("", "nile" if seats > 2 else "jaipur", {}, seats, "rated")
    updates = c.matchmaking.wait(queue, seeker)
    first = await anext(updates)
    assert isinstance(first, Waiting) and 0 < first.estimate_ms <= after_s * 1000
    now[0] += int(after_s * 1000)
    return await matched(updates)


@pytest.mark.parametrize("host_rates_them", [False, True])
def test_a_player_who_waited_long_enough_is_seated_with_a_house_bot(
    open_store, host_rates_them: bool
) -> None:
    """serve --queue-bot-after: the player waits alone past it and is seated with a house bot
    (the bot's seat joined by the server, its token handed to the house), rated: the bots on
    their own leaderboard, the person's rating moved only with --rate-people-against-bots."""

    async def test(store: Store) -> None:
        c = community(store, people_vs_bots=host_rates_them)
        house = FakeHouse()
        c.matchmaking.fill_with(house, 10)
        ada = await filled(c, Seeker("p-ada", "ada"), 2, 10)
        record = ada.joined.record
        assert ada.rated and record.status == "running"
        [(bot, tenant, strategy)] = house.seats
        assert (bot.seat, tenant, strategy) == (1 - ada.joined.seat, "", "greedy")
        assert bot.record.seats[bot.seat].name == "greedy bot"
        await c.matchmaking.matches.resign(record.match_id, bot.token)
        await c.rater.drain()
        people = await store.leaderboard(BOARD, False, 0, 10)
        bots = await store.leaderboard(BOARD, True, 0, 10)
        assert [p for p, _ in people] == (["p-ada"] if host_rates_them else [])
        assert [p for p, _ in bots] == (["house-bot:greedy:1"] if host_rates_them else [])

    scenario(open_store, test)


def test_the_house_bot_asks_for_the_rematch_too(open_store) -> None:
    """The person asks for a rematch of a match a house bot filled (the Rematch RPC): the bot
    takes the seat after its own at once, so the rematch starts; a repeated ask starts no
    second bot."""
    from serai.api import match_service_pb2 as pb
    from serai.rpc.context import CallContext
    from serai.rpc.handlers import MatchHandlers

    async def test(store: Store) -> None:
        c = community(store)
        house = FakeHouse()
        c.matchmaking.fill_with(house, 5)
        handlers = MatchHandlers(c.matchmaking.matches, community=c)
        ada = await filled(c, Seeker("p-ada", "ada"), 2, 5)
        [(bot, _, _)] = house.seats
        await c.matchmaking.matches.resign(bot.record.match_id, bot.token)
        ask = pb.RematchRequest(match_id=bot.record.match_id, seat_token=ada.joined.token)
        for _ in range(2):
            again = await handlers.Rematch(ask, CallContext())
        assert len(house.seats) == 2
        rebot, _, strategy = house.seats[1]
        assert (rebot.record.match_id, rebot.seat) == (again.match.match_id, 1 - again.seat)
        assert strategy == "greedy" and rebot.record.status == "running"
        await c.matchmaking.matches.resign(rebot.record.match_id, again.seat_token)
        await c.rater.drain()
        assert await store.rated_match(again.match.match_id) is not None  # rated as the first

    scenario(open_store, test)


def test_a_three_seat_queue_fills_with_two_house_bots(open_store) -> None:
    async def test(store: Store) -> None:
        c = community(store)
        house = FakeHouse("random")
        c.matchmaking.fill_with(house, 5)
        ada = await filled(c, Seeker("p-ada", "ada"), 3, 5)
        names = sorted(seat.name for seat in ada.joined.record.seats)
        assert names == ["ada", "random bot 1", "random bot 2"]
        assert sorted(j.seat for j, _, _ in house.seats) == sorted({0, 1, 2} - {ada.joined.seat})

    scenario(open_store, test)


def test_no_house_bot_no_fill(open_store) -> None:
    """A house with no bot for the game (or none free) seats no one: the player waits on."""

    async def test(store: Store) -> None:
        c = community(store)
        c.matchmaking.fill_with(FakeHouse(None), 5)
        now = [0]
        c.matchmaking.clock_ms = lambda: now[0]
        c.matchmaking.poll_seconds = 0.01
        queue = c.matchmaking.queue("", "jaipur", {}, 2, "rated")
        updates = c.matchmaking.wait(queue, Seeker("p-ada", "ada"))
        assert (await anext(updates)).estimate_ms == 0
        now[0] = HEARTBEAT_MS
        assert isinstance(await anext(updates), Waiting)
        await updates.aclose()  # type: ignore[attr-defined]

    scenario(open_store, test)
