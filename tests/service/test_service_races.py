"""Concurrent clients and replicas: one move per version, idempotent retries, resumable watches."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import grpc
import pytest
from google.protobuf import any_pb2, struct_pb2, wrappers_pb2
from serai.api import match_service_pb2 as pb
from serai.matches import Matches
from serai.matches.limits import Limits
from serai.store import REQUEST_WINDOW
from serai.store.redis.store import RedisStore
from service_helpers import Watcher, create, join_all, status_of, watch_all
from tiny_game import TinyGame, tiny_registry


@pytest.fixture
def replicas(start_service):
    """Two servers (replicas) on the same Redis, each with its own cache of states."""
    games = tiny_registry()
    return start_service(registry=games), start_service(registry=games)


def _listed(stub, match_id, token):
    return stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))


def _submit(stub, match_id, token, move_id="", version=0, request_id="", card=""):
    request = pb.SubmitMoveRequest(
        match_id=match_id, seat_token=token, expected_version=version, request_id=request_id
    )
    if card:
        request.payload.Pack(wrappers_pb2.StringValue(value=card))
    else:
        request.move_id = move_id
    return stub.SubmitMove(request)


def _version(stub, match_id):
    return stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version


def test_two_clients_submitting_at_the_same_version_one_applies_the_other_is_aborted(replicas):
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=2, seed=3, hand="4", plays="3")
    tokens = join_all(a, match_id, 2)
    for _round in range(3):  # both replicas have the version cached, then race
        first, second = _listed(a, match_id, tokens[0]), _listed(b, match_id, tokens[0])
        assert first.version == second.version
        calls = [
            a.SubmitMove.future(_request(match_id, tokens[0], first.moves[0].id, first.version)),
            b.SubmitMove.future(_request(match_id, tokens[0], second.moves[1].id, second.version)),
        ]
        outcomes = []
        for call in calls:
            try:
                outcomes.append(call.result().snapshot.version)
            except grpc.RpcError as error:
                outcomes.append(error.code())
        assert outcomes.count(grpc.StatusCode.ABORTED) == 1, outcomes
        assert first.version + 1 in outcomes
        assert _version(a, match_id) == first.version + 1
        seat1 = _listed(b, match_id, tokens[1])  # seat 1 plays so that seat 0 may race again
        _submit(b, match_id, tokens[1], seat1.moves[0].id, seat1.version)


def _request(match_id, token, move_id, version):
    return pb.SubmitMoveRequest(
        match_id=match_id, seat_token=token, move_id=move_id, expected_version=version
    )


def test_a_replica_with_a_stale_cache_loses_the_race_in_the_commit_and_answers_aborted(replicas):
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=2, seed=4)
    tokens = join_all(a, match_id, 2)
    on_a, on_b = _listed(a, match_id, tokens[0]), _listed(b, match_id, tokens[0])
    _submit(a, match_id, tokens[0], on_a.moves[0].id, on_a.version)
    # b still holds the old version: its check passes, the commit finds a newer one
    code, details = status_of(lambda: _submit(b, match_id, tokens[0], card=on_b.moves[1].label[5:]))
    assert code == grpc.StatusCode.ABORTED
    assert "fetch the match" in details
    code, _ = status_of(lambda: _submit(b, match_id, tokens[0], on_b.moves[1].id, on_b.version))
    assert code == grpc.StatusCode.ABORTED
    assert _version(b, match_id) == on_a.version + 1


def test_a_replica_with_a_stale_cache_joins_the_seat_that_is_free_now(replicas):
    """A join plans on the cached match (here a's own create), as SubmitMove does; when another
    replica has taken a seat since, the commit's compare-and-set says so and the join plans
    again on the match as it is: a clear refusal for the taken seat, the next free one else."""
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=3, seed=4)
    assert b.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=0)).seat == 0
    code, details = status_of(lambda: a.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=0)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "seat 0" in details and "taken" in details
    assert a.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat == 1
    assert b.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat == 2  # b is behind now
    code, details = status_of(lambda: a.JoinMatch(pb.JoinMatchRequest(match_id=match_id)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "every seat" in details
    now = a.GetMatch(pb.GetMatchRequest(match_id=match_id)).match
    assert now.status == pb.MATCH_STATUS_RUNNING and all(seat.joined for seat in now.seats)


def test_a_lost_race_is_retried_on_the_fresh_state_when_the_move_is_still_legal(replicas):
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=2, seed=5, simultaneous="true")
    tokens = join_all(a, match_id, 2)
    seat0, seat1 = _listed(a, match_id, tokens[0]), _listed(b, match_id, tokens[1])
    _submit(a, match_id, tokens[0], seat0.moves[0].id, seat0.version)
    card = seat1.moves[0].label.removeprefix("play ")
    done = _submit(b, match_id, tokens[1], card=card)  # no expected version: any is fine
    assert done.snapshot.version == seat1.version + 2
    view = struct_pb2.Struct()
    done.snapshot.view.Unpack(view)
    assert [list(p) for p in view["played"]] == [[seat0.moves[0].label[5:]], [card]]


def test_a_repeated_request_id_returns_the_first_answer_and_applies_nothing_twice(replicas):
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=2, seed=6, hand="4", plays="3")
    tokens = join_all(a, match_id, 2)
    listed = _listed(a, match_id, tokens[0])
    first = _submit(a, match_id, tokens[0], listed.moves[0].id, listed.version, request_id="r-1")
    assert not first.replayed
    again = _submit(a, match_id, tokens[0], listed.moves[0].id, listed.version, request_id="r-1")
    assert again.replayed and again.label == first.label
    assert again.snapshot == first.snapshot
    assert _version(a, match_id) == listed.version + 1
    # the other seat plays; the retry (through the other replica, too) still answers the same
    other = _listed(b, match_id, tokens[1])
    _submit(b, match_id, tokens[1], other.moves[0].id, other.version)
    for stub in (a, b):
        late = _submit(stub, match_id, tokens[0], listed.moves[1].id, listed.version, "r-1")
        assert late.replayed and late.label == first.label
        assert late.snapshot.version == first.snapshot.version
        assert late.snapshot.view == first.snapshot.view
    assert _version(a, match_id) == listed.version + 2
    played = struct_pb2.Struct()
    a.GetMatch(pb.GetMatchRequest(match_id=match_id)).view.Unpack(played)
    assert [len(p) for p in played["played"]] == [1, 1]


def test_the_proto_promises_the_request_window_the_store_keeps():
    """The proto tells clients how many request ids a seat's retries may reach back."""
    proto = Path(__file__).parents[2] / "proto" / "serai" / "v1" / "match_service.proto"
    promised = re.search(r"remembers each seat's\s*(?://\s*)?(\d+) most recent", proto.read_text())
    assert promised is not None and int(promised.group(1)) == REQUEST_WINDOW


def test_a_request_id_belongs_to_its_seat(replicas):
    a = replicas[0].stub()
    match_id = create(a, seats=2, seed=8)
    tokens = join_all(a, match_id, 2)
    zero = _listed(a, match_id, tokens[0])
    _submit(a, match_id, tokens[0], zero.moves[0].id, zero.version, request_id="same")
    one = _listed(a, match_id, tokens[1])
    done = _submit(a, match_id, tokens[1], one.moves[0].id, one.version, request_id="same")
    assert not done.replayed and done.snapshot.version == one.version + 1


def test_resuming_a_watch_after_an_event_id_loses_and_repeats_nothing(replicas):
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=2, seed=9)
    tokens = join_all(a, match_id, 2)
    for _ in range(2):
        for seat in (0, 1):
            listed = _listed(b, match_id, tokens[seat])
            _submit(b, match_id, tokens[seat], listed.moves[0].id, listed.version)
    everything = watch_all(a, match_id)
    ids = [e.event_id for e in everything]
    assert len(ids) == len(set(ids)) and ids == sorted(ids, key=_event_order)
    for cut in (1, 3, len(ids) - 1):
        rest = watch_all(b, match_id, tokens[0], after=ids[cut - 1])
        assert [e.event_id for e in rest] == ids[cut:]
        assert rest[-1].snapshot.viewer_seat == 0


