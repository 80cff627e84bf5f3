"""serai serve's HTTP port: the same MatchService over Connect (JSON and binary) and gRPC-Web as on
the native port, with the same answers, codes, messages and limits, against a real serai serve
and a real Redis."""

from __future__ import annotations

import http.client
import json
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from connect_helpers import CallFailed, grpc_web_call, json_call, json_watch, proto_call
from google.protobuf import json_format
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai_jaipur import jaipur_pb2  # noqa: F401  (JSON payloads name its messages)

ORIGIN = "https://play.example"


@pytest.fixture(scope="module")
def serve(start_module_serve: Callable[..., Any], redis_server: Any) -> Any:
    """One server for the module's tests (each makes its own matches)."""
    return start_module_serve("--redis-url", redis_server.url, "--http-allow-origin", ORIGIN)


@pytest.fixture
def native(serve: Any) -> Iterator[Any]:
    with grpc.insecure_channel(serve.address) as channel:
        yield pb_grpc.MatchServiceStub(channel)


def _running_match(address: str) -> tuple[str, list[str]]:
    """A Jaipur match with both seats joined over JSON: its id and the tokens by seat."""
    created = json_call(address, "CreateMatch", {"game": "jaipur", "seats": 2, "seed": "7"})
    match_id = created["match"]["matchId"]
    tokens = [
        json_call(address, "JoinMatch", {"match_id": match_id, "player_name": name})["seatToken"]
        for name in ("ada", "bo")
    ]
    return match_id, tokens


def test_every_encoding_answers_what_native_grpc_answers(serve: Any, native: Any) -> None:
    """GetMatch and ListLegalMoves give the same message over native gRPC, Connect binary,
    Connect JSON and gRPC-Web; a move played over gRPC-Web shows on every transport."""
    http_address = serve.http_address
    match_id, tokens = _running_match(http_address)
    for seat, token in enumerate(tokens):
        asked = pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        expected = native.ListLegalMoves(asked)
        assert expected.seat == seat
        answers = [
            proto_call(http_address, "ListLegalMoves", asked, pb.ListLegalMovesResponse),
            grpc_web_call(http_address, "ListLegalMoves", asked, pb.ListLegalMovesResponse),
            json_format.ParseDict(
                json_call(http_address, "ListLegalMoves", json_format.MessageToDict(asked)),
                pb.ListLegalMovesResponse(),
            ),
        ]
        assert all(answer == expected for answer in answers)
    snapshot = native.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    seat = snapshot.to_act[0]
    moves = native.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
    ).moves
    played = grpc_web_call(
        http_address,
        "SubmitMove",
        pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[seat], move_id=moves[0].id),
        pb.SubmitMoveResponse,
    )
    assert played.label == moves[0].label
    asked_match = pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0])
    after = native.GetMatch(asked_match)
    assert after.version == snapshot.version + 1
    assert proto_call(http_address, "GetMatch", asked_match, pb.MatchSnapshot) == after


def _errors(address: str) -> dict[str, tuple[str, Any]]:
    """One failing call per case: (method, request)."""
    match_id, tokens = _running_match(address)
    return {
        "unknown match": ("GetMatch", pb.GetMatchRequest(match_id="nope")),
        "no game": ("CreateMatch", pb.CreateMatchRequest(game="")),
        "unknown game": ("CreateMatch", pb.CreateMatchRequest(game="chess")),
        "bad status": ("ListMatches", pb.ListMatchesRequest(status=99)),
        "wrong token": (
            "ListLegalMoves",
            pb.ListLegalMovesRequest(match_id=match_id, seat_token="not-a-token"),
        ),
        "no token": ("SubmitMove", pb.SubmitMoveRequest(match_id=match_id, move_id="2.0")),
        "full match": ("JoinMatch", pb.JoinMatchRequest(match_id=match_id, player_name="cy")),
        "stale move id": (
            "SubmitMove",
            pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], move_id="9.99"),
        ),
    }


