"""The terminal player, driven through its input layer against bots on the real server, at 80x24:
every game drawn from its presentation, moves picked a step at a time, every screen fitting."""

from __future__ import annotations

import io
import re
import threading
from typing import Any

import pytest
from serai import registry
from serai.cli import main as serai_main
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat
from serai_client.player import RecordingDisplay, ScriptedInput, TerminalPlayer
from serai_jaipur import JaipurGame
from serai_jaipur.rules import first_player

GAMES = ("jaipur", "nile", "sobek")
JAIPUR_GOODS = ("diamond", "gold", "silver", "cloth", "spice", "leather")


def play_against_bot(
    service: Any,
    answers: list[str],
    *,
    game: str = "jaipur",
    seed: int | None = 4,
    seats: int = 2,
    width: int = 80,
    height: int = 24,
) -> tuple[RecordingDisplay, Any, ScriptedInput]:
    """Seat 0 played from ``answers``, every other seat by a random bot."""
    client = SeraiClient(service.address)
    match = client.create_match(game, seats=seats, seed=seed)
    person = client.join(match.match_id, player_name="person")
    bots = []
    for i in range(seats - 1):
        bot_seat = client.join(match.match_id, player_name=f"bot{i}")
        strategy = make_strategy("random", game, i + 1)
        bots.append(threading.Thread(target=play_seat, args=(client, bot_seat, strategy)))
    for bot in bots:
        bot.start()
    display = RecordingDisplay(width, height)
    inputs = ScriptedInput(answers)
    final = TerminalPlayer(client, person, inputs, display).run()
    if not final.finished:
        client.resign(person)  # lets the bots' watches end
    for bot in bots:
        bot.join(30)
    client.close()
    return display, final, inputs


def assert_fits(display: RecordingDisplay, width: int = 80, height: int = 24) -> None:
    """Every screen leaves the last line for the prompt, and no line is wider than the terminal."""
    assert display.screens
    for screen in display.screens:
        assert len(screen) <= height - 1, "\n".join(screen)
        assert max(len(line) for line in screen) <= width, "\n".join(screen)


@pytest.mark.parametrize("game", GAMES)
def test_every_screen_of_every_game_fits_80_by_24(service: Any, game: str) -> None:
    """Many moves in: the screens with the most zones, the longest hands and lists still fit."""
    display, final, _ = play_against_bot(service, ["1"] * 40 + ["q", "y"], game=game)
    assert_fits(display)
    assert final.finished
    text = display.text
    assert "{" not in text and "CROP_" not in text and "face_down" not in text
    assert "person (you, seat 0)" in display.screens[0][0]
    assert any("your turn" in screen[0] for screen in display.screens)
    # players by name: a seat's number only beside your own name and in who joined where
    named = re.sub(r"\(you, seat 0\)|joined as seat \d", "", text)
    found = re.search(r"\b[Ss]eats? \d", named)
    assert not found, named[found.start() - 200 : found.end() + 50]
    last = display.screens[-1]
    assert "match over" in last[0]
    assert any(re.match(r"(you win|you lose|nobody wins) — ", line) for line in last[-2:])


@pytest.mark.parametrize("game", ["nile", "sobek"])
def test_a_table_of_three_fits_too(service: Any, game: str) -> None:
    display, _final, _ = play_against_bot(service, ["1"] * 20 + ["q", "y"], game=game, seats=3)
    assert_fits(display)
    assert any(line.startswith("bot1") for line in display.screens[0])  # seat 2's zone


def test_a_move_is_picked_a_step_at_a_time_and_b_goes_back(service: Any) -> None:
    """Jaipur's first choice is the kind of move; a sale then asks which good and how many."""
    display, _final, inputs = play_against_bot(service, ["1", "b", "b", "q", "n"], seed=4)
    first, second, third, fourth = display.screens[:4]
    assert any(line.startswith("choose  (") for line in first)
    kinds = [line for line in first if re.match(r"\s*\d+\. ", line)]
    assert kinds, "\n".join(first)
    step = re.search(r"1\. (\S[^ ]*(?: [^ ]+)*?)(?:  |$)", kinds[0])
    assert step is not None
    assert any(line.startswith(f"choose > {step[1]}") for line in second), "\n".join(second)
    assert any(line.startswith("choose  (") for line in third)  # b: back to the first step
    assert "nothing to go back to" in fourth[-1]
    assert inputs.prompts[-2] == "resign the match? (y/n)"  # n: back to the choices


