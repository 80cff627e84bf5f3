"""Jaipur's invariants over random legal playouts from random seeds (hypothesis drives the seeds).

The plugin contract on the same kind of playouts (listed moves apply, each once, apply never
changes its input, same seed and moves give the same bytes, states round-trip) is checked for
every game by the shared harness (tests/check/test_check_games.py, `serai check`)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jaipur_builders import total_cards
from jaipur_playouts import game, playout
from serai.game import IllegalMove
from serai_jaipur import Exchange, Sell, TakeCamels, TakeGood
from serai_jaipur.cards import HAND_LIMIT, MARKET_SIZE, SEALS_TO_WIN, Good

seeds = st.integers(min_value=-(2**63), max_value=2**63 - 1)
choices = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=250)
@given(seed=seeds, choice=choices)
def test_random_matches_keep_cards_market_and_hands_in_bounds_and_end_with_a_winner(seed, choice):
    _check_random_match(seed, choice)


@pytest.mark.slow
@settings(max_examples=2500)
@given(seed=seeds, choice=choices)
def test_thousands_of_random_matches_keep_every_bound_and_end_with_a_winner(seed, choice):
    """The default run's property over ten times the matches."""
    _check_random_match(seed, choice)


def _check_random_match(seed: int, choice: int) -> None:
    state = None
    for state, move in playout(seed, choice):
        assert total_cards(state) == 55
        assert sum(state.market) == MARKET_SIZE, "the market has 5 cards while a round runs"
        assert all(sum(hand) <= HAND_LIMIT for hand in state.hands)
        assert move in game.legal_moves(state, state.turn)
    final = game.apply(state, state.turn, move)
    assert final.over and total_cards(final) == 55
    assert max(final.seals) == SEALS_TO_WIN and min(final.seals) < SEALS_TO_WIN
    outcome = game.outcome(final)
    assert outcome.scores[outcome.winners[0]] == SEALS_TO_WIN
    decided = [r for r in final.results if r.winner is not None]
    assert len(decided) <= 3, "three rounds at most"
    assert [r.round for r in decided] == list(range(1, len(decided) + 1))


def _conceivable_moves(rng):
    """Every take and sale a client could send, and a sample of conceivable exchanges."""
    moves = [TakeGood(good) for good in Good]
    moves += [TakeCamels(count) for count in range(12)]
    moves += [Sell(good, count) for good in Good for count in range(9)]
    for _ in range(40):
        take = rng.choices(list(Good), k=rng.randint(1, 5))
        give = rng.choices(list(Good), k=rng.randint(1, 5))
        moves.append(Exchange(tuple(take), tuple(give)))
    return moves


@settings(max_examples=60)
@given(seed=seeds, choice=choices, every=st.integers(min_value=5, max_value=15))
def test_every_conceivable_unlisted_move_is_refused(seed, choice, every):
    """Takes, sales and exchanges a client could send, beyond the listed moves, are refused with
    a reason. (That listed moves apply, are listed once, leave their input alone and replay and
    round-trip alike is the shared harness's job: tests/check, `serai check`.)"""
    rng = random.Random(choice)
    for step, (state, _) in enumerate(playout(seed, choice)):
        if step % every:
            continue
        legal = game.legal_moves(state, state.turn)
        for move in _conceivable_moves(rng):
            if move in legal:
                continue
            try:
                game.apply(state, state.turn, move)
            except IllegalMove as err:
                assert str(err)
            else:
                raise AssertionError(f"unlisted move {move} was accepted")
