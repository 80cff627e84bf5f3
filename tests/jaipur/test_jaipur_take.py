"""Taking: one good (hand limit 7), all the camels (always allowed when there are any)."""

import pytest
from jaipur_builders import C, D, G, K, L, S, build, total_cards
from serai.game import IllegalMove
from serai_jaipur import JaipurGame, TakeCamels, TakeGood

game = JaipurGame()


def test_taking_one_good_moves_it_to_the_hand_and_refills_from_the_top_of_the_deck():
    state = build(market={K: 3, D: 1, L: 1}, deck=[S, G, C])
    after = game.apply(state, 0, TakeGood(D))
    assert after.hands[0][D] == 1
    assert after.market == (0, 0, 1, 0, 0, 1, 3)  # the silver on top came in
    assert after.deck == (G, C)
    assert after.turn == 1


def test_taking_one_good_with_7_cards_in_hand_is_illegal():
    state = build(market={K: 3, D: 1, L: 1}, hands=({C: 4, S: 3}, {}))
    assert TakeGood(D) not in game.legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="hand limit"):
        game.apply(state, 0, TakeGood(D))


def test_taking_one_good_with_6_cards_in_hand_is_allowed():
    state = build(market={K: 3, D: 1, L: 1}, hands=({C: 3, S: 3}, {}))
    assert sum(game.apply(state, 0, TakeGood(D)).hands[0]) == 7


def test_a_good_that_is_not_in_the_market_cannot_be_taken():
    state = build(market={K: 3, D: 1, L: 1})
    with pytest.raises(IllegalMove, match="no gold in the market"):
        game.apply(state, 0, TakeGood(G))


def test_a_camel_is_not_taken_as_one_good():
    state = build(market={K: 3, D: 1, L: 1})
    with pytest.raises(IllegalMove, match="camels are not taken one at a time"):
        game.apply(state, 0, TakeGood(K))


def test_taking_camels_takes_every_camel_into_the_herd_and_refills():
    state = build(market={K: 3, D: 1, L: 1}, herds=(2, 0), deck=[S, G, C, C])
    after = game.apply(state, 0, TakeCamels(3))
    assert after.herds == (5, 0)
    assert after.hands == state.hands, "camels go to the herd, never to the hand"
    assert after.market == (1, 1, 1, 1, 0, 1, 0)
    assert after.deck == (C,)
    assert total_cards(after) == total_cards(state)


def test_taking_camels_must_take_all_of_them():
    state = build(market={K: 3, D: 1, L: 1})
    assert [m for m in game.legal_moves(state, 0) if isinstance(m, TakeCamels)] == [TakeCamels(3)]
    with pytest.raises(IllegalMove, match="takes all of them: the market has 3, not 2"):
        game.apply(state, 0, TakeCamels(2))


def test_taking_camels_is_allowed_with_7_cards_in_hand():
    state = build(market={K: 2, D: 2, L: 1}, hands=({C: 4, S: 3}, {}))
    assert TakeCamels(2) in game.legal_moves(state, 0)
    assert game.apply(state, 0, TakeCamels(2)).herds[0] == 2


def test_taking_camels_needs_camels_in_the_market():
    state = build(market={D: 2, L: 3})
    assert not [m for m in game.legal_moves(state, 0) if isinstance(m, TakeCamels)]
    with pytest.raises(IllegalMove, match="no camels in the market"):
        game.apply(state, 0, TakeCamels(0))


def test_a_market_of_five_camels_can_always_be_taken():
    state = build(market={K: 5}, hands=({C: 7}, {}))
    assert TakeCamels(5) in game.legal_moves(state, 0)
