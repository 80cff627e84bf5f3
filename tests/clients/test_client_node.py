"""The Node.js bot (clients/node) plays a whole Jaipur match against a Python bot."""

from __future__ import annotations

import concurrent.futures
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"


NO_NODE = shutil.which("node") is None or shutil.which("npm") is None


def npm_ci_once(folder: Path, installed: Path) -> None:
    """``npm ci`` in ``folder`` unless ``installed`` (a package of its node_modules) shows that
    .ci/run (or a person) already did."""
    # Test workers (pytest-xdist) may get here at once: one runs npm ci, the others wait.
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        if installed.is_dir():
            return
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"npm ci failed in {folder}:\n{done.stderr}"
    finally:
        os.close(handle)  # and with it the lock


def install_node_client() -> None:
    npm_ci_once(NODE_DIR, NODE_DIR / "node_modules" / "@grpc" / "grpc-js")


@pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")
def test_the_node_bot_plays_a_full_jaipur_match_against_a_python_bot(service):
    install_node_client()
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=17)
        python_seat = client.join(match.match_id, seat=0, player_name="python-greedy")
        finals = []
        python_bot = threading.Thread(
            target=lambda: finals.append(
                play_seat(client, python_seat, make_strategy("greedy", "jaipur", 1))
            )
        )
        python_bot.start()
        node = subprocess.run(
            [
                "node",
                "bot.js",
                "--server",
                service.address,
                "--match",
                match.match_id,
                "--seed",
                "5",
                "--name",
                "node-random",
            ],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=90,
        )
        python_bot.join(30)
        final = client.get_match(match.match_id)
    assert node.returncode == 0, node.stderr
    assert "node-random plays seat 1 of jaipur" in node.stdout
    assert final.finished and finals and finals[0].finished
    assert f"result: {final.outcome.summary}" in node.stdout
    played = int(node.stdout.split("played ")[-1].split(" moves")[0])
    moves = sum(1 for event in client_events(service.address, match.match_id) if event == 1)
    assert played == moves  # every move of seat 1 was the Node.js bot's


def client_events(address: str, match_id: str) -> list[int]:
    """The seat of each move event of the match."""
    with SeraiClient(address) as client:
        return [e.proto.move.seat for e in client.watch(match_id) if e.kind == "move"]


@pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "killed"])
def test_the_node_bot_waits_out_a_server_restart_and_plays_on(start_serve, redis_url, how):
    """The Node.js bot waits on Watch for the Python seat; the server stops and starts again on
    the same port: the bot resumes its watch (or asks where the match is) and plays to the end."""
    install_node_client()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    first = start_serve("--port", port, "--redis-url", redis_url)
    client = SeraiClient(first.address, timeout=5, unavailable_for=40)
    match = client.create_match("jaipur", seed=17)
    python_seat = client.join(match.match_id, seat=0, player_name="python-greedy")
    node = subprocess.Popen(
        ["node", "bot.js", "--server", first.address, "--match", match.match_id, "--seed", "5"],
        cwd=NODE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not client.get_match(match.match_id).acts(0):  # the Node.js bot has joined
            assert time.monotonic() < deadline and node.poll() is None
            time.sleep(0.1)
        time.sleep(0.5)  # and waits on its Watch stream for seat 0
        first.stop(how)
        time.sleep(1)  # down for a while: the bot's calls meet UNAVAILABLE
        start_serve("--port", port, "--redis-url", redis_url)
        finals: list[Any] = []
        python_bot = threading.Thread(
            target=lambda: finals.append(
                play_seat(client, python_seat, make_strategy("greedy", "jaipur", 1))
            ),
            daemon=True,  # left waiting if the Node.js bot died: the asserts below tell
        )
        python_bot.start()
        out, err = node.communicate(timeout=90)
        python_bot.join(30)
    finally:
        node.kill()
    assert node.returncode == 0, err
    assert finals and finals[0].finished
    assert f"result: {finals[0].outcome.summary}" in out


class _CancellingServer(pb_grpc.MatchServiceServicer):
    """Ends every Watch with CANCELLED (a server whose grace ran out, a proxy's reset); after
    the first, GetMatch says the match is over."""

    def __init__(self) -> None:
        self.watches = 0

    def JoinMatch(self, request, context):
        match = pb.MatchSummary(match_id=request.match_id, game="jaipur")
        return pb.JoinMatchResponse(seat=1, seat_token="token", match=match)

    def GetMatch(self, request, context):
        match = pb.MatchSummary(match_id=request.match_id, status=pb.MATCH_STATUS_RUNNING)
        if self.watches:
            match.status = pb.MATCH_STATUS_FINISHED
            return pb.MatchSnapshot(match=match, outcome=pb.Outcome(summary="it is over"))
        return pb.MatchSnapshot(match=match, to_act=[0], last_event_id="1-0")

    def Watch(self, request, context):
        self.watches += 1
        context.abort(grpc.StatusCode.CANCELLED, "the server is going away")


class _FullServer(_CancellingServer):
    """Refuses the first Watch for want of room (RESOURCE_EXHAUSTED), ends the next at once;
    after that second one, GetMatch says the match is over."""

    def GetMatch(self, request, context):
        match = pb.MatchSummary(match_id=request.match_id, status=pb.MATCH_STATUS_RUNNING)
        if self.watches >= 2:
            match.status = pb.MATCH_STATUS_FINISHED
            return pb.MatchSnapshot(match=match, outcome=pb.Outcome(summary="it is over"))
        return pb.MatchSnapshot(match=match, to_act=[0], last_event_id="1-0")

    def Watch(self, request, context):
        self.watches += 1
        if self.watches == 1:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "no room for another watch")
        return iter(())


def _node_bot_against(servicer: pb_grpc.MatchServiceServicer) -> subprocess.CompletedProcess[str]:
    install_node_client()
    server = grpc.server(concurrent.futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_MatchServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        return subprocess.run(
            ["node", "bot.js", "--server", f"127.0.0.1:{port}", "--match", "m1"],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.stop(None)


@pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")
def test_the_node_bot_asks_where_the_match_is_when_the_server_cancels_its_watch():
    node = _node_bot_against(_CancellingServer())
    assert node.returncode == 0, node.stderr
    assert "result: it is over" in node.stdout


@pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")
def test_the_node_bot_watches_again_when_the_server_has_no_room_for_its_watch():
    node = _node_bot_against(_FullServer())
    assert node.returncode == 0, node.stderr
    assert "result: it is over" in node.stdout
