"""Health follows the store, and a replica cut off from Redis fails fast: a Redis hung (SIGSTOP)
or killed turns grpc.health.v1 and /readyz to NOT_SERVING within seconds, calls with a 2 s
deadline answer UNAVAILABLE (not DEADLINE_EXCEEDED) meanwhile, and once Redis answers again
health and calls come back; /healthz (liveness) answers throughout.

Each scenario prints the times it measured (time to NOT_SERVING, to UNAVAILABLE, to recovery):
run with ``-s`` to see them. They are not asserted: timing is the benchmarks' job.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
import uuid

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from reliability_helpers import poll
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _health(channel: grpc.Channel) -> int:
    checker = health_pb2_grpc.HealthStub(channel)
    asked = health_pb2.HealthCheckRequest(service="serai.v1.MatchService")
    return checker.Check(asked, timeout=5).status


def _http(address: str, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://{address}{path}", timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _connect_health(address: str) -> str:
    """grpc.health.v1 over Connect (JSON) on the HTTP port: "SERVING" or "NOT_SERVING"."""
    asked = urllib.request.Request(
        f"http://{address}/grpc.health.v1.Health/Check",
        data=b'{"service": "serai.v1.MatchService"}',
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(asked, timeout=5) as answer:
        return str(json.loads(answer.read())["status"])


def _code(call, request, deadline: float = 2) -> tuple[grpc.StatusCode, str, float]:
    """The call's status with a 2 s deadline, its details and how long it took."""
    start = time.monotonic()
    try:
        call(request, timeout=deadline)
    except grpc.RpcError as error:
        return error.code(), error.details(), time.monotonic() - start
    return grpc.StatusCode.OK, "", time.monotonic() - start


def _until(condition, what: str, timeout: float = 20.0) -> float:
    """Seconds until ``condition()`` held (polled; fails after ``timeout``)."""
    start = time.monotonic()
    poll(condition, timeout=timeout, pause=0.05)
    took = time.monotonic() - start
    print(f"{what}: {took:.2f} s")
    return took


@pytest.fixture
def redis(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis", persistent=False, private=False).start()
    yield server
    if server.process is not None and server.process.poll() is None:
        os.kill(server.process.pid, signal.SIGCONT)
    server.stop()


def _seated_match(stub) -> tuple[str, str, int]:
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=3)).match.match_id
    tokens = [
        stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=s)).seat_token for s in (0, 1)
    ]
    seat = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).to_act[0]
    return match_id, tokens[seat], seat


def _a_move(stub, match_id: str, token: str) -> pb.SubmitMoveRequest:
    listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
    return pb.SubmitMoveRequest(
        match_id=match_id,
        seat_token=token,
        move_id=listed.moves[0].id,
        expected_version=listed.version,
        request_id=uuid.uuid4().hex,
    )


def test_health_and_calls_follow_a_hung_then_resumed_redis(start_serve, redis):
    server = start_serve("--redis-url", redis.url)
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        match_id, token, _seat = _seated_match(stub)
        move = _a_move(stub, match_id, token)
        assert _health(channel) == SERVING
        assert _http(server.http_address, "/readyz") == 200

        os.kill(redis.process.pid, signal.SIGSTOP)  # hung: connections open, no reply
        # a call already waiting when the hang is noticed ends then, not at the read timeout
        waiting = _code(stub.GetMatch, pb.GetMatchRequest(match_id=match_id), deadline=10)
        print(f"hang: a GetMatch sent at the hang answered {waiting[0].name} in {waiting[2]:.2f} s")
        assert waiting[0] == grpc.StatusCode.UNAVAILABLE, waiting
        _until(lambda: _health(channel) == NOT_SERVING, "hang: gRPC health NOT_SERVING after")
        assert _http(server.http_address, "/readyz") == 503
        assert _connect_health(server.http_address) == "NOT_SERVING"
        assert _http(server.http_address, "/healthz") == 200  # alive: no restart for this
        for call, request in (
            (stub.GetMatch, pb.GetMatchRequest(match_id=match_id)),
            (stub.SubmitMove, move),
        ):
            code, details, took = _code(call, request)
            print(f"hang: {call._method.decode()} answered {code.name} in {took:.3f} s")
            assert code == grpc.StatusCode.UNAVAILABLE, (code, details)
            assert "Redis cannot be reached" in details and "retry" in details

        os.kill(redis.process.pid, signal.SIGCONT)
        _until(lambda: _health(channel) == SERVING, "hang: SERVING again after SIGCONT in")
        assert _http(server.http_address, "/readyz") == 200
        assert _connect_health(server.http_address) == "SERVING"
        assert stub.SubmitMove(move, timeout=10).snapshot.version == move.expected_version + 1


def test_health_and_calls_follow_a_killed_then_restarted_redis(start_serve, tmp_path):
    data = tmp_path / "redis"
    durable = {"persistent": True, "private": False, "appendfsync": "always"}  # the match survives
    redis = EmbeddedRedis(data, **durable).start()
    port = redis.port
    server = start_serve("--redis-url", redis.url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            match_id, _token, _seat = _seated_match(stub)
            get = pb.GetMatchRequest(match_id=match_id)
            stub.GetMatch(get, timeout=5)

            redis.process.kill()
            redis.stop()
            first = _code(stub.GetMatch, get)  # may be the call that finds Redis gone
            print(f"kill: first GetMatch {first[0].name} in {first[2]:.3f} s")
            assert first[0] == grpc.StatusCode.UNAVAILABLE, first
            _until(lambda: _health(channel) == NOT_SERVING, "kill: NOT_SERVING after")
            code, details, took = _code(stub.GetMatch, get)
            print(f"kill: GetMatch while down {code.name} in {took:.3f} s")
            assert code == grpc.StatusCode.UNAVAILABLE, (code, details)

            redis = EmbeddedRedis(data, port=port, **durable).start()
            _until(lambda: _health(channel) == SERVING, "kill: SERVING after the restart in")
            poll(lambda: _code(stub.GetMatch, get)[0] == grpc.StatusCode.OK, timeout=10)
    finally:
        redis.stop()