def _event_order(event_id):
    ms, seq = event_id.split("-")
    return int(ms), int(seq)


def test_a_live_watch_started_mid_match_then_resumed_sees_every_event_once(replicas):
    a, b = replicas[0].stub(), replicas[1].stub()
    match_id = create(a, seats=2, seed=10, hand="4", plays="4")
    tokens = join_all(a, match_id, 2)
    first = Watcher(a, match_id, tokens[1])
    first.start()
    for _ in range(3):  # moves through the other replica
        seat = _to_act(b, match_id)
        listed = _listed(b, match_id, tokens[seat])
        _submit(b, match_id, tokens[seat], listed.moves[0].id, listed.version)
    _wait_for(lambda: sum(e.HasField("move") for e in first.events) == 3)
    first.stream.cancel()
    first.join(10)
    resumed = Watcher(a, match_id, tokens[1], after=first.events[-1].event_id)
    resumed.start()
    while _to_act(b, match_id) is not None:
        seat = _to_act(b, match_id)
        listed = _listed(b, match_id, tokens[seat])
        _submit(b, match_id, tokens[seat], listed.moves[0].id, listed.version)
    combined = first.events + resumed.finish()
    whole = watch_all(a, match_id)
    assert [e.event_id for e in combined] == [e.event_id for e in whole]
    assert sum(e.HasField("move") for e in combined) == 8