def test_errors_have_the_same_code_and_message_on_every_transport(serve: Any, native: Any) -> None:
    """Each failing call answers the same gRPC code name and message natively, over Connect
    JSON, Connect binary and gRPC-Web."""
    http_address = serve.http_address
    answers = {
        pb.GetMatchRequest: pb.MatchSnapshot,
        pb.CreateMatchRequest: pb.CreateMatchResponse,
        pb.ListMatchesRequest: pb.ListMatchesResponse,
        pb.ListLegalMovesRequest: pb.ListLegalMovesResponse,
        pb.SubmitMoveRequest: pb.SubmitMoveResponse,
        pb.JoinMatchRequest: pb.JoinMatchResponse,
    }
    for case, (method, request) in _errors(http_address).items():
        with pytest.raises(grpc.RpcError) as failure:
            getattr(native, method)(request)
        expected = (failure.value.code().name, failure.value.details())
        assert expected[0] not in ("OK", "UNKNOWN", "INTERNAL"), case
        answer = answers[type(request)]
        calls = {
            "json": lambda m=method, r=request: json_call(
                http_address, m, json_format.MessageToDict(r)
            ),
            "binary": lambda m=method, r=request, a=answer: proto_call(http_address, m, r, a),
            "grpc-web": lambda m=method, r=request, a=answer: grpc_web_call(http_address, m, r, a),
        }
        for transport, call in calls.items():
            with pytest.raises(CallFailed) as got:
                call()
            assert (got.value.code, got.value.message) == expected, (case, transport)


def test_watch_streams_events_over_http11_as_another_client_moves(serve: Any, native: Any) -> None:
    """A Connect JSON Watch over HTTP/1.1 receives each move as it is played natively, and ends
    (OK) when the match does; a Watch after an event id resumes there."""
    http_address = serve.http_address
    match_id, tokens = _running_match(http_address)
    received: list[dict[str, Any]] = []
    failed: list[BaseException] = []
    first_event = threading.Event()

    def watch() -> None:
        try:
            for event in json_watch(http_address, {"matchId": match_id}):
                received.append(event)
                first_event.set()
        except BaseException as error:
            failed.append(error)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert first_event.wait(30), "no event arrived over HTTP"
    seen = len(received)
    snapshot = native.GetMatch(pb.GetMatchRequest(match_id=match_id))
    seat = snapshot.to_act[0]
    move = native.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
    ).moves[0]
    native.SubmitMove(
        pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[seat], move_id=move.id)
    )
    native.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))
    watcher.join(30)
    assert not watcher.is_alive(), "the Watch did not end with the match"
    assert not failed, failed
    assert len(received) >= seen + 2
    assert received[-1]["snapshot"]["match"]["status"] == "MATCH_STATUS_FINISHED"
    native_events = list(native.Watch(pb.WatchRequest(match_id=match_id)))
    assert [e["eventId"] for e in received] == [e.event_id for e in native_events]
    resumed = list(
        json_watch(http_address, {"matchId": match_id, "afterEventId": received[0]["eventId"]})
    )
    assert [e["eventId"] for e in resumed] == [e["eventId"] for e in received[1:]]


def _raw(address: str, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> Any:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_cors_allows_the_named_origin_only(serve: Any) -> None:
    """A preflight from the allowed origin succeeds with the headers Connect and gRPC-Web need;
    from another it is refused; an actual call carries the allow headers only for the first."""
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,connect-protocol-version,x-grpc-web",
    }
    path = "/serai.v1.MatchService/ListGames"
    allowed = _raw(serve.http_address, "OPTIONS", path, {"Origin": ORIGIN, **preflight})
    assert allowed.status == 204
    assert allowed.getheader("access-control-allow-origin") == ORIGIN
    assert "POST" in allowed.getheader("access-control-allow-methods")
    asked_for = allowed.getheader("access-control-allow-headers").lower()
    assert all(h in asked_for for h in ("content-type", "connect-protocol-version", "x-grpc-web"))
    assert "authorization" in asked_for and "x-serai-key" in asked_for  # API keys, cross-origin
    refused = _raw(
        serve.http_address, "OPTIONS", path, {"Origin": "https://evil.example", **preflight}
    )
    assert refused.status == 403
    assert refused.getheader("access-control-allow-origin") is None
    headers = {"Content-Type": "application/json"}
    call = _raw(serve.http_address, "POST", path, {"Origin": ORIGIN, **headers}, b"{}")
    assert call.status == 200
    assert call.getheader("access-control-allow-origin") == ORIGIN
    assert "grpc-status" in call.getheader("access-control-expose-headers").lower()
    other = _raw(
        serve.http_address, "POST", path, {"Origin": "https://evil.example", **headers}, b"{}"
    )
    assert other.getheader("access-control-allow-origin") is None


