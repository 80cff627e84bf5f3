"""Information-set Monte Carlo tree search over the plugin contract, for any game with
``determinize``: the engine behind the ``search`` bot, judged by the game's own
:class:`~serai.evaluation.Evaluation` where it declares one.

It sees what its seat sees and nothing more: it is handed the seat's view, and every iteration
plays in a world the plugin's ``determinize(view, rng)`` sampled — the other hands, the deck
order and anything else hidden drawn at random among those the view allows. It moves through
those worlds with the contract alone (``to_act``, ``legal_moves``, ``apply``, ``outcome``).

One iteration (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012):

1. sample a world consistent with the view;
2. walk down the tree by UCB among the moves legal *in that world* (counting how often each
   was available), expanding the first untried one;
3. play a short rollout (``rollout_depth`` moves by the evaluation's ``rollout_move``) —
   Python is slow, so rollouts are truncated and the position is judged by the evaluation
   instead of played out;
4. back the value up the path, each node scored for the seat that moved into it.

The evaluation decides which moves enter the tree (its ``ranked`` moves, the first ``width``),
how a rollout moves, where the search stops looking ahead (``stops``: the end of the match, or
of a round) and what a position is worth (``value``, in [0, 1] for a seat). The budget
is ``iterations``, or ``time_limit`` seconds, whichever ends first; with a fixed seed and no
time limit the choice is reproducible.

Example::

    game = registry.load().get(name)
    search = InformationSetSearch(game, game.evaluation(), random.Random(1), iterations=200)
    move = search.choose(game.view(state, seat), seat)   # only the seat's view goes in
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from serai.evaluation import Evaluation
from serai.game import Game


@dataclass(eq=False)
class _Node:
    visits: int = 0
    reward: float = 0.0  # for the seat that played the move into this node
    available: int = 0
    children: dict[Hashable, _Node] = field(default_factory=dict)


class InformationSetSearch:
    """Single-observer ISMCTS over ``game``'s contract, judged by ``evaluation``."""

    def __init__(
        self,
        game: Game[Any, Any, Any],
        evaluation: Evaluation,
        rng: random.Random,
        *,
        iterations: int = 150,
        time_limit: float | None = None,
        exploration: float = 0.7,
    ) -> None:
        self.game = game
        self.evaluation = evaluation
        self.rng = rng
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.last_iterations = 0

    def choose(self, view: Any, seat: int) -> Hashable:
        """The move to play from ``view`` for ``seat`` (who must be to act in it)."""
        root = _Node()
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while done < self.iterations:
            if deadline is not None and done and time.perf_counter() > deadline:
                break
            world = self.game.determinize(view, self.rng)
            self._iterate(root, world, seat)
            done += 1
        self.last_iterations = done
        if not root.children:
            raise ValueError(f"seat {seat} has no move to search from this view")
        best = max(root.children.items(), key=lambda item: (item[1].visits, item[1].reward))
        return best[0]

    def _iterate(self, root: _Node, start: Any, seat: int) -> None:
        game, evaluation = self.game, self.evaluation
        path: list[tuple[_Node, int]] = []  # (node, seat that moved into it)
        node = root
        state = start
        while not evaluation.stops(start, state):
            mover = game.to_act(state)[0]
            candidates = self._candidates(state, mover)
            for move in candidates:
                child = node.children.get(move)
                if child is not None:
                    child.available += 1
            untried = [move for move in candidates if move not in node.children]
            if untried:
                move = untried[0]
                child = _Node(available=1)
                node.children[move] = child
                state = game.apply(state, mover, move)
                path.append((child, mover))
                break
            move = self._select(node, candidates)
            state = game.apply(state, mover, move)
            node = node.children[move]
            path.append((node, mover))
        state = self._rollout(start, state)
        value = evaluation.value(start, state, seat)
        for visited, mover in path:
            visited.visits += 1
            visited.reward += value if mover == seat else 1.0 - value
        root.visits += 1

    def _candidates(self, state: Any, mover: int) -> Sequence[Hashable]:
        ranked = self.evaluation.ranked(state, mover)
        width = self.evaluation.width
        return ranked if width is None else ranked[:width]

    def _select(self, node: _Node, candidates: Sequence[Hashable]) -> Hashable:
        best, best_score = candidates[0], -math.inf
        for move in candidates:
            child = node.children[move]
            score = child.reward / child.visits + self.exploration * math.sqrt(
                math.log(max(child.available, 1)) / child.visits
            )
            if score > best_score:
                best, best_score = move, score
        return best

    def _rollout(self, start: Any, state: Any) -> Any:
        game, evaluation = self.game, self.evaluation
        for _ in range(evaluation.rollout_depth):
            if evaluation.stops(start, state):
                break
            mover = game.to_act(state)[0]
            state = game.apply(state, mover, evaluation.rollout_move(state, mover, self.rng))
        return state
