"""What one caller can no longer do with ``/bots`` (issue 32, item 9): start bots from a page of
another origin (a "simple" text/plain POST, or any POST with a foreign Origin), start them
without a key once the server has keys, hold more than --house-bots-per-client of them, or
think a search on the server's event loop (it thinks in processes of its own). Real ``serai
serve`` processes, real sockets."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serai_client import SeraiClient
from serai_client.bots.random_bot import RandomStrategy
from test_house_bots import bots, wait_until


def post(address: str, body: bytes, headers: dict[str, str], source: str = "") -> tuple[int, Any]:
    """A raw POST /bots (from the loopback address ``source``, if given)."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(
        host, int(port), timeout=30, source_address=(source, 0) if source else None
    )
    try:
        connection.request("POST", "/bots", body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_a_page_of_another_origin_cannot_start_bots(start_serve, redis_url):
    """A text/plain POST (what a page elsewhere may send without a preflight) gets 415; a JSON
    POST with a foreign Origin 403; this server's own page (its Origin is the Host) and an
    --http-allow-origin page are served (before: the text/plain POST started a bot)."""
    server = start_serve(
        "--redis-url", redis_url, "--http-allow-origin", "https://play.example.com"
    )
    http_address = server.http_address
    with SeraiClient(server.address) as client:
        matches = [client.create_match("jaipur").match_id for _ in range(2)]
    body = json.dumps({"matchId": matches[0], "strategy": "greedy"}).encode()
    status, answer = post(http_address, body, {"Content-Type": "text/plain"})
    assert status == 415 and "application/json" in answer["message"]
    foreign = {"Content-Type": "application/json", "Origin": "https://evil.example"}
    status, answer = post(http_address, body, foreign)
    assert status == 403 and "https://evil.example" in answer["message"]
    own = {"Content-Type": "application/json", "Origin": f"http://{http_address}"}
    assert post(http_address, body, own)[0] == 201
    allowed = {"Content-Type": "application/json", "Origin": "https://play.example.com"}
    body = json.dumps({"matchId": matches[1], "strategy": "greedy"}).encode()
    assert post(http_address, body, allowed)[0] == 201


def test_bots_need_a_key_once_keys_exist(
    start_serve: Callable[..., Any], redis_url: str, make_api_key: Callable[[str], str]
) -> None:
    """Without --require-api-key, but with a key in the store: a POST without one gets 401, a
    wrong one 401, and the key's owner is served (before: anyone was)."""
    key = make_api_key("acme")
    server = start_serve("--redis-url", redis_url)
    with SeraiClient(server.address) as client:
        match_id = client.create_match("jaipur").match_id
    request = {"matchId": match_id, "strategy": "greedy"}
    status, answer = bots(server.http_address, request)
    assert status == 401 and "API keys" in answer["message"]
    assert bots(server.http_address, request, key="sk_acme.wrong")[0] == 401
    with SeraiClient(server.address, api_key=key) as client:
        keyed = client.create_match("jaipur").match_id
    assert bots(server.http_address, {"matchId": keyed, "strategy": "greedy"}, key=key)[0] == 201


def test_one_caller_holds_at_most_its_share_of_bots(start_serve, redis_url):
    """With --house-bots-per-client 1: a second bot for 127.0.0.1 gets 429 while 127.0.0.2 is
    served (before: one caller could take every slot)."""
    server = start_serve("--redis-url", redis_url, "--house-bots-per-client", "1")
    with SeraiClient(server.address) as client:
        matches = [client.create_match("jaipur").match_id for _ in range(3)]
    json_only = {"Content-Type": "application/json"}

    def start(match_id: str, source: str = "") -> tuple[int, Any]:
        body = json.dumps({"matchId": match_id, "strategy": "greedy"}).encode()
        return post(server.http_address, body, json_only, source)

    assert start(matches[0])[0] == 201
    status, answer = start(matches[1])
    assert status == 429 and "--house-bots-per-client" in answer["message"]
    assert start(matches[2], source="127.0.0.2")[0] == 201


def _children(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                found.append(cmdline.read().replace(b"\0", b" ").decode(errors="replace"))
    return found


def test_a_search_bot_thinks_in_a_process_of_its_own(start_serve, redis_url):
    """A search bot's moves are chosen in a spawned process (the server's loop goes on
    serving), never in the server's own: once the bot has moved, the server has one."""
    server = start_serve("--redis-url", redis_url)
    assert server.process is not None
    pid = server.process.pid
    with SeraiClient(server.address) as client:
        match_id = client.create_match("sobek", seed=4).match_id
        me = client.join(match_id, player_name="ada")
        status, _ = bots(server.http_address, {"matchId": match_id, "strategy": "search"})
        assert status == 201
        strategy, moved = RandomStrategy(seed=2), False
        deadline = time.monotonic() + 120
        while True:  # until the bot has answered a move of mine
            assert '"house bot failed"' not in server.log(), server.log()
            if client.get_match(me).acts(0):
                if moved and any("spawn" in line for line in _children(pid)):
                    break
                client.play(me, strategy.choose)
                moved = True
            assert time.monotonic() < deadline, "the search bot never moved"
            time.sleep(0.05)
        thinking = [line for line in _children(pid) if "multiprocessing" in line]
        assert any("spawn" in line for line in thinking), _children(pid)
        client.resign(me)
    wait_until(lambda: bots(server.http_address, method="GET")[1]["running"] == 0, "bot ends")
