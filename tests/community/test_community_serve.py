"""Matchmaking and ratings end to end (issue 35): real ``serai serve`` replicas on one real
Redis, keys and player tokens made as an app makes them, ``serai bot --queue`` processes.

Two Jaipur bots (on two replicas) are paired with each other for three rated matches and the
leaderboard shows both with 3 games and moved ratings; three Nile bots fill a 3-seat queue for
three matches; a replica killed with -9 while players wait loses no one and seats no one twice;
a replica killed with -9 as a rated match ends leaves the match rated exactly once; bad requests
get their status, on the gRPC port and the Connect (JSON) port alike; a player alone long enough
is seated with a house bot (--queue-bot-after)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
import jwt
import pytest
import redis
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from waiting import wait_until

pytestmark = pytest.mark.slow

START = (25.0, 25.0 / 3)  # openskill's starting mu and sigma


def app_key(redis_url: str, name: str = "app") -> tuple[str, str]:
    """``serai keys create NAME --player-token-secret``: (API key, signing secret)."""
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "serai.cli",
            "keys",
            "--redis-url",
            redis_url,
            "create",
            name,
            "--player-token-secret",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    key, secret = made.stdout.split()
    return key, secret


def player_token(secret: str, sub: str) -> str:
    claims = {"sub": sub, "name": sub, "exp": int(time.time()) + 3600}
    return jwt.encode(claims, secret, algorithm="HS256")


class Keyed:
    """A MatchService stub whose every call carries the app's key."""

    def __init__(self, address: str, key: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self._stub = pb_grpc.MatchServiceStub(self.channel)
        self._metadata = (("authorization", f"Bearer {key}"),)

    def __getattr__(self, method: str) -> Callable[[Any], Any]:
        call = getattr(self._stub, method)
        return lambda request, **kw: call(request, metadata=self._metadata, **kw)


def bots(server: Any, key: str, tokens: list[str], *args: str) -> list[str]:
    """Run one ``serai bot --queue`` per token, all at once; their outputs (each exit 0)."""
    running = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "serai.cli",
                "bot",
                "--queue",
                "--player-token",
                token,
                "--api-key",
                key,
                "--server",
                server[i % len(server)].address,
                *args,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i, token in enumerate(tokens)
    ]
    outputs = []
    for process in running:
        out, _ = process.communicate(timeout=400)
        assert process.returncode == 0, out
        outputs.append(out)
    return outputs


def leaderboard(stub: Keyed, game: str) -> dict[str, pb.Rating]:
    board = stub.ListLeaderboard(pb.ListLeaderboardRequest(game=game))
    return {r.player_name: r for r in board.ratings}


def matches_played(output: str) -> list[str]:
    return re.findall(r"match \d+: seat \d of rated match (\w+)", output)


def test_two_jaipur_bots_on_two_replicas_play_three_rated_matches(start_serve, redis_url):
    key, secret = app_key(redis_url)
    replicas = [start_serve("--redis-url", redis_url) for _ in range(2)]
    ada, bo = player_token(secret, "ada"), player_token(secret, "bo")
    outputs = bots(replicas, key, [ada, bo], "--game", "jaipur", "--matches", "3")
    assert matches_played(outputs[0]) == matches_played(outputs[1])  # paired with each other
    assert len(set(matches_played(outputs[0]))) == 3
    stub = Keyed(replicas[0].address, key)
    wait_until(
        lambda: [r.games for r in leaderboard(stub, "jaipur").values()] == [3, 3],
        "both bots rated for 3 matches",
    )
    for rating in leaderboard(stub, "jaipur").values():
        assert (rating.mu, rating.sigma) != START and rating.provisional
    assert "after 3 rated matches" in outputs[0]  # the bot waited for its matches to be rated
    mine = stub.GetRating(pb.GetRatingRequest(game="jaipur", player_token=ada))
    assert [c.match_id for c in mine.history][::-1] == matches_played(outputs[0])


def test_three_nile_bots_fill_a_three_seat_queue(start_serve, redis_url):
    key, secret = app_key(redis_url)
    replicas = [start_serve("--redis-url", redis_url) for _ in range(2)]
    tokens = [player_token(secret, name) for name in ("cy", "di", "ed")]
    outputs = bots(replicas, key, tokens, "--game", "nile", "--seats", "3", "--matches", "3")
    assert matches_played(outputs[0]) == matches_played(outputs[1]) == matches_played(outputs[2])
    stub = Keyed(replicas[1].address, key)
    wait_until(
        lambda: [r.games for r in leaderboard(stub, "nile").values()] == [3] * 3,
        "the three bots rated for 3 matches",
    )
    assert all((r.mu, r.sigma) != START for r in leaderboard(stub, "nile").values())


