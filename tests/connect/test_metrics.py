"""GET /metrics (issue 22): after a scripted match the figures show exactly its calls, by method
and status, and its moves; with --workers 2 the workers' figures add up. Real ``serai serve``
processes and a real Redis; the exposition is parsed with prometheus-client's own parser."""

from __future__ import annotations

import http.client
from collections import Counter
from typing import Any

import grpc
import pytest
from connect_helpers import CallFailed, json_call
from prometheus_client.parser import text_string_to_metric_families
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc

pytestmark = pytest.mark.slow


def scrape(address: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of GET /metrics, by name and labels."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("GET", "/metrics")
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    assert response.status == 200, body
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }


def play(address: str, moves: int, calls: Counter[tuple[str, str]]) -> None:
    """A jaipur match made, joined and played ``moves`` moves, each call on a channel of its
    own (so that, with workers, the calls spread over them); ``calls`` counts them."""

    def call(method: str, request: Any, code: str = "OK") -> Any:
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            calls[(method, code)] += 1
            try:
                return getattr(stub, method)(request)
            except grpc.RpcError as error:
                assert error.code().name == code
                return None

    match_id = call("CreateMatch", pb.CreateMatchRequest(game="jaipur", seed=5)).match.match_id
    tokens = [call("JoinMatch", pb.JoinMatchRequest(match_id=match_id)).seat_token for _ in "ab"]
    call("GetMatch", pb.GetMatchRequest(match_id="0123456789abcdef"), "NOT_FOUND")
    for _ in range(moves):
        seen = call("GetMatch", pb.GetMatchRequest(match_id=match_id))
        token = tokens[seen.to_act[0]]
        legal = call(
            "ListLegalMoves", pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        )
        call(
            "SubmitMove",
            pb.SubmitMoveRequest(match_id=match_id, seat_token=token, move_id=legal.moves[0].id),
        )


def check(address: str, calls: Counter[tuple[str, str]], moves: int) -> None:
    samples = scrape(address)
    for (method, code), count in calls.items():
        assert samples[("serai_requests_total", (("code", code), ("method", method)))] == count
    by_method: Counter[str] = Counter()
    for (method, _code), count in calls.items():
        by_method[method] += count
    for method, count in by_method.items():
        assert samples[("serai_request_seconds_count", (("method", method),))] == count
    answered = sum(v for (name, _), v in samples.items() if name == "serai_requests_total")
    assert answered == sum(calls.values())
    assert samples[("serai_moves_committed_total", ())] == moves
    assert samples[("serai_matches", (("status", "running"),))] == 1
    assert samples[("serai_matches", (("status", "open"),))] == 0
    assert samples[("serai_watchers", ())] == 0


def test_a_match_counted(start_serve, redis_url):
    """One process: each call of the match, by method and status, and each move; calls on the
    HTTP port count with the rest."""
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    calls: Counter[tuple[str, str]] = Counter()
    play(server.address, 6, calls)
    json_call(server.http_address, "ListGames", {})
    calls[("ListGames", "OK")] += 1
    with pytest.raises(CallFailed):
        json_call(server.http_address, "GetMatch", {"matchId": "0123456789abcdef"})
    calls[("GetMatch", "NOT_FOUND")] += 1
    check(server.http_address, calls, 6)


def test_workers_add_up(start_serve, redis_url):
    """--workers 2: whichever worker answers the scrape, the figures are both workers'."""
    server = start_serve("--redis-url", redis_url, "--http-port", "0", "--workers", "2")
    calls: Counter[tuple[str, str]] = Counter()
    play(server.address, 8, calls)
    lines = [line for line in server.log().splitlines() if '"request"' in line]
    assert any('"worker": 0' in line for line in lines)  # both served some of the calls
    assert any('"worker": 1' in line for line in lines)
    for _ in range(4):  # new connections: the kernel spreads them over the workers
        check(server.http_address, calls, 8)
