"""Bots that join a seat and play to the end: ``random`` (any game), ``search`` (any game that
declares ``determinize``) and the bots a game wrote for itself (the names its
``GameInfo.provides.strategies`` declares). :func:`make_strategy` builds one by name;
:func:`strategies_for` says which a game offers; :func:`play_seat` plays one over gRPC
(:func:`~serai_client.bots.aio.play_seat_async` on the asyncio client). Nothing here names a
game: what a game offers is what its plugin declares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from serai_client.bots.base import Strategy, play_seat, wait_for_turn
from serai_client.bots.random_bot import RandomStrategy

if TYPE_CHECKING:
    from serai.game import Game

GENERIC = ("random",)
"""Strategies that play any game, by move id alone."""

SEARCH = "search"
"""The strategy that plays any game declaring ``determinize``."""


def _installed(game: str) -> Game[Any, Any, Any] | None:
    from serai import registry

    games = registry.load()
    return games.get(game) if game in games else None


def strategy_names() -> tuple[str, ...]:
    """Every strategy some installed game offers: the generic ones, those the games wrote for
    themselves (by name), and ``search``."""
    from serai import registry

    own = {
        name for game in registry.load().games.values() for name in game.info.provides.strategies
    }
    return (*GENERIC, *sorted(own - set(GENERIC) - {SEARCH}), SEARCH)


def _owners(strategy: str) -> list[str]:
    from serai import registry

    games = registry.load().games.values()
    return [game.info.title for game in games if strategy in game.info.provides.strategies]


def strategies_for(game: str, plugin: Game[Any, Any, Any] | None = None) -> tuple[str, ...]:
    """The strategies that play ``game`` (``plugin``, else the installed one): the generic
    ones, those it declares it wrote, and ``search`` where it declares ``determinize``.
    A game not installed gets the generic ones. Example: a game declaring
    ``Provides(determinize=True, strategies=("greedy",))`` offers
    ``("random", "greedy", "search")``."""
    plugin = plugin if plugin is not None else _installed(game)
    if plugin is None:
        return GENERIC
    provides = plugin.info.provides
    own = tuple(name for name in provides.strategies if name not in GENERIC and name != SEARCH)
    return (*GENERIC, *own, *((SEARCH,) if provides.determinize else ()))


def make_strategy(name: str, game: str, seed: int | None = None, **options: Any) -> Strategy:
    """The strategy called ``name`` for ``game``; ValueError if it cannot play that game.
    ``options`` tune the search (``iterations``, ``time_limit``, ``exploration``)."""
    if name in GENERIC:
        return RandomStrategy(seed, **options)
    plugin = _installed(game)
    offered = strategies_for(game, plugin)
    if plugin is None or name not in offered:
        known = strategy_names()
        if name not in known:
            raise ValueError(f"no bot strategy {name!r}; choose one of: {', '.join(known)}")
        if name == SEARCH:
            raise ValueError(f"the search bot needs determinize, which {game} does not offer")
        raise ValueError(
            f"the {name} bot plays {', '.join(_owners(name))} only; "
            f"use {' or '.join(offered)} for {game}"
        )
    if name == SEARCH:
        from serai_client.bots.search import SearchStrategy

        return SearchStrategy(seed, game=game, **options)
    from serai_client.bots.own import OwnStrategy

    return OwnStrategy(plugin, name, seed)


__all__ = [
    "Strategy",
    "make_strategy",
    "play_seat",
    "strategies_for",
    "strategy_names",
    "wait_for_turn",
]