def queue_request(token: str, game: str = "jaipur", **more: Any) -> pb.JoinQueueRequest:
    return pb.JoinQueueRequest(game=game, player_token=token, **more)


def matched(stream: Any) -> pb.QueueMatched:
    for update in stream:
        if update.HasField("matched"):
            return update.matched
    raise AssertionError("the queue's stream ended unmatched")


def my_matches(stub: Keyed, token: str) -> list[str]:
    found = stub.ListMatches(pb.ListMatchesRequest(player_token=token))
    return [m.match_id for m in found.matches]


@pytest.mark.parametrize("round_", range(3))
def test_a_replica_killed_while_players_wait_loses_no_one(start_serve, redis_url, round_):
    """Ada waits on replica A, Bo joins on replica B, A is killed with -9 (before or after it
    paired them: either may happen): Ada, back on B, and Bo end in the same match, each in one
    match only, on different seats."""
    key, secret = app_key(redis_url, f"app{round_}")
    first, second = (start_serve("--redis-url", redis_url) for _ in range(2))
    ada, bo = player_token(secret, "ada"), player_token(secret, "bo")
    on_first, on_second = Keyed(first.address, key), Keyed(second.address, key)
    waiting = on_first.JoinQueue(queue_request(ada))
    assert next(waiting).HasField("waiting")
    got: dict[str, pb.QueueMatched] = {}
    bo_stream = threading.Thread(target=_join_into, args=(got, "bo", on_second, bo))
    bo_stream.start()
    first.stop(signal.SIGKILL)
    waiting.cancel()
    got["ada"] = matched(on_second.JoinQueue(queue_request(ada)))
    bo_stream.join(60)
    assert got["ada"].match_id == got["bo"].match_id
    assert {got["ada"].seat, got["bo"].seat} == {0, 1}
    assert my_matches(on_second, ada) == my_matches(on_second, bo) == [got["ada"].match_id]


def _join_into(got: dict[str, pb.QueueMatched], name: str, stub: Keyed, token: str) -> None:
    got[name] = matched(stub.JoinQueue(queue_request(token)))


def test_a_replica_killed_as_a_rated_match_ends_counts_it_once(start_serve, redis_url):
    """Twice: a rated match ends by a resignation on replica A, which is killed with -9 at
    once (whether its rater had rated it or not); replica B rates what is left: each player has
    one more game, one more line of history, and the registry of matches to rate is empty."""
    key, secret = app_key(redis_url)
    ada, bo = player_token(secret, "ada"), player_token(secret, "bo")
    survivor = start_serve("--redis-url", redis_url)
    on_survivor = Keyed(survivor.address, key)
    store = redis.Redis.from_url(redis_url)
    for played in (1, 2):
        doomed = start_serve("--redis-url", redis_url)
        on_doomed = Keyed(doomed.address, key)
        got: dict[str, pb.QueueMatched] = {}
        ada_stream = threading.Thread(target=_join_into, args=(got, "ada", on_doomed, ada))
        ada_stream.start()
        got["bo"] = matched(on_doomed.JoinQueue(queue_request(bo)))
        ada_stream.join(60)
        assert got["ada"].match_id == got["bo"].match_id
        on_doomed.Resign(
            pb.ResignRequest(match_id=got["bo"].match_id, seat_token=got["bo"].seat_token)
        )
        doomed.stop(signal.SIGKILL)
        wait_until(lambda: store.zcard("serai:rated:due") == 0, "the match rated")
        games = [r.games for r in leaderboard(on_survivor, "jaipur").values()]
        assert games == [played, played]
        history = on_survivor.GetRating(pb.GetRatingRequest(game="jaipur", player_token=ada))
        assert len(history.history) == played


def _connect_json(address: str, method: str, body: dict[str, Any], key: str) -> tuple[int, Any]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    connection.request("POST", f"/serai.v1.MatchService/{method}", json.dumps(body), headers)
    answer = connection.getresponse()
    status, text = answer.status, answer.read()
    connection.close()
    return status, json.loads(text)


