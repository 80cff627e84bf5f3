"""``serai check`` at its defaults on a small peek/compare game: it passes the clean game and
catches each of six planted leaks, whatever the game's determinize does."""

import functools
from dataclasses import replace

import peek_game
import pytest
from google.protobuf import struct_pb2
from serai.checking import Report, Settings, check_game
from serai.game import Game

# The check each leak must fail, and the words naming the field in its finding.
CAUGHT_BY = {
    "public_log": ("redeal.view", "its view differs in log["),
    "private_logs": ("redeal.view", "its view differs in learned["),
    "known_field": ("redeal.view", "its view differs in known["),
    "label": ("redeal.events", "the label: the move reads"),
    "error": ("redeal.errors", "the error text: submitting"),
    "private_text": ("redeal.events", "the announcements: the move reads"),
}
REDEAL_CHECKS = ["redeal.view", "redeal.turn", "redeal.legal", "redeal.events", "redeal.errors"]


class WithoutDeterminize(peek_game.PeekGame):
    """The game as a plugin offering no determinize: the re-deal checks need none."""

    info = replace(
        peek_game.PeekGame.info,
        provides=replace(peek_game.PeekGame.info.provides, determinize=False),
    )
    determinize = Game.determinize  # type: ignore[assignment]


@functools.cache
def checked(kind: type[peek_game.PeekGame], *leaks: str) -> Report:
    """``serai check``'s default run, once per game and leaks for the whole module."""
    return check_game(kind(leaks=frozenset(leaks)), Settings())


def failures(report: Report) -> dict[str, str]:
    return {name: tally.first or "" for name, tally in report.tallies.items() if tally.failures}


def test_the_clean_game_passes_every_check_at_the_defaults():
    report = checked(peek_game.PeekGame)
    assert not report.failed, report.render()
    assert report.redealt > 0, report.render()
    assert all(report.tallies[name].runs for name in REDEAL_CHECKS), report.render()


@pytest.mark.parametrize("leak", sorted(CAUGHT_BY))
def test_each_leak_is_caught_at_the_defaults(leak):
    """The game's determinize copies whatever its view shows, the worst case for worlds
    sampled from the view."""
    assert CAUGHT_BY[leak][0] in failures(checked(peek_game.PeekGame, leak))


@pytest.mark.parametrize("leak", sorted(CAUGHT_BY))
def test_the_finding_names_the_game_seat_position_and_field(leak):
    check, field = CAUGHT_BY[leak]
    first = failures(checked(peek_game.PeekGame, leak))[check]
    assert first.startswith("peek, seed "), first
    assert " players, after " in first and " moves, as " in first, first
    assert " sees it" in first and field in first, first


def test_a_field_determinize_copies_back_is_found_only_by_the_redeal():
    """Worlds sampled from the view keep the wrongly shown field, so it looks known."""
    assert set(failures(checked(peek_game.PeekGame, "known_field"))) == {"redeal.view"}


def test_the_clean_game_passes_without_determinize():
    report = checked(WithoutDeterminize)
    assert not report.failed, report.render()
    assert all(report.tallies[name].runs for name in REDEAL_CHECKS), report.render()


@pytest.mark.slow
@pytest.mark.parametrize("leak", sorted(CAUGHT_BY))
def test_each_leak_is_caught_without_determinize(leak):
    assert CAUGHT_BY[leak][0] in failures(checked(WithoutDeterminize, leak))


def test_a_game_without_observation_has_its_view_unchecked_and_a_note():
    """Without a declared observation the view stands in for it: a leak inside the view goes
    unseen, and the report says so; one in an error text is still found."""

    class Undeclared(peek_game.PeekGame):
        info = replace(
            peek_game.PeekGame.info,
            provides=replace(peek_game.PeekGame.info.provides, observation=False),
        )
        observation = Game.observation  # type: ignore[assignment]

    report = check_game(Undeclared(leaks=frozenset({"error"})), Settings(seeds=4))
    assert report.tallies["redeal.view"].status == "skip"
    assert "redeal.errors" in failures(report), report.render()
    assert "a leak inside the view cannot be found" in report.render()


def test_a_view_of_the_wrong_message_type_is_named_as_such():
    """A view_to_proto giving another message than view_message is a contract.view finding
    that says so, whatever else it breaks downstream."""

    class WrongViewMessage(peek_game.PeekGame):
        def view_to_proto(self, view):
            return struct_pb2.ListValue(values=[struct_pb2.Value(number_value=len(view.log))])

    report = check_game(WrongViewMessage(), Settings(seeds=1))
    first = failures(report)["contract.view"]
    assert first.startswith("peek, seed 0, 2 players, after 0 moves, as seat 0 sees it: "), first
    cause = (
        "view_to_proto gave seat 0 a google.protobuf.ListValue, not the game's view_message "
        "google.protobuf.Struct"
    )
    assert cause in first, first


class UnderstatesItsBound(peek_game.PeekGame):
    """The game declaring fewer legal moves than its positions list: the training environments
    would cut moves, so the check refuses the bound."""

    info = replace(peek_game.PeekGame.info, max_legal_moves=1)


def test_a_position_listing_more_moves_than_max_legal_moves_fails_the_contract():
    report = check_game(UnderstatesItsBound(), Settings(seeds=2, redeals=0))
    tally = report.tallies["contract.moves"]
    assert tally.failures and "more than the declared max_legal_moves 1" in (tally.first or "")
    assert not checked(peek_game.PeekGame).tallies["contract.moves"].failures


def test_what_a_seat_was_told_privately_counts_as_observed():
    """The Watcher's note in its view is explained by the private announcement that told it:
    without that announcement (and with no reveal in its observation) the same view leaks."""

    class Untold(peek_game.PeekGame):
        def announcements(self, before, after):
            return [a for a in super().announcements(before, after) if isinstance(a, str)]

    report = check_game(Untold(), Settings(seeds=4))
    assert "its view differs in known[" in failures(report).get("redeal.view", ""), report.render()
