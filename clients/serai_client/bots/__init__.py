"""Bots that join a seat and play to the end: ``random`` (any game), ``search`` (any game that
offers ``determinize``) and ``greedy`` (Jaipur). :func:`make_strategy` builds one by name;
:func:`play_seat` plays it over gRPC.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serai_client.bots.base import Strategy, play_seat, wait_for_turn
from serai_client.bots.random_bot import RandomStrategy

GENERIC = ("random",)
"""Strategies that play any game, by move id alone."""


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


def make_strategy(name: str, game: str, seed: int | None = None, **options: Any) -> Strategy:
    """The strategy called ``name`` for ``game``; ValueError if it cannot play that game."""
    if name not in STRATEGIES:
        raise ValueError(f"no bot strategy {name!r}; choose one of: {', '.join(STRATEGIES)}")
    if name == "search":
        if not _searchable(game):
            raise ValueError(f"the search bot needs determinize, which {game} does not offer")
        return STRATEGIES[name](seed, game=game, **options)
    if name not in GENERIC and game != "jaipur":
        raise ValueError(f"the {name} bot plays Jaipur only; use random or search for {game}")
    return STRATEGIES[name](seed, **options)


__all__ = ["STRATEGIES", "Strategy", "make_strategy", "play_seat", "wait_for_turn"]
