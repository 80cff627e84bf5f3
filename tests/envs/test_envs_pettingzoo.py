"""The PettingZoo environment: PettingZoo's own API test for every game, seeds that reproduce,
observations that hold only what the seat may know, and episodes equal to served matches."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="needs the research extra: pip install -e '.[research]'")

import numpy as np
from pettingzoo.test import api_test
from serai_client import SeraiClient
from serai_client.envs import pettingzoo_env
from serai_client.envs.core import rank_rewards
from serai_client.envs.tabular import TabularPolicy, train


@pytest.mark.parametrize(("game", "players"), [("jaipur", 2), ("nile", 3), ("sobek", 4)])
def test_api(game, players):
    """Every game passes PettingZoo's own API test."""
    api_test(pettingzoo_env(game, players=players, seed=5), num_cycles=200)


def _random_episode(env: Any, seed: int) -> list[tuple[str, bytes, int]]:
    """(agent, view bytes, action) of every move of a random episode, and the rewards after."""
    rng = random.Random(seed)
    trace = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        trace.append((agent, observation["view"].tobytes(), action))
        env.step(action)
    return trace


def test_seeds():
    """The same seed gives the same episode; reset(seed) replays it; other seeds differ."""
    first = pettingzoo_env("sobek", players=3, seed=11)
    first.reset()
    trace = _random_episode(first, 1)
    second = pettingzoo_env("sobek", players=3)
    second.reset(seed=11)
    assert _random_episode(second, 1) == trace
    second.reset(seed=12)
    assert _random_episode(second, 1) != trace


def test_rank_rewards_add_up_to_zero():
    """A win is +1, a loss -1, and the rewards of a match add up to zero."""
    from serai.game import Outcome

    assert rank_rewards(Outcome((2, 1), (0, 1), "")) == (1.0, -1.0)
    assert rank_rewards(Outcome((3, 3, 1), (0, 0, 2), "")) == (0.5, 0.5, -1.0)


def test_actions_index_the_legal_moves_and_the_mask_says_which():
    """The mask is 1 for the legal moves of the seat to act only; other seats see all zeros."""
    env = pettingzoo_env("jaipur", seed=3)
    env.reset()
    agent = env.agent_selection
    other = next(a for a in env.agents if a != agent)
    _, moves = env.policy_inputs(agent)
    mask = env.observe(agent)["action_mask"]
    assert mask.shape == (env.game.info.max_legal_moves,) and int(mask.sum()) == len(moves)
    assert not env.observe(other)["action_mask"].any()
    assert env.observe(agent)["observation"].shape == (49,)
    with pytest.raises(ValueError, match="options"):
        env.step(len(moves))


@pytest.mark.parametrize(("game", "players"), [("jaipur", 2), ("sobek", 3)])
def test_hidden_information(game, players):
    """A seat's observation stays the same whatever it cannot know: states sampled to agree
    with its view (other hands, the deck, hidden tokens redrawn) give the same observation."""
    env = pettingzoo_env(game, players=players, seed=21)
    env.reset()
    rng = random.Random(2)
    for step in range(60):
        if env.terminations[env.agent_selection]:
            break
        for seat, agent in enumerate(env.possible_agents):
            seen = env.observe(agent)
            real = env.state_value
            for _ in range(3):
                env.state_value = env.game.determinize(env.game.view(real, seat), rng)
                again = env.observe(agent)
                assert again.keys() == seen.keys()
                for key in seen:
                    assert np.array_equal(again[key], seen[key]), (game, step, agent, key)
            env.state_value = real
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))


@pytest.mark.parametrize(("game", "players", "seed"), [("jaipur", 2, 17), ("nile", 3, 4)])
def test_an_episode_is_the_served_match(service, game, players, seed):
    """The same seed and moves through the server give the same views, moves and outcome."""
    env = pettingzoo_env(game, players=players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    with SeraiClient(service.address) as client:
        match = client.create_match(game, seats=players, seed=seed)
        seats = [client.join(match.match_id, seat=i) for i in range(players)]
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            seat = env.possible_agents.index(agent)
            served = client.get_match(seats[seat])
            assert observation["view"].tobytes() == served.proto.view.value
            if terminated or truncated:
                assert served.finished
                assert reward == rank_rewards(env.game.outcome(env.state_value))[seat]
                assert list(served.outcome.ranks) == list(env.game.outcome(env.state_value).ranks)
                env.step(None)
                continue
            assert served.to_act[0] == seat
            legal = client.legal_moves(seats[seat])
            _, moves = env.policy_inputs(agent)
            assert [m.label for m in legal.moves] == [m.label for m in moves]
            index = rng.randrange(len(moves))
            client.submit(seats[seat], legal.moves[index].id, expected_version=legal.version)
            env.play(index)
        assert client.get_match(match.match_id).finished


def test_the_guide_trains_a_table_and_it_plays_greedy_on_a_server(service, tmp_path, capsys):
    """The clients/README.md guide, with a tiny budget: train, save, load, play greedy."""
    from serai.cli import main as serai_main
    from serai_client.envs.tabular import main as train_main

    table = tmp_path / "jaipur-table.json"
    assert train_main(["--game", "jaipur", "--episodes", "2", "--out", str(table)]) == 0
    policy = TabularPolicy.load(table)
    assert policy.table == train("jaipur", episodes=2, seed=1)
    (tmp_path / "my_agent.py").write_text(
        "from serai_client.envs.tabular import TabularPolicy\n"
        f"policy = TabularPolicy.load({str(table)!r})\n"
    )
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.syspath_prepend(str(tmp_path))
        with SeraiClient(service.address) as client:
            match = client.create_match("jaipur", seed=9)
            from serai_client.bots import make_strategy, play_seat

            other = client.join(match.match_id, seat=1, player_name="greedy")
            thread = threading.Thread(
                target=play_seat, args=(client, other, make_strategy("greedy", "jaipur", 1))
            )
            thread.start()
            argv = ["bot", "--server", service.address, "--match", match.match_id]
            code = serai_main([*argv, "--policy", "my_agent:policy"])
            thread.join(60)
    assert code == 0
    out = capsys.readouterr().out
    assert "policy-bot plays seat 0" in out and "seals to" in out
