"""Whole matches by a random player, for 2 to 5 seats: the invariants hold at every step.

One hypothesis example is one match: the deal's seed and the player's choices are drawn, so a
failure shrinks to a seed pair that replays it. Nile's own facts only: the plugin contract on
such playouts (listed moves apply, each once and in a stable order, idle seats have none, apply
never changes its input, moves and states round-trip, same seed and moves give the same bytes) is
the shared harness's (tests/check/test_check_games.py, `serai check`).
"""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nile_support import GAME, random_playout
from serai.game import IllegalMove
from serai_nile.cards import PLAGUE, build_deck
from serai_nile.moves import Market, Offering, Plant, Speculate

matches = settings(max_examples=20, deadline=None)
seeds = st.integers(min_value=0, max_value=2**32)


def candidate_moves(state, seat, rng):
    """Moves a careless client might send: right kinds, random cards, mostly illegal."""
    faces = sorted(set(build_deck(state.crops)))
    speculation = [card for card in faces if card.is_speculation]
    moves = []
    for kind in (Market, Offering):
        hand = tuple(rng.choice(faces) for _ in range(rng.randint(0, 2)))
        store = tuple(rng.choice(state.crops) for _ in range(rng.randint(0, 2)))
        moves.append(kind(hand, store))
    moves.append(Plant(tuple(rng.choice(state.crops) for _ in range(rng.randint(1, 4)))))
    moves.append(Speculate(tuple(rng.sample(speculation, rng.randint(1, 3)))))
    return moves


def check_step(state, seat, rng):
    full = Counter(build_deck(state.crops, state.copies_per_crop))
    assert state.all_cards() == full, "cards are neither made nor lost"
    for crop in state.crops:
        assert sum(1 for fields in state.fields if fields[crop]) <= 1, "one field per crop"
    assert all(PLAGUE not in hand for hand in state.hands)
    assert GAME.to_act(state) == (seat,)
    moves = GAME.legal_moves(state, seat)
    # A label is public, so a trade's says only how many cards left the hand and storehouse;
    # every other label tells one move from another, and every payload does.
    labels = [GAME.label(move) for move in moves if not isinstance(move, Market | Offering)]
    assert len(labels) == len(set(labels)), "a label tells one move from another"
    payloads = [GAME.move_to_proto(m).SerializeToString(deterministic=True) for m in moves]
    assert len(payloads) == len(set(payloads)), "a payload tells one move from another"
    listed = set(moves)
    for move in candidate_moves(state, seat, rng):
        if move in listed:
            GAME.apply(state, seat, move)
        else:
            with pytest.raises(IllegalMove):
                GAME.apply(state, seat, move)


def play_and_check(players, seed, choice_seed):
    rng = random.Random(choice_seed)
    steps = random_playout(players, seed, random.Random(choice_seed))
    for state, seat, _ in steps[:-1]:
        check_step(state, seat, rng)
    final = steps[-1][0]
    assert final.finished and GAME.to_act(final) == ()
    assert final.all_cards() == Counter(build_deck(final.crops))
    outcome = GAME.outcome(final)
    assert outcome is not None and 0 in outcome.ranks


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@matches
@given(seed=seeds, choice_seed=seeds)
def test_random_matches_keep_every_invariant(players, seed, choice_seed):
    play_and_check(players, seed, choice_seed)


@settings(max_examples=5, deadline=None)
@given(seed=seeds, choice_seed=seeds)
def test_random_deluxor_matches_for_six_keep_every_invariant(seed, choice_seed):
    rng = random.Random(choice_seed)
    steps = random_playout(6, seed, random.Random(choice_seed), deluxor=True)
    for state, seat, _ in steps[:-1:3]:
        check_step(state, seat, rng)
    assert steps[-1][0].finished


def test_a_match_always_ends_even_when_every_seat_only_trades():
    state = GAME.setup(3, 11, {})
    moves_made = 0
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        moves = GAME.legal_moves(state, seat)
        trades = [m for m in moves if isinstance(m, Market | Offering)]
        state = GAME.apply(state, seat, (trades or moves)[-1])
        moves_made += 1
        assert moves_made < 2000
    assert state.finished
