"""How a search judges a game's positions: the part of a search bot a plugin may write itself.

A plugin that declares ``Provides(evaluation=True)`` returns a subclass of :class:`Evaluation`
from :meth:`serai.game.Game.evaluation`; the search (``serai_client.bots.ismcts``) walks the
game through the contract alone and asks the evaluation which moves to try first, how a
rollout moves, where to stop looking ahead and what a position is worth. It lives beside the
contract, not in a client, so that a plugin writes one without importing a transport; like the
rules, it is pure: it sees the states the search sampled, never the clock or the global random.

Example::

    class TinyEvaluation(Evaluation):
        def value(self, start, state, seat):
            return margin_value(self.game.scores(state), seat, scale=5.0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from typing import Any


class Evaluation:
    """Knows nothing of the game: moves in the rules' order, random rollouts, and a value only
    for a finished match (its rank), a coin flip before that. Games subclass it.

    ``width`` (None: every move) is how many of a position's ranked moves enter the tree;
    ``rollout_depth`` how many moves a rollout plays (each chosen by :meth:`rollout_move`);
    ``rollout_randomness`` how often a rollout move is drawn at random among the ranked ones
    instead of taking the first.
    """

    width: int | None = None
    rollout_depth: int = 0
    rollout_randomness: float = 1.0

    def __init__(self, game: Any) -> None:
        self.game = game

    def ranked(self, state: Any, seat: int) -> Sequence[Hashable]:
        """``seat``'s legal moves in ``state``, the most promising first."""
        return self.game.legal_moves(state, seat)  # type: ignore[no-any-return]

    def rollout_move(self, state: Any, seat: int, rng: random.Random) -> Hashable:
        """The move a rollout plays for ``seat``: with chance ``rollout_randomness`` one of the
        ranked moves at random, else the first. A game may play a cheaper policy here (a
        rollout needs one move, not every move in order)."""
        ranked = self.ranked(state, seat)
        if rng.random() < self.rollout_randomness:
            return rng.choice(ranked)
        return ranked[0]

    def stops(self, start: Any, state: Any) -> bool:
        """Whether the search looks no further than ``state`` (it began at ``start``)."""
        return not self.game.to_act(state)

    def value(self, start: Any, state: Any, seat: int) -> float:
        """How good ``state`` is for ``seat``, in [0, 1] (the search began at ``start``)."""
        outcome = self.game.outcome(state)
        if outcome is None:
            return 0.5
        return rank_value(outcome.ranks, seat)


def rank_value(ranks: Sequence[int], seat: int) -> float:
    """1 for a sole first place, 0 for the last, shared places in between (by seats beaten)."""
    others = len(ranks) - 1
    if not others:
        return 1.0
    beaten = sum(1 for rank in ranks if rank > ranks[seat])
    tied = sum(1 for rank in ranks if rank == ranks[seat]) - 1
    return (beaten + 0.5 * tied) / others


def margin_value(scores: Sequence[float], seat: int, scale: float) -> float:
    """A win chance from score estimates: a logistic of the lead over the best other seat."""
    best_other = max(score for other, score in enumerate(scores) if other != seat)
    return 1.0 / (1.0 + math.exp(-(scores[seat] - best_other) / scale))
