"""serai's games as training environments: PettingZoo (AEC) and OpenSpiel, from the plugins.

Needs the ``research`` extra (``pip install -e '.[research]'``); the server does not. The pieces:

- :func:`pettingzoo_env` (:mod:`~serai_client.envs.aec`): any installed game as an AEC
  environment, seats as agents, observations from the seat's view only;
- :func:`register_openspiel_games` (:mod:`~serai_client.envs.spiel`): every installed game as an
  OpenSpiel Python game (``serai_jaipur`` and so on), so OpenSpiel's algorithms run on them;
- :mod:`~serai_client.envs.core`: the action bound per game, rank rewards and the policy shape
  shared with ``serai bot --policy``.

Example::

    from serai_client.envs import pettingzoo_env
    env = pettingzoo_env("jaipur", seed=7)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from serai_client.envs.aec import SeraiAECEnv


def pettingzoo_env(
    game: str, players: int = 2, seed: int | None = None, options: Any = None, **settings: Any
) -> SeraiAECEnv:
    """``game`` as a PettingZoo AEC environment; see :mod:`serai_client.envs.aec`."""
    from serai_client.envs.aec import pettingzoo_env as make

    return make(game, players, seed, options, **settings)


def register_openspiel_games() -> list[str]:
    """Register every installed game with OpenSpiel; the short names (``serai_jaipur``, ...)."""
    from serai_client.envs.spiel import register_games

    return register_games()


__all__ = ["pettingzoo_env", "register_openspiel_games"]
