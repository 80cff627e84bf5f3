"""The search bot in every game with determinize: it cannot tell apart worlds its seat cannot,
it plays legal moves, it reproduces with a seed, and it reads each game's view off the wire."""

from __future__ import annotations

import random
from typing import Any

import pytest
from serai import registry
from serai.evaluation import Evaluation, rank_value
from serai.game import Game
from serai_client.bots import make_strategy
from serai_client.bots.ismcts import InformationSetSearch
from serai_client.bots.local import moves_for, play_local, snapshot_for
from serai_client.bots.search import SearchStrategy, searchable
from serai_client.bots.views import plugin_view

GAMES = registry.load().games
SEARCHABLE = sorted(name for name, game in GAMES.items() if searchable(game))
BUDGET = {"iterations": 6, "time_limit": None}


def test_every_game_of_the_three_offers_determinize_to_the_search_bot():
    assert {"jaipur", "nile", "sobek"} <= set(SEARCHABLE)


def played(game: Game[Any, Any, Any], seed: int, moves: int, players: int = 2) -> Any:
    """A state ``moves`` random moves into a match (fewer if it ends first)."""
    rng = random.Random(seed)
    state = game.setup(players, seed, game.resolve_options({}))
    for _ in range(moves):
        if game.outcome(state) is not None:
            break
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    return state


def twin_world(game: Game[Any, Any, Any], state: Any, seat: int) -> Any:
    """Another full state with a different hidden part that gives ``seat`` the very same view."""
    view = game.view(state, seat)
    for attempt in range(50):
        other = game.determinize(view, random.Random(attempt))
        if game.encode_state(other) != game.encode_state(state):
            assert game.view(other, seat) == view
            return other
    raise AssertionError("no second world found")


@pytest.mark.parametrize("name", SEARCHABLE)
@pytest.mark.parametrize("depth", [7, 30])
def test_two_worlds_one_view_give_one_move(name, depth):
    """The bot sees the snapshot only: two worlds that differ in what the seat cannot see give
    the same move for the same seed."""
    game = GAMES[name]
    real = played(game, seed=depth, moves=depth)
    seat = game.to_act(real)[0]
    other = twin_world(game, real, seat)
    snaps = [snapshot_for(game, world, seat, depth) for world in (real, other)]
    moves = [moves_for(game, world, seat, depth) for world in (real, other)]
    assert snaps[0].proto.view == snaps[1].proto.view  # the seat cannot tell them apart
    assert [m.proto for m in moves[0].moves] == [m.proto for m in moves[1].moves]
    choices = [
        SearchStrategy(7, game=name, iterations=12, time_limit=None).choose(snap, legal)
        for snap, legal in zip(snaps, moves, strict=True)
    ]
    assert choices[0].proto == choices[1].proto  # so the bot, seeing only the view, cannot either


@pytest.mark.parametrize("name", SEARCHABLE)
def test_the_search_bot_samples_worlds_only_from_the_view_it_received(name, monkeypatch):
    game = GAMES[name]
    real = played(game, seed=3, moves=12)
    seat = game.to_act(real)[0]
    snapshot = snapshot_for(game, real, seat, 12)
    bot = SearchStrategy(1, game=name, **BUDGET)
    given: list[Any] = []
    original = bot.game.determinize

    def spy(view: Any, rng: random.Random) -> Any:
        given.append(view)
        return original(view, rng)

    monkeypatch.setattr(bot.game, "determinize", spy)
    legal = moves_for(game, real, seat, 12)
    if len(legal.moves) == 1:
        pytest.skip("a forced move needs no search")
    bot.choose(snapshot, legal)
    assert len(given) == BUDGET["iterations"]
    assert all(view == game.view(real, seat) for view in given)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_search_bot_plays_only_legal_moves_to_the_end(name):
    """Every installed game: a short match against the random bot, every choice one of the
    moves listed; a game without determinize is refused by name."""
    if not searchable(GAMES[name]):
        with pytest.raises(ValueError, match="determinize"):
            make_strategy("search", name)
        return
    bot = make_strategy("search", name, 4, **BUDGET)
    checked = 0

    class Checked:
        name = "checked search"

        def choose(self, snapshot: Any, moves: Any) -> Any:
            nonlocal checked
            choice = bot.choose(snapshot, moves)
            assert choice in moves.moves
            checked += 1
            return choice

    result = play_local(name, [Checked(), make_strategy("random", name, 5)], seed=21)
    assert result.outcome is not None and checked > 0


@pytest.mark.parametrize("name", SEARCHABLE)
def test_the_search_bot_reproduces_a_match_with_its_seed(name):
    def match() -> Any:
        players = [make_strategy("search", name, 8, **BUDGET), make_strategy("random", name, 9)]
        return play_local(name, players, seed=33)

    first, second = match(), match()
    assert (first.outcome.scores, first.outcome.ranks, first.moves) == (
        second.outcome.scores,
        second.outcome.ranks,
        second.moves,
    )


@pytest.mark.parametrize("name", SEARCHABLE)
def test_the_search_bot_reads_each_seats_view_off_the_wire_exactly(name):
    """The decoder is the exact inverse of ``view_to_proto`` for every seat and a spectator,
    at three players too, so ``determinize`` gets what the seat was sent and nothing else."""
    game = GAMES[name]
    for players in sorted({2, min(3, game.info.max_players)}):
        for depth in (0, 9, 40):
            state = played(game, seed=depth + players, moves=depth, players=players)
            for seat in (*range(players), None):
                view = game.view(state, seat)
                assert plugin_view(game, snapshot_for(game, state, seat, depth)) == view


def test_a_game_without_an_evaluation_is_searched_with_random_rollouts():
    """The engine needs only the contract: with the base evaluation (random rollouts to the
    end, judged by the outcome) it still picks a legal move."""
    game = GAMES["nile"]
    state = played(game, seed=2, moves=5)
    seat = game.to_act(state)[0]

    class Rollouts(Evaluation):
        rollout_depth = 400

    search = InformationSetSearch(game, Rollouts(game), random.Random(1), iterations=4)
    assert search.choose(game.view(state, seat), seat) in game.legal_moves(state, seat)


def test_a_rank_is_worth_the_seats_it_beats():
    assert rank_value((0, 1), 0) == 1.0 and rank_value((0, 1), 1) == 0.0
    assert rank_value((0, 0), 1) == 0.5
    assert rank_value((1, 0, 2), 0) == 0.5
