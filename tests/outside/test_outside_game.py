"""A game from outside serai, installed by entry point, is played by every bot and environment
that its declaration allows, with no edit to serai: ``serai bot --strategy search``, the arena
with random and search, the web lobby's bot list, PettingZoo and OpenSpiel."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator

import pytest
from gem_duel import install
from serai import registry
from serai.cli import main as serai_main
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat, strategies_for
from serai_client.bots.local import play_local
from serai_client.bots.random_bot import RandomStrategy
from serai_client.house_bots import HouseBots

GAME = "gem_duel"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Gem Duel installed for this module's tests, as a package would be: by entry point."""
    folder = install(tmp_path_factory.mktemp("site") / "packages")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        assert GAME in registry.load()
        yield


def test_it_offers_random_and_search_as_it_declares(installed):
    """It declares determinize and no strategy of its own: random and search, everywhere the
    bots are listed (the SDK, the web lobby's GET /bots)."""
    assert strategies_for(GAME) == ("random", "search")
    listing = HouseBots("127.0.0.1:1", registry.load().games, threads=1)
    assert listing.strategies()[GAME] == ["random", "search"]
    with pytest.raises(ValueError, match="greedy bot plays Jaipur only"):
        make_strategy("greedy", GAME)


def test_the_search_bot_plays_it_in_process(installed):
    search = make_strategy("search", GAME, 3, iterations=8, time_limit=None)
    result = play_local(GAME, [search, RandomStrategy(4)], seed=5)
    assert result.outcome is not None and result.moves == 6


def test_serai_bot_plays_it_with_search_through_the_server(installed, service, capsys):
    with SeraiClient(service.address) as client:
        match = client.create_match(GAME, seed=6)
        other = client.join(match.match_id, seat=1)
        thread = threading.Thread(target=play_seat, args=(client, other, RandomStrategy(9)))
        thread.start()
        argv = ["bot", "--server", service.address, "--match", match.match_id]
        code = serai_main([*argv, "--strategy", "search", "--iterations", "6", "--seed", "1"])
        thread.join(60)
        assert client.get_match(match.match_id).finished
    assert code == 0
    out = capsys.readouterr().out
    assert "search-bot plays seat 0 of gem_duel" in out and "best total" in out


def test_the_arena_plays_random_against_search(installed, service, capsys):
    argv = ["arena", "--game", GAME, "--bots", "random,search", "--matches", "2"]
    options = ["--iterations", "6", "--server", service.address, "--json", "--quiet"]
    assert serai_main([*argv, *options]) == 0
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{\n") :])  # after the in-process server's log lines
    assert sum(pairing["matches"] for pairing in report["pairings"]) == 2


def test_pettingzoo_plays_it(installed):
    pytest.importorskip("pettingzoo", reason="needs the research extra")
    from pettingzoo.test import api_test
    from serai_client.envs import pettingzoo_env

    api_test(pettingzoo_env(GAME, players=3, seed=5), num_cycles=50)
    env = pettingzoo_env(GAME, seed=2)
    env.reset()
    assert env.observe(env.agent_selection)["action_mask"].shape == (3,)
    assert "observation" not in env.observe(env.agent_selection)  # it declares no tensor


def test_openspiel_plays_it_and_resamples_from_the_seats_view(installed):
    pyspiel = pytest.importorskip("pyspiel", reason="needs the research extra")
    from serai_client.envs import register_openspiel_games

    assert f"serai_{GAME}" in register_openspiel_games()
    game = pyspiel.load_game(f"serai_{GAME}")
    rng = random.Random(1)
    state = game.new_initial_state()
    state.apply_action(7)  # the deal: seed 7
    state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    world = state.resample_from_infostate(seat, random.Random(2))
    assert world.view_bytes(seat) == state.view_bytes(seat)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_openspiel_ismcts_policy_plays_it(installed):
    pytest.importorskip("pyspiel", reason="needs the research extra")
    from serai_client.envs import pettingzoo_env
    from serai_client.envs.spiel import ismcts_search

    env = pettingzoo_env(GAME, seed=3)
    env.reset()
    view, moves = env.policy_inputs(env.agent_selection)
    assert 0 <= ismcts_search(view, moves, simulations=4) < len(moves)
