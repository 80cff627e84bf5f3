"""Components and setup: 55 cards, the token stacks, the deal, the first player."""

from collections import Counter

import pytest
from jaipur_builders import K, total_cards
from serai.game import InvalidOptions
from serai_jaipur import JaipurGame
from serai_jaipur.cards import (
    BONUS_TOKENS,
    CARD_COUNTS,
    GOODS_TOKENS,
    Good,
    bonus_kind,
    minimum_sale,
)
from serai_jaipur.rules import deal, first_player

game = JaipurGame()


def test_the_game_has_55_cards_of_seven_types():
    counts = dict(zip((g.name.lower() for g in Good), CARD_COUNTS, strict=True))
    assert counts == {
        "diamond": 6,
        "gold": 6,
        "silver": 6,
        "cloth": 8,
        "spice": 8,
        "leather": 10,
        "camel": 11,
    }
    assert sum(CARD_COUNTS) == 55


def test_goods_token_stacks_are_highest_on_top():
    assert GOODS_TOKENS[Good.DIAMOND] == (7, 7, 5, 5, 5)
    assert GOODS_TOKENS[Good.GOLD] == (6, 6, 5, 5, 5)
    assert GOODS_TOKENS[Good.SILVER] == (5, 5, 5, 5, 5)
    assert GOODS_TOKENS[Good.CLOTH] == (5, 3, 3, 2, 2, 1, 1)
    assert GOODS_TOKENS[Good.SPICE] == (5, 3, 3, 2, 2, 1, 1)
    assert GOODS_TOKENS[Good.LEATHER] == (4, 3, 2, 1, 1, 1, 1, 1, 1)
    for stack in GOODS_TOKENS:
        assert list(stack) == sorted(stack, reverse=True)


def test_there_are_18_bonus_tokens_in_three_stacks():
    assert BONUS_TOKENS == ((1, 1, 2, 2, 2, 3, 3), (4, 4, 5, 5, 6, 6), (8, 8, 9, 10, 10))
    assert sum(map(len, BONUS_TOKENS)) == 18


def test_a_sale_of_6_or_7_cards_draws_from_the_5_card_bonus_stack():
    assert [bonus_kind(n) for n in range(1, 8)] == [None, None, 3, 4, 5, 5, 5]


def test_diamonds_gold_and_silver_sell_two_at_least_the_others_one():
    assert [minimum_sale(g) for g in Good if g is not Good.CAMEL] == [2, 2, 2, 1, 1, 1]


def test_setup_puts_three_camels_and_the_top_two_cards_in_the_market():
    for seed in range(40):
        state = game.setup(2, seed, {})
        assert sum(state.market) == 5
        assert 3 <= state.market[K] <= 5


def test_setup_deals_five_cards_each_and_dealt_camels_go_to_the_herd():
    for seed in range(40):
        state = game.setup(2, seed, {})
        for seat in (0, 1):
            assert sum(state.hands[seat]) + state.herds[seat] == 5
        assert len(state.deck) == 55 - 5 - 10
        assert total_cards(state) == 55


def test_setup_shuffles_all_52_other_cards_with_the_deal_generator():
    state = deal(seed=3, deal_number=1, round_number=1, starter=0, seals=(0, 0), results=())
    hidden = Counter(state.deck)
    for seat in (0, 1):
        for good, count in enumerate(state.hands[seat]):
            hidden[good] += count
        hidden[K] += state.herds[seat]
    for good, count in enumerate(state.market):
        hidden[good] += count
    hidden[K] -= 3
    assert sum(hidden.values()) == 52
    assert all(hidden[g] == CARD_COUNTS[g] - (3 if g == K else 0) for g in Good)


def test_setup_rebuilds_goods_stacks_and_shuffles_the_bonus_stacks():
    state = game.setup(2, 11, {})
    assert state.stacks == tuple(len(stack) for stack in GOODS_TOKENS)
    assert tuple(sorted(stack) for stack in state.bonus) == tuple(
        sorted(stack) for stack in BONUS_TOKENS
    )
    orders = {deal(11, n, 1, 0, (0, 0), ()).bonus for n in range(1, 30)}
    assert len(orders) > 1, "every deal reshuffles the bonus stacks"


def test_the_same_seed_gives_the_same_deal():
    assert game.setup(2, 5, {}) == game.setup(2, 5, {})
    assert game.setup(2, 5, {}) != game.setup(2, 6, {})


def test_the_first_player_of_round_1_is_drawn_by_lot_not_always_seat_0():
    starters = Counter(first_player(seed) for seed in range(200))
    assert set(starters) == {0, 1}
    assert 60 < starters[0] < 140
    for seed in range(20):
        state = game.setup(2, seed, {})
        assert state.turn == state.starter == first_player(seed)
        assert game.to_act(state) == (state.starter,)


def test_jaipur_is_for_two_players_and_takes_no_options():
    with pytest.raises(InvalidOptions, match="played by 2 players, not 3"):
        game.setup(3, 1, {})
    with pytest.raises(InvalidOptions, match="no options"):
        game.setup(2, 1, {"rounds": 5})
    assert game.resolve_options({}) == {}