def test_the_last_moves_whose_turn_and_who_is_thinking(service: Any) -> None:
    display, _final, _ = play_against_bot(service, ["1"] * 8 + ["q", "y"], seed=4)
    text = display.text
    played = re.findall(r"you played: (.+)", text)
    assert len(played) >= 2
    for label in played:  # each move shows up in the log as the server recorded it
        assert f"· person: {label}" in text
    assert re.search(r"· bot0: \w+", text)  # and the bot's moves too, by name
    assert any("your turn" in screen[0] for screen in display.screens)


def test_the_header_says_who_is_thinking(service: Any) -> None:
    client = SeraiClient(service.address)
    match = client.create_match("jaipur", seed=3)
    seats = [client.join(match.match_id, player_name=name) for name in ("ada", "bob")]
    acting = client.get_match(seats[0]).to_act[0]
    waiting = seats[1 - acting]
    player = TerminalPlayer(client, waiting, ScriptedInput([]), RecordingDisplay())
    header = player.header(client.get_match(waiting))
    name = ("ada", "bob")[acting]
    mine = ("ada", "bob")[waiting.seat]
    assert f"{mine} (you, seat {waiting.seat}) · {name} is thinking…" in header
    assert len(header) <= 80
    client.close()


def test_the_opponents_hand_is_never_shown(service: Any) -> None:
    """The opponent's hand line of every screen is a count: never a good's name."""
    display, _, _ = play_against_bot(service, ["1"] * 12 + ["q", "y"], seed=9)
    hands = [line for s in display.screens for line in s if line.startswith("bot0: hand")]
    assert len(hands) == len(display.screens)
    for line in hands:
        assert re.fullmatch(r"bot0: hand\s+\d+ cards? \(hidden\)", line), line


def test_an_answer_that_is_no_choice_is_refused_with_help_and_asked_again(service: Any) -> None:
    display, final, _ = play_against_bot(service, ["x", "999", "q", "y"])
    text = display.text
    assert "'x' is not on the list" in text and "'999' is not on the list" in text
    assert final.finished


def test_input_running_out_leaves_without_resigning(service: Any) -> None:
    _, final, _ = play_against_bot(service, ["1", "1"])
    assert not final.finished


def test_a_match_with_the_server_s_seed_gives_no_warning_about_it(service: Any) -> None:
    display, _final, _inputs = play_against_bot(service, ["1", "1"], seed=None)
    assert "you played: " in display.text
    assert "seed was chosen" not in display.text


def test_the_seat_shows_while_waiting_for_an_opponent(service: Any) -> None:
    """The match is open, nobody else has joined: the header already says which seat is yours."""
    client = SeraiClient(service.address)
    # seat 0 starts, so the person's script (resign) ends the match once "late" has joined; were
    # "late" to start, nobody would move for it and the player would wait for ever
    seed = next(seed for seed in range(100) if first_player(seed) == 0)
    match = client.create_match("jaipur", seed=seed)
    person = client.join(match.match_id, player_name="person")
    display = RecordingDisplay()
    player = TerminalPlayer(client, person, ScriptedInput(["q", "y"]), display)
    thread = threading.Thread(target=player.run)
    thread.start()
    try:
        for _ in range(200):
            if display.screens:
                break
            threading.Event().wait(0.05)
        header = display.screens[0][0]
        assert "person (you, seat 0)" in header and "waiting for an opponent to join" in header
        # no placeholder deal: the hand would change once "late" joins and the match starts
        assert "dealt once every seat is taken" in display.screens[0][1]
        assert not any(": hand" in line for line in display.screens[0]), display.screens[0]
        assert "person joined as seat 0" in "\n".join(display.screens[0])
    finally:
        client.join(match.match_id, player_name="late")  # lets the player go on, then resign
        thread.join(30)
        client.close()
    assert not thread.is_alive()


