"""House bots (``/bots`` on the HTTP port): a real ``serai serve`` starts a greedy bot in a
person's Jaipur match and plays it to the end; bad requests, unknown matches, full matches and
the limit answer 400, 404, 409 and 429; with --require-api-key the bot calls with the caller's
key, so it joins only what that key may; it stops with the server."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from typing import Any

from serai.house_bots import local_target
from serai_client import SeraiClient
from serai_client.bots import play_seat, strategies_for
from serai_client.bots.random_bot import RandomStrategy
from waiting import wait_until


def bots(address: str, body: object = None, method: str = "POST", key: str = "") -> tuple[int, Any]:
    """A call to /bots: its HTTP status and its JSON."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        connection.request(method, "/bots", body=None if body is None else data, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def running(address: str) -> int:
    status, listing = bots(address, method="GET")
    assert status == 200, listing
    return int(listing["running"])


def test_a_person_plays_jaipur_to_the_end_against_a_greedy_house_bot(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    status, listing = bots(server.http_address, method="GET")
    assert status == 200
    assert listing["strategies"]["jaipur"] == ["random", "greedy", "search"]
    assert listing["strategies"]["nile"] == list(strategies_for("nile"))
    assert listing["running"] == 0 and listing["limit"] == 16
    with SeraiClient(server.address) as client:
        match = client.create_match("jaipur", seed=5)
        me = client.join(match.match_id, player_name="ada")
        request = {"matchId": match.match_id, "strategy": "greedy"}
        status, started = bots(server.http_address, request)
        assert status == 201, started
        assert started == {
            "matchId": match.match_id,
            "game": "jaipur",
            "seat": 1,
            "strategy": "greedy",
            "playerName": "greedy bot",
        }
        final = play_seat(client, me, RandomStrategy(seed=7))
        assert final.finished and final.outcome is not None
        assert [seat.player_name for seat in final.proto.match.seats] == ["ada", "greedy bot"]
        movers = {e.proto.move.seat for e in client.watch(me) if e.kind == "move"}
        assert movers == {0, 1}
    wait_until(lambda: running(server.http_address) == 0, "the bot stops after the match", 60)
    assert '"house bot done"' in server.log()


def test_what_cannot_be_started_says_why(start_serve: Callable[..., Any], redis_url: str) -> None:
    server = start_serve("--redis-url", redis_url, "--http-port", "0", "--house-bots", "1")
    http = server.http_address
    with SeraiClient(server.address) as client:
        jaipur = client.create_match("jaipur").match_id
        nile = client.create_match("nile").match_id

        status, answer = bots(http, {"matchId": jaipur, "strategy": "clever"})
        assert status == 400 and "no bot strategy 'clever'" in answer["message"]
        status, answer = bots(http, {"matchId": nile, "strategy": "greedy"})
        assert status == 400 and answer["message"] == "nile has no greedy bot; it offers: " + (
            ", ".join(strategies_for("nile"))
        )
        for body in (b"{not json", [1], {"matchId": jaipur}, {"matchId": jaipur, "strategy": 3}):
            status, answer = bots(http, body)
            assert status == 400 and answer["message"], body
        status, answer = bots(http, {"matchId": jaipur, "strategy": "random", "seat": -1})
        assert status == 400 and "seat" in answer["message"]
        status, answer = bots(http, {"matchId": "0" * 16, "strategy": "greedy"})
        assert status == 404 and "no match" in answer["message"]
        assert bots(http, {}, method="DELETE")[0] == 405

        full = client.create_match("jaipur").match_id
        client.join(full), client.join(full)
        status, answer = bots(http, {"matchId": full, "strategy": "greedy"})
        assert status == 409 and "every seat" in answer["message"]

        # one bot waits in an open match for its opponent: the limit of 1 is reached
        status, answer = bots(http, {"matchId": jaipur, "strategy": "greedy", "seat": 1})
        assert status == 201 and answer["seat"] == 1
        status, answer = bots(http, {"matchId": nile, "strategy": "random"})
        assert status == 429 and "--house-bots" in answer["message"]
        status, answer = bots(http, {"matchId": jaipur, "strategy": "random", "seat": 1})
        assert status == 429  # the limit is checked first: nothing is asked of the match

    assert server.stop() == 0  # the waiting bot ends with the server
    assert '"house bot stopped"' in server.log()


def test_house_bots_can_be_turned_off(start_serve: Callable[..., Any], redis_url: str) -> None:
    server = start_serve("--redis-url", redis_url, "--http-port", "0", "--house-bots", "0")
    for method in ("GET", "POST"):
        status, answer = bots(server.http_address, {}, method=method)
        assert status == 404 and "--house-bots 0" in answer["message"]


def test_the_bot_calls_with_the_callers_key(
    start_serve: Callable[..., Any], redis_url: str, make_api_key: Callable[[str], str]
) -> None:
    acme, other = make_api_key("acme"), make_api_key("other")
    server = start_serve("--redis-url", redis_url, "--http-port", "0", "--require-api-key")
    http = server.http_address
    with SeraiClient(server.address, api_key=acme) as client:
        match_id = client.create_match("jaipur").match_id
        me = client.join(match_id, player_name="ada")
        request = {"matchId": match_id, "strategy": "greedy"}

        status, answer = bots(http, request)
        assert status == 401 and answer["message"]
        status, answer = bots(http, request, key=other)  # another app's key sees no such match
        assert status == 404
        status, answer = bots(http, request, key=acme)
        assert status == 201 and answer["seat"] == 1

        final = play_seat(client, me, RandomStrategy(seed=3))
        assert final.finished
        assert final.proto.match.seats[1].player_name == "greedy bot"


def test_the_address_a_bot_calls() -> None:
    """The process's own gRPC port, from the host it listens on."""
    assert local_target("0.0.0.0", 5) == "127.0.0.1:5"
    assert local_target("[::]", 5) == "[::1]:5"
    assert local_target("::1", 5) == "[::1]:5"
    assert local_target("10.1.2.3", 5) == "10.1.2.3:5"


def test_a_search_bot_answers_and_stops_when_its_opponent_resigns(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    """The search bot thinks in a thread pool, a bounded time a move, and leaves once the match
    is over, however it ended."""
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    with SeraiClient(server.address) as client:
        match_id = client.create_match("sobek", seed=4).match_id
        me = client.join(match_id, player_name="ada")
        status, answer = bots(server.http_address, {"matchId": match_id, "strategy": "search"})
        assert status == 201 and answer["seat"] == 1
        strategy, bot_moved = RandomStrategy(seed=2), False
        for event in client.watch(me):
            snapshot = event.snapshot
            bot_moved = bot_moved or (event.kind == "move" and event.proto.move.seat == 1)
            if snapshot is None or not snapshot.acts(0):
                continue
            if bot_moved:
                break
            client.play(me, strategy.choose)
        client.resign(me)
    wait_until(lambda: running(server.http_address) == 0, "the bot leaves the resigned match", 60)
    assert '"house bot done"' in server.log()
