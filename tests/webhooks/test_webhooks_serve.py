"""Webhooks end to end: two ``serai serve`` replicas on one Redis send an API key's webhooks to a
receiver in the test, which checks every signature with the ``standardwebhooks`` library; one
replica is killed (SIGKILL) mid-match and the other carries on: a ``match.your_turn`` for every
turn and one ``match.finished``, nothing lost, a webhook sent twice only with the same id."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc
from standardwebhooks.webhooks import Webhook
from waiting import wait_until
from webhook_receiver import Received, Receiver

pytestmark = pytest.mark.slow


def serai(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "serai.cli", *args], capture_output=True, text=True, timeout=120
    )


class Stub:
    """A MatchService stub calling with an API key."""

    def __init__(self, channel: grpc.Channel, key: str) -> None:
        self._stub = match_service_pb2_grpc.MatchServiceStub(channel)
        self._metadata = (("authorization", f"Bearer {key}"),)

    def __getattr__(self, name: str) -> Callable[[Any], Any]:
        call = getattr(self._stub, name)
        return lambda request: call(request, metadata=self._metadata)


def turns_of(snapshot: Any) -> set[tuple[int, int]]:
    return {(snapshot.version, seat) for seat in snapshot.to_act}


def play(stub: Stub, match_id: str, tokens: list[str], moves: int) -> set[tuple[int, int]]:
    """Play ``moves`` moves (each by the seat to act, its first legal move); the turns after."""
    turns: set[tuple[int, int]] = set()
    for _ in range(moves):
        snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        token = tokens[snapshot.to_act[0]]
        legal = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, seat_token=token, move_id=legal.moves[0].id)
        )
        turns |= turns_of(stub.GetMatch(pb.GetMatchRequest(match_id=match_id)))
    return turns


def verified(received: list[Received], secret: str) -> list[dict[str, Any]]:
    """Every webhook's body, each signature checked (raises if one does not verify)."""
    signer = Webhook(secret)
    bodies = []
    for hook in received:
        body = signer.verify(hook.body, hook.headers)
        assert body == json.loads(hook.body)
        bodies.append({**body, "id": hook.headers["webhook-id"]})
    return bodies


def test_every_turn_and_the_end_reach_the_app_across_a_replica_kill(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    with Receiver() as receiver:
        made = serai(
            "keys", "--redis-url", redis_url, "create", "acme",
            "--webhook-url", receiver.url, "--webhook-allow-host", "127.0.0.1",
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        key, secret = made.stdout.split()
        assert secret.startswith("whsec_")
        flags = ("--redis-url", redis_url, "--http-port", "off")
        first = start_serve(*flags, "--webhook-allow-host", "127.0.0.1")
        second = start_serve(*flags, "--webhook-allow-host", "127.0.0.1")
        with grpc.insecure_channel(first.address) as a, grpc.insecure_channel(second.address) as b:
            stub_a, stub_b = Stub(a, key), Stub(b, key)
            match_id = stub_a.CreateMatch(
                pb.CreateMatchRequest(game="jaipur", seats=2)
            ).match.match_id
            join = pb.JoinMatchRequest(match_id=match_id)
            tokens = [stub_a.JoinMatch(join).seat_token for _ in range(2)]
            turns = turns_of(stub_a.GetMatch(pb.GetMatchRequest(match_id=match_id)))
            turns |= play(stub_a, match_id, tokens, 5)
            first.stop(signal.SIGKILL)  # mid-match, perhaps holding the match's lease
            turns |= play(stub_b, match_id, tokens, 5)
            end = stub_b.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))

        def told() -> list[dict[str, Any]]:
            return verified(receiver.snapshot(), secret)

        def everything_came() -> bool:
            got = told()
            seen = {(h["data"]["version"], h["data"]["seat"]) for h in got
                    if h["type"] == "match.your_turn"}  # fmt: skip
            return turns <= seen and any(h["type"] == "match.finished" for h in got)

        try:
            wait_until(everything_came, "every turn's webhook and the end's", seconds=120)
        except AssertionError as error:
            got = sorted(
                (h["type"], h["data"].get("version"), h["data"].get("seat")) for h in told()
            )
            raise AssertionError(
                f"{error}\nturns {sorted(turns)}\ngot {got}\n{second.log()}"
            ) from None
        bodies = told()
    by_id: dict[str, dict[str, Any]] = {}
    for body in bodies:  # a webhook sent again is the same webhook, with the same id
        assert by_id.setdefault(body["id"], body) == body
    your_turns = {(b["data"]["version"], b["data"]["seat"]) for b in by_id.values()
                  if b["type"] == "match.your_turn"}  # fmt: skip
    assert your_turns == turns  # each turn once: none made up
    finished = [b for b in by_id.values() if b["type"] == "match.finished"]
    assert [f["data"] for f in finished] == [
        {"match_id": match_id, "game": "jaipur", "version": end.version}
    ]
    for body in by_id.values():  # what the app may know, nothing more: no cards, no moves
        assert set(body["data"]) <= {"match_id", "game", "version", "seat"}
        assert body["data"]["match_id"] == match_id
    shown = serai("webhooks", "--redis-url", redis_url, "log", "acme", "--limit", "1000")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("\tdelivered\t204\t") >= len(by_id)


