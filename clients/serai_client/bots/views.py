"""The seat's view and moves as the plugin's own values, from what the server sent: what a
search bot hands to ``determinize`` and what a bot written for one game reads. The plugin
decodes its own view (``view_from_proto``, declared with ``Provides.determinize`` or
``Provides.strategies``), so the SDK knows no game.

Example::

    view = plugin_view(game, client.get_match(seat))   # the plugin's view value
"""

from __future__ import annotations

from typing import Any

from serai.game import Game

from serai_client.types import LegalMove, Snapshot


def plugin_view(game: Game[Any, Any, Any], snapshot: Snapshot) -> Any:
    """The plugin view value of the snapshot's view; ValueError if there is none to decode."""
    if snapshot.view is None:
        raise ValueError("the snapshot carries no view")
    return game.view_from_proto(snapshot.view)


def plugin_move(game: Game[Any, Any, Any], move: LegalMove) -> Any:
    """The plugin's move value of a legal move's typed payload."""
    if move.payload is None:
        raise ValueError(f"legal move {move.id} ({move.label}) has no typed payload")
    return game.move_from_proto(move.payload)