def test_two_people_play_one_match_from_two_terminals(service: Any) -> None:
    client = SeraiClient(service.address)
    match = client.create_match("jaipur", seed=13)
    seats = [client.join(match.match_id, player_name=name) for name in ("ada", "bob")]
    scripts = [["1"] * 6 + ["q", "y"], ["1"] * 12]
    displays = [RecordingDisplay(), RecordingDisplay()]
    finals: dict[int, Any] = {}

    def person(index: int) -> None:
        player = TerminalPlayer(
            client, seats[index], ScriptedInput(scripts[index]), displays[index]
        )
        finals[index] = player.run()

    threads = [threading.Thread(target=person, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    client.close()
    assert finals[0].finished and finals[1].finished
    ada, bob = displays[0].text, displays[1].text
    assert all("seed was chosen by whoever created it" in s for s in (ada, bob))  # seed=13
    assert "ada resigned" in bob and "you win" in bob
    for label in re.findall(r"you played: (.+)", bob):
        assert f"bob: {label}" in ada  # each sees the other's moves in the log


class PlainJaipur(JaipurGame):
    """Jaipur as a game that describes neither its views nor its moves' steps."""

    def present(self, view: Any) -> None:
        return None

    def move_steps(self, move: Any) -> tuple[str, ...]:
        return ()


def test_a_game_without_a_presentation_of_its_own_is_drawn_as_a_table(start_service: Any) -> None:
    """The generic fallback: the server's table of the view's fields, still within 80x24."""
    installed = registry.load()
    games = registry.Registry({**installed.games, "jaipur": PlainJaipur()}, installed.broken)
    server = start_service(registry=games)
    display, final, _ = play_against_bot(server, ["1"] * 6 + ["q", "y"], seed=1)
    assert_fits(display)
    assert final.finished
    assert "{" not in display.text and "type_url" not in display.text
    assert any(line.startswith("market ") for line in display.screens[0])


def test_serai_play_says_why_the_server_refused_it(service: Any, capsys: Any) -> None:
    code = serai_main(["play", "chess", "--server", service.address, "--vs", "random"])
    assert code == 1
    err = capsys.readouterr().err
    assert "no game called 'chess'" in err and "see `serai games`" in err
    assert "NotFoundError" not in err and "ListGames" not in err
    code = serai_main(["play", "jaipur", "--server", service.address, "--match", "no-such-match"])
    assert code == 1
    err = capsys.readouterr().err
    assert "no-such-match" in err and "CreateMatch" not in err


def _play_command(args: list[str], monkeypatch: Any, capsys: Any) -> tuple[int, str, str]:
    """``serai play ARGS`` answered "q", "y" (resign at once); its exit status, out and err."""
    monkeypatch.setattr("sys.stdin", io.StringIO("q\ny\n"))
    code = serai_main(["play", *args])
    said = capsys.readouterr()
    return code, said.out, said.err


def test_serai_play_takes_a_seat_count_and_game_options(
    service: Any, monkeypatch: Any, capsys: Any
) -> None:
    args = ["nile", "--server", service.address, "--vs", "random", "--seats", "3"]
    code, out, _ = _play_command([*args, "--option", "deluxor=true"], monkeypatch, capsys)
    assert code == 0 and "you lose" in out
    with SeraiClient(service.address) as client:
        (match,) = client.list_matches(game="nile")
    assert len(match.seats) == 3 and dict(match.options)["deluxor"] == "true"
    assert [seat.player_name for seat in match.seats] == ["you", "random-bot", "random-bot"]


def test_no_seed_warning_for_the_seed_you_chose_yourself(
    service: Any, monkeypatch: Any, capsys: Any
) -> None:
    args = ["jaipur", "--server", service.address, "--vs", "random", "--seed", "5"]
    code, out, _ = _play_command(args, monkeypatch, capsys)
    assert code == 0 and "you lose" in out
    assert "seed was chosen" not in out


def test_a_bad_option_is_said_in_words(service: Any, monkeypatch: Any, capsys: Any) -> None:
    code, _, err = _play_command(["nile", "--vs", "random", "--option", "x"], monkeypatch, capsys)
    assert code == 2 and "--option takes KEY=VALUE, not 'x'" in err


def test_the_vs_help_says_which_games_each_bot_plays(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        serai_main(["play", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "random plays any game" in said and "greedy plays Jaipur" in said
    assert "search plays any game that can deal the unseen cards (Jaipur, Nile, Sobek)" in said


def test_enter_alone_redraws_and_keeps_the_steps_picked(service: Any) -> None:
    display, _final, _ = play_against_bot(service, ["1", "", "r", "q", "y"], seed=4)
    picked = [s for s in display.screens if any(line.startswith("choose > ") for line in s)]
    assert len(picked) >= 3, display.text  # after "1", after Enter, after r: still mid-move


def test_m_on_a_single_page_keeps_the_choices(service: Any) -> None:
    display, _final, _ = play_against_bot(service, ["m", "q", "y"], seed=4)
    first, after_m = display.screens[0], display.screens[1]
    numbered = [line for line in first if re.match(r"\s*1\. ", line)]
    assert numbered and numbered == [line for line in after_m if re.match(r"\s*1\. ", line)]
