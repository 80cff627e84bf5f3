"""The rematch the terminal player offers when a match ends (what ``serai play`` runs): asked
on the finished match's screen, r takes it and q (or the end of input) does not; the person who
asked first waits in the rematch, told the others have to ask too, until they do; a console
input withdrawn at the match's end is reopened for the question."""

from __future__ import annotations

import io
import os
import sys
import threading
from typing import Any

from rich.console import Console
from serai_client import SeraiClient
from serai_client.player import (
    REMATCH_QUESTION,
    REMATCH_WAIT,
    ConsoleInput,
    RecordingDisplay,
    ScriptedInput,
    TerminalPlayer,
)
from waiting import wait_until


def test_r_takes_the_rematch_q_or_no_more_input_does_not(service: Any) -> None:
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur")
        ann = client.join(match.match_id, player_name="ann")
        bo = client.join(match.match_id, player_name="bo")
        client.resign(bo)
        final = client.get_match(ann, presentation=True)
        for answers, wanted in ((["x", "r"], True), (["q"], False), ([], False)):
            inputs, display = ScriptedInput(answers), RecordingDisplay()
            player = TerminalPlayer(client, ann, inputs, display)
            assert player.wants_rematch(final) is wanted
            assert inputs.prompts[0] == REMATCH_QUESTION
            assert "you win" in display.text
            assert ("'x' is not an answer" in display.text) == ("x" in answers)


class Thinking:
    """A person who never answers: a question waits until withdrawn (the match is over)."""

    def __init__(self) -> None:
        self.withdrawn = threading.Event()

    def ask(self, prompt: str) -> str:
        if not self.withdrawn.wait(60):
            raise AssertionError("the match ended, yet the question was never withdrawn")
        raise EOFError("withdrawn")

    def withdraw(self) -> None:
        self.withdrawn.set()

    def reopen(self) -> None:
        self.withdrawn.clear()


def test_the_first_to_ask_waits_in_the_rematch_until_the_other_asks(service: Any) -> None:
    """Ann asks first: the rematch is open, her screen says the others have to ask too; bo asks
    (seats rotated: bo now seat 0) and resigns it (whoever's turn it is): ann's player ends, a
    winner."""
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur")
        ann = client.join(match.match_id, player_name="ann")
        bo = client.join(match.match_id, player_name="bo")
        client.resign(ann)
        again = client.rematch(ann)
        assert again.seat == 1 and again.match_id != match.match_id
        display = RecordingDisplay()
        player = TerminalPlayer(client, again, Thinking(), display, rematch=True)
        ran: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: ran.update(final=player.run()))
        thread.start()
        wait_until(lambda: REMATCH_WAIT in display.text, "the rematch's waiting line")
        bo_again = client.rematch(bo)
        assert (bo_again.match_id, bo_again.seat) == (again.match_id, 0)
        client.resign(bo_again)
        thread.join(60)
        assert not thread.is_alive()
        assert ran["final"].finished and ran["final"].outcome.winners == [1]


def test_a_console_input_withdrawn_at_the_match_s_end_is_reopened(monkeypatch: Any) -> None:
    typed, typing = os.pipe()
    with os.fdopen(typed) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        inputs = ConsoleInput(Console(file=io.StringIO()))
        inputs.withdraw()
        inputs.withdraw()  # twice: both wake-ups are drained
        try:
            inputs.ask("move?")
        except EOFError:
            pass
        else:
            raise AssertionError("a withdrawn question was answered")
        inputs.reopen()
        os.write(typing, b"r\n")
        assert inputs.ask(REMATCH_QUESTION) == "r"
        os.close(typing)
