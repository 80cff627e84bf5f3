"""The Node.js bot says when the server cannot be reached, counts down to each try, and plays on
once a ``serai serve`` listens on the port: at its start and when the server drops mid-match."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from typing import Any

import pytest
from serai_client import SeraiClient
from test_client_node import NO_NODE, NODE_DIR, install_node_client
from test_client_reachability import WAIT, free_port

pytestmark = pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")


class NodeBot:
    """``node bot.js ARGS`` with its stdout and stderr read line by line."""

    def __init__(self, *args: str) -> None:
        install_node_client()
        self.process = subprocess.Popen(
            ["node", "bot.js", *args],
            cwd=NODE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, into in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, into), daemon=True).start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, lines: list[str], after: int = 0) -> int:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for index in range(after, len(lines)):
                if re.search(pattern, lines[index]):
                    return index
            if self.process.poll() is not None:
                time.sleep(0.2)
                if not any(re.search(pattern, line) for line in lines[after:]):
                    break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in\n" + "\n".join(self.out + self.err))


def unreachable(port: int) -> str:
    return re.escape(f"cannot reach 127.0.0.1:{port} — is `serai serve` running? retrying in")


def test_the_node_bot_waits_for_a_server_and_plays_once_one_starts(start_serve, redis_url):
    port = free_port()
    bot = NodeBot("--server", f"127.0.0.1:{port}", "--create", "--seed", "3")
    try:
        bot.wait_for(unreachable(port), bot.err)
        start_serve("--port", str(port), "--redis-url", redis_url)
        bot.wait_for(f"connected to 127.0.0.1:{port}", bot.err)
        match_id = bot.out[bot.wait_for(r"^created match ", bot.out)].split()[-1]
        bot.wait_for("plays seat 0", bot.out)
        with SeraiClient(f"127.0.0.1:{port}") as client:
            client.resign(client.join(match_id, player_name="person"))
        assert bot.process.wait(WAIT) == 0, "\n".join(bot.err)
        assert "result: seat 1 resigned" in bot.out[-1]
    finally:
        bot.process.kill()


def test_the_node_bot_says_so_when_the_server_drops_mid_match(start_serve, redis_url):
    port = free_port()
    server = start_serve("--port", str(port), "--redis-url", redis_url)
    with SeraiClient(server.address) as client:
        match = client.create_match("jaipur", seed=3)
    bot = NodeBot("--server", server.address, "--match", match.match_id, "--seed", "3")
    try:
        bot.wait_for("plays seat 0", bot.out)
        server.stop()
        seen = bot.wait_for(unreachable(port), bot.err)
        start_serve("--port", str(port), "--redis-url", redis_url)
        bot.wait_for(f"reconnected to 127.0.0.1:{port}", bot.err, after=seen)
        with SeraiClient(server.address) as client:
            client.resign(client.join(match.match_id, player_name="person"))
        assert bot.process.wait(WAIT) == 0, "\n".join(bot.err)
        assert "result: seat 1 resigned" in bot.out[-1]
    finally:
        bot.process.kill()
