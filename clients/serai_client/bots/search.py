"""The search bot: information-set MCTS from the seat's own view, for every game that declares
``Provides.determinize``.

It sees what its seat sees and nothing more: the view comes from the snapshot the server sent,
decoded back into the plugin's view value by the plugin itself (``view_from_proto``), and the
search (:class:`~serai_client.bots.ismcts.InformationSetSearch`) plays only in worlds the
plugin's ``determinize(view, rng)`` sampled from it. The chosen move is matched to a legal move
by its typed payload.

What the search knows of a game is the game's own evaluation (``Provides.evaluation``: the
plugin's :meth:`~serai.game.Game.evaluation`); a game without one is searched with random
rollouts and judged by its outcome alone. The budget is ``iterations`` or ``time_limit``
seconds, whichever ends first; with a fixed seed and no time limit the choice is reproducible.
"""

from __future__ import annotations

import random
from typing import Any

from serai import registry
from serai.evaluation import Evaluation
from serai.game import Game

from serai_client.bots.ismcts import InformationSetSearch
from serai_client.bots.views import plugin_move, plugin_view
from serai_client.types import LegalMove, LegalMoves, Snapshot


def searchable(game: Game[Any, Any, Any]) -> bool:
    """Whether ``game`` declares ``determinize`` (with ``view_from_proto``), which the search
    needs to sample worlds from the view its seat received."""
    return game.info.provides.determinize


def evaluation_of(game: Game[Any, Any, Any]) -> Evaluation:
    """The game's own evaluation where it declares one, else the one that knows no game."""
    return game.evaluation() if game.info.provides.evaluation else Evaluation(game)


class SearchStrategy:
    """ISMCTS over the plugin contract, from the seat's view, judged by the game's evaluation."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        game: str,
        iterations: int = 150,
        time_limit: float | None = 0.5,
        exploration: float = 0.7,
    ) -> None:
        self.game: Game[Any, Any, Any] = registry.load().get(game)
        if not searchable(self.game):
            raise ValueError(f"the search bot needs determinize, which {game} does not offer")
        self.search = InformationSetSearch(
            self.game,
            evaluation_of(self.game),
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
        by_move = {plugin_move(self.game, move): move for move in moves.moves}
        return by_move[self.search.choose(plugin_view(self.game, snapshot), moves.seat)]
