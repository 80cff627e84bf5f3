"""Finds game plugins through the entry-point group ``serai.games``.

A game is added by installing a package that declares, in its pyproject.toml::

    [project.entry-points."serai.games"]
    mygame = "my_package:MyGame"

The entry point names a :class:`serai.game.Game` subclass (or a ready instance). A plugin that
fails to import or to construct is reported with its name and error; the others still load.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from serai.game import Game

GROUP = "serai.games"


@dataclass(frozen=True)
class BrokenPlugin:
    """An entry point that could not be loaded, and why."""

    name: str
    target: str
    error: str


@dataclass(frozen=True)
class Registry:
    """The games that loaded, by name, and the plugins that did not."""

    games: Mapping[str, Game[Any, Any, Any]] = field(default_factory=dict)
    broken: tuple[BrokenPlugin, ...] = ()

    def get(self, name: str) -> Game[Any, Any, Any]:
        """The game called ``name``; KeyError with the known names otherwise."""
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none"
            raise KeyError(f"no game called {name!r}; installed games: {known}") from None

    def __contains__(self, name: object) -> bool:
        return name in self.games


def load(points: Iterable[EntryPoint] | None = None) -> Registry:
    """Load every plugin of the ``serai.games`` group (or the given entry points)."""
    games: dict[str, Game[Any, Any, Any]] = {}
    broken: list[BrokenPlugin] = []
    for point in sorted(points if points is not None else entry_points(group=GROUP), key=_name):
        try:
            game = _instantiate(point.load())
            if game.info.name != point.name:
                raise ValueError(
                    f"entry point {point.name!r} names a game whose info.name is {game.info.name!r}"
                )
        except Exception as error:  # a broken plugin must not take the others down
            broken.append(BrokenPlugin(point.name, point.value, f"{type(error).__name__}: {error}"))
            continue
        games[point.name] = game
    return Registry(games=games, broken=tuple(broken))


def _name(point: EntryPoint) -> str:
    return point.name


def _instantiate(target: object) -> Game[Any, Any, Any]:
    game = target() if isinstance(target, type) else target
    if not isinstance(game, Game):
        raise TypeError(f"{target!r} is not a serai.game.Game")
    return game