def test_bad_community_requests_get_their_status_on_both_ports(start_serve, redis_url):
    key, secret = app_key(redis_url)
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    stub = Keyed(server.address, key)
    ada = player_token(secret, "ada")

    def code(call: Callable[[], Any]) -> grpc.StatusCode:
        with pytest.raises(grpc.RpcError) as failure:
            call()
        return failure.value.code()

    def first(request: pb.JoinQueueRequest) -> Any:
        return next(stub.JoinQueue(request))

    assert code(lambda: first(queue_request(""))) == grpc.StatusCode.UNAUTHENTICATED
    assert code(lambda: first(queue_request(ada, pool="ranked"))) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    assert code(lambda: first(queue_request(ada, game="chess"))) == grpc.StatusCode.NOT_FOUND
    assert code(lambda: first(queue_request(ada, seats=5))) == grpc.StatusCode.INVALID_ARGUMENT
    bad_page = pb.ListLeaderboardRequest(game="jaipur", page_token="x")
    assert code(lambda: stub.ListLeaderboard(bad_page)) == grpc.StatusCode.INVALID_ARGUMENT
    no_player = pb.GetRatingRequest(game="jaipur")
    assert code(lambda: stub.GetRating(no_player)) == grpc.StatusCode.UNAUTHENTICATED
    assert code(lambda: stub.LeaveQueue(pb.LeaveQueueRequest(game="jaipur"))) == (
        grpc.StatusCode.UNAUTHENTICATED
    )
    left = stub.LeaveQueue(pb.LeaveQueueRequest(game="jaipur", player_token=ada))
    assert not left.left
    status, answer = _connect_json(
        server.http_address, "GetRating", {"game": "jaipur", "playerToken": ada}, key
    )
    assert status == 200 and answer["rating"]["playerName"] == "ada"
    status, answer = _connect_json(server.http_address, "ListLeaderboard", {"game": "x"}, key)
    assert status == 404 and answer["code"] == "not_found"


def test_a_person_at_serai_play_is_paired_with_a_queued_bot(start_serve, redis_url, tmp_path):
    """``serai play --queue`` and ``serai bot --queue`` meet in the rated queue: the person is
    seated in the bot's match (here they leave at once, their seat kept)."""
    key, secret = app_key(redis_url)
    server = start_serve("--redis-url", redis_url)
    bot = subprocess.Popen(
        [sys.executable, "-m", "serai.cli", "bot", "--queue", "--game", "jaipur",
         "--player-token", player_token(secret, "bot"), "--api-key", key,
         "--server", server.address],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    person = subprocess.run(
        [sys.executable, "-m", "serai.cli", "play", "jaipur", "--queue", "--server",
         server.address, "--api-key", key, "--player-token", player_token(secret, "ada")],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
        env={**os.environ, "SERAI_SEATS_DIR": str(tmp_path), "COLUMNS": "80", "LINES": "24"},
    )  # fmt: skip
    said = (person.stdout + person.stderr).replace("\n", "")
    assert "you left the match" in said, said  # at the first question (no input)
    bot.kill()
    out, _ = bot.communicate(timeout=60)
    (match_id,) = matches_played(out)
    assert f"--match {match_id}" in said


def test_a_player_alone_in_the_queue_is_seated_with_a_house_bot(start_serve, redis_url):
    """serve --queue-bot-after: a bot waiting alone in an app's rated queue (keys required) is
    seated with a house bot after the wait; the house bot plays in the app's tenant though no
    one gave it the app's key, the match ends, and both are rated on the bots' leaderboard."""
    key, secret = app_key(redis_url)
    server = start_serve("--redis-url", redis_url, "--require-api-key", "--queue-bot-after", "1")
    (out,) = bots([server], key, [player_token(secret, "ada")], "--game", "jaipur", "--as-bot")
    (match_id,) = matches_played(out)
    assert "after 1 rated matches" in out, out
    stub = Keyed(server.address, key)
    board = stub.ListLeaderboard(pb.ListLeaderboardRequest(game="jaipur", bots=True))
    assert sorted((r.player_name, r.games) for r in board.ratings) == [
        ("ada", 1),
        ("greedy bot", 1),
    ]
    seats = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.seats
    assert sorted(s.player_name for s in seats) == ["ada", "greedy bot"]
