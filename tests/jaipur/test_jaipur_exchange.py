"""Exchange: 2+ goods from the market for as many cards from the hand and/or the herd."""

from itertools import combinations

import pytest
from jaipur_builders import C, D, G, K, L, P, S, build
from serai.game import IllegalMove
from serai_jaipur import Exchange, JaipurGame
from serai_jaipur.cards import HAND_LIMIT, Good

game = JaipurGame()


def exchanges(state, seat=0):
    return [m for m in game.legal_moves(state, seat) if isinstance(m, Exchange)]


def test_an_exchange_of_two_for_two_swaps_cards_between_market_and_hand():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 2}, {}), deck=[S])
    after = game.apply(state, 0, Exchange(take=(D, G), give=(C, C)))
    assert after.hands[0] == (1, 1, 0, 0, 0, 0)
    assert after.market == (0, 0, 0, 2, 0, 0, 3)
    assert after.deck == state.deck, "an exchange needs no refill"
    assert after.turn == 1


def test_an_exchange_may_pay_with_camels_from_the_herd():
    state = build(market={K: 3, D: 1, G: 1}, herds=(2, 0))
    after = game.apply(state, 0, Exchange(take=(D, G), give=(K, K)))
    assert after.herds[0] == 0
    assert after.market[K] == 5
    assert sum(after.hands[0]) == 2


def test_an_exchange_may_mix_goods_from_the_hand_and_camels():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 1}, {}), herds=(1, 0))
    after = game.apply(state, 0, Exchange(take=(D, G), give=(C, K)))
    assert after.hands[0] == (1, 1, 0, 0, 0, 0)
    assert after.herds[0] == 0


def test_a_one_for_one_exchange_is_illegal():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 2}, {}))
    assert all(len(m.take) >= 2 for m in exchanges(state))
    with pytest.raises(IllegalMove, match="takes 2 or more goods"):
        game.apply(state, 0, Exchange(take=(D,), give=(C,)))


def test_an_exchange_takes_no_camels():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 2}, {}))
    assert all(K not in m.take for m in exchanges(state))
    with pytest.raises(IllegalMove, match="an exchange takes no camels"):
        game.apply(state, 0, Exchange(take=(D, K), give=(C, C)))


def test_an_exchange_puts_back_as_many_cards_as_it_takes():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 3}, {}))
    with pytest.raises(IllegalMove, match="as many cards as it takes: it takes 2 and gives 3"):
        game.apply(state, 0, Exchange(take=(D, G), give=(C, C, C)))


def test_exchange_cannot_return_a_type_it_takes():
    state = build(market={K: 1, D: 2, C: 2}, hands=({C: 1, L: 1}, {}))
    assert Exchange(take=(D, C), give=(C, L)) not in exchanges(state)
    assert all(not set(m.take) & set(m.give) for m in exchanges(state))
    with pytest.raises(IllegalMove, match="may not put back a type it takes: cloth"):
        game.apply(state, 0, Exchange(take=(D, C), give=(C, L)))


def test_an_exchange_cannot_take_more_than_the_market_holds():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 2}, {}))
    with pytest.raises(IllegalMove, match="the market has 1 diamond, the exchange takes 2"):
        game.apply(state, 0, Exchange(take=(D, D), give=(C, C)))


def test_an_exchange_cannot_give_cards_the_hand_or_herd_lacks():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 1}, {}), herds=(1, 0))
    with pytest.raises(IllegalMove, match="your hand has 1 cloth, the exchange gives 2"):
        game.apply(state, 0, Exchange(take=(D, G), give=(C, C)))
    with pytest.raises(IllegalMove, match="your herd has 1 camel, the exchange gives 2"):
        game.apply(state, 0, Exchange(take=(D, G), give=(K, K)))


def test_an_exchange_paid_with_camels_must_not_pass_the_hand_limit():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 6}, {}), herds=(2, 0))
    legal = exchanges(state)
    assert Exchange(take=(D, G), give=(K, K)) not in legal  # 6 + 2 = 8
    assert Exchange(take=(D, G), give=(C, K)) in legal  # 6 + 1 = 7
    assert Exchange(take=(D, G), give=(C, C)) in legal  # 6
    with pytest.raises(IllegalMove, match=r"hand limit: .* would hold 8"):
        game.apply(state, 0, Exchange(take=(D, G), give=(K, K)))


def test_an_exchange_of_goods_for_goods_is_allowed_with_7_in_hand():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 7}, {}), herds=(3, 0))
    legal = exchanges(state)
    assert legal == [Exchange(take=(D, G), give=(C, C))]


def test_an_exchange_is_written_in_any_order_and_read_as_multisets():
    state = build(market={K: 3, D: 1, G: 1}, hands=({C: 1}, {}), herds=(1, 0))
    assert Exchange(take=(G, D), give=(K, C)) == Exchange(take=(D, G), give=(C, K))
    after = game.apply(state, 0, Exchange(take=[Good.GOLD, 0], give=[6, 3]))
    assert after == game.apply(state, 0, Exchange(take=(D, G), give=(C, K)))


def _brute_force_exchanges(market, hand, herd):
    """Every exchange by card identity (each card its own object), reduced to multisets."""
    market_cards = [(g, i) for g in Good if g is not K for i in range(market.get(g, 0))]
    giveable = [(g, i) for g in Good if g is not K for i in range(hand.get(g, 0))]
    giveable += [(K, i) for i in range(herd)]
    hand_size = sum(hand.values())
    found = set()
    for n in range(2, len(market_cards) + 1):
        for take in combinations(market_cards, n):
            for give in combinations(giveable, n):
                taken = {g for g, _ in take}
                if taken & {g for g, _ in give}:
                    continue
                camels = sum(1 for g, _ in give if g is K)
                if hand_size + camels > HAND_LIMIT:
                    continue
                found.add(Exchange(tuple(g for g, _ in take), tuple(g for g, _ in give)))
    return found


@pytest.mark.parametrize(
    ("market", "hand", "herd"),
    [
        ({D: 2, G: 1, S: 1, K: 1}, {C: 2, P: 1, L: 1}, 3),
        ({C: 3, L: 2}, {D: 2, G: 2, S: 1}, 5),
        ({D: 1, G: 1, S: 1, C: 1, P: 1}, {L: 4, D: 1}, 2),
        ({D: 1, G: 1, K: 3}, {C: 5}, 4),
    ],
)
def test_legal_exchanges_are_every_multiset_exchange_exactly_once(market, hand, herd):
    state = build(market=market, hands=(hand, {}), herds=(herd, 0))
    legal = exchanges(state)
    assert len(legal) == len(set(legal)), "no exchange listed twice"
    assert set(legal) == _brute_force_exchanges(market, hand, herd)
