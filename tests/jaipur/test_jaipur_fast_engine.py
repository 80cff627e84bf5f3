"""The fast engine agrees with the plain rules: memo-table move lists, advance, evolve.

``legal_moves`` is built from memo tables (``serai_jaipur.legal``) and ``rules.advance`` plays a
listed move without checking it; here both are held to the plain reading of the rules: a brute
enumeration filtered by the checked ``apply``, and ``apply`` itself.
"""

import dataclasses
import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jaipur_builders import C, D, K, L, S, build
from jaipur_playouts import game, playout
from serai.game import IllegalMove
from serai_jaipur import Exchange, Sell, State, TakeCamels, TakeGood, legal, rules
from serai_jaipur.cards import GOODS, Good
from serai_jaipur.legal import list_moves, moves_for
from serai_jaipur.state import evolve

seeds = st.integers(min_value=-(2**63), max_value=2**63 - 1)
choices = st.integers(min_value=0, max_value=2**32 - 1)


def _spelled(counts):
    return tuple(Good(card) for card, count in enumerate(counts) for _ in range(count))


def _accepted(state, move):
    try:
        game.apply(state, state.turn, move)
    except IllegalMove:
        return False
    return True


def plain_moves(state):
    """Every move the checked apply accepts, among all a hand and market could conceivably
    make, in the canonical order: takes of one good, take camels, exchanges by ascending take
    then ascending give-back (counts in Good order, camels last), sales by good then count."""
    market, hand, herd = state.market, state.hands[state.turn], state.herds[state.turn]
    candidates = [TakeGood(good) for good in GOODS]
    candidates.append(TakeCamels(market[Good.CAMEL]))
    for take in product(*(range(market[good] + 1) for good in GOODS)):
        size = sum(take)
        if size < 2:
            continue
        payable = [range(min(hand[good], size) + 1) for good in GOODS]
        for give in product(*payable, range(min(herd, size) + 1)):
            if sum(give) == size:
                candidates.append(Exchange(_spelled(take), _spelled(give)))
    candidates += [Sell(good, count) for good in GOODS for count in range(1, hand[good] + 1)]
    return [move for move in candidates if _accepted(state, move)]


@settings(max_examples=40, deadline=None)
@given(seed=seeds, choice=choices, every=st.integers(min_value=7, max_value=13))
def test_legal_moves_are_exactly_what_apply_accepts_in_canonical_order(seed, choice, every):
    for step, (state, _) in enumerate(playout(seed, choice)):
        if step % every == 0:
            assert list(game.legal_moves(state, state.turn)) == plain_moves(state)


def test_legal_moves_on_built_positions_match_the_plain_enumeration():
    positions = [
        build(market={K: 3, L: 2}, hands=({D: 2, S: 1, C: 3}, {}), herds=(4, 0)),
        build(market={D: 2, S: 2, C: 1}, hands=({L: 7}, {}), herds=(5, 0)),
        build(market={D: 1, S: 1, C: 1, L: 2}, hands=({D: 1, S: 1, C: 1, L: 1}, {}), herds=(11, 0)),
        build(market={L: 5}, hands=({}, {}), herds=(0, 0)),
        build(market={K: 5}, hands=({D: 6, C: 1}, {}), herds=(0, 0)),
    ]
    for state in positions:
        listed = game.legal_moves(state, state.turn)
        assert list(listed) == plain_moves(state)
        assert len(set(listed)) == len(listed)


@settings(max_examples=150, deadline=None)
@given(seed=seeds, choice=choices)
def test_advance_gives_the_state_apply_gives(seed, choice):
    for state, move in playout(seed, choice):
        checked = game.apply(state, state.turn, move)
        fast = rules.advance(state, move)
        assert fast == checked
        assert game.encode_state(fast) == game.encode_state(checked)


def test_a_match_played_with_advance_ends_like_the_one_played_with_apply():
    rng_apply, rng_advance = random.Random(5), random.Random(5)
    checked = fast = game.setup(2, 11, {})
    while checked.turn is not None:
        checked = game.apply(
            checked, checked.turn, rng_apply.choice(game.legal_moves(checked, checked.turn))
        )
        fast = rules.advance(fast, rng_advance.choice(game.legal_moves(fast, fast.turn)))
    assert fast == checked and fast.over
    assert game.outcome(fast) == game.outcome(checked)


