"""The terminal player plays its seat over one Play stream where the server has Play (events,
presented snapshots and legal moves come on it, moves and the resignation go out on it), and
over GetMatch, Watch, ListLegalMoves and SubmitMove where Play is unimplemented."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from rich.console import Console
from serai.rpc.play import PlayStreams
from serai.rpc.status import Code, RpcError
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat
from serai_client.player import ConsoleInput, RecordingDisplay, ScriptedInput, TerminalPlayer
from test_client_player import assert_fits, play_against_bot


def requests_of(server: Any, match_id: str, streams: int) -> list[dict[str, Any]]:
    """The request log lines of the match, once ``streams`` Play streams have ended (a stream's
    line is written as it ends, which may be a moment after its client has seen the end)."""
    deadline = time.monotonic() + 30
    while True:
        lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
        found = [x for x in lines if x.get("event") == "request" and x.get("match_id") == match_id]
        if sum(1 for x in found if x["method"] == "Play") >= streams or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_a_terminal_match_runs_over_play(start_serve: Any, redis_url: str) -> None:
    """A real ``serai serve``: the person's seat (moves, then a resignation) and the bot's are
    played on their Play streams; the server's log has no Watch, ListLegalMoves, SubmitMove,
    Resign or GetMatch for the match, and the screens are those of the unary path."""
    server = start_serve("--redis-url", redis_url)
    client = SeraiClient(server.address)
    match = client.create_match("jaipur", seed=4)
    person = client.join(match.match_id, player_name="person")
    bot_seat = client.join(match.match_id, player_name="bot")
    bot = threading.Thread(
        target=play_seat, args=(client, bot_seat, make_strategy("random", "jaipur", 1))
    )
    bot.start()
    display = RecordingDisplay(80, 24)
    answers = ScriptedInput(["1"] * 8 + ["q", "y"])
    final = TerminalPlayer(client, person, answers, display).run()
    bot.join(30)
    client.close()
    assert final.finished and "person resigned" in display.text
    assert_fits(display)
    played = re.findall(r"you played: (.+)", display.text)
    assert len(played) >= 2
    for label in played:
        assert f"· person: {label}" in display.text
    assert "match over" in display.screens[-1][0]
    assert any(line.startswith("you lose — ") for line in display.screens[-1][-2:])
    requests = requests_of(server, match.match_id, streams=2)
    methods = {line["method"] for line in requests}
    assert "Play" in methods
    assert not methods & {"Watch", "ListLegalMoves", "SubmitMove", "Resign", "GetMatch"}, methods
    persons = [x for x in requests if x["method"] == "Play" and x.get("seat") == 0]
    assert persons and all(x["status"] == "OK" for x in persons)


def test_the_player_watches_and_submits_where_play_is_unimplemented(
    service: Any, monkeypatch: Any
) -> None:
    async def unimplemented(self: Any, requests: Any, ctx: Any) -> AsyncIterator[Any]:
        raise RpcError(Code.UNIMPLEMENTED, "no Play here")
        yield

    monkeypatch.setattr(PlayStreams, "play", unimplemented)
    display, final, _ = play_against_bot(service, ["1"] * 8 + ["q", "y"], seed=4)
    assert final.finished and "person resigned" in display.text
    assert_fits(display)
    assert len(re.findall(r"you played: (.+)", display.text)) >= 2


class _Thinking:
    """A person asked for a move who types nothing: ``ask`` waits until the question is
    withdrawn (then EOFError, as :class:`~serai_client.player.ConsoleInput` raises)."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.withdrawn = threading.Event()

    def ask(self, prompt: str) -> str:
        self.asked.set()
        if not self.withdrawn.wait(60):
            raise AssertionError("the match ended, yet the question was never withdrawn")
        raise EOFError("withdrawn")

    def withdraw(self) -> None:
        self.withdrawn.set()


def test_the_match_ending_while_the_person_is_asked_ends_the_player(service: Any) -> None:
    """The other seat resigns while the person is asked for a move: the question is withdrawn
    and the player returns the finished match, not waiting for the keyboard for ever."""
    client = SeraiClient(service.address)
    match = client.create_match("jaipur", seed=4)
    person = client.join(match.match_id, player_name="person")
    other = client.join(match.match_id, player_name="other")
    while client.get_match(other).acts(other.seat):  # the person is to act
        moves = client.legal_moves(other)
        client.submit(other, moves.moves[0].id, expected_version=moves.version)
    thinking = _Thinking()
    ran: dict[str, Any] = {}

    def play() -> None:
        try:
            ran["final"] = TerminalPlayer(client, person, thinking, RecordingDisplay()).run()
        except BaseException as error:
            ran["error"] = error

    player = threading.Thread(target=play)
    player.start()
    assert thinking.asked.wait(60)
    client.resign(other)
    player.join(90)
    client.close()
    assert not player.is_alive() and "error" not in ran, ran
    assert ran["final"].finished and ran["final"].outcome.winners == [person.seat]


def test_console_input_reads_typed_lines_and_a_withdrawn_question_raises_eof(
    monkeypatch: Any,
) -> None:
    """Lines typed ahead are answers in turn; withdrawn from another thread, the question
    waiting for the keyboard (or the next one) raises EOFError."""
    typed, typing = os.pipe()
    with os.fdopen(typed) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        inputs = ConsoleInput(Console(file=io.StringIO()))
        os.write(typing, "1\nq\r\né".encode())
        assert [inputs.ask("move?"), inputs.ask("resign?")] == ["1", "q"]
        withdrawing = threading.Thread(target=inputs.withdraw)
        withdrawing.start()
        try:
            inputs.ask("move?")  # "é" has no end of line yet: the question waits
        except EOFError:
            pass
        else:
            raise AssertionError("a withdrawn question was answered")
        withdrawing.join()
        os.close(typing)
