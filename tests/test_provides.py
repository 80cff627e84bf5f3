"""What a game declares it provides (``GameInfo.provides``) it does provide, for every installed
game: the conformance half of capabilities as data. Bots, environments and the lobby trust the
declaration and never probe, so a declaration the plugin does not keep would fail there."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from serai import registry
from serai.evaluation import Evaluation
from serai.game import Game, GameInfo, Presentation, Provides

GAMES = registry.load().games


def _positions(game, seed: int = 5, moves: int = 12):
    """States of a short random match from its start, for two seats."""
    rng = random.Random(seed)
    state = game.setup(2, seed, game.resolve_options({}))
    yield state
    for _ in range(moves):
        if not game.to_act(state):
            return
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
        yield state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_provides_what_it_declares(name):
    game = GAMES[name]
    provides = game.info.provides
    for state in _positions(game):
        for seat in (0, 1, None):
            view = game.view(state, seat)
            if provides.determinize or provides.strategies:
                assert game.view_from_proto(game.view_to_proto(view)) == view
            if provides.determinize and seat is not None:
                assert game.view(game.determinize(view, random.Random(1)), seat) == view
            tensor = game.view_tensor(view)
            assert (tensor is not None) == provides.view_tensor
            if provides.present:
                described = game.present(game.view_message.FromString(game.view_bytes(view)))
                assert isinstance(described, Presentation)
            if provides.observation:
                hash(game.observation(state, seat))
            if provides.redeal:  # a deal the seat cannot tell apart, yet another one
                dealt = game.redeal(state, seat, random.Random(2))
                if provides.observation:
                    assert game.observation(dealt, seat) == game.observation(state, seat)
    if provides.evaluation:
        assert isinstance(game.evaluation(), Evaluation)
    state = next(_positions(game))
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    for strategy in provides.strategies:
        moves = game.legal_moves(state, seat)
        assert game.strategy(strategy, random.Random(1)).choose(view, seat, moves) in moves
    if game.info.max_legal_moves is not None:
        assert all(
            len(game.legal_moves(s, game.to_act(s)[0])) <= game.info.max_legal_moves
            for s in _positions(game)
            if game.to_act(s)
        )


def test_a_game_that_declares_nothing_offers_the_defaults():
    """A plugin written before declarations existed: it provides nothing beyond the rules, and
    asking for what it did not declare says so by name."""
    info = GameInfo("old", "Old", 2, 2, "1", "a game from before")
    assert info.provides == Provides() and info.max_legal_moves is None

    old = SimpleNamespace(info=info)  # the base methods read only the game's info
    with pytest.raises(NotImplementedError, match="old offers no determinize"):
        Game.determinize(old, None, random.Random())  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match="old offers no view_from_proto"):
        Game.view_from_proto(old, None)  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match="old offers no strategy 'greedy'"):
        Game.strategy(old, "greedy", random.Random())  # type: ignore[arg-type]
    assert Game.view_tensor(old, None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1, 2.5])
def test_max_legal_moves_is_a_whole_number_of_one_or_more(bad):
    with pytest.raises(ValueError, match="max_legal_moves"):
        GameInfo("g", "G", 2, 2, "1", "a game", max_legal_moves=bad)  # type: ignore[arg-type]