def _to_act(stub, match_id):
    snap = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    return snap.to_act[0] if snap.to_act else None


def _wait_for(condition, timeout=20.0):
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def test_a_move_costs_one_store_round_trip_once_the_state_is_cached(redis_url):
    """The hot path: after a seat's first look, each submit is exactly one store call."""

    async def scenario():
        store = _CountingStore(RedisStore.from_url(redis_url))
        matches = Matches(store, tiny_registry())
        record = await matches.create("tiny", seats=2, seed=1, options={"hand": "4", "plays": "4"})
        tokens = [(await matches.join(record.match_id)).token for _ in range(2)]
        game = TinyGame()
        state = game.setup(2, 1, game.resolve_options({"hand": "4", "plays": "4"}))
        store.calls.clear()
        moves = 0
        while game.to_act(state):
            seat = game.to_act(state)[0]
            card = game.legal_moves(state, seat)[0]
            payload = any_pb2.Any()
            payload.Pack(wrappers_pb2.StringValue(value=card))
            from serai.matches import PackedMove

            await matches.submit(
                record.match_id, tokens[seat], payload=PackedMove(payload.type_url, payload.value)
            )
            state = game.apply(state, seat, card)
            moves += 1
        calls = list(store.calls)
        await store.close()
        return moves, calls

    moves, calls = asyncio.run(scenario())
    assert calls.count("commit") == moves
    assert [c for c in calls if c != "commit"] == ["index"]  # the match finished: its index moved


class _CountingStore:
    """A real RedisStore that notes which calls were made."""

    def __init__(self, store):
        self._store = store
        self.calls = []

    def __getattr__(self, name):
        method = getattr(self._store, name)

        async def call(*args, **kwargs):
            self.calls.append(name)
            return await method(*args, **kwargs)

        return call


def test_concurrent_creates_on_two_replicas_never_pass_a_client_s_open_match_limit(redis_url):
    """Each create counts the client's open matches and adds its own in one step: ten at once,
    half on each replica, with a limit of two, make two matches."""

    async def scenario():
        stores = [RedisStore.from_url(redis_url), RedisStore.from_url(redis_url)]
        one, two = (Matches(s, tiny_registry(), limits=Limits(max_open_matches=2)) for s in stores)
        try:
            results = await asyncio.gather(
                *((one, two)[n % 2].create("tiny", 2, client_id="eager-bot") for n in range(10)),
                return_exceptions=True,
            )
            return results, await stores[0].open_matches("eager-bot")
        finally:
            for store in stores:
                await store.close()

    results, open_now = asyncio.run(scenario())
    made = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(made) == 2 and open_now == 2
    assert {type(r).__name__ for r in refused} == {"LimitExceeded"}
    assert all("already has 2 unfinished matches" in str(r) for r in refused)


def test_a_claim_whose_match_never_came_frees_its_place_after_a_minute(redis_url):
    """A create that claimed its place and then failed leaves a claim with no match: pruned once
    it is a minute old, and not before (it may be a create still on its way)."""

    async def scenario():
        store = RedisStore.from_url(redis_url)
        try:
            now = 10_000_000
            assert await store.claim_open_slot("bot", "never-made", now, 1) is None
            assert await store.claim_open_slot("bot", "second", now + 59_000, 1) == 1
            assert await store.claim_open_slot("bot", "second", now + 61_000, 1) is None
            return await store.open_matches("bot")
        finally:
            await store.close()

    assert asyncio.run(scenario()) == 0  # "second" is claimed, but no match was made for it


def test_a_move_retried_after_the_other_seat_resigned_answers_the_match_as_it_was(replicas):
    a = replicas[0].stub()
    match_id = create(a, seats=2, seed=6, hand="4", plays="3")
    tokens = join_all(a, match_id, 2)
    listed = _listed(a, match_id, tokens[0])
    first = _submit(a, match_id, tokens[0], listed.moves[0].id, listed.version, request_id="r-1")
    a.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[1]))
    late = _submit(a, match_id, tokens[0], listed.moves[0].id, listed.version, request_id="r-1")
    assert late.replayed and late.snapshot.match.status == pb.MATCH_STATUS_RUNNING
    assert late.snapshot.match == first.snapshot.match  # no seat resigned yet, as first answered
