"""Any installed serai game as a PettingZoo AEC environment, so agents train on the real rules.

The environment drives the plugin directly (no server): agents are the seats (``seat_0``,
``seat_1``, ...), and the one selected to act is the first seat the game's ``to_act`` names. A
game that names several seats at once is played one seat at a time in that order, as the AEC
model wants; after every move ``to_act`` is asked again, exactly as the server does.

Observation of ``agent`` (a dict, only ever from that seat's own view):

- ``view``: the serialized view bytes (``game.view_bytes``), byte for byte what the server sends
  that seat, as a ``uint8`` array of varying length;
- ``observation``: the game's fixed-length ``view_tensor`` as ``float32``, where the game declares
  one (``Provides.view_tensor``), absent otherwise;
- ``action_mask``: 1 for each action open to this seat now (all 0 when it is not this seat's
  turn), of the game's fixed size (:func:`~serai_client.envs.core.action_space`);
- ``choosing``: ``[first, end)``, the run of the seat's legal-move list its decision is among
  (``[0, n)`` at the start of a turn; ``[0, 0]`` when it is not this seat's turn).

An action is the index of a move in the seat's legal-move list, in the game's order (the order
the server lists them). Where a position lists more moves than the action space (Nile and Sobek
have no hand limit) the choice is made in steps, the same agent acting again until a move is
chosen (see :func:`~serai_client.envs.core.choices`); :meth:`SeraiAECEnv.play` plays a move by
its index in the full list. A game with an exact bound never needs steps, and a position
past it is refused (``ActionBoundError``): no legal move is ever left out. Rewards come at the
end only, from the ranks (:func:`~serai_client.envs.core.rank_rewards`: +1 win, -1 loss, 0
shared). ``reset(seed=s)`` plays
the match of seed ``s`` (the same deal the server gives a match created with seed ``s``); a
``reset()`` with no seed takes the seed given to the constructor, then seeds drawn from it.

Example::

    env = pettingzoo_env("jaipur", seed=7)
    env.reset()
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        mask = observation["action_mask"]
        env.step(None if terminated or truncated else int(mask.nonzero()[0][0]))
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from google.protobuf import text_format
from gymnasium import spaces
from pettingzoo import AECEnv
from serai.game import OptionValue

from serai_client.envs import core
from serai_client.types import LegalMove


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class SeraiAECEnv(AECEnv[str, dict[str, Any], int | None]):
    """One serai game as an AEC environment; see the module docstring for the spaces."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        players: int = 2,
        seed: int | None = None,
        options: Mapping[str, str | OptionValue] | None = None,
        *,
        max_actions: int | None = None,
        max_moves: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.game = core.load_game(game)
        self.game.check_players(players)
        self.match_options = dict(self.game.resolve_options(dict(options or {})))
        self.metadata = {**self.metadata, "name": f"serai_{game}_v0"}
        self.players = players
        self.space = core.action_space(self.game, max_actions)
        self.max_actions = self.space.size
        self.max_moves = max_moves
        self.render_mode = render_mode
        self.possible_agents = [agent_name(seat) for seat in range(players)]
        self._pending_seed = seed
        self._seeds = random.Random(seed if seed is not None else random.SystemRandom().random())
        probe = core.start(self.game, players, 0, self.match_options)
        self.tensor_size = core.tensor_size(self.game, players, self.match_options)
        shape: dict[str, spaces.Space[Any]] = {
            "view": spaces.Sequence(spaces.Discrete(256), stack=True),
            "action_mask": spaces.Box(0, 1, (self.max_actions,), np.int8),
            "choosing": spaces.Box(0, np.iinfo(np.int64).max, (2,), np.int64),
        }
        if self.tensor_size is not None:
            shape["observation"] = spaces.Box(-np.inf, np.inf, (self.tensor_size,), np.float32)
        self._observation_spaces = {agent: spaces.Dict(shape) for agent in self.possible_agents}
        self._action_spaces = {
            agent: spaces.Discrete(self.max_actions) for agent in self.possible_agents
        }
        self.state_value: Any = probe
        self.match_seed = 0
        self.moves_played = 0
        self._moves: list[Any] = []
        self._span: core.Span = (0, 0)
        self._options: list[core.Span] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # --- the AEC loop ----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match: of seed ``seed`` if given. ``options`` (PettingZoo's) are not match
        options, which are fixed when the environment is made; they are ignored."""
        if seed is None:
            seed, self._pending_seed = self._pending_seed, None
        if seed is None:
            seed = self._seeds.getrandbits(48)
        else:
            self._seeds = random.Random(seed)
        self.match_seed = seed
        self.state_value = core.start(self.game, self.players, seed, self.match_options)
        self.moves_played = 0
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < len(self._options):
            raise ValueError(
                f"{agent} must choose an index of its {len(self._options)} options (its legal "
                f"moves {self._span[0]} to {self._span[1] - 1}), not {action!r}"
            )
        first, end = self._options[int(action)]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {name: 0.0 for name in self.agents}
        if end - first > 1:  # a step of a choice: the same agent chooses again, among fewer
            self._span = (first, end)
            self._options = core.choices(self._span, self.space, self.game.info.name)
            self._accumulate_rewards()
            return
        seat = self._seat(agent)
        self.state_value = self.game.apply(self.state_value, seat, self._moves[first])
        self.moves_played += 1
        outcome = self.game.outcome(self.state_value)
        if outcome is not None:
            for name, reward in zip(self.possible_agents, core.rank_rewards(outcome), strict=True):
                self.rewards[name] = reward
                self.terminations[name] = True
                self.infos[name] = {"outcome": outcome.summary}
        elif self.max_moves is not None and self.moves_played >= self.max_moves:
            self.truncations = {name: True for name in self.agents}
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat(agent)
        view = self.game.view(self.state_value, seat)
        mask = np.zeros(self.max_actions, np.int8)
        choosing = np.zeros(2, np.int64)
        if agent == self.agent_selection and not (
            self.terminations.get(agent) or self.truncations.get(agent)
        ):
            mask[: len(self._options)] = 1
            choosing[:] = self._span
        observation = {
            "view": np.frombuffer(self.game.view_bytes(view), np.uint8).copy(),
            "action_mask": mask,
            "choosing": choosing,
        }
        if self.tensor_size is not None:
            observation["observation"] = np.asarray(self.game.view_tensor(view), np.float32)
        return observation

    def render(self) -> str | None:
        """The table as a spectator sees it (no hand), as text."""
        text = text_format.MessageToString(
            self.game.view_to_proto(self.game.view(self.state_value, None))
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game runs in this process."""

    # --- for policies and tests -----------------------------------------------------------------

    def policy_inputs(self, agent: str) -> tuple[Any, tuple[LegalMove, ...]]:
        """``agent``'s view message and all its legal moves, as a policy function gets them on
        the server (so ``serai bot --policy`` functions run here unchanged; see :meth:`play`)."""
        seat = self._seat(agent)
        moves = core.legal_moves(self.game, self.state_value, seat)
        return core.view_message(self.game, self.state_value, seat), moves

    def play(self, index: int) -> None:
        """Play the selected agent's legal move ``index`` (of the full list, as a policy function
        answers), in as many steps as the action space needs, from the start of its decision."""
        if self._span[0] != 0 or self._span[1] != len(self._moves):
            raise ValueError("play starts a decision; this agent is in the middle of one")
        for action in core.path_to(index, len(self._moves), self.space):
            self.step(action)

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _select(self) -> None:
        """The next agent: a finished seat still to be stepped out, else the first to act."""
        finished = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if finished:
            self.agent_selection = finished[0]
            self._moves, self._span, self._options = [], (0, 0), []
            return
        seat = self.game.to_act(self.state_value)[0]
        self.agent_selection = agent_name(seat)
        self._moves = list(self.game.legal_moves(self.state_value, seat))
        self._span = (0, len(self._moves))
        self._options = core.choices(self._span, self.space, self.game.info.name)


def pettingzoo_env(
    game: str,
    players: int = 2,
    seed: int | None = None,
    options: Mapping[str, str | OptionValue] | None = None,
    **settings: Any,
) -> SeraiAECEnv:
    """The installed game ``game`` as a PettingZoo AEC environment (see :class:`SeraiAECEnv`)."""
    return SeraiAECEnv(game, players, seed, options, **settings)
