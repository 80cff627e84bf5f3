"""Hardening of the matches room: stale move ids, what a player name may hold, and client ids
checked (and echoed only briefly) before any work."""

from __future__ import annotations

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from service_helpers import create, join_all, status_of
from tiny_game import tiny_registry

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

Code = grpc.StatusCode


@pytest.fixture
def stub(start_service):
    return start_service(registry=tiny_registry()).stub()


def _listed(stub, match_id, token):
    return stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))


def _submit(stub, match_id, token, move_id, **fields):
    request = pb.SubmitMoveRequest(match_id=match_id, seat_token=token, move_id=move_id, **fields)
    return stub.SubmitMove(request)


def test_stale_move_id_after_turn_passed(stub):
    """A move id listed at an older version answers ABORTED (StaleVersion), as the proto says,
    even once the seat's turn has passed, not FAILED_PRECONDITION "not your turn"."""
    match_id = create(stub, seats=2, seed=3)
    tokens = join_all(stub, match_id, 2)
    listed = _listed(stub, match_id, tokens[0])
    _submit(stub, match_id, tokens[0], listed.moves[0].id)  # now seat 1's turn
    code, details = status_of(lambda: _submit(stub, match_id, tokens[0], listed.moves[1].id))
    assert code == Code.ABORTED, details
    assert f"listed at version {listed.version}" in details


@pytest.mark.store("redis")  # replicas share a store
def test_stale_move_id_on_a_fresh_server(start_service):
    """The same from a replica that has not cached the match."""
    registry = tiny_registry()
    one, two = start_service(registry=registry).stub(), start_service(registry=registry).stub()
    match_id = create(one, seats=2, seed=4)
    tokens = join_all(one, match_id, 2)
    listed = _listed(one, match_id, tokens[0])
    _submit(one, match_id, tokens[0], listed.moves[0].id)
    code, details = status_of(lambda: _submit(two, match_id, tokens[0], listed.moves[1].id))
    assert code == Code.ABORTED, details


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ann\x00", "control character (U+0000)"),
        ("ann\nbob", "control character (U+000A)"),
        ("\x1b[31mred", "control character (U+001B)"),
        ("ann\u202etxt.exe", "formatting character"),
        ("\u2066ann\u2069", "formatting character"),
        ("a\u200bnn", "formatting character"),
        ("ann\u2028", "line separator"),
        ("ann\u2029", "paragraph separator"),
        ("\ue000ann", "private-use character"),
        ("   ", "only spaces"),
        ("\u3000", "only spaces"),
    ],
)
def test_unprintable_player_name_refused(stub, name, why):
    """A player name with control, formatting (bidi), separator or private-use characters, or
    of spaces alone, is INVALID_ARGUMENT, says why, does not echo the name, and claims nothing."""
    match_id = create(stub, seats=2, seed=5)
    request = pb.JoinMatchRequest(match_id=match_id, player_name=name)
    code, details = status_of(lambda: stub.JoinMatch(request))
    assert code == Code.INVALID_ARGUMENT
    assert why in details and name not in details
    summary = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match
    assert not any(seat.joined for seat in summary.seats)


@pytest.mark.parametrize("name", ["", "Zoë", "李雷", "ann-marie o'neil", "🙂 ann", "a b"])
def test_printable_player_name_taken(stub, name):
    """Letters of any script, punctuation, emoji and inner spaces make a name."""
    match_id = create(stub, seats=2, seed=5)
    joined = stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, player_name=name))
    assert joined.match.seats[joined.seat].player_name == (name or f"seat {joined.seat}")


HUGE = "m" * (4 * 1024 * 1024)  # a 4 MB id


@pytest.fixture
def roomy(start_service):
    """A server that takes 8 MB requests, so that a 4 MB id reaches the lifecycle."""
    return start_service(registry=tiny_registry(), max_message_bytes=8 * 1024 * 1024).stub()


def _short(details: str) -> bool:
    return len(details) < 300 and str(len(HUGE)) in details and "…" in details


def test_huge_match_id_echoed_briefly(roomy):
    """A 4 MB match id is refused with a message that quotes a short prefix and the length."""
    for call in (
        lambda: roomy.GetMatch(pb.GetMatchRequest(match_id=HUGE)),
        lambda: roomy.JoinMatch(pb.JoinMatchRequest(match_id=HUGE)),
        lambda: roomy.ListLegalMoves(pb.ListLegalMovesRequest(match_id=HUGE, seat_token="x")),
        lambda: _submit(roomy, HUGE, "x", "1.0"),
        lambda: roomy.Resign(pb.ResignRequest(match_id=HUGE, seat_token="x")),
        lambda: list(roomy.Watch(pb.WatchRequest(match_id=HUGE))),
    ):
        code, details = status_of(call)
        assert code == Code.NOT_FOUND
        assert _short(details), details[:400]


def test_huge_ids_echoed_briefly(roomy):
    """Every other id a client sends (event id, move id, game name) is echoed only briefly, and
    a huge request id, client id or seat token is refused without being echoed at all."""
    match_id = create(roomy, seats=2, seed=6)
    tokens = join_all(roomy, match_id, 2)
    watch = pb.WatchRequest(match_id=match_id, after_event_id=HUGE)
    for call, code in (
        (lambda: list(roomy.Watch(watch)), Code.INVALID_ARGUMENT),
        (lambda: _submit(roomy, match_id, tokens[0], HUGE), Code.NOT_FOUND),
        (lambda: roomy.CreateMatch(pb.CreateMatchRequest(game=HUGE)), Code.NOT_FOUND),
    ):
        got, details = status_of(call)
        assert got == code, details[:400]
        assert _short(details), details[:400]
    for call, code in (
        (
            lambda: _submit(roomy, match_id, tokens[0], "2.0", request_id=HUGE),
            Code.INVALID_ARGUMENT,
        ),
        (
            lambda: roomy.CreateMatch(pb.CreateMatchRequest(game="tiny", client_id=HUGE)),
            Code.INVALID_ARGUMENT,
        ),
        (lambda: _submit(roomy, match_id, HUGE, "2.0"), Code.PERMISSION_DENIED),
    ):
        got, details = status_of(call)
        assert got == code, details[:400]
        assert len(details) < 300 and "mmmm" not in details


def test_malformed_move_id_refused_first(stub):
    """A move id that is no move id is refused before the match is even looked up."""
    code, details = status_of(lambda: _submit(stub, "nosuchmatch", "x", "x" * 40))
    assert code == Code.NOT_FOUND
    assert "is not a move id" in details and "(40 characters)" in details
