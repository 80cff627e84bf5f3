"""A Play request whose bytes are not a PlayRequest ends the stream INVALID_ARGUMENT with a
message that says so, as a unary call's bad request does: first, or after the stream opened
(grpc.aio decoded a stream's requests itself and answered UNKNOWN)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from service_helpers import create, join_all
from tiny_game import tiny_registry

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

_BROKEN = (
    b"\x0a\x05abc",  # a field 1 (open) five bytes long, with three
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # a tag no varint can be
    b"\x0a\x02\x0a\x80",  # open.match_id cut inside its length
)


@pytest.fixture
def tiny(start_service):
    return start_service(registry=tiny_registry())


def _raw_play(channel: Any, requests: Iterator[bytes]) -> Any:
    call = channel.stream_stream(
        "/serai.v1.MatchService/Play", request_serializer=None, response_deserializer=None
    )
    return call(requests, timeout=30)


@pytest.mark.parametrize("body", _BROKEN)
def test_broken_bytes_first_are_invalid_argument(tiny, body):
    with pytest.raises(grpc.RpcError) as failure:
        list(_raw_play(tiny.channel(), iter([body])))
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid Play request message" in failure.value.details()


@pytest.mark.parametrize("body", _BROKEN)
def test_broken_bytes_after_the_open_end_the_stream_invalid_argument(tiny, body):
    """The stream had sent the match's events; the broken move ends it, and nothing is played."""
    stub = tiny.stub()
    match_id = create(stub, "tiny", hand="4", plays="4")
    tokens = join_all(stub, match_id, 2)
    before = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version
    opened = pb.PlayRequest(open=pb.PlayOpen(match_id=match_id, seat_token=tokens[0]))
    sent: queue.Queue[bytes | None] = queue.Queue()
    sent.put(opened.SerializeToString())

    def outgoing() -> Iterator[bytes]:
        while (request := sent.get()) is not None:
            yield request

    call = _raw_play(tiny.channel(), outgoing())
    received: list[pb.PlayUpdate] = []
    failed: list[grpc.RpcError] = []

    def read() -> None:
        try:
            for raw in call:
                received.append(pb.PlayUpdate.FromString(raw))
                if received[-1].legal_moves or len(received) == 1:
                    sent.put(body)  # once the stream is open and talking
        except grpc.RpcError as error:
            failed.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)
    sent.put(None)
    assert received, "the stream opened and sent the match's events first"
    assert failed and failed[0].code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid Play request message" in failed[0].details()
    assert stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version == before
