"""API keys (issue 22): a server that requires them refuses calls without a valid one, a revoked
key is refused on every replica within a second, each key's app sees only its own matches, and
a key's limits replace the server's. Real ``serai serve`` processes, a real Redis, keys made with
``serai keys``; both the gRPC port and the HTTP (Connect JSON) port."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from connect_helpers import CallFailed, json_call
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from waiting import wait_until

Call = Callable[..., Any]


def keys(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``serai keys --redis-url URL ARGS``, run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "serai.cli", "keys", "--redis-url", redis_url, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def new_key(redis_url: str, name: str, *limits: str) -> str:
    made = keys(redis_url, "create", name, *limits)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


class Keyed:
    """A MatchService stub on ``address`` whose every call carries ``key`` (none for "")."""

    def __init__(self, channel: grpc.Channel, key: str) -> None:
        self._stub = pb_grpc.MatchServiceStub(channel)
        self._metadata = (("authorization", f"Bearer {key}"),) if key else ()

    def __getattr__(self, method: str) -> Call:
        call = getattr(self._stub, method)
        return lambda request: call(request, metadata=self._metadata)


def code_of(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as failure:
        call()
    return failure.value.code(), failure.value.details()


def http_code_of(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(CallFailed) as failure:
        call()
    return failure.value.code, failure.value.message


def started(stub: Any, seats: int = 2) -> tuple[str, list[str]]:
    """A jaipur match made and joined by ``stub``'s key: its id and seat tokens."""
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=3)).match.match_id
    tokens = [
        stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat_token for _ in range(seats)
    ]
    return match_id, tokens


def test_without_a_key(start_serve, redis_url):
    """With --require-api-key a call without a key, or with a bad one, is UNAUTHENTICATED on
    both ports; ListGames needs none; the refusal of a bad key is audited by its name only."""
    key = new_key(redis_url, "acme")
    server = start_serve("--redis-url", redis_url, "--require-api-key", "--http-port", "0")
    with grpc.insecure_channel(server.address) as channel:
        anonymous = Keyed(channel, "")
        assert anonymous.ListGames(pb.ListGamesRequest()).games
        code, _ = code_of(lambda: anonymous.CreateMatch(pb.CreateMatchRequest(game="jaipur")))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = code_of(lambda: anonymous.ListMatches(pb.ListMatchesRequest()))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        wrong = key[:-4] + "AAAA"
        code, text = code_of(lambda: Keyed(channel, wrong).ListMatches(pb.ListMatchesRequest()))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert "acme" not in text  # says nothing of the key it names
        unknown = "sk_nobody.secret"
        code, _ = code_of(lambda: Keyed(channel, unknown).ListMatches(pb.ListMatchesRequest()))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert Keyed(channel, key).CreateMatch(pb.CreateMatchRequest(game="jaipur")).match
    http = server.http_address
    assert json_call(http, "ListGames", {})["games"]
    code, _ = http_code_of(lambda: json_call(http, "ListMatches", {}))
    assert code == "UNAUTHENTICATED"
    code, _ = http_code_of(lambda: json_call(http, "ListMatches", {}, **{"x-serai-key": wrong}))
    assert code == "UNAUTHENTICATED"
    assert "matches" in json_call(http, "ListMatches", {}, **{"x-serai-key": key})
    log = server.log()
    assert '"key": "acme"' in log and '"reason": "wrong secret"' in log
    assert wrong.partition(".")[2] not in log and key.partition(".")[2] not in log


def test_revoked_on_every_replica(start_replicas, redis_url):
    """A revoked key is refused by a replica that accepted it a moment before, within a second
    (each process keeps a key at most half a second)."""
    key = new_key(redis_url, "acme")
    first, second = start_replicas(2, "--redis-url", redis_url, "--require-api-key")
    with (
        grpc.insecure_channel(first.address) as one,
        grpc.insecure_channel(second.address) as two,
    ):
        for channel in (one, two):
            Keyed(channel, key).ListMatches(pb.ListMatchesRequest())
        revoked = keys(redis_url, "revoke", "acme")
        assert revoked.returncode == 0, revoked.stderr
        assert '"key": "acme"' in revoked.stderr and "revoked" in revoked.stderr
        for channel in (one, two):
            wait_until(
                lambda c=channel: (
                    code_of(lambda: Keyed(c, key).ListMatches(pb.ListMatchesRequest()))[0]
                    == grpc.StatusCode.UNAUTHENTICATED
                ),
                "the revoked key refused on each replica",
                10,
            )
    listed = keys(redis_url, "list")
    assert listed.returncode == 0 and "acme\trevoked" in listed.stdout
    assert key.partition(".")[2] not in listed.stdout


