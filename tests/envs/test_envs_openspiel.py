"""The OpenSpiel games: registered, played to the end by OpenSpiel's own tools, information
states from the view alone, and OpenSpiel's ISMCTS playing Jaipur against greedy in the arena."""

from __future__ import annotations

import functools
import random

import pytest

pytest.importorskip(
    "pyspiel", reason="needs the research extra (open_spiel): pip install -e '.[research]'"
)

import pyspiel
from serai_client import SeraiClient
from serai_client.arena import run_arena
from serai_client.envs import pettingzoo_env, register_openspiel_games
from serai_client.envs.spiel import ismcts_search


@pytest.mark.parametrize(("name", "players"), [("jaipur", 2), ("nile", 3), ("sobek", 2)])
def test_random_play_to_the_end(name, players):
    """Each game loads by name and plays to a zero-sum end with OpenSpiel's own random sims."""
    assert f"serai_{name}" in register_openspiel_games()
    game = pyspiel.load_game(f"serai_{name}", {"players": players})
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    returns = pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    assert returns is None  # raises on any inconsistency


def test_chance_outcome_s_is_the_match_of_seed_s():
    """After chance outcome s, each seat's observation is its view in the match of seed s."""
    register_openspiel_games()
    state = pyspiel.load_game("serai_jaipur").new_initial_state()
    assert state.is_chance_node()
    state.apply_action(42)
    env = pettingzoo_env("jaipur")
    env.reset(seed=42)
    for seat, agent in enumerate(env.possible_agents):
        view = env.observe(agent)["view"].tobytes()
        assert state.observation_string(seat) == f"p{seat} {view.hex()}"


def test_information_state_holds_only_the_view():
    """A resampled world (other hand, deck, hidden tokens redrawn) has the same information
    state and observation for the seat, and its chain grows with every move."""
    register_openspiel_games()
    state = pyspiel.load_game("serai_jaipur").new_initial_state()
    state.apply_action(7)
    rng = random.Random(3)
    seen = set()
    for _ in range(30):
        player = state.current_player()
        key = state.information_state_string(player)
        assert key not in seen
        seen.add(key)
        for _ in range(2):
            world = state.resampled(player, rng)
            assert world.information_state_string(player) == key
            assert world.observation_string(player) == state.observation_string(player)
        state.apply_action(rng.choice(state.legal_actions()))


def test_ismcts_plays_jaipur_against_greedy_through_the_arena(service):
    """OpenSpiel's ISMCTS, as a policy function, plays a served match against greedy."""
    quick = functools.partial(ismcts_search, simulations=4)
    with SeraiClient(service.address) as client:
        (result,) = run_arena(
            client, "jaipur", ["greedy", "ismcts"], 1, seed=2, policies={"ismcts": quick}
        )
    assert result.b == "ismcts" and sorted(result.scores, reverse=True)[0] == 2
