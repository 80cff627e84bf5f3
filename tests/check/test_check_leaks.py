"""``serai check`` catches each deliberately leaky plugin, and names the check it fails."""

import leaky_games
import pytest
from serai import registry
from serai.checking import Settings, check_game
from serai.cli import main

QUICK = Settings(seeds=1, moves=40)


def failed_checks(game) -> list[str]:
    report = check_game(game, QUICK)
    return [name for name, tally in report.tallies.items() if tally.failures]


def test_label_naming_a_hidden_card_is_caught():
    """Sobek PickCards labels that name the cards picked face down tell every watcher."""
    assert failed_checks(leaky_games.LabelNamesPickedCards()) == ["secrecy.choice"]


def test_announcement_naming_a_hidden_card_is_caught():
    """By worlds determinize samples and by worlds Jaipur re-deals alike."""
    assert failed_checks(leaky_games.AnnouncementNamesHand()) == ["secrecy.events", "redeal.events"]


def test_presentation_naming_a_hidden_card_is_caught():
    """A presentation that reads a state kept aside, not its view bytes, names the deck's next
    card: worlds a seat cannot tell apart present differently, and the same bytes present
    differently once the game has viewed another state."""
    assert failed_checks(leaky_games.PresentationNamesNextCard()) == [
        "contract.present",
        "secrecy.presentation",
    ]


def test_steps_naming_a_hidden_card_is_caught():
    """Steps of a take that name the card refilling the market tell the seat the deck."""
    assert failed_checks(leaky_games.StepsNameNextCard()) == ["contract.present", "secrecy.steps"]


def test_the_presentation_counterexample_shows_the_differing_lines():
    report = check_game(leaky_games.PresentationNamesNextCard(), QUICK)
    first = report.tallies["secrecy.presentation"].first
    assert first is not None and "cannot tell these worlds apart" in first
    assert 'value: "' in first and "next card" in first


def test_determinize_returning_the_true_state_is_caught():
    assert failed_checks(leaky_games.DeterminizeReturnsTruth()) == ["determinize.varies"]


def test_view_leaking_a_hand_to_spectators_is_caught():
    """Seat 1 cannot tell worlds apart whose spectator views differ: the spectator sees more;
    and the spectator's view differs in worlds re-dealt where its observations agree."""
    assert failed_checks(leaky_games.SpectatorSeesSeatZero()) == [
        "secrecy.spectator",
        "redeal.view",
    ]


def test_error_text_naming_a_hidden_card_is_caught():
    assert failed_checks(leaky_games.ErrorNamesNextCard()) == ["secrecy.errors"]


def test_a_game_without_determinize_gets_the_contract_checks_and_a_note():
    report = check_game(leaky_games.WithoutDeterminize(), QUICK)
    assert not report.failed
    skipped = {name for name, tally in report.tallies.items() if tally.skipped}
    assert skipped == {
        name for name in report.tallies if name.startswith(("determinize.", "secrecy."))
    }
    assert "offers no determinize(view, rng)" in report.render()


def test_the_counterexample_says_where_and_what(capsys):
    report = check_game(leaky_games.AnnouncementNamesHand(), QUICK)
    first = report.tallies["secrecy.events"].first
    assert first is not None and first.startswith("jaipur, seed 0, 2 players, after ")
    assert "keeps" in first and "the true world reads" in first


def test_command_exits_one_on_a_leaky_plugin_registered_in_process(monkeypatch, capsys):
    leaky = registry.Registry(games={"leaky": leaky_games.ErrorNamesNextCard()})
    monkeypatch.setattr(registry, "load", lambda: leaky)
    assert main(["check", "leaky", "--seeds", "1", "--moves", "5", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  probe moves get the same answer" in out and out.endswith("FAILED\n")


@pytest.mark.parametrize(
    "game", [leaky_games.SpectatorSeesSeatZero(), leaky_games.WithoutDeterminize()]
)
def test_leaky_plugins_keep_the_contract(game):
    """The slips are secrecy slips only: the contract checks still pass on them."""
    report = check_game(game, QUICK)
    assert not any(t.failures for n, t in report.tallies.items() if n.startswith("contract."))


def test_a_broken_contract_is_caught_too():
    """A move listed twice fails the contract, not the secrecy checks."""
    assert failed_checks(leaky_games.ListsAMoveTwice()) == ["contract.moves"]
