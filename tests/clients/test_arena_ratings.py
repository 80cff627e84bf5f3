"""The arena's statistics: Bradley-Terry fits and their intervals, on made-up results."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from serai_client.arena import MatchResult, ratings
from serai_client.elo import ELO_PER_NEPER, bradley_terry, elo_from_score


def _results(a: str, b: str, matches: int, a_wins: int) -> list[MatchResult]:
    """``matches`` games of a against b, seats alternating; a wins the first ``a_wins``."""
    played = []
    for index in range(matches):
        a_seat = index % 2
        winner = a_seat if index < a_wins else 1 - a_seat
        scores = (1, 0) if winner == 0 else (0, 1)
        played.append(MatchResult(a, b, a_seat, index, f"m{index}", scores, (winner,), 10))
    return played


def test_a_clean_sweep_rates_the_winner_inside_its_interval_not_at_its_edge():
    for matches in (2, 4, 20):
        table = ratings(_results("random", "greedy", matches, 0), ["random", "greedy"], seed=1)
        winner = table[0]
        assert winner.bot == "greedy"
        # The sweep fixes a lower bound, not an upper one: more games could show it stronger.
        assert winner.low < winner.elo < winner.high - 100, (matches, winner)


def test_an_even_record_has_an_interval_around_zero():
    table = {rating.bot: rating for rating in ratings(_results("a", "b", 20, 10), ["a", "b"], 1)}
    assert table["b"].low < -50 and table["b"].high > 50
    assert abs(table["b"].elo) < 1e-6
    assert (table["a"].low, table["a"].elo, table["a"].high) == (0, 0, 0)  # the anchor


def test_two_bots_are_rated_by_their_odds():
    for points, games in [(3.0, 4), (1.0, 4), (10.5, 20), (19.0, 20)]:
        fit = bradley_terry({("a", "b"): (points, games)}, ["a", "b"], virtual_draws=0)
        assert math.isclose(fit["b"], -elo_from_score(points / games), abs_tol=1e-6)
        shrunk = bradley_terry({("a", "b"): (points, games)}, ["a", "b"])  # one virtual draw
        assert math.isclose(
            shrunk["b"], -elo_from_score((points + 0.5) / (games + 1)), abs_tol=1e-6
        )


def test_a_sweep_stays_finite_with_a_virtual_draw():
    fit = bradley_terry({("a", "b"): (0.0, 20)}, ["a", "b"])
    assert math.isclose(fit["b"], elo_from_score(20.5 / 21), abs_tol=1e-6)


def test_a_bot_with_no_games_stays_at_the_anchor_without_virtual_draws():
    totals = {("a", "b"): (3.0, 4), ("a", "c"): (0.0, 0), ("b", "c"): (0.0, 0)}
    fit = bradley_terry(totals, ["a", "b", "c"], virtual_draws=0)
    assert fit["c"] == 0.0
    assert math.isclose(fit["b"], -elo_from_score(0.75), abs_tol=1e-6)


share = st.floats(min_value=1e-6, max_value=1 - 1e-6)


@given(
    st.lists(st.tuples(share, st.integers(1, 30)), min_size=3, max_size=10),
    st.sampled_from([0.0, 1.0]),
)
def test_the_fit_expects_each_bot_to_score_what_it_scored(pairings, virtual_draws):
    """The likelihood's maximum: every bot's expected points equal its points, even one-sided."""
    bots = ["a", "b", "c", "d", "e"][: 2 + len(pairings) // 3]
    pairs = [(x, y) for i, x in enumerate(bots) for y in bots[i + 1 :]]
    totals = {
        pair: (rate * games, games) for pair, (rate, games) in zip(pairs, pairings, strict=False)
    }
    fit = bradley_terry(totals, bots, virtual_draws=virtual_draws)
    strength = {bot: fit[bot] / ELO_PER_NEPER for bot in bots}
    for bot in bots:
        surplus = 0.0  # points scored less points expected, over the bot's pairings
        for (x, y), (points, games) in totals.items():
            if bot in (x, y):
                scored = points + virtual_draws / 2
                expected = (games + virtual_draws) / (1 + math.exp(strength[y] - strength[x]))
                surplus += (scored - expected) if bot == x else (expected - scored)
        assert abs(surplus) < 1e-6, (bot, surplus, totals)
