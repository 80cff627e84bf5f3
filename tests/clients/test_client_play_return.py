"""Leaving ``serai play`` keeps the seat: its token is kept in a file only its owner can read, the
person is told how to come back, and ``--match ID`` (``--seat N``) returns to that seat."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from serai.api import match_service_pb2 as pb
from serai_client import SeraiClient
from serai_client.kept_seats import KeptSeats
from serai_client.types import SeatHandle

WAIT = 90.0  # seconds a test waits for a line (a slow, shared machine)


class Play:
    """``serai play`` as a child process, its output read line by line."""

    def __init__(self, seats: Path, *args: str, stdin: str = "") -> None:
        env = os.environ | {"SERAI_SEATS_DIR": str(seats), "COLUMNS": "80", "LINES": "24"}
        env["PYTHONFAULTHANDLER"] = "1"  # a child stopped with SIGABRT prints where it was
        self.process = subprocess.Popen(
            [sys.executable, "-m", "serai.cli", "play", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdin is not None
        if stdin:
            self.process.stdin.write(stdin)
            self.process.stdin.flush()
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [
            threading.Thread(target=self._read, args=(stream, into), daemon=True)
            for stream, into in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, text: str, lines: list[str]) -> str:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for line in lines:
                if text in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} in\n" + "\n".join(self.out + self.err))

    def finish(self) -> int:
        """The child's exit status; a child still running after WAIT fails the test with its
        output and, from faulthandler, where each of its threads was."""
        try:
            return self.process.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(WAIT)
            for reader in self.readers:  # to the child's last line
                reader.join(WAIT)
            said = "\n".join(["stdout:", *self.out, "stderr:", *self.err])
            raise AssertionError(f"serai play did not exit within {WAIT} s\n{said}") from None
        finally:
            if self.process.poll() is None:
                self.process.kill()


def test_ctrl_c_keeps_the_seat_and_play_returns_to_it(
    start_serve: Any, redis_url: str, tmp_path: Path
) -> None:
    server = start_serve("--redis-url", redis_url)
    seats = tmp_path / "seats"
    first = Play(seats, "jaipur", "--server", server.address, "--name", "ann")
    try:
        created = first.wait_for("created match", first.out)
        match_id = created.split("created match ")[1].split(":")[0].strip()
        kept = KeptSeats(seats)
        deadline = time.monotonic() + WAIT
        while kept.find(server.address, match_id) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        first.process.send_signal(signal.SIGINT)
        assert first.finish() == 130
    finally:
        first.process.kill()
    said = "\n".join(first.err)
    assert "your seat is kept" in said, said
    assert f"--server {server.address} --match {match_id} --seat 0" in said
    (file,) = seats.iterdir()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600

    with SeraiClient(server.address) as client:
        bo = client.join(match_id, player_name="bo")  # seat 1: seat 0 is still ann's
        assert bo.seat == 1
        _move_while_seat_acts(client, bo)
    back = Play(seats, "jaipur", "--server", server.address, "--match", match_id, stdin="q\ny\nq\n")
    try:
        assert back.finish() == 0, "\n".join(back.out + back.err)
    finally:
        back.process.kill()
    assert f"back to seat 0 of match {match_id}" in "\n".join(back.err)
    assert "you lose" in "\n".join(back.out)
    assert not list(seats.iterdir())  # the match is over: nothing left to come back to


def test_a_kept_token_that_no_longer_works_is_said_and_the_seat_joined_afresh(
    start_serve: Any, redis_url: str, tmp_path: Path
) -> None:
    server = start_serve("--redis-url", redis_url)
    seats = tmp_path / "seats"
    with SeraiClient(server.address) as client:
        match_id = client.create_match("jaipur").match_id
        KeptSeats(seats).save(server.address, SeatHandle(match_id, 0, "not-the-token", "jaipur"))
        other = client.join(match_id, seat=1, player_name="bo")
        play = Play(seats, "jaipur", "--server", server.address, "--match", match_id, "--seat", "0")
        try:
            play.wait_for("no longer works", play.err)
            play.wait_for("joining afresh", play.err)
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:  # the person took seat 0: the match runs
                if client.get_match(match_id).proto.match.status != pb.MATCH_STATUS_OPEN:
                    break
                time.sleep(0.1)
            client.resign(other)
            play.wait_for("you win", play.out)  # then asked "r: rematch, q: quit"
            assert play.process.stdin is not None
            play.process.stdin.write("q\n")
            play.process.stdin.flush()
            assert play.finish() == 0, "\n".join(play.out + play.err)
        finally:
            play.process.kill()
    assert "you win" in "\n".join(play.out)


def _move_while_seat_acts(client: SeraiClient, seat: SeatHandle) -> None:
    """Play ``seat``'s first legal moves until the other seat is to act."""
    for _ in range(10):
        snapshot = client.get_match(seat)
        if not snapshot.acts(seat.seat):
            return
        moves = client.legal_moves(seat)
        client.submit(seat, moves.moves[0].id, expected_version=moves.version)