def test_a_webhook_to_the_servers_own_port_is_refused(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    serve = start_serve(
        "--redis-url", redis_url, "--http-port", "off", "--webhook-allow-host", "127.0.0.1"
    )
    own = f"http://127.0.0.1:{serve.address.rsplit(':', 1)[1]}/"
    made = serai(
        "keys", "--redis-url", redis_url, "create", "loop",
        "--webhook-url", own, "--webhook-allow-host", "127.0.0.1",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    key = made.stdout.split()[0]
    with grpc.insecure_channel(serve.address) as channel:
        stub = Stub(channel, key)
        match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2)).match.match_id
        for _ in range(2):
            stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id))

    def refused() -> bool:
        shown = serai("webhooks", "--redis-url", redis_url, "log", "loop")
        return "\trefused\t-\tmatch.your_turn\t" in shown.stdout and "own port" in shown.stdout

    wait_until(refused, "the own-port webhook refused, in the delivery log", seconds=60)


@pytest.mark.parametrize(
    ("url", "allow", "said"),
    [
        ("http://elsewhere.example/hook", ["127.0.0.1"], "is not allowed"),
        ("ftp://127.0.0.1/hook", ["127.0.0.1"], "must start with https:// or http://"),
        ("http://user:pw@127.0.0.1/hook", ["127.0.0.1"], "no user name, password"),
        ("http://127.0.0.1:notaport/", ["127.0.0.1"], "bad webhook URL"),
        ("https://hooks.example.com/x", [], "no webhook host is allowed"),
    ],
)
def test_keys_refuse_a_webhook_url_the_operator_does_not_allow(
    redis_url: str, url: str, allow: list[str], said: str
) -> None:
    allowed = [arg for host in allow for arg in ("--webhook-allow-host", host)]
    made = serai("keys", "--redis-url", redis_url, "create", "app", "--webhook-url", url, *allowed)
    assert made.returncode == 1 and said in made.stderr, made.stderr
    assert serai("keys", "--redis-url", redis_url, "create", "app").returncode == 0
    changed = serai("keys", "--redis-url", redis_url, "set", "app", "--webhook-url", url, *allowed)
    assert changed.returncode == 1 and said in changed.stderr, changed.stderr


def test_keys_set_gives_a_new_secret_and_no_webhook_removes_it(redis_url: str) -> None:
    store = ("keys", "--redis-url", redis_url)
    assert serai(*store, "create", "app").returncode == 0
    allow = ("--webhook-allow-host", "*.example.com")
    changed = serai(*store, "set", "app", "--webhook-url", "https://a.example.com/h", *allow)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.startswith("whsec_")
    listed = serai(*store, "list").stdout
    assert "webhook: https://a.example.com/h" in listed and "whsec_" not in listed
    assert serai(*store, "set", "app", "--no-webhook").returncode == 0
    assert "webhook:" not in serai(*store, "list").stdout
