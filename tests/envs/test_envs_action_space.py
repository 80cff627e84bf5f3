"""Action spaces that never leave a legal move out.

Each game declares its action space in its GameInfo: Jaipur an exact bound of legal moves derived
from its rules (a position past it is refused, loudly); Nile and Sobek, whose rules bound no such
number (no hand limit), a step size, a choice among more moves being made in steps. Long random
and heuristic playouts through the PettingZoo environment check both: every legal move of every
position reached stays playable, and the options of a decision never pass the action space.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="needs the research extra: pip install -e '.[research]'")

import numpy as np
from serai_client.envs import pettingzoo_env
from serai_client.envs.core import (
    ActionBoundError,
    ActionSpace,
    action_space,
    choices,
    load_game,
    path_to,
)
from serai_nile import NileGame
from serai_nile.cards import Card, Crop
from serai_nile.moves import Plant, Speculate
from serai_sobek.moves import AddToSet, FinalSet, PlaySet, Take

Policy = Callable[[Sequence[Any], random.Random], int]
"""A policy over the plugin's own legal moves: the index of the move to play."""


def uniform(moves: Sequence[Any], rng: random.Random) -> int:
    return rng.randrange(len(moves))


def nile_planter(moves: Sequence[Any], rng: random.Random) -> int:
    """Plant the most cards you can, else speculate, else pass; never trade."""
    plants = [i for i, m in enumerate(moves) if isinstance(m, Plant)]
    if plants:
        return max(plants, key=lambda i: len(moves[i].crops))
    speculations = [i for i, m in enumerate(moves) if isinstance(m, Speculate)]
    return speculations[0] if speculations else 0  # 0 is pass


def nile_hoarder(moves: Sequence[Any], rng: random.Random) -> int:
    """Plant the fewest cards you can, else pass; never trade: fields to grow and a hand that
    grows, the positions with the most plants."""
    plants = [i for i, m in enumerate(moves) if isinstance(m, Plant)]
    return min(plants, key=lambda i: len(moves[i].crops)) if plants else 0


def sobek_setter(moves: Sequence[Any], rng: random.Random) -> int:
    """Lay the biggest set, else take the first market card, else the first move listed."""
    sets = [i for i, m in enumerate(moves) if isinstance(m, PlaySet | AddToSet | FinalSet)]
    if sets:
        return max(sets, key=lambda i: len(moves[i].cards))
    takes = [i for i, m in enumerate(moves) if isinstance(m, Take)]
    return takes[0] if takes else 0


def sobek_hoarder(moves: Sequence[Any], rng: random.Random) -> int:
    """Take a market card whenever you can: hands grow, and with them the sets to choose."""
    takes = [i for i, m in enumerate(moves) if isinstance(m, Take)]
    return rng.choice(takes) if takes else rng.randrange(len(moves))


POLICIES: dict[str, tuple[Policy, ...]] = {
    "jaipur": (uniform,),
    "nile": (uniform, nile_planter, nile_hoarder),
    "sobek": (uniform, sobek_setter, sobek_hoarder),
}
PLAYERS = {"jaipur": (2,), "nile": (2, 3, 4, 5), "sobek": (2, 3, 4)}


@dataclass
class Tally:
    positions: int = 0
    most_moves: int = 0
    stepped: int = 0  # positions whose choice took more than one step
    widest: int = 0  # the most options of one decision
    per_policy: dict[str, int] = field(default_factory=dict)


def play_positions(game: str, wanted: int, seed: int = 1) -> Tally:
    """Whole matches through the PettingZoo environment until ``wanted`` positions were played,
    the policies and player counts taking turns. At every position every legal move must be
    reachable within the action space; one of them is played by its path of actions."""
    rng = random.Random(seed)
    tally = Tally()
    match = 0
    while tally.positions < wanted:
        policy = POLICIES[game][match % len(POLICIES[game])]
        players = PLAYERS[game][match % len(PLAYERS[game])]
        env = pettingzoo_env(game, players=players, seed=seed * 1000 + match)
        env.reset()
        size = env.space.size
        for _agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)
                continue
            moves = env._moves
            count = len(moves)
            tally.positions += 1
            tally.per_policy[policy.__name__] = tally.per_policy.get(policy.__name__, 0) + 1
            tally.most_moves = max(tally.most_moves, count)
            tally.widest = max(tally.widest, len(env._options))
            assert len(env._options) <= size
            if count > size:
                tally.stepped += 1
                for index in (0, count - 1, rng.randrange(count)):
                    path = path_to(index, count, env.space)
                    assert all(0 <= action < size for action in path)
            env.play(policy(moves, rng))
        match += 1
    return tally


