"""The search bot: information-set MCTS from the seat's own view, for every game with
``determinize``.

It sees what its seat sees and nothing more: the view comes from the snapshot the server sent,
decoded back into the plugin's view value (:mod:`serai_client.bots.views`), and the search
(:class:`~serai_client.bots.ismcts.InformationSetSearch`) plays only in worlds the plugin's
``determinize(view, rng)`` sampled from it. The chosen move is matched to a legal move by its
typed payload.

What the search knows of a game is its evaluation: Jaipur keeps its tuned heuristics
(:class:`~serai_client.bots.jaipur_heuristics.JaipurEvaluation`), Nile and Sobek judge the score
so far and what is in hand; a game with ``determinize`` but no evaluation of its own is searched
with random rollouts and judged by its outcome alone. The budget is ``iterations`` or
``time_limit`` seconds, whichever ends first; with a fixed seed and no time limit the choice is
reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from serai import registry
from serai.game import Game

from serai_client.bots.ismcts import Evaluation, InformationSetSearch
from serai_client.bots.views import plugin_view
from serai_client.types import LegalMove, LegalMoves, Snapshot


def _jaipur(game: Game[Any, Any, Any]) -> Evaluation:
    from serai_client.bots.jaipur_heuristics import JaipurEvaluation

    return JaipurEvaluation(game)


def _nile(game: Game[Any, Any, Any]) -> Evaluation:
    from serai_client.bots.nile_heuristics import NileEvaluation

    return NileEvaluation(game)


def _sobek(game: Game[Any, Any, Any]) -> Evaluation:
    from serai_client.bots.sobek_heuristics import SobekEvaluation

    return SobekEvaluation(game)


EVALUATIONS: dict[str, Callable[[Game[Any, Any, Any]], Evaluation]] = {
    "jaipur": _jaipur,
    "nile": _nile,
    "sobek": _sobek,
}
"""Each game's own evaluation; any other game gets :class:`Evaluation` (random rollouts)."""


def searchable(game: Game[Any, Any, Any]) -> bool:
    """Whether ``game`` offers ``determinize``, which the search needs to sample worlds."""
    return type(game).determinize is not Game.determinize


class SearchStrategy:
    """ISMCTS over the plugin contract, from the seat's view, judged by the game's evaluation."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        game: str = "jaipur",
        iterations: int = 150,
        time_limit: float | None = 0.5,
        exploration: float = 0.7,
    ) -> None:
        self.game: Game[Any, Any, Any] = registry.load().get(game)
        if not searchable(self.game):
            raise ValueError(f"the search bot needs determinize, which {game} does not offer")
        evaluation = EVALUATIONS.get(game, Evaluation)(self.game)
        self.search = InformationSetSearch(
            self.game,
            evaluation,
            random.Random(seed),
            iterations=iterations,
            time_limit=time_limit,
            exploration=exploration,
        )

    @property
    def last_iterations(self) -> int:
        """How many iterations the last search ran (fewer than the budget on a time limit)."""
        return self.search.last_iterations

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        if len(moves.moves) == 1:
            return moves.moves[0]
        by_move = {self._plugin_move(move): move for move in moves.moves}
        return by_move[self.search.choose(plugin_view(snapshot), moves.seat)]

    def _plugin_move(self, move: LegalMove) -> Any:
        if move.payload is None:
            raise ValueError(f"legal move {move.id} ({move.label}) has no typed payload")
        return self.game.move_from_proto(move.payload)
