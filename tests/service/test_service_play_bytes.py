"""Play's updates written as bytes (serai.rpc.responses: event_update, submitted_answer,
answer_update, SubmitResponses.snapshot_bytes): parsed, each is the message the plain builders
make, for every position of whole matches, each seat and a spectator; a snapshot's bytes kept on
its entry are shared by its version's answer and events, and never by another version."""

from __future__ import annotations

import random

from serai import matches as m
from serai.api import match_service_pb2 as pb
from serai.matches.cache import Entry
from serai.matches.reading import snapshot as snapshot_of
from serai.rpc.convert import event, snapshot
from serai.rpc.responses import (
    LegalMoveBytes,
    MovePayloads,
    SeatLegalMoves,
    SubmitResponses,
    answer_update,
    event_update,
    submitted_answer,
)
from serai.store import MatchRecord, SeatRecord, StoredEvent
from serai_jaipur import JaipurGame

GAME = JaipurGame()


def _record(version: int, state: object) -> MatchRecord:
    outcome = GAME.outcome(state)
    return MatchRecord(
        match_id="m1",
        game="jaipur",
        options={},
        seed=3,
        created_ms=1_700_000_000_123,
        status="running" if outcome is None else "finished",
        version=version,
        seats=(SeatRecord(name="ann", joined=True), SeatRecord(name="bob", joined=True)),
        last_event_id=f"1700000000123-{version}",
        outcome=None if outcome is None else m.planning.outcome_data(outcome),
    )


def _entries(seed: int) -> list[Entry]:
    """An entry per position of a random match, to its end."""
    rng, state = random.Random(seed), GAME.setup(2, seed, {})
    entries = []
    for version in range(1, 1_000):
        entries.append(Entry(_record(version, state), GAME, state))
        if GAME.outcome(state) is not None:
            return entries
        state = GAME.apply(state, state.turn, rng.choice(GAME.legal_moves(state, state.turn)))
    raise AssertionError("the match did not end")


def test_updates_as_bytes_parse_to_the_plain_builders_messages():
    responses = SubmitResponses()
    seat_moves = SeatLegalMoves(LegalMoveBytes(MovePayloads()))
    checked = 0
    for entry in _entries(11):
        record = entry.record
        moved = StoredEvent(record.last_event_id, record.version, "move", {"seat": 0, "label": "x"})
        for seat in (0, 1, None):
            snap = snapshot_of(entry, seat)
            legal = b""
            plain = pb.PlayUpdate(event=event(moved))
            plain.event.snapshot.CopyFrom(snapshot(snap))
            if seat is not None and seat in snap.to_act:
                legal = seat_moves.field(entry, seat, steps=False)
                plain.MergeFromString(legal)
            done = m.Submitted(snap, f"label {record.version}", replayed=record.version % 5 == 0)
            answer = pb.PlayAnswer(
                request_id=f"r{record.version}",
                submitted=pb.SubmitMoveResponse(
                    snapshot=snapshot(snap), label=done.label, replayed=done.replayed
                ),
            )
            answered = submitted_answer(
                answer.request_id, responses.snapshot_bytes(snap), done.label, done.replayed
            )
            assert pb.PlayAnswer.FromString(answered) == answer
            assert pb.PlayUpdate.FromString(answer_update(answered)) == pb.PlayUpdate(answer=answer)
            alone = event_update(moved, responses.snapshot_bytes(snap), legal)
            assert pb.PlayUpdate.FromString(alone) == plain
            plain.answered.CopyFrom(answer)
            riding = event_update(moved, responses.snapshot_bytes(snap), legal, answered)
            assert pb.PlayUpdate.FromString(riding) == plain
            checked += 1
    assert checked > 30
    earlier = StoredEvent("1-0", 1, "announcement", {"text": "hello"})
    assert pb.PlayUpdate.FromString(event_update(earlier)) == pb.PlayUpdate(event=event(earlier))


def test_a_snapshots_bytes_are_kept_per_entry_seat_and_presentation():
    responses = SubmitResponses()
    first, second = _entries(12)[:2]
    kept = responses.snapshot_bytes(snapshot_of(first, 0))
    assert responses.snapshot_bytes(snapshot_of(first, 0)) is kept  # the version's, shared
    assert pb.MatchSnapshot.FromString(kept) == snapshot(snapshot_of(first, 0))
    assert responses.snapshot_bytes(snapshot_of(first, 1)) != kept  # another seat's view
    assert responses.snapshot_bytes(snapshot_of(second, 0)) != kept  # another version
    presented = responses.snapshot_bytes(snapshot_of(first, 0), presented=True)
    assert pb.MatchSnapshot.FromString(presented) == snapshot(snapshot_of(first, 0), presented=True)
    # a snapshot not made from its entry as it is (e.g. a replayed answer's) is not kept
    other = m.Snapshot(second.record, GAME, 0, first.view_for(0), (), first)
    assert responses.snapshot_bytes(other) == snapshot(other).SerializeToString()
