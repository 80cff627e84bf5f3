"""Turn clocks at their edges, on one Redis with a fake clock (no waiting): several seats late at
once, a match the sweeper cannot enforce, and idle expiry next to a long clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from serai import registry
from serai.matches import Matches
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore, open_store
from tiny_game import TinyGame, tiny_registry


def _run(
    redis_url: str,
    scenario: Callable[[RedisStore, Matches, list[float]], Awaitable[Any]],
    games: registry.Registry | None = None,
    **settings: Any,
) -> Any:
    now = [1_000_000.0]

    async def main() -> Any:
        store = open_store(redis_url)
        matches = Matches(store, games or tiny_registry(), clock=lambda: now[0], **settings)
        try:
            return await scenario(store, matches, now)
        finally:
            await store.close()

    return asyncio.run(main())


async def _simultaneous_with_seat_2_moved(matches: Matches, policy: str) -> str:
    """A three-seat tiny match where every seat plays each round; seat 2 has played in time."""
    record = await matches.create(
        "tiny", seats=3, options={"simultaneous": "true"}, move_seconds=5, timeout_policy=policy
    )
    tokens = [(await matches.join(record.match_id, seat)).token for seat in range(3)]
    listed = await matches.legal_moves(record.match_id, tokens[2])
    await matches.submit(record.match_id, tokens[2], move_id=listed.moves[0].id)
    assert (await matches.get(record.match_id)).to_act == (0, 1)
    return record.match_id


def test_every_seat_still_to_act_at_the_deadline_loses_tied_last(redis_url):
    async def scenario(store: RedisStore, matches: Matches, now: list[float]) -> Any:
        match_id = await _simultaneous_with_seat_2_moved(matches, "lose")
        now[0] += 6  # seats 0 and 1 both let the clock run out
        done = await matches.get(match_id)
        events = await store.read_events(match_id, "", count=100)
        return done, events, await matches.replay(match_id)

    done, events, replay = _run(redis_url, scenario)
    assert done.record.status == "finished"
    assert done.outcome["ranks"] == [1, 1, 0]  # seat 2 alone first; the late two share second
    assert done.outcome["summary"] == "seats 0 and 1 ran out of time"
    late = [e.data["seat"] for e in events if e.kind == "timed_out"]
    assert late == [0, 1] and events[-1].kind == "finished"
    assert replay.ok, replay.message


def test_every_seat_still_to_act_at_the_deadline_gets_its_default_move_before_the_clock_restarts(
    redis_url,
):
    async def scenario(store: RedisStore, matches: Matches, now: list[float]) -> Any:
        match_id = await _simultaneous_with_seat_2_moved(matches, "default_move")
        now[0] += 6
        after = await matches.get(match_id)
        events = await store.read_events(match_id, "", count=100)
        return after, events, now[0]

    after, events, now = _run(redis_url, scenario)
    assert after.record.status == "running"
    assert [len(played) for played in after.view["played"]] == [1, 1, 1]  # a new round
    assert [e.data["seat"] for e in events if e.kind == "timed_out"] == [0, 1]
    assert after.record.deadline_ms == int(now * 1000) + 5_000  # restarted once both played


def test_a_sweep_goes_on_past_a_match_whose_plugin_fails(redis_url):
    class FailingTiny(TinyGame):
        def legal_moves(self, state: Any, seat: int) -> list[str]:
            raise ZeroDivisionError("a plugin bug, reached by the default move on time out")

    installed = tiny_registry()
    games = registry.Registry({**installed.games, "failing": FailingTiny()}, installed.broken)

    async def scenario(store: RedisStore, matches: Matches, now: list[float]) -> Any:
        failing = await matches.create("failing", move_seconds=5, timeout_policy="default_move")
        for seat in range(2):
            await matches.join(failing.match_id, seat)
        now[0] += 1
        healthy = await _started_jaipur(matches)
        now[0] += 60  # both clocks ran out; the failing match is the older one, read first
        enforced = await matches.sweep()
        return enforced, await store.load(healthy)

    enforced, healthy = _run(redis_url, scenario, games)
    assert enforced == 1 and healthy.status == "finished"


def test_a_sweep_goes_on_past_a_damaged_record(redis_url):
    async def scenario(store: RedisStore, matches: Matches, now: list[float]) -> Any:
        damaged = await _started_jaipur(matches)
        now[0] += 1
        healthy = await _started_jaipur(matches)
        await store.client.hdel(match_keys(damaged)[0], "seed")
        matches._cache.drop(damaged)  # so that the sweep reads the damaged record
        now[0] += 60
        enforced = await matches.sweep()
        return enforced, await store.load(healthy)

    enforced, healthy = _run(redis_url, scenario)
    assert enforced == 1 and healthy.status == "finished"


async def _started_jaipur(matches: Matches) -> str:
    record = await matches.create("jaipur", move_seconds=5)
    for seat in range(2):
        await matches.join(record.match_id, seat)
    return record.match_id


def test_a_clocked_match_outlives_its_deadline_by_the_idle_time(redis_url):
    """idle_seconds 100, a turn clock of 1,000 s: the keys must live past the deadline shown."""

    async def scenario(store: RedisStore, matches: Matches, now: list[float]) -> Any:
        record = await matches.create("jaipur", move_seconds=1_000)
        key = match_keys(record.match_id)[0]
        lives = [await store.client.pttl(key)]  # open: no clock yet
        tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
        lives.append(await store.client.pttl(key))  # started: the clock runs
        seat = (await matches.get(record.match_id)).to_act[0]
        listed = await matches.legal_moves(record.match_id, tokens[seat])
        await matches.submit(record.match_id, tokens[seat], move_id=listed.moves[0].id)
        lives.append(await store.client.pttl(key))  # after a move: the clock restarted
        return lives

    opened, started, moved = _run(redis_url, scenario, idle_seconds=100)
    assert 0 < opened <= 100_000
    # at least the idle time after the deadline; at most a 64th more (see Commit.idle_ms)
    longest = 1_100_000 + 1_100_000 // 64
    assert 1_000_000 < started <= longest and 1_000_000 < moved <= longest
