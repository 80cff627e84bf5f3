"""A bot a game wrote for itself (``Provides.strategies``: Jaipur's ``greedy``, say), behind the
SDK's :class:`~serai_client.bots.base.Strategy`: the plugin decodes the view and the moves its
seat received, its strategy chooses among them, and the choice goes back as that legal move.

Example::

    strategy = OwnStrategy(registry.load().get(game), "greedy", seed=1)
"""

from __future__ import annotations

import random
from typing import Any

from serai.game import Game

from serai_client.bots.views import plugin_move, plugin_view
from serai_client.types import LegalMove, LegalMoves, Snapshot


class OwnStrategy:
    """The strategy ``name`` of ``game`` (one it declares), seeded by ``seed``."""

    def __init__(self, game: Game[Any, Any, Any], name: str, seed: int | None = None) -> None:
        self.name = name
        self.game = game
        self.chooser = game.strategy(name, random.Random(seed))

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        view = plugin_view(self.game, snapshot)
        offered = [plugin_move(self.game, move) for move in moves.moves]
        chosen = self.chooser.choose(view, moves.seat, offered)
        try:
            return moves.moves[offered.index(chosen)]
        except ValueError:
            raise ValueError(
                f"{self.game.info.name}'s {self.name} bot chose {chosen!r}, not a legal move"
            ) from None
