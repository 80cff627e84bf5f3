"""The search's Sobek judgement: moves best first by their score, a card reached past another
costs a corruption card, and every move it offers is one the rules list."""

from __future__ import annotations

import random
from dataclasses import replace

from serai import registry
from serai_sobek.heuristics import CORRUPTION, move_score
from serai_sobek.moves import Take

GAME = registry.load().get("sobek")
EVALUATION = GAME.evaluation()


def _positions(seed: int, every: int = 5):
    rng = random.Random(seed)
    state = GAME.setup(2, seed, GAME.resolve_options({}))
    step = 0
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        if step % every == 0:
            yield state, seat
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        step += 1


def test_ranked_moves_are_the_legal_ones_best_first():
    for state, seat in _positions(4):
        legal = GAME.legal_moves(state, seat)
        ranked = EVALUATION.ranked(state, seat)
        assert sorted(map(repr, ranked)) == sorted(map(repr, legal))
        scores = [move_score(state, seat, move) for move in ranked]
        assert scores == sorted(scores, reverse=True)


def test_reaching_past_a_card_costs_a_corruption_card():
    state, seat = next(_positions(7))
    first, second, *rest = state.row
    swapped = replace(state, row=(second, first, *rest))
    near = move_score(state, seat, Take(0))
    far = move_score(swapped, seat, Take(1))
    assert far == near - CORRUPTION


def test_the_simple_bot_lays_the_biggest_set_else_takes_the_first_card():
    from serai_sobek.moves import PlaySet

    simple = GAME.strategy("simple", random.Random(1))
    for state, seat in _positions(6, every=3):
        legal = GAME.legal_moves(state, seat)
        chosen = simple.choose(GAME.view(state, seat), seat, legal)
        assert chosen in legal
        sets = [move for move in legal if isinstance(move, PlaySet)]
        if sets:
            assert isinstance(chosen, PlaySet)
            assert len(chosen.cards) == max(len(move.cards) for move in sets)
        elif Take(0) in legal:
            assert chosen == Take(0)
