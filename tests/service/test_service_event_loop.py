"""``serve --event-loop``: asyncio's loop by default, uvloop's when asked and installed (an
optional dependency), and a clear refusal when asked and not installed."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.commands.serve import event_loop_factory
from service_helpers import create, join_all

TINY = [sys.executable, str(Path(__file__).with_name("tiny_game.py"))]


def test_asyncio_is_the_default_and_uvloop_unavailable_is_refused_with_what_to_install(
    monkeypatch,
):
    assert event_loop_factory("asyncio") is None
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if not installed: import fails
    with pytest.raises(SystemExit) as refused:
        event_loop_factory("uvloop")
    assert "pip install uvloop" in str(refused.value)


def test_a_server_on_uvloop_plays_a_move(start_serve, redis_url):
    pytest.importorskip("uvloop")
    server = start_serve("--event-loop", "uvloop", "--redis-url", redis_url, command=TINY)
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        match_id = create(stub, seats=2, seed=7, hand="4", plays="3")
        tokens = join_all(stub, match_id, 2)
        seat = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).to_act[0]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        done = stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[seat], move_id=listed.moves[0].id
            )
        )
    assert done.snapshot.version == listed.version + 1
