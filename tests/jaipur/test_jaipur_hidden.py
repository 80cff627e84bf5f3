"""Hidden information: changing what a seat may not know leaves its view (and a spectator's)
byte-for-byte the same; determinize gives a state with the very same view."""

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from jaipur_playouts import final_state, game
from serai_jaipur.cards import BONUS_KINDS, NUM_GOODS, Good
from serai_jaipur.state import State

seeds = st.integers(min_value=-(2**63), max_value=2**63 - 1)
choices = st.integers(min_value=0, max_value=2**32 - 1)
limits = st.integers(min_value=0, max_value=250)


def view_bytes(state: State, seat: int | None) -> bytes:
    """The view's bytes as the service sends them."""
    return game.view_bytes(game.view(state, seat))


def perturb(state: State, hidden_seats: tuple[int, ...], rng: random.Random) -> State:
    """Change what the seats in ``hidden_seats`` hide: their hands (swapped with deck cards of
    the same count), the deck order, their unrevealed bonus values, and the seed."""
    deck = list(state.deck)
    hands = list(state.hands)
    for seat in hidden_seats:
        hand = [good for good in range(NUM_GOODS) for _ in range(hands[seat][good])]
        deck_goods = [i for i, card in enumerate(deck) if card != Good.CAMEL]
        swaps = rng.randint(0, min(len(hand), len(deck_goods)))
        rng.shuffle(hand)
        for slot, index in enumerate(rng.sample(deck_goods, swaps)):
            hand[slot], deck[index] = deck[index], hand[slot]
        hands[seat] = tuple(hand.count(good) for good in range(NUM_GOODS))
    rng.shuffle(deck)
    stacks = [list(stack) for stack in state.bonus]
    tokens = [list(held) for held in state.bonus_tokens]
    for index, kind in enumerate(BONUS_KINDS):
        places = [
            (seat, i) for seat in hidden_seats for i, t in enumerate(tokens[seat]) if t[0] == kind
        ]
        pool = stacks[index] + [tokens[seat][i][1] for seat, i in places]
        rng.shuffle(pool)
        for seat, i in places:
            tokens[seat][i] = (kind, pool.pop())
        stacks[index] = pool
    return replace(
        state,
        seed=rng.getrandbits(40),
        deck=tuple(deck),
        hands=tuple(hands),
        bonus=tuple(tuple(stack) for stack in stacks),
        bonus_tokens=tuple(tuple(held) for held in tokens),
    )


@settings(max_examples=400)
@given(seed=seeds, choice=choices, limit=limits, noise=choices)
def test_a_seat_view_and_the_spectator_view_ignore_what_that_seat_cannot_know(
    seed, choice, limit, noise
):
    state = final_state(seed, choice, limit)
    rng = random.Random(noise)
    for seat in (0, 1):
        changed = perturb(state, (1 - seat,), rng)
        assert game.view(changed, seat) == game.view(state, seat)
        assert view_bytes(changed, seat) == view_bytes(state, seat)
        assert view_bytes(changed, None) == view_bytes(state, None)
    changed = perturb(state, (0, 1), rng)
    assert view_bytes(changed, None) == view_bytes(state, None)


def test_the_perturbation_does_change_hidden_parts():
    """Guard for the property above: it must really move hands, deck and bonus values."""
    state = final_state(5, 5, 60)
    rng = random.Random(1)
    changed = {perturb(state, (1,), rng) for _ in range(20)}
    assert len({s.hands[1] for s in changed}) > 1
    assert len({s.deck for s in changed}) > 1
    assert all(s.hands[0] == state.hands[0] for s in changed)
    assert len({view_bytes(s, 0) for s in changed}) == 1
    assert len({view_bytes(s, 1) for s in changed}) > 1, "seat 1 sees its own hand change"


@settings(max_examples=400)
@given(seed=seeds, choice=choices, limit=limits, noise=choices)
def test_determinize_gives_a_state_with_the_same_view_for_that_seat(seed, choice, limit, noise):
    state = final_state(seed, choice, limit)
    for seat in (0, 1, None):
        seen = game.view(state, seat)
        sampled = game.determinize(seen, random.Random(noise))
        assert game.view(sampled, seat) == seen
        assert view_bytes(sampled, seat) == view_bytes(state, seat)
        if seat is not None and not state.over:
            assert game.legal_moves(sampled, seat) == game.legal_moves(state, seat)
