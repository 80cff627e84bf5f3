"""``serai check`` on every installed game: the secrecy and contract checks pass, quickly."""

import pytest
from serai import registry
from serai.checking import Settings, check_game
from serai.cli import build_parser, main

INSTALLED = sorted(name for name, game in registry.load().games.items() if game.info.playable)
QUICK = Settings(seeds=2, moves=40)

# Nile's view leaves public history to memory (what a storehouse holds, whether the plague was
# drawn or flooded), and its determinize samples it afresh; the default run then finds events
# that tell it (secrecy.events, secrecy.choice). Not a secret leaking: a finding to decide on.
NILE_HISTORY = pytest.mark.xfail(
    strict=True, reason="Nile's announcements tell public history its view leaves out"
)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=NILE_HISTORY) if n == "nile" else n for n in INSTALLED]
)
def test_installed_game_passes(name):
    """A short run of every check, two playouts at two player counts, finds nothing."""
    report = check_game(registry.load().get(name), QUICK)
    assert not report.failed, report.render()
    assert report.positions > 40 and report.worlds > 0


def test_nile_fails_only_the_public_history_checks():
    """Nile's only findings are the two event heuristics that its unkept public history trips;
    every contract check and every other secrecy check passes."""
    report = check_game(registry.load().get("nile"), QUICK)
    failed = {name for name, tally in report.tallies.items() if tally.failures}
    assert failed <= {"secrecy.events", "secrecy.choice"}, report.render()
    assert report.tallies["contract.moves"].runs > 0 and report.tallies["secrecy.legal"].runs > 0


def test_sobek_with_hidden_corruption_counts_passes():
    """The option that hides the other seats' corruption counts keeps them hidden."""
    settings = Settings(seeds=2, moves=40, options={"corruption_counts": "hidden"})
    report = check_game(registry.load().get("sobek"), settings)
    assert not report.failed, report.render()


# What the long run finds and is known, by game: event heuristics only, each public at the table
# but not kept by the view. Nile: plants and harvests (its view leaves public history to memory).
# Sobek 1.2.0: two takes of face-down market cards read apart ("take market card 8" / "card 7")
# where the view after them is the same. Anything else fails.
KNOWN_FINDINGS = {"nile": {"secrecy.events", "secrecy.choice"}, "sobek": {"secrecy.choice"}}


@pytest.mark.slow
@pytest.mark.parametrize("name", INSTALLED)
def test_installed_game_passes_a_longer_run(name):
    """A longer run (4 seeds of whole matches; `serai check` plays 10) fails no check but the
    game's known findings above."""
    report = check_game(registry.load().get(name), Settings(seeds=4))
    failed = {check for check, tally in report.tallies.items() if tally.failures}
    assert failed <= KNOWN_FINDINGS.get(name, set()), report.render()


def test_every_check_ran_on_a_game_with_determinize():
    """No check of the report stays unexercised on Jaipur (a guard for the suite above)."""
    report = check_game(registry.load().get("jaipur"), QUICK)
    assert all(tally.runs for tally in report.tallies.values()), report.render()


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
