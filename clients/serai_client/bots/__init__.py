"""Bots that join a seat and play to the end: ``random`` (any game), ``search`` (any game that
offers ``determinize``) and ``greedy`` (Jaipur). :func:`make_strategy` builds one by name;
:func:`strategies_for` says which a game offers; :func:`play_seat` plays one over gRPC
(:func:`~serai_client.bots.aio.play_seat_async` on the asyncio client).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from serai_client.bots.base import Strategy, play_seat, wait_for_turn
from serai_client.bots.random_bot import RandomStrategy

if TYPE_CHECKING:
    from serai.game import Game

GENERIC = ("random",)
"""Strategies that play any game, by move id alone."""

OWN_STRATEGIES: dict[str, tuple[str, ...]] = {"jaipur": ("greedy",)}
"""The strategies written for one game, by game name (``search`` needs only ``determinize``)."""


def _greedy(seed: int | None, **options: Any) -> Strategy:
    from serai_client.bots.greedy import GreedyStrategy

    return GreedyStrategy(seed, **options)


def _search(seed: int | None, **options: Any) -> Strategy:
    from serai_client.bots.search import SearchStrategy

    return SearchStrategy(seed, **options)


def _searchable(game: str) -> bool:
    from serai import registry

    from serai_client.bots.search import searchable

    return game in registry.load() and searchable(registry.load().get(game))


def _random(seed: int | None, **options: Any) -> Strategy:
    return RandomStrategy(seed, **options)


STRATEGIES: dict[str, Callable[..., Strategy]] = {
    "random": _random,
    "greedy": _greedy,
    "search": _search,
}


def strategies_for(game: str, plugin: Game[Any, Any, Any] | None = None) -> tuple[str, ...]:
    """The strategies that play ``game``, in :data:`STRATEGIES`' order: the generic ones, those
    written for it, and ``search`` where the game (``plugin``, else the installed one) offers
    ``determinize``. Example: ``strategies_for("jaipur")`` is ``("random", "greedy", "search")``.
    """
    offered = set(GENERIC) | set(OWN_STRATEGIES.get(game, ()))
    if plugin is not None:
        from serai_client.bots.search import searchable

        if searchable(plugin):
            offered.add("search")
    elif _searchable(game):
        offered.add("search")
    return tuple(name for name in STRATEGIES if name in offered)


def make_strategy(name: str, game: str, seed: int | None = None, **options: Any) -> Strategy:
    """The strategy called ``name`` for ``game``; ValueError if it cannot play that game."""
    if name not in STRATEGIES:
        raise ValueError(f"no bot strategy {name!r}; choose one of: {', '.join(STRATEGIES)}")
    if name == "search":
        if not _searchable(game):
            raise ValueError(f"the search bot needs determinize, which {game} does not offer")
        return STRATEGIES[name](seed, game=game, **options)
    if name not in GENERIC and name not in OWN_STRATEGIES.get(game, ()):
        own = [title.capitalize() for title, names in OWN_STRATEGIES.items() if name in names]
        raise ValueError(
            f"the {name} bot plays {', '.join(own)} only; "
            f"use {' or '.join(strategies_for(game))} for {game}"
        )
    return STRATEGIES[name](seed, **options)


__all__ = [
    "STRATEGIES",
    "Strategy",
    "make_strategy",
    "play_seat",
    "strategies_for",
    "wait_for_turn",
]
