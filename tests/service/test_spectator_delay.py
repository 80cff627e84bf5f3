"""Spectator delay: a match created with ``spectator_delay_moves`` N shows spectators (GetMatch
and Watch without a seat token) the match as it was N moves ago while it runs; its seats see it
as it is, and everyone sees all of it once it is finished.

Each scenario plays two matches from the same seed with the same moves, one with a delay and
one without, and compares what a spectator gets of each.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.matches import Matches, WatchBatch
from serai.matches.errors import BadRequest
from serai.store.redis.store import open_store
from service_helpers import status_of
from tiny_game import tiny_registry
from waiting import eventually

LATE = 2  # moves


def _run(redis_url: str, scenario: Any, *, hub: bool) -> Any:
    async def main() -> Any:
        store = open_store(redis_url)
        matches = Matches(store, tiny_registry(), watch_block_ms=200)
        watch_hub = matches.use_watch_hub(store.event_feed()) if hub else None
        try:
            return await asyncio.wait_for(scenario(matches), 120)
        finally:
            if watch_hub is not None:
                await watch_hub.close()
            await store.close()

    return asyncio.run(main())


async def _started(matches: Matches, delay: int) -> tuple[str, list[str]]:
    """A running tiny match (4 cards each, 4 plays: 8 moves), seed 3, and its seat tokens."""
    options = {"hand": "4", "plays": "4"}
    record = await matches.create(
        "tiny", seats=2, options=options, seed=3, spectator_delay_moves=delay
    )
    tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
    return record.match_id, tokens


async def _move(matches: Matches, match_id: str, tokens: list[str]) -> bool:
    """The first legal move of the seat to act; False once the match is over."""
    now = await matches.get(match_id, tokens[0])
    if now.record.status != "running":
        return False
    seat = now.to_act[0]
    listed = await matches.legal_moves(match_id, tokens[seat])
    await matches.submit(match_id, tokens[seat], move_id=listed.moves[0].id)
    return True


def _seen(snapshot: Any) -> tuple[Any, ...]:
    """What a snapshot shows, without the match's id."""
    return (snapshot.version, snapshot.record.status, snapshot.to_act, str(snapshot.view))


def test_get_match_shows_a_spectator_the_match_n_moves_late(redis_url):
    """After each move, a spectator's GetMatch of the delayed match is the undelayed match's as
    it was LATE moves before (as it started, before LATE moves); a seat's is current; once
    finished, the spectator sees the end."""

    async def scenario(matches: Matches) -> Any:
        plain, plain_tokens = await _started(matches, 0)
        late, late_tokens = await _started(matches, LATE)
        shown: list[tuple[Any, Any, Any, Any]] = []
        while True:
            shown.append(
                (
                    _seen(await matches.get(plain)),
                    _seen(await matches.get(late)),
                    _seen(await matches.get(plain, plain_tokens[0])),
                    _seen(await matches.get(late, late_tokens[0])),
                )
            )
            moved = await _move(matches, plain, plain_tokens)
            assert moved == await _move(matches, late, late_tokens)
            if not moved:
                return shown

    shown = _run(redis_url, scenario, hub=False)
    plain_spectator = [s[0] for s in shown]
    assert len(shown) == 9  # before each of the 8 moves, and after the last
    for moves, (_plain, late_spectator, plain_seat, late_seat) in enumerate(shown[:-1]):
        assert late_spectator == plain_spectator[max(0, moves - LATE)]
        assert late_seat == plain_seat
    assert shown[-1][1] == shown[-1][0]  # finished: all of it
    assert shown[-1][1][1] == "finished"
    assert shown[4][1][0] == shown[4][0][0] - LATE  # really late


