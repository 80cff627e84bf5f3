"""``serai check`` on every installed game: the secrecy and contract checks pass, quickly."""

from dataclasses import replace

import peek_game
import pytest
from serai import registry
from serai.checking import Settings, check_game, secrecy
from serai.cli import build_parser, main

GAMES = {
    **{name: game for name, game in registry.load().games.items() if game.info.playable},
    "peek": peek_game.PeekGame(),  # a match of a few moves: the checks adapt to short games
}
INSTALLED = sorted(GAMES)
QUICK = Settings(seeds=2, moves=40)


@pytest.mark.parametrize("name", INSTALLED)
def test_installed_game_passes(name):
    """A short run of every check, two playouts at two player counts, finds nothing."""
    report = check_game(GAMES[name], QUICK)
    assert not report.failed, report.render()
    # Every position of a playout is checked, however soon the match ends.
    assert report.playouts == QUICK.seeds and report.positions > QUICK.seeds, report.render()
    assert report.worlds > 0 or not secrecy.offers_determinize(GAMES[name]), report.render()


@pytest.mark.slow
def test_nile_fails_only_the_public_history_check():
    """Nile's only finding in a long run is the event heuristic its unkept public history trips
    (where the plague came off the deck); every contract check and every other secrecy check
    passes. (A whole five-seat match: test_installed_game_passes runs the checks on Nile in the
    default run.)"""
    report = check_game(registry.load().get("nile"), Settings(first_seed=3, seeds=1, players=5))
    failed = {name for name, tally in report.tallies.items() if tally.failures}
    assert failed <= {"secrecy.events"}, report.render()
    assert report.tallies["contract.moves"].runs > 0 and report.tallies["secrecy.legal"].runs > 0


def test_a_plant_that_the_next_flood_harvests_is_a_public_choice():
    """Nile: 'plant 1 lettuce + 1 flax' and 'plant 1 papyrus + 1 lettuce', then a flood of
    papyrus/flax harvests the new field, leave the watcher's view the same; the fields were face
    up between the two, so the labels may tell them apart (the watcher would see them apart had
    the flood been another)."""
    report = check_game(registry.load().get("nile"), Settings(seeds=1, players=2, moves=5))
    assert report.tallies["secrecy.choice"].runs > 0
    assert not report.tallies["secrecy.choice"].failures, report.render()


def test_taking_one_of_two_face_down_market_cards_is_a_public_choice():
    """Sobek: the High Priest's 'take market card 8' and 'take market card 7', both face down,
    leave the watcher's view the same; the slot is taken in sight of the table and the mover did
    not know either card, so naming it tells nothing hidden."""
    settings = Settings(first_seed=8, seeds=1, players=4, moves=56)
    report = check_game(registry.load().get("sobek"), settings)
    assert report.tallies["secrecy.choice"].runs > 0
    assert not report.tallies["secrecy.choice"].failures, report.render()


def test_sobek_with_hidden_corruption_counts_passes():
    """The option that hides the other seats' corruption counts keeps them hidden."""
    settings = Settings(seeds=2, moves=40, options={"corruption_counts": "hidden"})
    report = check_game(registry.load().get("sobek"), settings)
    assert not report.failed, report.render()


@pytest.mark.slow
@pytest.mark.parametrize("name", INSTALLED)
def test_installed_game_passes_a_longer_run(name):
    """A longer run (3 seeds of whole matches; `serai check` plays 10) fails no check. (Nile
    failed secrecy.events here until its view said who drew the plague: "the flood card is the
    plague" and "seat 4 draws the plague" left the same view, so the event told what it did
    not keep.)"""
    report = check_game(GAMES[name], Settings(seeds=3))
    assert not report.failed, report.render()


def test_every_check_ran_on_a_game_with_determinize():
    """No check of the report stays unexercised on Jaipur (a guard for the suite above): worlds
    dealt by seed almost never show a seat Jaipur's five cards, so Jaipur deals its own
    (``Game.redeal``: the other hand and the deck's bottom half shuffled), and re-dealt positions
    are compared by the hundred."""
    report = check_game(registry.load().get("jaipur"), QUICK)
    unexercised = {name for name, tally in report.tallies.items() if not tally.runs}
    assert not unexercised, report.render()
    assert report.redealt > 100, report.render()


def test_jaipur_redeal_finds_the_other_hand_shown_in_a_view():
    """A view showing the opponent's hand, which determinize copies back (so worlds sampled from
    the view never differ there), is found by the worlds Jaipur re-deals."""
    jaipur = registry.load().get("jaipur")

    class ShowsTheOtherHand(type(jaipur)):  # type: ignore[misc]
        def view(self, state, seat):
            shown = super().view(state, seat)
            if seat is None:
                return shown
            players = tuple(
                replace(player, hand=state.hands[other])
                for other, player in enumerate(shown.players)
            )
            return replace(shown, players=players)

    report = check_game(ShowsTheOtherHand(), Settings(seeds=1, moves=20))
    first = report.tallies["redeal.view"].first or ""
    assert report.tallies["redeal.view"].failures, report.render()
    assert "its view differs in players[" in first and ".hand" in first, first


def test_command_prints_the_report_and_exits_zero(capsys):
    assert main(["check", "jaipur", "--seeds", "1", "--moves", "10", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "OK" and "pass  every listed move applies" in out
    assert err == ""


def test_command_shows_progress_on_standard_error(capsys):
    assert main(["check", "nile", "--seeds", "2", "--moves", "3", "--players", "4"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[1].startswith("nile: seed 1 (2/2), 4 players, 3 moves")


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "chess"],
        ["check", "jaipur", "--option", "colour=red"],
        ["check", "jaipur", "--option", "colour"],
        ["check", "jaipur", "--players", "3"],
    ],
)
def test_command_refuses_what_it_cannot_check_with_status_2(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("serai check: ")


def test_every_flag_of_check_has_help():
    parser = build_parser()
    check = next(
        action.choices["check"] for action in parser._actions if getattr(action, "choices", None)
    )
    for action in check._actions:
        assert action.help, f"serai check {action.option_strings or action.dest} has no help"
