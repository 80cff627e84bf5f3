"""A match of the tiny game played through the service over a real channel and Redis."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import struct_pb2
from serai.api import match_service_pb2 as pb
from tiny_game import TinyGame, tiny_registry

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed


@pytest.fixture
def tiny(start_service):
    return start_service(registry=tiny_registry())


def test_a_whole_tiny_match_ends_with_the_plugins_outcome(tiny):
    stub = tiny.stub()
    created = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2, seed=11)).match
    assert created.status == pb.MATCH_STATUS_OPEN
    tokens = [
        stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id)).seat_token for _ in range(2)
    ]
    game = TinyGame()
    state = game.setup(2, 11, game.resolve_options({}))
    while game.to_act(state):
        seat = game.to_act(state)[0]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=created.match_id, seat_token=tokens[seat])
        )
        move = listed.moves[0]
        done = stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=created.match_id,
                seat_token=tokens[seat],
                move_id=move.id,
                expected_version=listed.version,
            )
        )
        state = game.apply(state, seat, game.legal_moves(state, seat)[0])
        view = struct_pb2.Struct()
        done.snapshot.view.Unpack(view)
        assert view == game.view_to_proto(game.view(state, seat))
    final = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))
    assert final.match.status == pb.MATCH_STATUS_FINISHED
    assert list(final.outcome.ranks) == list(game.outcome(state).ranks)
    # This test chose the seed, and so knew every hand: the match says so, finished and folded.
    assert created.seed_chosen and final.match.seed_chosen
    (listed,) = stub.ListMatches(pb.ListMatchesRequest()).matches
    assert listed.seed_chosen


def test_a_match_with_the_server_s_seed_does_not_show_seed_chosen(tiny):
    stub = tiny.stub()
    created = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2)).match
    assert not created.seed_chosen
    assert not stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id)).match.seed_chosen


def test_a_server_that_refuses_chosen_seeds_answers_invalid_argument(start_service):
    stub = start_service(registry=tiny_registry(), allow_chosen_seeds=False).stub()
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2, seed=11))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "leave seed unset" in refused.value.details()
    assert not stub.ListMatches(pb.ListMatchesRequest()).matches
    created = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2)).match
    assert created.match_id and not created.seed_chosen
