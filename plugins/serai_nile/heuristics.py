"""Nile judgement for the search bot: how far each seat's storehouse is from a winning profile.

Nile is won by the largest smallest storehouse pile (then the next smallest, and so on), so a
seat's standing is its piles sorted smallest first, each weighted half the one before: growing
the smallest pile counts most. Cards still on the way count too, for less: a field card is
harvested at a flood of its crop unless locusts or a larger rival field take it, a crop card in
hand still has to be planted. The margin over the best other seat becomes a win chance.
"""

from __future__ import annotations

from typing import Any

from serai.evaluation import Evaluation, margin_value, rank_value

from .state import NileState

FIELD = 0.6  # a card in a field, as a share of a card in the storehouse
HAND = 0.25  # a crop card in hand
DECAY = 0.5  # each pile, smallest first, weighs this much of the one before
SCALE = 0.8  # the margin (in weighted cards) for which a position is judged ~73% won


def standing(state: NileState, seat: int) -> float:
    """``seat``'s profile as one number: its expected piles, smallest first, decaying weights."""
    piles = [
        state.storehouses[seat][crop] + FIELD * state.fields[seat][crop] for crop in state.crops
    ]
    crops = {crop: index for index, crop in enumerate(state.crops)}
    for card in state.hands[seat]:
        if card.is_crop and card.crops[0] in crops:
            piles[crops[card.crops[0]]] += HAND
    piles.sort()
    return sum(pile * DECAY**index for index, pile in enumerate(piles))


class NileEvaluation(Evaluation):
    """Every legal move enters the tree, and the piles judge where it leads (no rollout)."""

    def value(self, start: Any, state: NileState, seat: int) -> float:
        outcome = self.game.outcome(state)
        if outcome is not None:
            return rank_value(outcome.ranks, seat)
        scores = [standing(state, other) for other in range(state.players)]
        return margin_value(scores, seat, SCALE)
