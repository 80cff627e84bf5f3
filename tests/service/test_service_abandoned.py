"""TIMEOUT_POLICY_LOSE_OR_CANCEL, on each store (in memory and a real Redis) with a fake clock: a
seat whose clock runs out before the match is under way abandons it, and the match is cancelled
(no winner, no rating, a match.abandoned webhook); later, the late seat loses as with LOSE."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from serai import registry
from serai.community import Community
from serai.matches import Matches
from serai.store import Store
from serai.store.community import RatingBoard
from serai.store.memory import MemoryStore
from serai.store.redis import RedisStore
from serai.webhooks.payloads import WebhookType, derive

GAMES = registry.load()


@pytest.fixture(params=["memory", "redis"])
def open_store(request: pytest.FixtureRequest) -> Callable[[], Store]:
    if request.param == "memory":
        return MemoryStore
    url = request.getfixturevalue("redis_url")
    return lambda: RedisStore.from_url(url)


def _run(open_store: Callable[[], Store], scenario: Callable[..., Awaitable[Any]]) -> Any:
    now = [1_000_000.0]

    async def main() -> Any:
        store = open_store()
        try:
            matches = Matches(store, GAMES, clock=lambda: now[0])
            return await scenario(store, matches, now)
        finally:
            await store.close()

    return asyncio.run(main())


async def _started(matches: Matches, **players: str) -> tuple[str, list[str]]:
    record = await matches.create("jaipur", move_seconds=5, timeout_policy="lose_or_cancel")
    tokens = []
    for seat, name in enumerate(players or {"ada": "", "bo": ""}):
        joined = await matches.join(record.match_id, seat, player_name=name, player_id=name)
        tokens.append(joined.token)
    return record.match_id, tokens


async def _move(matches: Matches, match_id: str, tokens: list[str]) -> None:
    seat = (await matches.get(match_id)).to_act[0]
    listed = await matches.legal_moves(match_id, tokens[seat])
    await matches.submit(match_id, tokens[seat], move_id=listed.moves[0].id)


def test_a_seat_late_before_the_match_is_under_way_cancels_it(open_store):
    async def scenario(store: Store, matches: Matches, now: list[float]) -> Any:
        match_id, tokens = await _started(matches)
        await _move(matches, match_id, tokens)  # one move of two seats: barely begun
        late = (await matches.get(match_id)).to_act[0]
        now[0] += 6
        done = await matches.get(match_id)
        events = await store.read_events(match_id, "", count=100)
        hooks = await derive(done.record, events, lambda version: _no_one())
        return late, done, hooks, await matches.replay(match_id)

    late, done, hooks, replay = _run(open_store, scenario)
    assert done.record.status == "finished"
    assert done.outcome["cancelled"] is True and done.outcome["ranks"] == [0, 0]
    assert done.outcome["summary"] == f"cancelled: seat {late} did not move in time"
    ends = [(hook.type, hook.seat) for hook in hooks[-2:]]
    assert ends == [(WebhookType.ABANDONED, late), (WebhookType.FINISHED, None)]
    assert replay.ok, replay.message


def test_a_seat_late_once_every_seat_has_moved_loses_as_with_lose(open_store):
    async def scenario(store: Store, matches: Matches, now: list[float]) -> Any:
        match_id, tokens = await _started(matches)
        for _ in range(2):
            await _move(matches, match_id, tokens)
        late = (await matches.get(match_id)).to_act[0]
        now[0] += 6
        return late, await matches.get(match_id)

    late, done = _run(open_store, scenario)
    assert "cancelled" not in done.outcome
    assert done.outcome["ranks"][late] == 1 and done.outcome["summary"].endswith("ran out of time")


def test_a_cancelled_rated_match_moves_no_rating(open_store):
    async def scenario(store: Store, matches: Matches, now: list[float]) -> Any:
        community = Community(matches)
        match_id, _tokens = await _started(matches, ada="", bo="")
        await community.register_created(await store.load(match_id))
        now[0] += 6
        assert (await matches.get(match_id)).outcome["cancelled"]
        await community.rater.drain()
        board = RatingBoard("", "jaipur", "rated")
        return await store.leaderboard(board, False, 0, 10), await store.rated_due(10**13, 0, 10)

    leaderboard, still_due = _run(open_store, scenario)
    assert leaderboard == [] and still_due == []


async def _no_one() -> list[int]:
    return []
