"""Sobek judgement for the search bot: the score so far plus what the round and the hand hold.

A seat's standing is its place on the scoring track, the points its sets and event tokens have
made this round, and a share of the scarabs in its hand (cards that may still make a set, and
that go to corruption if they do not), less a cost per corruption card (the most corrupt seat
moves back at the end of the round). The margin over the best other seat becomes a win chance.
"""

from __future__ import annotations

from typing import Any

from serai.evaluation import Evaluation, margin_value, rank_value

from .cards import scarabs
from .rules import round_points
from .state import SobekState

HAND = 1.0  # points per scarab in hand
CORRUPTION = 1.5  # points lost per card in the corruption pile
SCALE = 8.0  # the point margin for which a position is judged ~73% won


def standing(state: SobekState, seat: int) -> float:
    """``seat``'s expected points: track, this round's sets and tokens, hand, corruption."""
    me = state.seats[seat]
    return me.score + round_points(me) + HAND * scarabs(me.hand) - CORRUPTION * len(me.corruption)


class SobekEvaluation(Evaluation):
    """Every legal move enters the tree, and the points judge where it leads (no rollout)."""

    def value(self, start: Any, state: SobekState, seat: int) -> float:
        outcome = self.game.outcome(state)
        if outcome is not None:
            return rank_value(outcome.ranks, seat)
        scores = [standing(state, other) for other in range(state.players)]
        return margin_value(scores, seat, SCALE)
