"""``serai bot``, ``serai arena`` and ``serai play`` send the app's key (``--api-key``, or
SERAI_API_KEY as the Node bot reads it) to a ``serve --require-api-key``; without one they say
how to give it, in the command line's words: a real server and Redis."""

from __future__ import annotations

import json
import threading

from serai.cli import main as serai_main
from serai_client import SeraiClient
from serai_client.bots import play_seat
from serai_client.bots.random_bot import RandomStrategy


def test_the_command_line_clients_send_the_api_key_a_server_requires(
    start_serve, redis_url, make_api_key, capsys, monkeypatch
):
    key = make_api_key("acme")
    server = start_serve("--redis-url", redis_url, "--require-api-key")
    monkeypatch.delenv("SERAI_API_KEY", raising=False)
    arena = ["arena", "--game", "sobek", "--bots", "random,random", "--matches", "1"]
    arena += ["--server", server.address, "--quiet", "--json"]

    assert serai_main(arena) == 1
    refused = capsys.readouterr().err
    assert "this server needs an API key: give it with --api-key KEY or SERAI_API_KEY=KEY" in (
        refused
    )
    assert "UNAUTHENTICATED" not in refused and "authorization: Bearer" not in refused

    assert serai_main([*arena, "--api-key", key]) == 0
    out = capsys.readouterr().out
    assert sum(p["matches"] for p in json.loads(out[out.index("{") :])["pairings"]) == 1

    monkeypatch.setenv("SERAI_API_KEY", key)
    with SeraiClient(server.address, api_key=key) as client:
        match = client.create_match("jaipur", seed=6)
        other = client.join(match.match_id, seat=1)
        thread = threading.Thread(target=play_seat, args=(client, other, RandomStrategy(9)))
        thread.start()
        code = serai_main(["bot", "--server", server.address, "--match", match.match_id])
        thread.join(60)
    assert code == 0
    assert "random-bot plays seat 0" in capsys.readouterr().out
    assert key.partition(".")[2] not in server.log()
