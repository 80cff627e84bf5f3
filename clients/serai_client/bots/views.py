"""The seat's view as the plugin's own value, from the snapshot the server sent: what a search
bot hands to ``determinize``. One decoder per game, each the inverse of its ``view_to_proto``.

Example::

    view = plugin_view(client.get_match(seat))   # a JaipurView, NileView or SobekView
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serai_client.types import Snapshot


def _jaipur(message: Any) -> Any:
    from serai_client.jaipur_view import view_from_proto

    return view_from_proto(message)


def _nile(message: Any) -> Any:
    from serai_client.bots.nile_view import view_from_proto

    return view_from_proto(message)


def _sobek(message: Any) -> Any:
    from serai_client.bots.sobek_view import view_from_proto

    return view_from_proto(message)


DECODERS: dict[str, Callable[[Any], Any]] = {"jaipur": _jaipur, "nile": _nile, "sobek": _sobek}


def plugin_view(snapshot: Snapshot) -> Any:
    """The plugin view value of the snapshot's view; ValueError for a game with no decoder."""
    decoder = DECODERS.get(snapshot.game)
    if decoder is None:
        raise ValueError(f"no view decoder for {snapshot.game!r}: the search bot cannot read it")
    if snapshot.view is None:
        raise ValueError("the snapshot carries no view")
    return decoder(snapshot.view)