def test_tenants_see_only_their_own(start_serve, redis_url):
    """Another app's match is not there for a key: GetMatch, JoinMatch, ListLegalMoves,
    SubmitMove, Resign and Watch answer NOT_FOUND in the words a match that never existed gets,
    and ListMatches leaves it out; the same on the HTTP port."""
    a, b = new_key(redis_url, "app-a"), new_key(redis_url, "app-b")
    server = start_serve("--redis-url", redis_url, "--require-api-key", "--http-port", "0")
    with grpc.insecure_channel(server.address) as channel:
        alice, bob = Keyed(channel, a), Keyed(channel, b)
        match_id, tokens = started(alice)
        moves = alice.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[0])
        )
        _, never = code_of(lambda: bob.GetMatch(pb.GetMatchRequest(match_id="0123456789abcdef")))
        expected = never.replace("0123456789abcdef", match_id)
        calls: list[Callable[[], Any]] = [
            lambda: bob.GetMatch(pb.GetMatchRequest(match_id=match_id)),
            lambda: bob.JoinMatch(pb.JoinMatchRequest(match_id=match_id)),
            lambda: bob.ListLegalMoves(
                pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[0])
            ),
            lambda: bob.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=match_id, seat_token=tokens[0], move_id=moves.moves[0].id
                )
            ),
            lambda: bob.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0])),
            lambda: list(bob.Watch(pb.WatchRequest(match_id=match_id))),
            lambda: bob.GetTranscript(
                pb.GetTranscriptRequest(match_id=match_id, seat_token=tokens[0])
            ),
        ]
        for call in calls:
            assert code_of(call) == (grpc.StatusCode.NOT_FOUND, expected)
        assert not bob.ListMatches(pb.ListMatchesRequest()).matches
        listed = [m.match_id for m in alice.ListMatches(pb.ListMatchesRequest()).matches]
        assert listed == [match_id]
        # the same client_id and request_id under two keys: two matches, each its app's own
        retried = pb.CreateMatchRequest(game="jaipur", client_id="bot", request_id="r" * 22)
        mine, theirs = alice.CreateMatch(retried).match, bob.CreateMatch(retried).match
        assert mine.match_id != theirs.match_id
        assert alice.CreateMatch(retried).match.match_id == mine.match_id
        # nothing changed: the seat is alice's still, and her move goes through
        alice.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], move_id=moves.moves[0].id)
        )
    http = server.http_address
    code, text = http_code_of(
        lambda: json_call(http, "GetMatch", {"matchId": match_id}, **{"x-serai-key": b})
    )
    assert (code, text) == ("NOT_FOUND", expected)
    listed_b = json_call(http, "ListMatches", {}, **{"x-serai-key": b}).get("matches", [])
    assert [m["matchId"] for m in listed_b] == [theirs.match_id]
    got = json_call(http, "GetMatch", {"matchId": match_id}, authorization=f"Bearer {a}")
    assert got["match"]["matchId"] == match_id


def test_key_limits(start_replicas, redis_url):
    """A key's open-match limit holds across two replicas and replaces the per-address one; its
    move rate is its own, whatever connection the moves come on."""
    small = new_key(
        redis_url, "small", "--max-open-matches", "2", "--rate", "0.001", "--burst", "1"
    )
    other = new_key(redis_url, "other", "--max-open-matches", "10")
    first, second = start_replicas(
        2, "--redis-url", redis_url, "--require-api-key", "--max-open-per-peer", "1"
    )
    with (
        grpc.insecure_channel(first.address) as one,
        grpc.insecure_channel(second.address) as two,
    ):
        create = pb.CreateMatchRequest(game="jaipur")
        Keyed(one, small).CreateMatch(create)
        Keyed(two, small).CreateMatch(create)  # 2 > the address's 1: the key's limit counts
        code, text = code_of(lambda: Keyed(one, small).CreateMatch(create))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "API key small" in text
        Keyed(two, other).CreateMatch(create)  # another key: another count
        # a rate of one move in a thousand seconds: the second move is refused, on any channel
        match_id, tokens = started(Keyed(one, other))
        stub = Keyed(one, small)
        move = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], move_id="0.0")
        code, _ = code_of(lambda: stub.SubmitMove(move))
        assert code == grpc.StatusCode.NOT_FOUND  # the first: allowed (and not its match)
        with grpc.insecure_channel(first.address) as again:
            code, text = code_of(lambda: Keyed(again, small).SubmitMove(move))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "API key" in text


def test_keys_command(redis_url):
    """A name is made once (a revoked one is not given out again); bad names are refused."""
    made = keys(redis_url, "create", "acme", "--max-open-matches", "3")
    token = made.stdout.strip()
    assert made.returncode == 0 and token.startswith("sk_acme.")
    audit = json.loads(made.stderr.strip().splitlines()[-1])  # the audit line: name, no secret
    assert audit["event"] == "api key created" and audit["key"] == "acme"
    assert audit["max_open_matches"] == 3 and token.partition(".")[2] not in made.stderr
    again = keys(redis_url, "create", "acme")
    assert again.returncode == 1 and "exists" in again.stderr
    bad = keys(redis_url, "create", "Not_A_Name")
    assert bad.returncode == 1 and "bad key name" in bad.stderr
    missing = keys(redis_url, "revoke", "nobody")
    assert missing.returncode == 1
