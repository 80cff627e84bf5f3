"""Turn clocks on two replicas: a seat that runs out of time loses, or has its first legal move
played, exactly once, whichever replica notices first (a read, or its sweeper). The tests wait for
the effect with a bounded poll; they never assert on how long it took."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from reliability_helpers import poll
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import Matches, label_of
from serai.store.redis.store import open_store
from store_records import log_items

Code = grpc.StatusCode


def _stubs(servers):
    channels = [grpc.insecure_channel(s.address) for s in servers]
    return [pb_grpc.MatchServiceStub(c) for c in channels], channels


def _clocked_match(stubs, policy):
    request = pb.CreateMatchRequest(game="jaipur", seed=4, move_seconds=1, timeout_policy=policy)
    created = stubs[0].CreateMatch(request).match
    assert created.move_seconds == 1
    tokens = [
        stubs[i % 2].JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, seat=i)).seat_token
        for i in range(2)
    ]
    snapshot = stubs[1].GetMatch(pb.GetMatchRequest(match_id=created.match_id))
    # a clock shown, unless the box was so slow that this read found it run out already
    assert snapshot.move_deadline_ms > 0 or snapshot.match.status == pb.MATCH_STATUS_FINISHED
    return created.match_id, tokens, snapshot


def _first_to_act(seed: int) -> int:
    """Who moves first in a Jaipur match of ``seed``: the seat that runs out of time."""
    game = registry.load().games["jaipur"]
    return game.to_act(game.setup(2, seed, game.resolve_options({})))[0]


def _stored(redis_url, match_id):
    async def read():
        store = open_store(redis_url)
        try:
            record = await store.load(match_id)
            log = log_items(await store.read_log(match_id))
            matches = Matches(store, registry.load())
            labels = label_of(matches.game("jaipur"))  # a finished match's labels are rebuilt
            events = await store.read_events(match_id, "", count=10_000, label_of=labels)
            replay = await matches.replay(match_id)
            return record, log, events, replay
        finally:
            await store.close()

    return asyncio.run(read())


def test_a_late_seat_loses_once_when_a_read_notices(start_replicas, redis_url):
    servers = start_replicas(2, "--redis-url", redis_url, "--sweep-seconds", "0")  # reads only
    stubs, channels = _stubs(servers)
    match_id, tokens, _started = _clocked_match(stubs, pb.TIMEOUT_POLICY_LOSE)
    late = _first_to_act(4)

    def finished():
        for stub in stubs:  # both replicas read, so both may try to enforce it
            snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        return snapshot if snapshot.match.status == pb.MATCH_STATUS_FINISHED else None

    snapshot = poll(finished)
    assert snapshot.outcome.ranks[late] == 1 and snapshot.outcome.winners == [1 - late]
    assert "ran out of time" in snapshot.outcome.summary
    move = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[late], move_id="2.0")
    with pytest.raises(grpc.RpcError) as failure:
        stubs[0].SubmitMove(move)
    assert failure.value.code() == Code.FAILED_PRECONDITION
    record, log, events, replay = _stored(redis_url, match_id)
    kinds = [e.kind for e in events]
    assert kinds.count("timed_out") == 1 and kinds[-2:] == ["timed_out", "finished"]
    assert log == [{"v": 3, "s": late, "t": 1}] and record.version == 3
    assert replay.ok, replay.message
    for channel in channels:
        channel.close()


def test_default_moves_on_time_out_are_played_once_each_by_the_sweepers(start_replicas, redis_url):
    servers = start_replicas(2, "--redis-url", redis_url, "--sweep-seconds", "0.2")
    stubs, channels = _stubs(servers)
    match_id, tokens, started = _clocked_match(stubs, pb.TIMEOUT_POLICY_DEFAULT_MOVE)

    # nobody reads the match through serai: only the two sweepers can move it on
    def moved_three_times():
        record = _stored(redis_url, match_id)[0]
        return record if record.version >= started.version + 3 else None

    poll(moved_three_times, timeout=60, pause=0.3)
    stubs[0].Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))  # stops the clock
    record, log, events, replay = _stored(redis_url, match_id)
    timed_out = [e for e in events if e.kind == "timed_out"]
    moves = [e for e in events if e.kind == "move"]
    assert len(timed_out) == len(moves) == len(log) - 1 >= 3  # one default move per time out
    assert [e.data["move"] for e in timed_out] == [e.data["label"] for e in moves]
    assert [e["v"] for e in log] == list(range(3, record.version + 1))
    assert replay.ok, replay.message
    for channel in channels:
        channel.close()


def test_each_move_restarts_the_clock_and_two_replicas_racing_enforce_it_once(redis_url):
    """Replicas as two Matches on one Redis with a shared fake clock: no waiting at all."""
    now = [1_000_000.0]

    async def scenario():
        stores = [open_store(redis_url), open_store(redis_url)]
        games = registry.load()
        one, two = (Matches(s, games, clock=lambda: now[0]) for s in stores)
        record = await one.create("jaipur", seed=3, move_seconds=5)
        tokens = [(await two.join(record.match_id)).token for _ in range(2)]
        for _ in range(3):  # a move every 4 s: never late, because each move restarts the clock
            now[0] += 4
            snapshot = await two.get(record.match_id)
            assert snapshot.record.status == "running"
            seat = snapshot.to_act[0]
            listed = await one.legal_moves(record.match_id, tokens[seat])
            await one.submit(record.match_id, tokens[seat], move_id=listed.moves[0].id)
        now[0] += 6  # now the seat to act is late; both replicas notice it at once
        seen = await asyncio.gather(two.get(record.match_id), one.get(record.match_id))
        events = await stores[0].read_events(record.match_id, "", count=1000)
        for store in stores:
            await store.close()
        return seen, events

    seen, events = asyncio.run(scenario())
    assert all(s.record.status == "finished" for s in seen)
    assert seen[0].record.version == seen[1].record.version
    assert [e.kind for e in events].count("timed_out") == 1
    assert [e.kind for e in events][-2:] == ["timed_out", "finished"]


def test_sweeps_read_on_past_the_first_page_of_clocked_matches(redis_url):
    """A sweep reads ``limit`` clocked matches. Three open ones (clocked, not started: no
    deadline) are the oldest; two late ones come after. Sweeps of two must reach the late ones,
    not read the first two again and again."""
    now = [1_000_000.0]

    async def scenario() -> None:
        store = open_store(redis_url)
        matches = Matches(store, registry.load(), clock=lambda: now[0])
        try:
            for _ in range(3):
                await matches.create("jaipur", move_seconds=5)
                now[0] += 1
            late = []
            for _ in range(2):
                record = await matches.create("jaipur", move_seconds=5)
                for seat in range(2):
                    await matches.join(record.match_id, seat)
                late.append(record.match_id)
                now[0] += 1
            now[0] += 60  # both clocks ran out
            enforced = [await matches.sweep(limit=2) for _ in range(6)]  # three rounds at most
            assert sum(enforced) == 2
            for match_id in late:
                assert (await store.load(match_id)).status == "finished"  # type: ignore[union-attr]
            _found, next_offset = await store.deadlines(2, 2)
            assert next_offset == 0  # three clocked matches are left: the page at 2 is the last
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_sweep_that_ends_matches_does_not_skip_the_ones_after_them(redis_url):
    """Two late matches are the oldest clocked ones, then one open (no deadline), then a third
    late one. The first sweep of two ends the first two, which leaves the index, so the third
    moves up to the first page: the next sweep must read it there, not start past it."""
    now = [1_000_000.0]

    async def started() -> str:
        record = await matches.create("jaipur", move_seconds=5)
        for seat in range(2):
            await matches.join(record.match_id, seat)
        now[0] += 1
        return record.match_id

    async def scenario() -> list[int]:
        try:
            for _ in range(2):
                await started()
            await matches.create("jaipur", move_seconds=5)
            now[0] += 1
            await started()
            now[0] += 60  # every clock ran out
            return [await matches.sweep(limit=2) for _ in range(2)]
        finally:
            await store.close()

    store = open_store(redis_url)
    matches = Matches(store, registry.load(), clock=lambda: now[0])
    assert asyncio.run(scenario()) == [2, 1]


def test_a_replica_whose_clock_is_a_minute_off_forfeits_no_seat_early(redis_url):
    """Deadlines are taken on Redis's clock: a replica 60 s ahead reads a match whose seat has
    30 s left as running, and the deadline it sets with a move is 30 s from Redis's now, not
    90; one 60 s behind does not give a late seat a minute more."""
    import time

    async def scenario():
        stores = [open_store(redis_url) for _ in range(3)]
        games = registry.load()
        right, ahead, behind = (
            Matches(store, games, clock=lambda skew=skew: time.time() + skew)
            for store, skew in zip(stores, (0, 60, -60), strict=True)
        )
        for replica in (right, ahead, behind):
            await replica.follow_store_clock()
        record = await right.create("jaipur", seed=3, move_seconds=30)
        tokens = [(await right.join(record.match_id)).token for _ in range(2)]
        seen_ahead = await ahead.get(record.match_id)  # would time the seat out, 60 s ahead
        assert seen_ahead.record.status == "running", "the replica ahead timed the seat out"
        seat = seen_ahead.to_act[0]
        listed = await ahead.legal_moves(record.match_id, tokens[seat])
        moved = await ahead.submit(record.match_id, tokens[seat], move_id=listed.moves[0].id)
        redis_now_ms = await stores[0].time_ms()
        deadline_left_ms = moved.snapshot.record.deadline_ms - redis_now_ms
        for store in stores:
            await store.close()
        return deadline_left_ms, [r._clocks.offset_ms for r in (ahead, behind)]

    deadline_left_ms, offsets = asyncio.run(scenario())
    assert 25_000 < deadline_left_ms < 32_000, deadline_left_ms  # 90 s on its own clock
    assert abs(offsets[0] + 60_000) < 5_000 and abs(offsets[1] - 60_000) < 5_000, offsets


def test_a_replica_off_the_stores_clock_says_so_in_the_log_and_the_skew_metric(redis_url):
    import time

    from serai.metrics import CLOCK_SKEW
    from structlog.testing import capture_logs

    async def scenario():
        store = open_store(redis_url)
        try:
            skewed = Matches(store, registry.load(), clock=lambda: time.time() - 60)
            with capture_logs() as logged:
                await skewed.follow_store_clock()
            return logged
        finally:
            await store.close()

    logged = asyncio.run(scenario())
    warned = [e for e in logged if e["event"] == "this replica's clock is off the store's"]
    assert warned and -65 < warned[0]["skew_seconds"] < -55
    assert -65 < CLOCK_SKEW._value.get() < -55
