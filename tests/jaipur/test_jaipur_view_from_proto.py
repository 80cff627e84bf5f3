"""The plugin's view_from_proto (what bots decode their seat's view with) is the exact inverse of
its view_to_proto."""

from __future__ import annotations

import random

from serai_jaipur import JaipurGame


def test_every_view_of_random_matches_reads_back_to_the_plugins_own_view():
    game = JaipurGame()
    rng = random.Random(4)
    checked = 0
    for seed in range(4):
        state = game.setup(2, seed, {})
        while True:
            for viewer in (0, 1, None):
                view = game.view(state, viewer)
                assert game.view_from_proto(game.view_to_proto(view)) == view
                checked += 1
            if not game.to_act(state):
                break
            seat = game.to_act(state)[0]
            state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    assert checked > 300
    assert state.results  # finished matches, with scored rounds, were read back too
