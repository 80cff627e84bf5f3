"""Hardening of the matches room: stale move ids, what a player name may hold, and client ids
checked (and echoed only briefly) before any work."""

from __future__ import annotations

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from service_helpers import create, join_all, status_of
from tiny_game import tiny_registry

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
