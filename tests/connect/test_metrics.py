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
from waiting import wait_until


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

    def served_by(worker: int) -> bool:
        # Read again until each worker's request lines are out (a busy worker writes them late).
        lines = [line for line in server.log().splitlines() if '"request"' in line]
        return any(f'"worker": {worker}' in line for line in lines)

    wait_until(lambda: served_by(0), "worker 0 logged a request")  # both served some calls
    wait_until(lambda: served_by(1), "worker 1 logged a request")
    for _ in range(4):  # new connections: the kernel spreads them over the workers
        check(server.http_address, calls, 8)


def test_store_clock_and_tenant_figures(start_serve, redis_url):
    """After a scripted match on two servers sharing a Redis, their figures add up to exactly
    its commits and creates (Redis round trips by script), the one compare-and-set the first
    server lost (the second reclaimed a seat under it), the turn clock that ran out, and the
    calls made with the API key; no Redis errors."""
    import time

    import jwt
    from test_api_keys import Keyed
    from test_player_tokens import claims, created

    key, secret = created(redis_url, "acme", "--player-token-secret")
    ada = jwt.encode(claims("ada"), secret, algorithm="HS256")
    common = ("--redis-url", redis_url, "--http-port", "0", "--move-rate", "0")
    common += ("--metrics-tenants",)  # tenant labels are opt-in
    first = start_serve(*common, "--sweep-seconds", "0.2")
    second = start_serve(*common, "--sweep-seconds", "0")  # the first alone enforces clocks
    keyed: Counter[str] = Counter()  # calls with the key, by server
    commits = 0
    with (
        grpc.insecure_channel(first.address) as one,
        grpc.insecure_channel(second.address) as two,
    ):
        on_first, on_second = Keyed(one, key), Keyed(two, key)

        def call(server: str, method: str, request: Any) -> Any:
            keyed[server] += 1
            return getattr(on_first if server == "first" else on_second, method)(request)

        match_id = call(
            "first", "CreateMatch", pb.CreateMatchRequest(game="jaipur", seed=5)
        ).match.match_id
        mine = call("first", "JoinMatch", pb.JoinMatchRequest(match_id=match_id, player_token=ada))
        other = call("first", "JoinMatch", pb.JoinMatchRequest(match_id=match_id))
        commits += 2
        tokens = {mine.seat: mine.seat_token, other.seat: other.seat_token}
        to_act = call("first", "GetMatch", pb.GetMatchRequest(match_id=match_id)).to_act[0]
        if to_act == mine.seat:  # the other seat is to act while the player reclaims theirs
            legal = call(
                "first",
                "ListLegalMoves",
                pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[to_act]),
            )
            request = pb.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[to_act], move_id=legal.moves[0].id
            )
            call("first", "SubmitMove", request)
            commits += 1
        legal = call(
            "first",
            "ListLegalMoves",
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=other.seat_token),
        )
        call("second", "ReclaimSeat", pb.ReclaimSeatRequest(match_id=match_id, player_token=ada))
        commits += 1
        # The first server's copy is behind: its commit loses, and the move (typed, so not
        # pinned to a version) is planned again on the record the commit answered.
        move = pb.SubmitMoveRequest(
            match_id=match_id, seat_token=other.seat_token, payload=legal.moves[0].payload
        )
        call("first", "SubmitMove", move)
        commits += 2  # the commit that lost, and the one that won
        clocked = call(
            "first", "CreateMatch", pb.CreateMatchRequest(game="jaipur", move_seconds=1)
        ).match.match_id
        for _ in "ab":
            call("first", "JoinMatch", pb.JoinMatchRequest(match_id=clocked))
        commits += 2
    deadline = time.monotonic() + 20
    while True:  # the first server's sweeper ends the clocked match (one late seat loses)
        figures = [scrape(first.http_address), scrape(second.http_address)]
        if figures[0].get(("serai_clock_expiries_total", ()), 0) == 1:
            break
        assert time.monotonic() < deadline, "the clock did not run out"
        time.sleep(0.2)
    commits += 1

    def total(name: str, labels: tuple[tuple[str, str], ...] = ()) -> float:
        return sum(samples.get((name, labels), 0) for samples in figures)

    assert total("serai_store_seconds_count", (("op", "commit"),)) == commits
    assert total("serai_store_seconds_count", (("op", "create"),)) == 2
    assert total("serai_store_seconds_count", (("op", "load"),)) > 0
    assert total("serai_cas_retries_total") == 1
    assert figures[0][("serai_cas_retries_total", ())] == 1
    assert total("serai_clock_expiries_total") == 1
    for samples, server in zip(figures, ("first", "second"), strict=True):
        assert samples[("serai_tenant_requests_total", (("tenant", "acme"),))] == keyed[server]
    assert not [name for name, _ in figures[0] if name == "serai_store_errors_total"]
