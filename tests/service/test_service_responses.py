"""SubmitMove's response, filled in place from a kept summary: the plain builders' message, byte for
byte, whatever the state, seat, clock or options; and a kept summary follows the seats."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from serai import matches as m
from serai.api import match_service_pb2 as pb
from serai.matches.cache import Entry
from serai.matches.reading import snapshot as snapshot_of
from serai.rpc.convert import snapshot
from serai.rpc.responses import SubmitResponses
from serai.store import MatchRecord, SeatRecord
from serai_jaipur import JaipurGame

GAME = JaipurGame()


def _plain(done: m.Submitted) -> pb.SubmitMoveResponse:
    """The response as SubmitMove built it from the plain builders."""
    return pb.SubmitMoveResponse(
        snapshot=snapshot(done.snapshot), label=done.label, replayed=done.replayed
    )


def _record(**changes: object) -> MatchRecord:
    seats = (
        SeatRecord(name="ann", joined=True, token_hash="a" * 64),
        SeatRecord(name="bob", joined=True, token_hash="b" * 64),
    )
    record = MatchRecord(
        match_id="m1",
        game="jaipur",
        options={},
        seed=3,
        created_ms=1_700_000_000_123,
        status="running",
        version=1,
        seats=seats,
        last_event_id="1700000000123-0",
    )
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


def _played(seed: int) -> Iterator[tuple[int, object, MatchRecord]]:
    """Each position of a random match to its end, with the record a match there would have."""
    rng, state = random.Random(seed), GAME.setup(2, seed, {})
    for version in range(1, 1_000):
        outcome = GAME.outcome(state)
        record = _record(
            version=version,
            status="running" if outcome is None else "finished",
            outcome=None if outcome is None else m.planning.outcome_data(outcome),
            last_event_id=f"1700000000123-{version}",
        )
        yield version, state, record
        if outcome is not None:
            return
        state = GAME.apply(state, state.turn, rng.choice(GAME.legal_moves(state, state.turn)))


def _submitted(state: object, record: MatchRecord, seat: int | None) -> m.Submitted:
    to_act = tuple(GAME.to_act(state)) if record.status == "running" else ()
    snap = m.Snapshot(record, GAME, seat, GAME.view(state, seat), to_act)
    return m.Submitted(snap, f"label {record.version}", replayed=record.version % 7 == 0)


def _same(responses: SubmitResponses, done: m.Submitted) -> None:
    fast = responses.submitted(done)
    assert fast == _plain(done)
    assert fast.SerializeToString() == _plain(done).SerializeToString()


def test_every_position_of_matches_to_their_end_answers_what_the_plain_builders_do():
    responses, finished = SubmitResponses(), 0
    for seed in range(4):
        for _version, state, record in _played(seed):
            for seat in (0, 1, None):  # each seat its own view; a spectator's too
                _same(responses, _submitted(state, record, seat))
            finished += record.status == "finished"
    assert finished == 4


def test_a_clock_and_many_options_answer_what_the_plain_builders_do():
    # Several options: a map, whose order on the wire upb decides; it must come out the same.
    options = {f"option_{n}": n % 3 == 0 if n % 2 else f"v{n}" for n in range(12)}
    responses = SubmitResponses()
    for _version, state, record in _played(5):
        for policy in ("lose", "default_move"):
            clocked = dataclasses.replace(
                record,
                options=options,
                move_seconds=30,
                timeout_policy=policy,
                deadline_ms=1_700_000_030_000 + record.version,
            )
            _same(responses, _submitted(state, clocked, 0))


def test_a_kept_summary_follows_the_seats():
    responses = SubmitResponses()
    state = GAME.setup(2, 3, {})
    joined = _record()
    assert responses.submitted(_submitted(state, joined, 0)).snapshot.match.seats[1].joined
    waiting = _record(seats=(joined.seats[0], SeatRecord()), version=2)
    seats = responses.submitted(_submitted(state, waiting, 0)).snapshot.match.seats
    assert not seats[1].joined and seats[1].player_name == ""
    resigned = _record(
        seats=(joined.seats[0], dataclasses.replace(joined.seats[1], resigned=True)),
        status="finished",
        outcome={"scores": [0, 0], "ranks": [0, 1], "summary": "seat 1 resigned"},
        version=3,
    )
    done = _submitted(state, resigned, 1)
    assert responses.submitted(done).snapshot.match.seats[1].resigned
    _same(responses, done)


def test_a_kept_summary_follows_its_options_even_changed_in_place():
    responses, state = SubmitResponses(), GAME.setup(2, 3, {})
    options: dict[str, object] = {"rounds": "3"}
    record = _record(options=options)
    assert responses.submitted(_submitted(state, record, 0)).snapshot.match.options == {
        "rounds": "3"
    }
    options["rounds"] = "2"  # records are not changed in place; if one were, it would show
    changed = responses.submitted(_submitted(state, _record(options=options), 0))
    assert changed.snapshot.match.options == {"rounds": "2"}


def test_kept_summaries_start_over_when_full():
    responses, state = SubmitResponses(size=3), GAME.setup(2, 3, {})
    for n in range(10):
        record = _record(match_id=f"m{n}", created_ms=n)
        done = _submitted(state, record, 0)
        assert responses.submitted(done).snapshot.match.match_id == f"m{n}"
        _same(responses, done)
    assert len(responses._summaries) <= 3


class _CountingGame(JaipurGame):
    def __init__(self) -> None:
        super().__init__()
        self.views: list[int | None] = []
        self.packed: list[object] = []

    def view(self, state, seat):  # type: ignore[no-untyped-def]
        self.views.append(seat)
        return super().view(state, seat)

    def view_bytes(self, view):  # type: ignore[no-untyped-def]
        self.packed.append(view)
        return super().view_bytes(view)


def test_a_versions_view_is_built_and_packed_once_per_seat():
    """Every answer and watcher of one version and seat shares the view and its bytes; each seat
    (and the spectator) has its own, the bytes the plain builder gives."""
    game = _CountingGame()
    responses = SubmitResponses()
    for version, state, record in _played(4):
        entry = Entry(record, game, state)
        for seat in (0, 1, None, 0, 1, None):
            snap = snapshot_of(entry, seat)
            message = pb.MatchSnapshot()
            responses.fill_snapshot(message, snap)
            assert message == snapshot(snap)
            assert message.view.value == JaipurGame().view_bytes(GAME.view(state, seat))
        assert sorted(game.views, key=str) == [0, 1, None], version
        assert len(game.packed) == 3  # the plain builder, too, takes the entry's bytes
        game.views.clear()
        game.packed.clear()