@pytest.mark.parametrize(("game", "wanted"), [("jaipur", 3000), ("nile", 3000), ("sobek", 3000)])
def test_playouts_stay_in_the_action_space(game, wanted):
    """A few thousand positions per game, random and heuristic (the 10,000+ run is slow)."""
    tally = play_positions(game, wanted)
    print(f"{game}: {tally}")
    assert tally.positions >= wanted
    if game == "jaipur":
        assert tally.stepped == 0 and tally.most_moves <= 167


@pytest.mark.slow
@pytest.mark.parametrize("game", ["jaipur", "nile", "sobek"])
def test_ten_thousand_playout_positions_stay_in_the_action_space(game):
    tally = play_positions(game, 10_000, seed=2)
    print(f"{game}: {tally}")
    assert tally.positions >= 10_000
    if game == "jaipur":
        assert tally.stepped == 0 and tally.most_moves <= 167


def test_each_game_declares_its_action_space():
    """Declared in the plugin's GameInfo, not known by name in the client."""
    assert action_space(load_game("jaipur")) == ActionSpace(167, stepped=False)
    assert action_space(load_game("nile")) == ActionSpace(256, stepped=True)
    assert action_space(load_game("sobek")) == ActionSpace(256, stepped=True)


def test_choices_are_the_moves_where_they_fit_and_runs_of_them_where_not():
    space = ActionSpace(4, stepped=True)
    assert choices((0, 4), space) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert choices((0, 5), space) == [(0, 4), (4, 5)]
    assert choices((0, 17), space) == [(0, 16), (16, 17)]
    assert choices((0, 16), space) == [(0, 4), (4, 8), (8, 12), (12, 16)]
    for count in (1, 4, 5, 16, 17, 64, 65, 300):
        reached = set()
        for index in range(count):
            span = (0, count)
            for action in path_to(index, count, space):
                options = choices(span, space)
                assert len(options) <= 4
                span = options[action]
            assert span == (index, index + 1)
            reached.add(span)
        assert len(reached) == count


def test_a_position_past_an_exact_bound_is_refused_not_cut():
    with pytest.raises(ActionBoundError, match="lists 5 legal moves here, more than its declared"):
        choices((0, 5), ActionSpace(4, stepped=False), "tiny")
    env = pettingzoo_env("jaipur", seed=3)
    env.space = ActionSpace(2, stepped=False)  # as if Jaipur had declared 2
    with pytest.raises(ActionBoundError, match="jaipur lists"):
        env.reset()


def _hoarded() -> Any:
    """A Nile position of 1,295 plants and more: seat 0 holds twenty cards over four crops and
    grows all four, so every sub-multiset of its hand may go into its fields (6^4 - 1)."""
    start = NileGame().setup(2, 1, {})
    grown = (Crop.PAPYRUS, Crop.WHEAT, Crop.CASTOR, Crop.FLAX)
    hand = tuple(sorted(Card.crop(crop) for crop in grown for _ in range(5)))
    fields = tuple(1 if crop in grown else 0 for crop in start.crops)
    return _replace(
        start,
        active=0,
        hands=(hand, start.hands[1]),
        fields=(fields, (0,) * len(start.crops)),
        flooded=(Crop.LETTUCE,),
    )


HOARDED = _hoarded()


def test_pettingzoo_reaches_every_move_of_a_nile_position_past_the_space():
    env = pettingzoo_env("nile", players=2, seed=1)
    env.reset()
    env.state_value = HOARDED
    env._select()
    moves = env._moves
    assert len(moves) > 1000
    mask = env.observe("seat_0")["action_mask"]
    assert int(mask.sum()) == len(choices((0, len(moves)), env.space)) <= 256
    rng = random.Random(4)
    for index in rng.sample(range(len(moves)), 12):
        env.state_value = HOARDED
        env._select()
        for action in path_to(index, len(moves), env.space)[:-1]:
            env.step(action)
            assert env.agent_selection == "seat_0", "a step of a choice: the same seat again"
            first, end = env.observe("seat_0")["choosing"]
            assert (
                first <= index < end
                and np.count_nonzero(env.observe("seat_0")["action_mask"]) <= 256
            )
        env.step(path_to(index, len(moves), env.space)[-1])
        assert env.state_value == env.game.apply(HOARDED, 0, moves[index])


def test_openspiel_reaches_every_move_of_a_nile_position_past_the_space():
    pytest.importorskip("pyspiel")
    import pyspiel
    from serai_client.envs.spiel import register_games

    register_games()
    game = pyspiel.load_game("serai_nile")
    plugin = game.plugin
    moves = plugin.legal_moves(HOARDED, 0)
    rng = random.Random(5)
    for index in rng.sample(range(len(moves)), 8):
        state = game.state_at(HOARDED)
        for action in path_to(index, len(moves), game.space):
            assert state.current_player() == 0
            assert len(state.legal_actions()) <= game.num_distinct_actions()
            assert action in state.legal_actions()
            state.apply_action(action)
        assert state._node.state == plugin.apply(HOARDED, 0, moves[index])
