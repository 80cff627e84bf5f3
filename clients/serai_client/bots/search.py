"""The search bot: information-set Monte Carlo tree search over sampled worlds, for Jaipur.

It sees what its seat sees and nothing more: the view comes from the snapshot the server sent
(decoded by :func:`~serai_client.jaipur_view.view_from_proto`), and every iteration plays in a
world the plugin's ``determinize(view, rng)`` sampled — the opponent's hand, the deck order and
unrevealed bonus values drawn at random among those the view allows.

One iteration (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012):

1. sample a world consistent with the view;
2. walk down the tree by UCB among the moves legal *in that world* (counting how often each
   was available), expanding the first untried one;
3. play a short rollout (``rollout_depth`` moves, mostly the greedy move) — Python is slow, so
   rollouts are truncated and the position is judged by a heuristic
   (:func:`~serai_client.bots.jaipur_heuristics.position_value`) instead of played out;
4. back the value up the path, each node scored for the seat that moved into it.

Only the ``width`` most promising moves of a position (by the greedy score) enter the tree,
which keeps the branching of exchanges in check. The budget is ``iterations`` or ``time_limit``
seconds, whichever ends first; with a fixed seed and no time limit the choice is reproducible.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from functools import lru_cache

from serai_jaipur import JaipurGame, rules
from serai_jaipur.moves import Move
from serai_jaipur.state import Counts, State
from serai_jaipur.views import JaipurView

from serai_client.bots.greedy import jaipur_view, plugin_move
from serai_client.bots.jaipur_heuristics import bonus_means, move_value, position_value
from serai_client.jaipur_view import view_from_proto
from serai_client.types import LegalMove, LegalMoves, Snapshot


@dataclass(eq=False)
class _Node:
    visits: int = 0
    reward: float = 0.0  # for the seat that played the move into this node
    available: int = 0
    children: dict[Move, _Node] = field(default_factory=dict)


class SearchStrategy:
    """ISMCTS for Jaipur over the plugin's determinize, with truncated heuristic rollouts."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int = 150,
        time_limit: float | None = 0.5,
        rollout_depth: int = 4,
        width: int = 8,
        exploration: float = 0.7,
        rollout_randomness: float = 0.25,
    ) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.time_limit = time_limit
        self.rollout_depth = rollout_depth
        self.width = width
        self.exploration = exploration
        self.rollout_randomness = rollout_randomness
        self.game = JaipurGame()
        self.last_iterations = 0

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        if len(moves.moves) == 1:
            return moves.moves[0]
        view = view_from_proto(jaipur_view(snapshot))
        by_move = {plugin_move(move): move for move in moves.moves}
        return by_move[self.search(view, moves.seat)]

    # --- the search ------------------------------------------------------------------------------

    def search(self, view: JaipurView, seat: int) -> Move:
        """The move to play from ``view`` for ``seat`` (who must be to act in it)."""
        root = _Node()
        seals = tuple(player.seals for player in view.players)
        results = len(view.results)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while done < self.iterations:
            if deadline is not None and done and time.perf_counter() > deadline:
                break
            world = self.game.determinize(view, self.rng)
            self._iterate(root, world, seat, seals, results)
            done += 1
        self.last_iterations = done
        best = max(root.children.items(), key=lambda item: (item[1].visits, item[1].reward))
        return best[0]

    def _iterate(
        self, root: _Node, state: State, seat: int, seals: tuple[int, ...], results: int
    ) -> None:
        game = self.game
        path: list[tuple[_Node, int]] = []  # (node, seat that moved into it)
        node = root
        while state.turn is not None and len(state.results) == results:
            mover = state.turn
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
        state = self._rollout(state, results)
        value = position_value(state, seat, seals)
        for visited, mover in path:
            visited.visits += 1
            visited.reward += value if mover == seat else 1.0 - value
        root.visits += 1

    def _candidates(self, state: State, mover: int) -> list[Move]:
        """The ``width`` best moves of ``mover`` by the greedy score, best first."""
        return [move for _, move in self._scored(state, mover)[: self.width]]

    def _scored(self, state: State, mover: int) -> tuple[tuple[float, Move], ...]:
        return ranked_moves(
            state.market,
            state.hands[mover],
            state.herds[mover],
            state.herds[1 - mover],
            state.stacks,
            tuple(len(stack) for stack in state.bonus),
        )

    def _select(self, node: _Node, candidates: list[Move]) -> Move:
        best, best_score = candidates[0], -math.inf
        for move in candidates:
            child = node.children[move]
            score = child.reward / child.visits + self.exploration * math.sqrt(
                math.log(max(child.available, 1)) / child.visits
            )
            if score > best_score:
                best, best_score = move, score
        return best

    def _rollout(self, state: State, results: int) -> State:
        for _ in range(self.rollout_depth):
            if state.turn is None or len(state.results) != results:
                break
            mover = state.turn
            scored = self._scored(state, mover)
            if self.rng.random() < self.rollout_randomness:
                move = self.rng.choice(scored)[1]
            else:
                move = scored[0][1]
            state = self.game.apply(state, mover, move)
        return state


@lru_cache(maxsize=1 << 16)
def ranked_moves(
    market: Counts,
    hand: Counts,
    herd: int,
    other_herd: int,
    stacks: Counts,
    bonus_left: Counts,
) -> tuple[tuple[float, Move], ...]:
    """Every legal move of a position with its greedy score, best first (ties in rules order).

    Keyed by exactly what a Jaipur turn's legality and the score depend on, so that the many
    positions a search revisits are scored once.
    """
    bonus = bonus_means(bonus_left)
    scored = [
        (
            move_value(
                move,
                hand=hand,
                herd=herd,
                other_herd=other_herd,
                market=market,
                stacks=stacks,
                bonus=bonus,
            ),
            move,
        )
        for move in rules.moves_for(market, hand, herd)
    ]
    scored.sort(key=lambda item: item[0], reverse=True)
    return tuple(scored)
