"""Every installed serai game as an OpenSpiel Python game, so OpenSpiel's algorithms run on it.

:func:`register_games` registers ``serai_<name>`` for each game (``pyspiel.load_game(
"serai_jaipur")``). The model, in OpenSpiel's terms:

- **Sequential, imperfect information, zero-sum, terminal rewards** (the ranks, as in
  :func:`~serai_client.envs.core.rank_rewards`). A game that names several seats to act at once
  is played one seat at a time, the first named first, as the server allows.
- **Explicit chance, once**: a serai match is fixed by its seed (every later shuffle is drawn
  from it), so the first node is a chance node choosing the seed uniformly among ``deals`` (a
  parameter, default 65,536): a uniform sample of deals, not every deal there is. Chance
  outcome ``s`` is the match of seed ``s``, the one a server gives a match created with seed
  ``s``.
- **Actions** are indices into the seat's legal-move list (the server's order), in the game's
  action space (:func:`~serai_client.envs.core.action_space`). Where a position lists more moves
  than that (Nile, Sobek: no hand limit), the seat chooses in steps, acting again at a node of
  the same position until a move is chosen (:func:`~serai_client.envs.core.choices`); a game
  with an exact bound refuses a position past it. No legal move is ever left out.
- **Observation string**: the seat's view bytes (hex), exactly what the server sends it now; the
  observation tensor is the game's ``view_tensor`` where it declares one.
  **Information-state string**: a SHA-256 chain over the seat's view bytes after every move and
  its own actions — perfect recall, equal exactly when the seat saw the same views and chose the
  same, and short whatever the length of the match. Neither holds anything the view does not.
- ``resample_from_infostate`` uses the game's ``determinize`` (where it declares one): a world
  consistent with the seat's view, for ISMCTS.

:func:`ismcts` is a policy function (see ``serai bot --policy``) playing any game that declares
``determinize`` with OpenSpiel's own ISMCTS bot from the seat's view alone, e.g.
``serai arena --bots greedy --policy ismcts=serai_client.envs.spiel:ismcts``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel
from google.protobuf import text_format
from google.protobuf.message import Message
from serai import registry

from serai_client.envs import core
from serai_client.types import LegalMove

DEFAULT_DEALS = 1 << 16
MAX_GAME_LENGTH = 5000
"""OpenSpiel wants a bound on a match's length: a cap with room (card games run to hundreds)."""


@dataclass(eq=False)
class _Node:
    """One position and how it was reached; shared between clones (copying it would copy the
    whole history), so it is never changed after it is made, but for the memo of digests."""

    state: Any
    parent: _Node | None = None
    actor: int | None = None
    action: int | None = None
    digests: dict[int, bytes] = field(default_factory=dict)
    span: core.Span | None = None  # mid-choice: the run of legal moves still open (see core)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        return self


def _digest(game: core.AnyGame, node: _Node, player: int) -> bytes:
    """The information-state chain of ``player`` at ``node`` (see the module docstring)."""
    path = []
    walk: _Node | None = node
    while walk is not None and player not in walk.digests:
        path.append(walk)
        walk = walk.parent
    digest = walk.digests[player] if walk is not None else b""
    for step in reversed(path):
        chain = hashlib.sha256(digest)
        if step.actor == player:
            chain.update(f"action {step.action};".encode())
        chain.update(game.view_bytes(game.view(step.state, player)))
        digest = step.digests[player] = chain.digest()
    return digest


