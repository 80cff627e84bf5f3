"""Correspondence play: a match with a day per move keeps its deadline, exact to the millisecond,
across a stopped server (its embedded Redis stopped with it) and a killed one, and its seats can
still move after each; clocks up to 14 days a move are accepted."""

from __future__ import annotations

import signal

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches.requests import MAX_MOVE_SECONDS

DAY = 24 * 3600


def _snapshot(server, match_id):
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        return stub.GetMatch(pb.GetMatchRequest(match_id=match_id))


def _first_legal_move(server, match_id, token):
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        move = pb.SubmitMoveRequest(match_id=match_id, seat_token=token, move_id=listed.moves[0].id)
        return stub.SubmitMove(move)


@pytest.mark.slow
def test_a_day_per_move_survives_server_and_redis_restarts_with_its_deadline(start_serve, tmp_path):
    data = ["--data-dir", str(tmp_path / "data"), "--sweep-seconds", "0.2"]
    server = start_serve(*data)
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        created = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", move_seconds=DAY)).match
        tokens = {
            seat: stub.JoinMatch(
                pb.JoinMatchRequest(match_id=created.match_id, seat=seat)
            ).seat_token
            for seat in range(2)
        }
    before = _snapshot(server, created.match_id)
    assert before.move_deadline_ms > 0 and list(before.to_act)
    for stopping in (signal.SIGTERM, signal.SIGKILL):  # a clean stop, then kill -9
        assert server.stop(stopping) in (0, -stopping, 128 + stopping)
        server = start_serve(*data)
        after = _snapshot(server, created.match_id)
        assert after.match.status == pb.MATCH_STATUS_RUNNING
        assert after.move_deadline_ms == before.move_deadline_ms
        assert list(after.to_act) == list(before.to_act)
    seat = before.to_act[0]
    moved = _first_legal_move(server, created.match_id, tokens[seat])
    later = _snapshot(server, created.match_id)
    assert (
        moved.snapshot.version > before.version and later.move_deadline_ms > before.move_deadline_ms
    )


def test_a_clock_of_up_to_14_days_a_move_is_accepted_and_longer_is_refused(service):
    assert MAX_MOVE_SECONDS == 14 * DAY
    stub = service.stub()
    fortnight = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", move_seconds=14 * DAY))
    assert fortnight.match.move_seconds == 14 * DAY
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", move_seconds=14 * DAY + 1))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"move_seconds must be 0 (no clock) to {14 * DAY}" in refused.value.details()