def test_message_size_limit_applies_on_http(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    """--max-message-bytes refuses a larger request on the HTTP port as on the native one:
    RESOURCE_EXHAUSTED."""
    served = start_serve("--redis-url", redis_url, "--max-message-bytes", "2000")
    big = pb.CreateMatchRequest(game="jaipur", options={"x": "y" * 5000})
    with grpc.insecure_channel(served.address) as channel, pytest.raises(grpc.RpcError) as native:
        pb_grpc.MatchServiceStub(channel).CreateMatch(big)
    assert native.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for call in (
        lambda: json_call(served.http_address, "CreateMatch", json_format.MessageToDict(big)),
        lambda: proto_call(served.http_address, "CreateMatch", big, pb.CreateMatchResponse),
        lambda: grpc_web_call(served.http_address, "CreateMatch", big, pb.CreateMatchResponse),
    ):
        with pytest.raises(CallFailed) as failure:
            call()
        assert failure.value.code == "RESOURCE_EXHAUSTED"


def test_health_and_request_lines_over_http(serve: Any) -> None:
    """grpc.health.v1 answers SERVING over Connect; each HTTP call logs one request line with
    the native log's fields."""
    host, port = serve.http_address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request(
        "POST",
        "/grpc.health.v1.Health/Check",
        body=b"{}",
        headers={"Content-Type": "application/json"},
    )
    assert json.loads(connection.getresponse().read()) == {"status": "SERVING"}
    connection.close()
    with pytest.raises(CallFailed):
        json_call(serve.http_address, "GetMatch", {"matchId": "absent"})
    lines = [json.loads(line) for line in serve.log().splitlines() if line.startswith("{")]
    requests = [line for line in lines if line.get("event") == "request"]
    assert requests[-1]["method"] == "GetMatch" and requests[-1]["status"] == "NOT_FOUND"
    assert requests[-1]["match_id"] == "absent" and "latency_ms" in requests[-1]


def test_sigterm_ends_http_watches_and_exits_cleanly(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    """SIGTERM ends an open Watch over HTTP (OK: resume later) and the process exits 0."""
    serve = start_serve("--redis-url", redis_url)  # its own: this test stops it
    match_id, _tokens = _running_match(serve.http_address)
    stream = json_watch(serve.http_address, {"matchId": match_id})
    next(stream)  # the stream is open and has sent what there is
    ended: list[Any] = []
    reader = threading.Thread(target=lambda: ended.append(list(stream)), daemon=True)
    reader.start()
    assert serve.stop(signal.SIGTERM) == 0
    reader.join(30)
    assert ended, "the Watch did not end when the server stopped"


def test_http_off_and_workers_serve_both_ports(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    """--http-port off serves no HTTP; with --workers 2 every worker serves both ports."""
    off = start_serve("--redis-url", redis_url, "--http-port", "off")
    assert off.http_address == ""
    both = start_serve("--redis-url", redis_url, "--workers", "2")
    assert both.http_address
    for _ in range(4):  # new connections, spread by the kernel over the workers
        assert json_call(both.http_address, "ListGames", {})["games"]


def test_move_rate_limits_each_http_connection(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    """--move-rate applies per HTTP connection as per gRPC connection: on one keep-alive
    connection the move after the burst gets RESOURCE_EXHAUSTED with the native message."""
    served = start_serve("--redis-url", redis_url, "--move-rate", "0.001", "--move-burst", "1")
    match_id, tokens = _running_match(served.http_address)
    host, port = served.http_address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    answers = []
    for _ in range(2):  # a move id that does not exist: only the limiter's answer differs
        body = {"matchId": match_id, "seatToken": tokens[0], "moveId": "9.99"}
        connection.request(
            "POST",
            "/serai.v1.MatchService/SubmitMove",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        answers.append(json.loads(connection.getresponse().read()))
    connection.close()
    assert answers[0]["code"] != "resource_exhausted"  # the stale move id's own answer
    assert answers[1]["code"] == "resource_exhausted"
    assert "moves per second" in answers[1]["message"]
