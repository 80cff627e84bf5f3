"""The embedded Redis has a memory limit (``serve --redis-maxmemory``) and drops nothing to stay
under it: when full, calls that write answer RESOURCE_EXHAUSTED, and no committed move is lost."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import grpc
import pytest
import redis
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from service_helpers import create, join_all

TINY = [sys.executable, str(Path(__file__).with_name("tiny_game.py"))]


def _move(stub, match_id: str, token: str) -> pb.SubmitMoveResponse:
    listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
    request = pb.SubmitMoveRequest(
        match_id=match_id,
        seat_token=token,
        move_id=listed.moves[0].id,
        expected_version=listed.version,
    )
    return stub.SubmitMove(request)


def _fill(client: redis.Redis) -> list[str]:
    """Write until Redis refuses for want of memory, then put it megabytes over its limit; the
    keys written.

    Redis refuses a write only while its memory is already over ``maxmemory``, and it counts
    client query buffers, which it shrinks when a client has been idle a couple of seconds.
    Filling with small values leaves it a few KB over, which such a shrink takes back, and then
    the server's next write gets through (CI saw it). A large SET does not help: its argument is
    in the query buffer before the check. So, once full, free one small value at a time until a
    tiny SETRANGE that grows a value to 2 MB goes in."""
    written: list[str] = []
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        while len(written) < 100_000:
            key = f"filler:{len(written)}"
            client.set(key, b"x" * 10_000)
            written.append(key)
    while written:
        client.delete(written.pop())
        try:
            client.setrange("filler:large", 2_000_000, b"x")
        except redis.exceptions.OutOfMemoryError:
            continue
        written.append("filler:large")
        break
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        client.set("filler:more", b"x")
    return written


def test_a_full_embedded_redis_answers_resource_exhausted_and_keeps_every_move(
    start_serve, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    server = start_serve("--data-dir", str(data), "--redis-maxmemory", "4mb", command=TINY)
    stub = pb_grpc.MatchServiceStub(grpc.insecure_channel(server.address))
    match_id = create(stub, seats=2, hand="4", plays="3")
    tokens = join_all(stub, match_id, 2)
    first = _move(stub, match_id, tokens[0])
    before = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1]))
    assert before.match.version == first.snapshot.match.version

    client = redis.Redis.from_url(json.loads((data / "redis.json").read_text())["url"])
    with client:
        fillers = _fill(client)
        with pytest.raises(grpc.RpcError) as refused:
            create(stub, seats=2)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "full" in refused.value.details() and "out of room" in refused.value.details()
        with pytest.raises(grpc.RpcError) as refused_move:
            _move(stub, match_id, tokens[1])
        assert refused_move.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

        client.delete(*fillers)  # room again: the match is as the first move left it
    after = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1]))
    assert after == before
    second = _move(stub, match_id, tokens[1])
    assert second.snapshot.match.version == before.match.version + 1