class _Shared:
    """Holds the game for its states: OpenSpiel clones a Python state by deep-copying each of its
    attributes, and the game must stay the one game."""

    def __init__(self, game: SeraiSpielGame) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class SeraiSpielState(pyspiel.State):  # type: ignore[misc]
    """A serai match inside OpenSpiel: the chance node of the seed, then the plugin's states."""

    def __init__(self, game: SeraiSpielGame) -> None:
        super().__init__(game)
        self._shared = _Shared(game)
        self._node: _Node | None = None

    @property
    def _spiel_game(self) -> SeraiSpielGame:
        return self._shared.game

    # --- the rules ------------------------------------------------------------------------------

    def current_player(self) -> int:
        if self._node is None:
            return int(pyspiel.PlayerId.CHANCE)
        plugin = self._spiel_game.plugin
        if plugin.outcome(self._node.state) is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(plugin.to_act(self._node.state)[0])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self._spiel_game.deals
        return [(seed, 1.0 / deals) for seed in range(deals)]

    def _options(self, player: int) -> list[core.Span]:
        assert self._node is not None
        spiel_game = self._spiel_game
        span = self._node.span
        if span is None:
            span = (0, len(spiel_game.plugin.legal_moves(self._node.state, player)))
        return core.choices(span, spiel_game.space, spiel_game.plugin.info.name)

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(len(self._options(player))))

    def _apply_action(self, action: int) -> None:
        spiel_game = self._spiel_game
        plugin = spiel_game.plugin
        if self._node is None:
            state = core.start(plugin, spiel_game.players, int(action), spiel_game.match_options)
            self._node = _Node(state)
            return
        seat = self.current_player()
        first, end = self._options(seat)[action]
        if end - first > 1:  # a step of a choice: the same position, fewer moves open
            self._node = _Node(self._node.state, self._node, seat, int(action), span=(first, end))
            return
        move = plugin.legal_moves(self._node.state, seat)[first]
        after = plugin.apply(self._node.state, seat, move)
        self._node = _Node(after, self._node, seat, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        if self._node is not None and player == self.current_player():
            plugin = self._spiel_game.plugin
            moves = plugin.legal_moves(self._node.state, player)
            options = self._options(player)
            if 0 <= action < len(options):
                first, end = options[action]
                # Labels are for people and may repeat (Sobek: "pick 1 card" of two cards);
                # OpenSpiel wants each action's string distinct, so the index leads.
                if end - first == 1:
                    return f"{action}: {plugin.label(moves[first])}"
                return f"{action}: moves {first} to {end - 1}"
        return f"move {action}"

    def is_terminal(self) -> bool:
        node = self._node
        return node is not None and self._spiel_game.plugin.outcome(node.state) is not None

    def returns(self) -> list[float]:
        outcome = None if self._node is None else self._spiel_game.plugin.outcome(self._node.state)
        if outcome is None:
            return [0.0] * self._spiel_game.players
        return list(core.rank_rewards(outcome))

    def __str__(self) -> str:
        if self._node is None:
            return "chance: the seed"
        plugin = self._spiel_game.plugin
        return text_format.MessageToString(
            plugin.view_to_proto(plugin.view(self._node.state, None))
        )

    # --- what a seat knows -----------------------------------------------------------------------

    def view_bytes(self, player: int | None) -> bytes:
        """The view bytes ``player`` (None: a spectator) receives now; empty before the deal."""
        if self._node is None:
            return b""
        plugin = self._spiel_game.plugin
        return plugin.view_bytes(plugin.view(self._node.state, player))

    def info_digest(self, player: int) -> bytes:
        return b"" if self._node is None else _digest(self._spiel_game.plugin, self._node, player)

    def resample_from_infostate(self, player: int, sampler: Any = None) -> SeraiSpielState:
        """A state the seat cannot tell from this one, hidden cards drawn from ``sampler`` (a
        callable giving floats, as OpenSpiel's samplers do, or a ``random.Random``)."""
        rng = (
            sampler
            if isinstance(sampler, random.Random)
            else random.Random(sampler() if callable(sampler) else None)
        )
        return self.resampled(player, rng)

    def resampled(self, player: int, rng: random.Random) -> SeraiSpielState:
        if self._node is None:
            return self.clone()  # type: ignore[no-any-return]
        plugin = self._spiel_game.plugin
        world = plugin.determinize(plugin.view(self._node.state, player), rng)
        resampled = self._spiel_game.state_at(world, {player: self.info_digest(player)})
        assert resampled._node is not None
        resampled._node.span = self._node.span  # mid-choice: its own moves are the same there
        return resampled


class SeraiObserver:
    """OpenSpiel's observer interface: strings and tensors from a seat's view only."""

    def __init__(self, game: SeraiSpielGame, perfect_recall: bool, public_only: bool) -> None:
        self.game = game
        self.perfect_recall = perfect_recall
        self.public_only = public_only
        size = 0 if perfect_recall or game.tensor_size is None else game.tensor_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"view": self.tensor} if size else {}

    def set_from(self, state: SeraiSpielState, player: int) -> None:
        self.tensor.fill(0)
        node = state._node
        if not self.tensor.size or node is None:
            return
        plugin = self.game.plugin
        numbers = plugin.view_tensor(plugin.view(node.state, None if self.public_only else player))
        self.tensor[:] = numbers

    def string_from(self, state: SeraiSpielState, player: int) -> str:
        if self.perfect_recall:
            return f"p{player} {state.info_digest(player).hex()}"
        node = state._node
        choosing = "" if node is None or node.span is None else f" choosing {node.span}"
        viewer = None if self.public_only else player
        return f"p{player} {state.view_bytes(viewer).hex()}{choosing}"


