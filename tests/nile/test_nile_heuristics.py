"""The search's Nile judgement: plants before speculation, takeovers first, the largest field grown
only while the plague is out, no trade ever, and every move it offers is one the rules list."""

from __future__ import annotations

import random

from nile_support import GAME, random_playout, table
from serai_client.bots.ismcts import InformationSetSearch
from serai_nile.cards import Crop
from serai_nile.heuristics import move_score
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


def test_the_search_never_trades():
    """A market is a net loss of a card and an offering of two; the search never lists them,
    even where a pass is the only other move (a traced match once had 18 market trades)."""
    poor = table(hands=[["wheat", "flax"], []], flood_pile=["wheat"], flooded=["wheat", "flax"])
    assert EVALUATION.ranked(poor, 0) == [Pass()]
    assert any(isinstance(m, Market) for m in GAME.legal_moves(poor, 0))
    search = InformationSetSearch(GAME, EVALUATION, random.Random(1), iterations=20)
    assert search.choose(GAME.view(poor, 0), 0) == Pass()
    for state, seat, _ in random_playout(2, 13, random.Random(13))[:-1:5]:
        assert not any(isinstance(m, Market | Offering) for m in EVALUATION.ranked(state, seat))


def test_a_takeover_ranks_above_the_same_plant_in_a_free_crop():
    """Taking a field away from another seat is worth its cards to both seats."""
    state = table(
        hands=[["wheat"] * 3 + ["flax"] * 3, []],
        fields=[{}, {"wheat": 2}],
        storehouses=[{"wheat": 1, "flax": 1}, {}],
    )
    assert move_score(state, 0, Plant(_crops("wheat", 3))) > move_score(
        state, 0, Plant(_crops("flax", 3))
    )


def test_growing_the_largest_field_costs_only_while_the_plague_is_in_the_deck():
    """Locusts destroy the largest fields on the table; once the plague has come out this pass
    (where it lies is public), a big field is safe until the reshuffle."""
    fields = [{"wheat": 3}, {"flax": 2}]
    hands = [["wheat"] * 3, []]
    safe = table(hands=hands, fields=fields, deck=["papyrus"] * 20, discard=["plague"])
    threatened = table(hands=hands, fields=fields, deck=["papyrus"] * 19 + ["plague"])
    grow = Plant(_crops("wheat", 3))
    assert move_score(threatened, 0, grow) < move_score(safe, 0, grow)
    assert move_score(threatened, 0, grow) < move_score(threatened, 0, Plant(_crops("wheat", 1)))


def _crops(name: str, count: int) -> tuple[Crop, ...]:
    return (Crop[name.upper()],) * count


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
