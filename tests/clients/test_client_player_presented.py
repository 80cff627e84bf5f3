"""The terminal player draws games other than Jaipur from the server's presentation: named
crops and cards, no protobuf text, within 80 columns."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat
from serai_client.player import RecordingDisplay, ScriptedInput, TerminalPlayer


@pytest.mark.parametrize("game", ["nile", "sobek"])
def test_a_game_is_drawn_from_its_presentation_within_80_columns(service: Any, game: str) -> None:
    client = SeraiClient(service.address)
    match = client.create_match(game, seed=5)
    person = client.join(match.match_id, player_name="person")
    bot_seat = client.join(match.match_id, player_name="bot")
    bot = threading.Thread(
        target=play_seat, args=(client, bot_seat, make_strategy("random", game, 1))
    )
    bot.start()
    display = RecordingDisplay(80, 24)
    TerminalPlayer(client, person, ScriptedInput(["1", "1", "1", "q", "y"]), display).run()
    bot.join(30)
    client.close()
    screen = display.text
    assert "you)" in screen and "deck" in screen
    assert "{" not in screen and "CROP_" not in screen and "face_down" not in screen
    assert max(len(line) for line in screen.splitlines()) <= 80
