"""The terminal player, driven through its input layer against a bot on the real server."""

from __future__ import annotations

import io
import re
import threading
from typing import Any

from rich.console import Console
from serai.cli import main as serai_main
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat
from serai_client.player import ScriptedInput, TerminalPlayer

GOOD_NAMES = ("diamond", "gold", "silver", "cloth", "spice", "leather")


def opponent_panels(screen: str) -> list[str]:
    """The text of every opponent panel drawn (from its title to the panel's bottom edge)."""
    return re.findall(r"opponent · seat \d.*?╰", screen, flags=re.S)


def play_against_bot(
    service: Any, answers: list[str], seed: int | None = 4
) -> tuple[str, Any, Any]:
    client = SeraiClient(service.address)
    match = client.create_match("jaipur", seed=seed)
    person = client.join(match.match_id, player_name="person")
    bot_seat = client.join(match.match_id, player_name="bot")
    bot = threading.Thread(
        target=play_seat, args=(client, bot_seat, make_strategy("random", "jaipur", 1))
    )
    bot.start()
    output = io.StringIO()
    console = Console(file=output, width=120, color_system=None, force_terminal=False)
    inputs = ScriptedInput(answers)
    final = TerminalPlayer(client, person, inputs, console).run()
    if not final.finished:
        client.resign(person)  # lets the bot's watch end
    bot.join(30)
    client.close()
    return output.getvalue(), final, inputs


def test_a_person_plays_moves_by_number_and_sees_the_table_hand_and_log(service):
    screen, final, inputs = play_against_bot(service, ["1", "1", "1", "q", "y"])
    assert "market" in screen and "deck" in screen and "bonus left" in screen
    assert "you · seat 0" in screen and "herd" in screen
    assert "your moves" in screen and " 1. " in screen
    assert len([p for p in inputs.prompts if p.startswith("your move")]) == 4
    played = re.findall(r"you played: (.+)", screen)
    assert len(played) == 3
    for label in played:  # each move shows up in the log as the server recorded it
        assert f"seat 0: {label}" in screen
    assert re.search(r"seat 1: \w+", screen)  # and the bot's moves too
    assert "seat 0 resigned" in screen
    assert final.finished and final.outcome.winners == [1]
    assert "you lose" in screen


def test_the_opponents_hand_is_never_shown(service):
    screen, _, _ = play_against_bot(service, ["1", "2", "1", "2", "1", "q", "y"], seed=9)
    panels = opponent_panels(screen)
    assert len(panels) >= 5
    for panel in panels:
        assert "cards (hidden)" in panel
        assert not any(name in panel for name in GOOD_NAMES)


def test_an_answer_that_is_no_move_is_refused_with_help_and_asked_again(service):
    screen, final, _ = play_against_bot(service, ["x", "999", "1", "q", "y"])
    assert "'x' is not a move" in screen and "'999' is not a move" in screen
    assert len(re.findall(r"you played: ", screen)) == 1
    assert final.finished


def test_input_running_out_leaves_without_resigning(service):
    _, final, _ = play_against_bot(service, ["1"])
    assert not final.finished


def test_a_match_with_the_server_s_seed_gives_no_warning_about_it(service):
    screen, _final, _inputs = play_against_bot(service, ["1"], seed=None)
    assert "you played: " in screen
    assert "seed was chosen" not in screen


def test_two_people_play_one_match_from_two_terminals(service):
    client = SeraiClient(service.address)
    match = client.create_match("jaipur", seed=13)
    seats = [client.join(match.match_id, player_name=name) for name in ("ada", "bob")]
    scripts = [["1", "1", "1", "q", "y"], ["1"] * 6]
    screens = [io.StringIO(), io.StringIO()]
    finals: dict[int, Any] = {}

    def person(index: int) -> None:
        console = Console(file=screens[index], width=120, color_system=None)
        player = TerminalPlayer(client, seats[index], ScriptedInput(scripts[index]), console)
        finals[index] = player.run()

    threads = [threading.Thread(target=person, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    client.close()
    assert finals[0].finished and finals[1].finished
    ada, bob = screens[0].getvalue(), screens[1].getvalue()
    assert all("seed was chosen by whoever created it" in s for s in (ada, bob))  # seed=13
    assert "seat 0 resigned" in bob and "you win" in bob
    assert len(re.findall(r"you played: ", ada)) == 3
    for label in re.findall(r"you played: (.+)", bob):
        assert f"seat 1: {label}" in ada  # each sees the other's moves in the log


def test_serai_play_says_why_the_server_refused_it(service, capsys):
    code = serai_main(["play", "chess", "--server", service.address, "--vs", "random"])
    assert code == 1
    assert "no game called 'chess'" in capsys.readouterr().err
    code = serai_main(["play", "jaipur", "--server", service.address, "--match", "no-such-match"])
    assert code == 1
    assert "no-such-match" in capsys.readouterr().err