def test_a_spectators_watch_is_n_moves_late(redis_url):
    """Through the hub and through polling: a spectator's watch of the delayed match never gets
    an event or a snapshot newer than LATE moves before the match, gets every snapshot it does
    get exactly as the undelayed match's spectator did at that version, and gets every event
    once the match is finished; a seat's watch is not delayed."""
    for hub in (True, False):
        found = _run(redis_url, _watch_scenario, hub=hub)
        plain_views = {b.snapshot.version: _seen(b.snapshot) for b in found["plain"]}
        late = found["late"]
        assert [e for b in late for e in b.events] == [e for b in found["seat"] for e in b.events]
        for batch, current in zip(late, found["current"], strict=True):
            running = batch.snapshot.record.status == "running"
            if running:
                assert batch.snapshot.version <= max(found["start"], current - LATE)
                assert batch.events[-1].version <= batch.snapshot.version
            assert _seen(batch.snapshot) == plain_views[batch.snapshot.version]
        assert late[-1].snapshot.record.status == "finished"
        seat_versions = [b.snapshot.version for b in found["seat"]]
        assert seat_versions[-1] == found["final"]


async def _watch_scenario(matches: Matches) -> dict[str, Any]:
    plain, plain_tokens = await _started(matches, 0)
    late, late_tokens = await _started(matches, LATE)
    start = (await matches.get(late)).version
    got: dict[str, list[WatchBatch]] = {"plain": [], "late": [], "seat": []}
    current: list[int] = []  # the delayed match's version when each late batch came

    async def collect(name: str, match_id: str, token: str) -> None:
        async for batch in matches.watch(match_id, token):
            if name == "late":
                current.append((await matches.get(late, late_tokens[0])).version)
            got[name].append(batch)

    watches = [
        asyncio.create_task(collect("plain", plain, "")),
        asyncio.create_task(collect("late", late, "")),
        asyncio.create_task(collect("seat", late, late_tokens[1])),
    ]
    while await _move(matches, late, late_tokens):
        await _move(matches, plain, plain_tokens)
        version = (await matches.get(late, late_tokens[0])).version
        await eventually(  # the seat's watch has the move (no delay for seats)
            lambda version=version: got["seat"] and got["seat"][-1].snapshot.version == version,
            "the seat's watch has the move",
        )
    await _move(matches, plain, plain_tokens)
    await asyncio.gather(*watches)
    final = (await matches.get(late)).version
    return {**got, "current": current, "start": start, "final": final}


def test_a_delay_out_of_bounds_is_refused(redis_url):
    async def scenario(matches: Matches) -> Any:
        with pytest.raises(BadRequest, match="spectator_delay_moves must be 0"):
            await _started(matches, 1001)
        return True

    assert _run(redis_url, scenario, hub=False)


def test_create_match_takes_and_shows_the_delay(start_service):
    """Over gRPC: the summary shows the delay, a spectator's GetMatch is late, a seat's is
    not, a spectator gets no transcript before the end, and a delay over 1000 moves answers
    INVALID_ARGUMENT."""
    service = start_service(registry=tiny_registry())
    stub = service.stub()
    options = {"hand": "4", "plays": "4"}
    created = stub.CreateMatch(
        pb.CreateMatchRequest(game="tiny", seats=2, options=options, spectator_delay_moves=LATE)
    )
    assert created.match.spectator_delay_moves == LATE
    match_id = created.match.match_id
    tokens = [
        stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=s)).seat_token for s in range(2)
    ]
    start = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version
    for _ in range(3):
        seat = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0])).to_act[0]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[seat], move_id=listed.moves[0].id
            )
        )
    spectator = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    seated = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    assert seated.version == start + 3
    assert spectator.version == start + 1
    assert spectator.move_deadline_ms == 0
    # A running match's transcript is only ever a seat's: nothing there to delay.
    code, _ = status_of(lambda: stub.GetTranscript(pb.GetTranscriptRequest(match_id=match_id)))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    code, message = status_of(
        lambda: stub.CreateMatch(
            pb.CreateMatchRequest(game="tiny", seats=2, spectator_delay_moves=5000)
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "spectator_delay_moves" in message
