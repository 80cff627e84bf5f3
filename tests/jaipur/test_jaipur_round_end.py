"""The end of a round: three empty goods stacks, or a take the deck cannot refill."""

import pytest
from jaipur_builders import C, D, G, K, L, P, S, build
from serai_jaipur import Exchange, JaipurGame, Sell, TakeCamels, TakeGood

game = JaipurGame()

WINNING_TOKENS = (((D, 7), (D, 7), (D, 5)), ())  # seat 0 ahead: its round win ends the match


def test_the_round_ends_when_three_goods_stacks_are_empty():
    state = build(hands=({S: 2}, {}), stacks={D: 0, G: 0, S: 2})
    after = game.apply(state, 0, Sell(S, 2))
    assert len(after.results) == 1
    assert after.results[0].ended_by == "stacks"
    assert after.deal == 2, "the next round is dealt"


def test_two_empty_goods_stacks_do_not_end_the_round():
    state = build(hands=({S: 2, C: 1}, {}), stacks={D: 0, S: 3})
    after = game.apply(state, 0, Sell(S, 2))
    assert after.results == () and after.turn == 1
    after = game.apply(build(hands=({C: 1}, {}), stacks={D: 0, G: 0}), 0, Sell(C, 1))
    assert after.results == ()


def test_a_take_the_deck_cannot_refill_places_what_is_left_then_ends_the_round():
    state = build(
        market={K: 3, D: 1, L: 1},
        deck=[S],
        seals=(1, 0),
        goods_tokens=WINNING_TOKENS,
    )
    after = game.apply(state, 0, TakeCamels(3))
    assert after.results[-1].ended_by == "deck"
    assert after.over, "seat 0 won its second seal, so the last table is kept"
    assert after.market == (1, 0, 1, 0, 0, 1, 0), "the last card was placed in the market"
    assert after.deck == ()
    assert after.herds[0] == 3


def test_taking_one_good_from_an_empty_deck_ends_the_round():
    state = build(market={K: 3, D: 1, L: 1}, deck=[], seals=(1, 0), goods_tokens=WINNING_TOKENS)
    after = game.apply(state, 0, TakeGood(D))
    assert after.over and after.results[-1].ended_by == "deck"
    assert after.hands[0][D] == 1 and sum(after.market) == 4


def test_the_deck_running_out_exactly_as_the_market_reaches_5_does_not_end_the_round():
    state = build(market={K: 1, D: 1, G: 1, C: 1, P: 1}, deck=[S], hands=({}, {L: 2}))
    after = game.apply(state, 0, TakeCamels(1))
    assert after.deck == () and sum(after.market) == 5
    assert after.results == () and after.turn == 1, "play goes on"


def test_with_an_empty_deck_sales_and_exchanges_go_on_and_the_next_take_ends_the_round():
    state = build(
        market={D: 1, G: 1, S: 1, C: 1, P: 1},
        deck=[],
        hands=({L: 3}, {L: 2}),
        herds=(2, 0),
        seals=(1, 0),
        goods_tokens=WINNING_TOKENS,
    )
    state = game.apply(state, 0, Exchange(take=(D, G), give=(K, K)))
    assert state.results == ()
    state = game.apply(state, 1, Sell(L, 2))
    assert state.results == ()
    state = game.apply(state, 0, TakeGood(S))
    assert state.over and state.results[-1].ended_by == "deck"


@pytest.mark.parametrize("seed", range(5))
def test_the_round_ends_only_by_its_two_conditions(seed):
    """In random play, every scored round had three empty stacks or a deck too short."""
    import random

    rng = random.Random(seed)
    state = game.setup(2, seed, {})
    while not state.over:
        seat = state.turn
        before = state
        move = rng.choice(game.legal_moves(state, seat))
        state = game.apply(state, seat, move)
        if len(state.results) > len(before.results):
            result = state.results[-1]
            if result.ended_by == "stacks":
                assert isinstance(move, Sell)
                assert sum(1 for n in before.stacks if n == 0) == 2
            else:
                assert isinstance(move, TakeGood | TakeCamels)
                need = 1 if isinstance(move, TakeGood) else move.count
                assert len(before.deck) < need
        else:
            assert sum(state.market) == 5
