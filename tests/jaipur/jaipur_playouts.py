"""Random legal playouts for the property tests: a seed for the deal, a seed for the choices."""

from __future__ import annotations

import random
from collections.abc import Iterator

from serai_jaipur import JaipurGame, Move, State

game = JaipurGame()


def playout(seed: int, choices: int, limit: int | None = None) -> Iterator[tuple[State, Move]]:
    """(state, move chosen) pairs of a random legal match, ``limit`` moves at most."""
    rng = random.Random(choices)
    state = game.setup(2, seed, {})
    played = 0
    while state.turn is not None and (limit is None or played < limit):
        move = rng.choice(game.legal_moves(state, state.turn))
        yield state, move
        state = game.apply(state, state.turn, move)
        played += 1


def final_state(seed: int, choices: int, limit: int | None = None) -> State:
    """The state after a random legal playout (a finished match when ``limit`` is None)."""
    rng = random.Random(choices)
    state = game.setup(2, seed, {})
    played = 0
    while state.turn is not None and (limit is None or played < limit):
        state = game.apply(state, state.turn, rng.choice(game.legal_moves(state, state.turn)))
        played += 1
    return state
