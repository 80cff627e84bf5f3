"""Selling: one type, tokens from the top, fewer when the stack runs out, bonuses by cards sold."""

import pytest
from jaipur_builders import C, D, G, K, L, P, S, build
from serai.game import IllegalMove
from serai_jaipur import JaipurGame, Sell

game = JaipurGame()


def test_a_sale_discards_the_cards_and_takes_tokens_from_the_top_of_the_stack():
    state = build(hands=({D: 2, C: 1}, {}))
    after = game.apply(state, 0, Sell(D, 2))
    assert after.hands[0] == (0, 0, 0, 1, 0, 0)
    assert after.discards[D] == 2
    assert after.goods_tokens[0] == ((D, 7), (D, 7))
    assert after.stacks[D] == 3
    assert after.turn == 1


def test_the_next_sale_of_a_good_takes_the_lower_tokens():
    state = build(hands=({C: 3}, {C: 2}), stacks={C: 7})
    after = game.apply(state, 0, Sell(C, 1))
    after = game.apply(after, 1, Sell(C, 2))
    assert after.goods_tokens == (((C, 5),), ((C, 3), (C, 3)))


def test_diamonds_gold_and_silver_are_sold_two_at_least():
    state = build(hands=({D: 1, G: 1, S: 1, C: 1}, {}))
    moves = game.legal_moves(state, 0)
    assert not [m for m in moves if isinstance(m, Sell) and m.good in (D, G, S)]
    for good in (D, G, S):
        with pytest.raises(IllegalMove, match="sold 2 cards at least"):
            game.apply(state, 0, Sell(good, 1))


def test_cloth_spice_and_leather_sell_one_card():
    state = build(hands=({C: 1, P: 1, L: 1}, {}))
    sales = {m for m in game.legal_moves(state, 0) if isinstance(m, Sell)}
    assert sales == {Sell(C, 1), Sell(P, 1), Sell(L, 1)}


def test_the_two_card_minimum_holds_even_when_the_stack_is_empty():
    state = build(hands=({G: 1}, {}), stacks={G: 0})
    with pytest.raises(IllegalMove, match="even when the token stack is empty"):
        game.apply(state, 0, Sell(G, 1))


def test_selling_is_allowed_when_the_token_stack_is_empty():
    state = build(hands=({S: 2}, {}), stacks={S: 0})
    assert Sell(S, 2) in game.legal_moves(state, 0)
    after = game.apply(state, 0, Sell(S, 2))
    assert after.hands[0][S] == 0 and after.discards[S] == 2
    assert after.goods_tokens[0] == ()


def test_a_sale_takes_fewer_tokens_when_the_stack_runs_out_and_is_not_capped():
    state = build(hands=({L: 4}, {}), stacks={L: 2})
    assert Sell(L, 4) in game.legal_moves(state, 0), "a sale is not capped at the tokens left"
    after = game.apply(state, 0, Sell(L, 4))
    assert after.goods_tokens[0] == ((L, 1), (L, 1))
    assert after.discards[L] == 4 and after.hands[0][L] == 0
    assert after.stacks[L] == 0


@pytest.mark.parametrize(("sold", "stack"), [(3, 0), (4, 1), (5, 2)])
def test_a_sale_of_3_4_or_5_cards_takes_the_top_bonus_of_the_matching_stack(sold, stack):
    bonus = ((3, 1, 2), (6, 4, 5), (10, 8, 9))
    state = build(hands=({L: sold}, {}), bonus=bonus)
    after = game.apply(state, 0, Sell(L, sold))
    assert after.bonus_tokens[0] == ((sold, bonus[stack][0]),)
    assert after.bonus[stack] == bonus[stack][1:]
    assert [len(s) for i, s in enumerate(after.bonus) if i != stack] == [3, 3]


def test_a_sale_of_1_or_2_cards_takes_no_bonus():
    state = build(hands=({L: 2, C: 1}, {}))
    assert game.apply(state, 0, Sell(L, 2)).bonus_tokens[0] == ()
    assert game.apply(state, 0, Sell(C, 1)).bonus_tokens[0] == ()


@pytest.mark.parametrize("sold", [6, 7])
def test_a_sale_of_6_or_7_cards_takes_a_5_card_bonus(sold):
    state = build(hands=({L: sold}, {}), bonus=((1,), (4,), (10, 8)))
    after = game.apply(state, 0, Sell(L, sold))
    assert after.bonus_tokens[0] == ((5, 10),)
    assert after.bonus == ((1,), (4,), (8,))


def test_the_bonus_depends_on_cards_sold_not_tokens_received():
    state = build(hands=({S: 4}, {}), stacks={S: 1}, bonus=((1,), (6, 4), (10,)))
    after = game.apply(state, 0, Sell(S, 4))
    assert after.goods_tokens[0] == ((S, 5),)
    assert after.bonus_tokens[0] == ((4, 6),)


def test_an_empty_bonus_stack_gives_nothing():
    state = build(hands=({C: 3}, {}), bonus=((), (4,), (10,)))
    after = game.apply(state, 0, Sell(C, 3))
    assert after.bonus_tokens[0] == ()
    assert after.goods_tokens[0] == ((C, 5), (C, 3), (C, 3))


def test_bonus_values_come_from_the_shuffled_fixed_stacks_not_at_random():
    dealt = game.setup(2, 21, {}).bonus
    state = build(hands=({L: 5, C: 4}, {C: 3}), bonus=dealt)
    after = game.apply(state, 0, Sell(L, 5))
    after = game.apply(after, 1, Sell(C, 3))
    after = game.apply(after, 0, Sell(C, 4))
    assert after.bonus_tokens == (((5, dealt[2][0]), (4, dealt[1][0])), ((3, dealt[0][0]),))
    assert after.bonus == tuple(stack[1:] for stack in dealt)


def test_camels_can_never_be_sold():
    state = build(herds=(4, 0))
    assert not [m for m in game.legal_moves(state, 0) if isinstance(m, Sell) and m.good == K]
    with pytest.raises(IllegalMove, match="camels can never be sold"):
        game.apply(state, 0, Sell(K, 2))


def test_a_sale_cannot_sell_more_cards_than_the_hand_holds():
    state = build(hands=({C: 2}, {}))
    with pytest.raises(IllegalMove, match="your hand has 2 cloth, not 3"):
        game.apply(state, 0, Sell(C, 3))


def test_a_sale_sells_at_least_one_card():
    state = build(hands=({C: 2}, {}))
    with pytest.raises(IllegalMove, match="at least 1 card, not 0"):
        game.apply(state, 0, Sell(C, 0))


def test_every_count_of_one_type_is_a_legal_sale():
    state = build(hands=({D: 3, L: 4}, {}))
    sales = [m for m in game.legal_moves(state, 0) if isinstance(m, Sell)]
    assert sales == [Sell(D, 2), Sell(D, 3), Sell(L, 1), Sell(L, 2), Sell(L, 3), Sell(L, 4)]
