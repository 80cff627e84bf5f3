"""The Node.js bot (clients/node) plays its seat over one Play stream where the server has Play,
and sends the app's API key (--api-key or SERAI_API_KEY) to a server that requires one: real
``serai serve`` processes, their request logs read for the methods the bot called."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat
from test_client_node import (
    NO_NODE,
    NODE_DIR,
    _CancellingServer,
    _node_bot_against,
    install_node_client,
)

pytestmark = pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")


def node_bot(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``node bot.js ARGS`` run to its end; SERAI_API_KEY only as ``env`` gives it."""
    install_node_client()
    environment = {k: v for k, v in os.environ.items() if k != "SERAI_API_KEY"}
    return subprocess.run(
        ["node", "bot.js", *args],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
        env={**environment, **(env or {})},
    )


def requests_of(server: Any, match_id: str, count: int) -> list[dict[str, Any]]:
    """The request log lines of the match, once ``count`` Play streams have ended (a stream's
    line is written as it ends, which may be a moment after its client has seen the end)."""
    deadline = time.monotonic() + 30
    while True:
        lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
        found = [x for x in lines if x.get("event") == "request" and x.get("match_id") == match_id]
        if sum(1 for x in found if x["method"] == "Play") >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def match_against_python_bot(
    server: Any, node_args: list[str], *, api_key: str = "", env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], Any, str]:
    """A Jaipur match: seat 0 the Python greedy bot, seat 1 the Node.js bot; the bot's run, the
    Python seat's final snapshot and the match id."""
    with SeraiClient(server.address, api_key=api_key) as client:
        match = client.create_match("jaipur", seed=17)
        python_seat = client.join(match.match_id, seat=0, player_name="python-greedy")
        finals: list[Any] = []
        python_bot = threading.Thread(
            target=lambda: finals.append(
                play_seat(client, python_seat, make_strategy("greedy", "jaipur", 1))
            ),
            daemon=True,  # left waiting if the Node.js bot died: the asserts tell
        )
        python_bot.start()
        args = ["--server", server.address, "--match", match.match_id, "--seed", "5"]
        node = node_bot(*args, *node_args, env=env)
        python_bot.join(30)
    assert node.returncode == 0, node.stderr
    assert finals and finals[0].finished
    return node, finals[0], match.match_id


def test_the_node_bot_plays_over_play_and_never_watches(start_serve, redis_url):
    """Its events, legal moves and answers come on its Play stream: the server's log shows no
    Watch, ListLegalMoves or SubmitMove for the match, and its moves are all of seat 1's."""
    server = start_serve("--redis-url", redis_url)
    node, final, match_id = match_against_python_bot(server, ["--name", "node-random"])
    assert "playing over Play" in node.stdout
    assert f"result: {final.outcome.summary}" in node.stdout
    requests = requests_of(server, match_id, count=2)  # the Python bot's stream and the bot's
    methods = {line["method"] for line in requests}
    assert "Play" in methods
    assert not methods & {"Watch", "ListLegalMoves", "SubmitMove"}, methods
    bots_stream = [x for x in requests if x["method"] == "Play" and x.get("seat") == 1]
    assert bots_stream and all(x["status"] == "OK" for x in bots_stream)
    played = int(node.stdout.split("played ")[-1].split(" moves")[0])
    with SeraiClient(server.address) as client:
        moves = [e for e in client.watch(match_id) if e.kind == "move"]
    assert played == sum(1 for e in moves if e.proto.move.seat == 1) > 0


def test_the_node_bot_sends_the_api_key_a_server_requires(start_serve, redis_url, make_api_key):
    """With --require-api-key: the bot plays with SERAI_API_KEY or --api-key, over Play; with
    no key it stops with the server's words (no status name), having created nothing."""
    key = make_api_key("acme")
    server = start_serve("--redis-url", redis_url, "--require-api-key")

    node, final, _ = match_against_python_bot(server, [], api_key=key, env={"SERAI_API_KEY": key})
    assert "playing over Play" in node.stdout
    assert f"result: {final.outcome.summary}" in node.stdout
    node, final, _ = match_against_python_bot(server, ["--api-key", key], api_key=key)
    assert f"result: {final.outcome.summary}" in node.stdout

    refused = node_bot("--server", server.address, "--create", "--seed", "3")
    assert refused.returncode == 1
    assert refused.stderr.startswith("serai node bot: ") and "UNAUTHENTICATED" not in refused.stderr
    assert "created match" not in refused.stdout
    assert key.partition(".")[2] not in server.log()


def test_the_node_bot_says_it_watches_where_the_server_has_no_play():
    """A server without Play (UNIMPLEMENTED): the bot plays over Watch + SubmitMove, and says so."""
    node = _node_bot_against(_CancellingServer())
    assert node.returncode == 0, node.stderr
    assert "playing over Watch + SubmitMove (this server has no Play)" in node.stdout
    assert "playing over Play" not in node.stdout


class _AbortingPlayServer(_CancellingServer):
    """A Play that offers seat 1 a move, reads it, and ends the stream with ABORTED before
    answering; the next stream is answered (the move played) and the match ends."""

    def __init__(self) -> None:
        super().__init__()
        self.opens: list[pb.PlayOpen] = []
        self.moves: list[pb.PlayMove] = []

    def Play(self, request_iterator, context):
        self.opens.append(next(request_iterator).open)
        match = pb.MatchSummary(match_id="m1", status=pb.MATCH_STATUS_RUNNING)
        if len(self.opens) == 1:
            offer = pb.PlayUpdate(legal_moves=[pb.LegalMove(id="a", label="take a")])
            offer.event.event_id = "1-0"
            offer.event.snapshot.CopyFrom(pb.MatchSnapshot(match=match, version=1, to_act=[1]))
            yield offer
            self.moves.append(next(request_iterator).move)
            context.abort(grpc.StatusCode.ABORTED, "this stream fell too far behind")
        self.moves.append(next(request_iterator).move)  # the unanswered move, sent again
        answer = pb.PlayUpdate()
        answer.answer.request_id = self.moves[-1].request_id
        answer.answer.submitted.label = "take a"
        answer.answer.submitted.snapshot.version = 2
        yield answer
        end = pb.PlayUpdate()
        end.event.event_id = "2-0"
        end.event.finished.SetInParent()
        match.status = pb.MATCH_STATUS_FINISHED
        outcome = pb.Outcome(summary="it is over")
        end.event.snapshot.CopyFrom(pb.MatchSnapshot(match=match, version=2, outcome=outcome))
        yield end


def test_the_node_bot_resumes_play_after_aborted_and_sends_its_move_again():
    """A Play stream ended with ABORTED before the move's answer: the bot opens a new one after
    the last event it saw and sends the unanswered move again under the same request id."""
    server = _AbortingPlayServer()
    node = _node_bot_against(server)
    assert node.returncode == 0, node.stderr
    assert [o.after_event_id for o in server.opens] == ["", "1-0"]
    first, again = server.moves
    assert first.request_id and again.request_id == first.request_id
    assert (again.move_id, again.expected_version) == ("a", 1)
    assert "v2: take a" in node.stdout and "played 1 moves" in node.stdout
    assert "result: it is over" in node.stdout and server.watches == 0