class SeraiSpielGame(pyspiel.Game):  # type: ignore[misc]
    """One serai game for OpenSpiel; parameters ``players`` and ``deals``. Registered as one
    subclass per game, naming it by ``serai_name``."""

    serai_name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.plugin = core.load_game(self.serai_name)
        self.players = int(params.get("players", self.plugin.info.min_players))
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        self.match_options = self.plugin.resolve_options({})
        self.space = core.action_space(self.plugin)
        self.max_actions = self.space.size
        self.tensor_size = core.tensor_size(self.plugin, self.players, self.match_options)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=self.deals,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(game_type(self.plugin), info, params)

    def new_initial_state(self, *args: Any) -> SeraiSpielState:
        return SeraiSpielState(self)

    def state_at(self, state: Any, digests: dict[int, bytes] | None = None) -> SeraiSpielState:
        """An OpenSpiel state at the plugin state ``state`` (after the chance node); ``digests``
        start the information-state chains of the seats named (the others start afresh)."""
        spiel_state = SeraiSpielState(self)
        spiel_state._node = _Node(state)  # at the start of a decision
        for player, digest in (digests or {}).items():
            spiel_state._node.digests[player] = digest
        return spiel_state

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SeraiObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        public_only = kind.private_info == pyspiel.PrivateInfoType.NONE
        return SeraiObserver(self, kind.perfect_recall, public_only)


def game_type(plugin: core.AnyGame) -> Any:
    info = plugin.info
    return pyspiel.GameType(
        short_name=f"serai_{info.name}",
        long_name=f"serai {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=info.provides.view_tensor,
        parameter_specification={"players": info.min_players, "deals": DEFAULT_DEALS},
    )


_REGISTERED: set[str] = set()
_CREATORS: list[type[SeraiSpielGame]] = []


def register_games() -> list[str]:
    """Register every installed, playable serai game with OpenSpiel (once); their short names."""
    names = []
    for name, plugin in sorted(registry.load().games.items()):
        if not plugin.info.playable:
            continue
        short = f"serai_{name}"
        if short not in _REGISTERED:
            # A class per game, as OpenSpiel's own Python games register: a closure here is
            # freed by OpenSpiel's registry after the interpreter is gone, and aborts the exit.
            creator = type(f"Serai{name.title()}Game", (SeraiSpielGame,), {"serai_name": name})
            globals()[creator.__name__] = creator  # findable by name, so pickle can copy one
            _CREATORS.append(creator)
            pyspiel.register_game(game_type(plugin), creator)
            _REGISTERED.add(short)
        names.append(short)
    return names


# --- OpenSpiel's ISMCTS as a policy function --------------------------------------------------

ISMCTS_SIMULATIONS = 30
ROLLOUT_LENGTH = 60
"""Random rollouts stop after this many moves (a whole Jaipur match is ~200): cheaper, and the
value of a cut rollout is 0, so the search leans on the rollouts that end a match."""


def ismcts(view: Message, moves: Sequence[LegalMove]) -> int:
    """OpenSpiel's ISMCTS bot, from the seat's view alone, for any installed game that declares
    ``determinize``: worlds are sampled with the plugin's ``determinize``. Seeded by the view's
    bytes: the same view, the same move."""
    return ismcts_search(view, moves, ISMCTS_SIMULATIONS)


def _game_of(view: Message) -> str:
    """The installed game whose view message ``view`` is."""
    kind = view.DESCRIPTOR.full_name
    for name, plugin in sorted(registry.load().games.items()):
        if plugin.view_message.DESCRIPTOR.full_name == kind:
            if not plugin.info.provides.determinize:
                raise ValueError(f"ISMCTS needs determinize, which {name} does not offer")
            return name
    raise ValueError(f"no installed game has the view message {kind}")


def ismcts_search(view: Message, moves: Sequence[LegalMove], simulations: int) -> int:
    from open_spiel.python.algorithms import ismcts as spiel_ismcts
    from open_spiel.python.algorithms import mcts

    if len(moves) == 1:
        return 0
    name = _game_of(view)
    register_games()
    key = hashlib.sha256(view.SerializeToString(deterministic=True)).digest()
    rng = random.Random(key)
    plugin = registry.load().get(name)
    plain = plugin.view_from_proto(view)
    probe = plugin.determinize(plain, random.Random(0))  # who acts, and at how many seats
    seat = plugin.to_act(probe)[0]
    game = pyspiel.load_game(f"serai_{name}", {"players": plugin.players(probe)})
    root_digest = {seat: key}

    def world(_state: Any = None, _player: int | None = None) -> SeraiSpielState:
        return game.state_at(game.plugin.determinize(plain, rng), root_digest)  # type: ignore[no-any-return]

    np_rng = np.random.RandomState(rng.getrandbits(32))
    bot = spiel_ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np_rng, max_length=ROLLOUT_LENGTH),
        uct_c=2.0,
        max_simulations=simulations,
        random_state=np_rng,
    )
    bot.set_resampler(world)
    return int(bot.step(world()))
