"""The commands say when the server cannot be reached, keep retrying with a countdown, and go on
once a ``serai serve`` listens on the port: at their start and when the server drops mid-match."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from serai_client import SeraiClient
from serai_client.reachability import StatusLine, unreachable_message

WAIT = 90.0  # seconds a test waits for a line before it fails (a slow, shared CI box)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Command:
    """A serai command as a child process, its stdout and stderr read line by line."""

    def __init__(self, *args: str, stdin: str | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "serai.cli", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, into in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, into), daemon=True).start()
        if stdin is not None:
            assert self.process.stdin is not None
            self.process.stdin.write(stdin)
            self.process.stdin.flush()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, lines: list[str], after: int = 0) -> int:
        """The index of the first line from ``after`` on that matches ``pattern``."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for index in range(after, len(lines)):
                if re.search(pattern, lines[index]):
                    return index
            if self.process.poll() is not None and not any(
                re.search(pattern, line) for line in lines[after:]
            ):
                time.sleep(0.2)  # the readers may still be draining
                if not any(re.search(pattern, line) for line in lines[after:]):
                    break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in\n" + "\n".join(self.out + self.err))

    def finish(self) -> int:
        try:
            return self.process.wait(WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def unreachable(port: int) -> str:
    return re.escape(f"cannot reach 127.0.0.1:{port} — is `serai serve` running? retrying in")


def test_the_message_says_which_server_and_what_to_do() -> None:
    assert (
        unreachable_message("localhost:50051", 3)
        == "cannot reach localhost:50051 — is `serai serve` running? retrying in 3s…"
    )


def test_the_countdown_goes_on_one_line_in_a_terminal_and_a_line_per_try_in_a_log() -> None:
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    log, terminal = io.StringIO(), Terminal()
    for stream in (log, terminal):
        say = StatusLine(stream)
        for seconds in (3, 2, 1, 3, 2):
            say(unreachable_message("h:1", seconds))
        say("reconnected to h:1")
    assert log.getvalue().count("\n") == 3  # two tries, then reconnected
    assert terminal.getvalue().count("\r") >= 5 and terminal.getvalue().count("\n") == 1
    assert "retrying in 2s" in terminal.getvalue()


def test_serai_bot_waits_for_a_server_and_plays_once_one_starts(start_serve, redis_url) -> None:
    """No server: the bot says so, then creates its match as soon as one listens; --quiet
    prints the bare id first."""
    port = free_port()
    # --connect-timeout 0: waits for as long as the test (a loaded machine starts serve slowly)
    bot = Command(
        "bot",
        "--create",
        "--quiet",
        "--seed",
        "1",
        "--server",
        f"127.0.0.1:{port}",
        "--connect-timeout",
        "0",
    )
    try:
        bot.wait_for(unreachable(port), bot.err)
        start_serve("--port", str(port), "--redis-url", redis_url)
        bot.wait_for(f"connected to 127.0.0.1:{port}", bot.err)
        bot.wait_for(r"^[0-9a-f]{32}$", bot.out)
        match_id = bot.out[0]
        with SeraiClient(f"127.0.0.1:{port}") as client:
            other = client.join(match_id, player_name="person")
            client.resign(other)
        assert bot.finish() == 0
        assert bot.out[0] == match_id and "resigned" in bot.out[-1]
    finally:
        bot.process.kill()


def test_serai_bot_says_so_when_the_server_drops_mid_match_and_resumes(
    start_serve, redis_url
) -> None:
    port = free_port()
    server = start_serve("--port", str(port), "--redis-url", redis_url)
    with SeraiClient(server.address) as client:
        match = client.create_match("jaipur", seed=3)
    bot = Command(
        "bot", "--match", match.match_id, "--server", server.address, "--connect-timeout", "0"
    )
    try:
        bot.wait_for("plays seat 0", bot.out)
        server.stop()
        seen = bot.wait_for(unreachable(port), bot.err)
        start_serve("--port", str(port), "--redis-url", redis_url)
        bot.wait_for(f"reconnected to 127.0.0.1:{port}", bot.err, after=seen)
        with SeraiClient(server.address) as client:
            person = client.join(match.match_id, player_name="person")
            client.resign(person)
        assert bot.finish() == 0, "\n".join(bot.out + bot.err)
        assert "resigned" in bot.out[-1]
    finally:
        bot.process.kill()


@pytest.mark.parametrize("command", ["arena", "play"])
def test_arena_and_play_wait_for_a_server_too(start_serve, redis_url, command: str) -> None:
    port = free_port()
    target = f"127.0.0.1:{port}"
    if command == "arena":
        args = ["arena", "--bots", "random,random", "--matches", "1", "--quiet"]
        child = Command(*args, "--server", target, "--connect-timeout", "0")
    else:
        child = Command("play", "jaipur", "--vs", "random", "--server", target, stdin="q\ny\nq\n")
    try:
        child.wait_for(unreachable(port), child.err)
        start_serve("--port", str(port), "--redis-url", redis_url)
        child.wait_for(f"connected to {target}", child.err)
        assert child.finish() == 0
        said = "\n".join(child.out)
        assert ("jaipur: 1 match, seed" in said) if command == "arena" else ("you lose" in said)
    finally:
        child.process.kill()
