"""The community's core (serai.community) on each store, in memory and on a real Redis: a rated
match moves ratings once however often it is re-driven, and by any number of raters; a pairing
that no stream told is found by the players' next JoinQueue; guests play casual matches; people
against bots move no rating unless the host says so; a closed stream leaves the queue."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from serai import registry
from serai.community import Community, Matched, Seeker, Waiting
from serai.community.rater import Rater
from serai.matches import Matches
from serai.store import Store
from serai.store.community import PairingPolicy, RatedMatch, RatedSeat, RatingBoard
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
