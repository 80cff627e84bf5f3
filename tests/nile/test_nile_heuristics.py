"""The search's Nile judgement: plants before speculation, trades last and never in a rollout,
and every move it offers is one the rules list."""

from __future__ import annotations

import random

from nile_support import GAME, random_playout, table
from serai_nile.moves import Market, Offering, Pass, Plant, Speculate

EVALUATION = GAME.evaluation()


def test_the_biggest_plant_comes_first_and_trades_come_last():
    state = table(
        hands=[["wheat", "wheat", "wheat", "flax", "flax", "papyrus/wheat"], []],
        flood_pile=["lettuce"],
    )
    ranked = list(EVALUATION.ranked(state, 0))
    assert isinstance(ranked[0], Plant)
    assert len(ranked[0].crops) == max(len(m.crops) for m in ranked if isinstance(m, Plant))
    kinds = [isinstance(move, Market | Offering) for move in ranked]
    assert kinds == sorted(kinds), "a trade ranked above a plant, speculation or pass"


def test_trades_are_offered_only_where_few_other_moves_are():
    state = table(hands=[["wheat", "flax"], []])
    ranked = EVALUATION.ranked(state, 0)
    assert Pass() in ranked and any(isinstance(m, Market) for m in ranked)
    rich = table(hands=[["wheat"] * 4 + ["flax"] * 4, []], flood_pile=["lettuce"])
    assert not any(isinstance(m, Market | Offering) for m in EVALUATION.ranked(rich, 0))


def test_ranked_and_rollout_moves_are_legal_and_a_rollout_never_trades():
    rng = random.Random(3)
    for state, seat, _ in random_playout(2, 11, random.Random(11))[:-1:3]:
        legal = GAME.legal_moves(state, seat)
        assert set(EVALUATION.ranked(state, seat)) <= set(legal)
        move = EVALUATION.rollout_move(state, seat, rng)
        assert move in legal and not isinstance(move, Market | Offering)


def test_the_simple_bot_plants_the_most_cards_else_speculates_and_never_trades():
    simple = GAME.strategy("simple", random.Random(1))
    state = table(
        hands=[["wheat", "wheat", "wheat", "flax", "flax", "papyrus/wheat"], []],
        flood_pile=["lettuce"],
    )
    legal = GAME.legal_moves(state, 0)
    chosen = simple.choose(GAME.view(state, 0), 0, legal)
    assert isinstance(chosen, Plant) and len(chosen.crops) == 3
    bets = table(hands=[["papyrus/wheat", "lettuce/flax", "castor"], []], flood_pile=["castor"])
    chosen = simple.choose(GAME.view(bets, 0), 0, GAME.legal_moves(bets, 0))
    assert isinstance(chosen, Speculate) and len(chosen.cards) == 2
    for state, seat, _ in random_playout(2, 12, random.Random(12))[:-1:4]:
        chosen = simple.choose(GAME.view(state, seat), seat, GAME.legal_moves(state, seat))
        assert chosen in GAME.legal_moves(state, seat) and not isinstance(chosen, Market | Offering)
