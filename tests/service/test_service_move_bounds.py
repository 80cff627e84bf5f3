"""An oversized move is refused by the service with INVALID_ARGUMENT and changes nothing."""

from __future__ import annotations

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai_jaipur import JaipurGame
from serai_jaipur import jaipur_pb2 as jaipur
from service_helpers import create, join_all, status_of

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed


def test_a_two_megabyte_jaipur_exchange_is_an_invalid_argument(start_service):
    """Under the transport's own 4 MB limit, so only the game's bound can refuse it."""
    stub = start_service(max_message_bytes=4 * 1024 * 1024).stub()
    match_id = create(stub, game="jaipur", seats=2, seed=3)
    tokens = join_all(stub, match_id, 2)
    before = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    seat = before.to_act[0]
    exchange = jaipur.Move(exchange=jaipur.Exchange(take=[1] * 1_000_000, give=[4] * 1_000_000))
    request = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[seat])
    request.payload.Pack(exchange)
    assert len(request.payload.value) > 2_000_000

    code, details = status_of(lambda: stub.SubmitMove(request))

    assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    assert f"at most {JaipurGame.info.max_move_bytes} bytes" in details
    after = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    assert after.version == before.version and after.last_event_id == before.last_event_id