def test_the_position_memo_and_the_plain_listing_agree():
    for state, _ in playout(3, 4):
        seat = state.turn
        position = (state.market, state.hands[seat], state.herds[seat])
        assert moves_for(*position) == list_moves(*position) == list_moves(*position)


def test_evolve_is_dataclasses_replace_without_init():
    state = game.setup(2, 9, {})
    changes = {"turn": 1 - state.turn, "market": (0, 0, 0, 0, 0, 0, 5), "seals": (1, 0)}
    after = evolve(state, **changes)
    assert type(after) is State
    assert after == dataclasses.replace(state, **changes)
    assert hash(after) == hash(dataclasses.replace(state, **changes))
    assert state == game.setup(2, 9, {}), "evolve never changes its input"


def test_an_evolved_state_is_still_frozen():
    after = evolve(game.setup(2, 9, {}), turn=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.turn = 1


def test_give_back_masks_list_the_product_enumeration_for_every_hand_herd_and_size():
    """The give-backs of the memo table (an ``&`` of masks, then the set bits) are exactly the
    vectors a product over the caps gives, filtered by size, in the same order."""
    vectors = legal._GIVE_VECTORS.vectors
    for size in range(2, 6):
        for room in range(8):
            camels = min(room, size)
            table = legal._GIVES[room][size]
            for hand in product(range(8), repeat=6):
                if sum(hand) > 7:
                    continue
                packed = sum(count << 4 * good for good, count in enumerate(hand))
                caps = (*(min(count, size) for count in hand), camels)
                plain = [v for v in product(*(range(c + 1) for c in caps)) if sum(v) == size]
                assert [vectors[n] for n in table[packed]] == plain


def test_give_vectors_are_numbered_once_spelled_as_sorted_cards():
    numbers = legal._GIVE_VECTORS
    assert len(set(numbers.vectors)) == len(numbers.vectors) == 28 + 84 + 210 + 462
    for vector, cards in zip(numbers.vectors, numbers.spelled, strict=True):
        assert cards == _spelled(vector)
        assert all(type(card) is Good for card in cards)


def test_listed_exchanges_equal_exchanges_built_the_checked_way():
    for state, _ in playout(8, 2):
        for move in game.legal_moves(state, state.turn):
            if isinstance(move, Exchange):
                built = Exchange(move.take, move.give)
                assert move == built and hash(move) == hash(built) and repr(move) == repr(built)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, choice=choices)
def test_a_listed_move_and_an_equal_copy_of_it_apply_alike(seed, choice):
    """apply takes a move found by identity in the listed moves without checking it; a copy
    (another object, equal) goes through the checks, and both give the same state."""
    for state, move in playout(seed, choice, limit=60):
        copy = dataclasses.replace(move)
        assert copy is not move and copy == move
        listed = game.apply(state, state.turn, move)
        checked = game.apply(state, state.turn, copy)
        assert listed == checked
        assert game.encode_state(listed) == game.encode_state(checked)


def test_equal_listed_moves_are_one_object_whichever_position_lists_them():
    """The listing memos share one object per distinct move (the server's full garbage
    collections walk every object they hold), for every kind of move."""
    seen: dict[object, object] = {}
    met_again: set[type] = set()
    for seed in range(4):
        for state, _ in playout(seed, seed + 7):
            for move in game.legal_moves(state, state.turn):  # type: ignore[arg-type]
                if move in seen:
                    assert seen[move] is move, move
                    met_again.add(type(move))
                seen[move] = move
    assert set(met_again) == {TakeGood, TakeCamels, Exchange, Sell}


def test_a_move_listed_for_another_position_is_still_checked():
    state = build(market={K: 3, L: 2}, hands=({D: 2}, {}), herds=(0, 0))
    other = build(market={D: 2, S: 3}, hands=({L: 2}, {}), herds=(0, 0))
    borrowed = next(m for m in game.legal_moves(other, other.turn) if isinstance(m, Exchange))
    with pytest.raises(IllegalMove, match="exchange: the market has 0"):
        game.apply(state, state.turn, borrowed)
    with pytest.raises(IllegalMove, match="turn"):
        game.apply(state, 1 - state.turn, game.legal_moves(state, state.turn)[0])
