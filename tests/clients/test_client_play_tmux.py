"""``serai play`` in a real terminal (tmux, 80x24): names instead of seat numbers, the help line
whole, Enter alone and ``m`` keeping the half-picked move, the result once the person resigns,
and the rematch it offers then (r: the same players, seats rotated; q: quit). Skipped where
tmux is missing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

WAIT = 120.0  # seconds a screen may take to show (an embedded server starts first)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Pane:
    """One tmux session of 80x24 running a command; its screen read with capture-pane."""

    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.name = f"serai-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        shell = f"env {exports} {command}; echo EXIT=$?; sleep 600"
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", "80", "-y", "24", shell],
            check=True,
        )

    def screen(self) -> list[str]:
        done = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        )
        lines = done.stdout.splitlines()
        while lines and not lines[-1].strip():  # the rows below the prompt
            lines.pop()
        return lines

    def wait_for(self, seen: Callable[[list[str]], bool], what: str) -> list[str]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            lines = self.screen()
            if seen(lines):
                return lines
            time.sleep(0.1)
        raise AssertionError(f"no {what} on the screen:\n" + "\n".join(self.screen()))

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, text, "Enter"], check=True)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Callable[[str], Pane]]:
    opened: list[Pane] = []

    def open_pane(args: str) -> Pane:
        env = {
            "SERAI_SEATS_DIR": str(tmp_path / "seats"),
            "SERAI_DATA_DIR": str(tmp_path / "data"),
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path),
            "TERM": "xterm-256color",
        }
        opened.append(Pane(f"{shlex.quote(sys.executable)} -m serai.cli play {args}", env))
        return opened[-1]

    yield open_pane
    for each in opened:
        each.close()


def _asked(lines: list[str], question: str) -> bool:
    return bool(lines) and question in lines[-1]  # a screen read as it is redrawn may be blank


def _choosing(lines: list[str]) -> bool:
    return any(line.startswith("choose") for line in lines) and "your move" in lines[-1]


def test_a_turn_at_80_by_24_reads_by_name_and_keeps_a_half_picked_move(
    pane: Callable[[str], Pane],
) -> None:
    play = pane("jaipur --vs random --seed 5 --name ann")
    first = play.wait_for(_choosing, "choice")
    assert len(first) <= 24 and all(len(line) <= 80 for line in first)
    assert "ann (you, seat 0)" in first[0] and "your turn" in first[0]
    assert any(line.startswith("ann (you): hand") for line in first), first
    assert any(line.startswith("random-bot: hand") for line in first), first
    assert any(line.startswith("choose  (q resign)") for line in first), first

    play.type("1")  # a first step: the kind of move
    picked = play.wait_for(lambda s: any(x.startswith("choose > ") for x in s), "next step")
    path = next(line for line in picked if line.startswith("choose > "))
    play.type("")  # Enter alone: the same step, not the first one again
    play.type("m")  # one page: the same choices, not an empty list
    time.sleep(0.5)  # nothing to wait for: the screen must stay as it was
    again = play.wait_for(lambda s: path in s and "your move" in s[-1], "the same step")
    assert [x for x in again if x.strip().startswith("1. ")] == [
        x for x in picked if x.strip().startswith("1. ")
    ]
    play.type("q")
    play.wait_for(lambda s: "resign the match? (y/n)" in s[-1], "the resign question")
    play.type("y")
    over = play.wait_for(lambda s: _asked(s, "r: rematch, q: quit"), "the rematch question")
    assert len(over) <= 24 and all(len(line) <= 80 for line in over)
    assert "match over" in over[0] and any("you lose" in line for line in over), over
    first_match = over[0].split(" · ")[1]
    play.type("r")  # the bot asks too: the same two, the first seat rotated
    rematch = play.wait_for(lambda s: _choosing(s) and "(you, seat 1)" in s[0], "the rematch")
    assert rematch[0].split(" · ")[1] != first_match, rematch
    play.type("q")
    play.wait_for(lambda s: _asked(s, "resign the match? (y/n)"), "the resign question")
    play.type("y")
    play.wait_for(lambda s: _asked(s, "r: rematch, q: quit"), "the second rematch question")
    play.type("q")
    last = play.wait_for(lambda s: any(x.startswith("EXIT=") for x in s), "the end")
    said = "\n".join(last)
    assert "EXIT=0" in said and "you lose" in said, said
