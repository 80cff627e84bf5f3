"""The Node.js bot (clients/node) plays a whole Jaipur match against a Python bot."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"


NO_NODE = shutil.which("node") is None or shutil.which("npm") is None


def install_node_client() -> None:
    """``npm ci`` in clients/node unless .ci/run (or a person) already did."""
    if (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        return
    done = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"npm ci failed in clients/node:\n{done.stderr}"


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
