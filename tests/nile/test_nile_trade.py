"""Trade: discard exactly 2 from hand and/or storehouse; market draws 1, offering floods anew."""

import pytest
from nile_support import GAME, card, crop, field, hand_names, store, table
from serai.game import IllegalMove
from serai_nile.cards import PLAGUE
from serai_nile.moves import Market, Offering, Pass


def test_a_market_discards_two_cards_and_draws_one_into_the_hand():
    before = table(hands=[["wheat", "flax", "castor"], []], deck=["lettuce", "papyrus"])
    after = GAME.apply(before, 0, Market(hand=(card("wheat"), card("flax"))))
    assert hand_names(after, 0) == ["lettuce", "castor"]
    assert [c.name for c in after.discard] == ["wheat", "flax"]
    assert after.active == 0, "a trade does not end the turn"


def test_storehouse_cards_are_traded_by_crop():
    before = table(hands=[["wheat"], []], storehouses=[{"flax": 2}, {}])
    after = GAME.apply(before, 0, Market(hand=(card("wheat"),), storehouse=(crop("flax"),)))
    assert store(after, 0, "flax") == 1 and hand_names(after, 0) == ["papyrus"]
    assert [c.name for c in after.discard] == ["wheat", "flax"]
    assert GAME.label(Market(hand=(card("wheat"),), storehouse=(crop("flax"),))) == (
        "market: discard 1 card from hand + 1 from storehouse"
    )


def test_a_trade_may_take_both_cards_from_the_storehouse():
    before = table(storehouses=[{"flax": 1, "papyrus": 1}, {}])
    after = GAME.apply(before, 0, Market(storehouse=(crop("flax"), crop("papyrus"))))
    assert sum(after.storehouses[0]) == 0 and len(after.hands[0]) == 1


def test_speculation_cards_may_be_traded_away():
    before = table(hands=[["wheat/flax", "papyrus/castor"], []])
    after = GAME.apply(before, 0, Market(hand=(card("wheat/flax"), card("papyrus/castor"))))
    assert hand_names(after, 0) == ["papyrus"]


@pytest.mark.parametrize(
    "move",
    [
        Market(hand=(card("wheat"),)),
        Market(hand=(card("wheat"), card("wheat")), storehouse=(crop("flax"),)),
        Offering(),
    ],
)
def test_a_trade_discards_exactly_two_cards(move):
    before = table(hands=[["wheat", "wheat"], []], storehouses=[{"flax": 1}, {}])
    with pytest.raises(IllegalMove, match="exactly 2 cards"):
        GAME.apply(before, 0, move)


def test_a_trade_cannot_discard_cards_the_seat_does_not_have():
    before = table(hands=[["wheat", "flax"], []], storehouses=[{"flax": 1}, {}])
    with pytest.raises(IllegalMove, match="you have only 1 wheat in hand"):
        GAME.apply(before, 0, Market(hand=(card("wheat"), card("wheat"))))
    with pytest.raises(IllegalMove, match="your storehouse holds 1 flax"):
        GAME.apply(before, 0, Market(storehouse=(crop("flax"), crop("flax"))))
    with pytest.raises(IllegalMove, match="you have no papyrus/wheat in hand"):
        GAME.apply(before, 0, Market(hand=(card("wheat/papyrus"), card("flax"))))


def test_trades_repeat_as_long_as_the_seat_has_cards():
    state = table(hands=[["wheat"] * 6, []], deck=["flax"] * 10)
    for _ in range(5):
        state = GAME.apply(state, 0, Market(hand=(card("wheat"), card("wheat"))))
        if len([c for c in state.hands[0] if c.name == "wheat"]) < 2:
            break
    assert hand_names(state, 0) == ["flax"] * 3
    assert state.active == 0


def test_an_offering_reveals_a_new_flood_card_with_a_full_harvest_and_a_new_restriction():
    before = table(
        hands=[["wheat", "wheat", "lettuce", "lettuce"], []],
        fields=[{}, {"castor": 2}],
        flood_pile=["lettuce"],
        deck=["castor", "papyrus"],
    )
    assert "plant 2 lettuce" not in [GAME.label(m) for m in GAME.legal_moves(before, 0)]
    after = GAME.apply(before, 0, Offering(hand=(card("wheat"), card("wheat"))))
    assert [c.label for c in after.flooded] == ["castor"]
    assert [c.name for c in after.flood_pile] == ["lettuce", "castor"]
    assert store(after, 1, "castor") == 1 and field(after, 1, "castor") == 1
    assert len(after.hands[0]) == 2, "an offering draws nothing into the hand"
    labels = [GAME.label(m) for m in GAME.legal_moves(after, 0)]
    assert "plant 2 lettuce" in labels, "lettuce is no longer flooded"


def test_an_offering_resolves_speculation_cards_on_the_table():
    # In play the next turn's own flood always comes first; the mechanism is the same flood.
    before = table(
        hands=[["wheat", "wheat"], []],
        speculations=[[], ["papyrus/castor"]],
        deck=["castor", "flax", "flax", "flax"],
    )
    after = GAME.apply(before, 0, Offering(hand=(card("wheat"), card("wheat"))))
    assert hand_names(after, 1) == ["flax"] * 3


def test_a_plague_drawn_at_the_market_is_discarded_replaced_and_resolved():
    before = table(
        hands=[["wheat", "wheat"], []],
        fields=[{"flax": 2}, {"papyrus": 2, "castor": 1}],
        deck=["plague", "lettuce", "papyrus"],
    )
    after = GAME.apply(before, 0, Market(hand=(card("wheat"), card("wheat"))))
    assert hand_names(after, 0) == ["lettuce"]
    assert PLAGUE in after.discard
    assert field(after, 0, "flax") == 0 and field(after, 1, "papyrus") == 0
    assert field(after, 1, "castor") == 1


def test_a_trade_is_not_a_way_to_end_the_turn_a_pass_is():
    before = table(hands=[["wheat", "wheat"], []], deck=["flax"] * 6)
    after = GAME.apply(before, 0, Pass())
    assert after.active == 1


def _shown(state, seat):
    return GAME.present(GAME.view_to_proto(GAME.view(state, seat)))


def test_the_table_says_which_phase_of_the_turn_it_is_in_before_and_after_a_trade():
    """Issue 36: a turn read the same before and after trading. Before, its seat may trade
    first; after a trade it now plants, speculates or passes (or trades again). Every seat and a
    spectator read the same phase, the stored state keeps it, and the next turn starts over."""
    before = table(hands=[["wheat", "flax", "castor"], []], deck=["lettuce"] * 10)
    for seat in (0, 1, None):
        assert _shown(before, seat).headline == (
            "Turn 1 · seat 0 to play · trade first, or plant, speculate or pass"
        )
    traded = GAME.apply(before, 0, Market(hand=(card("wheat"), card("flax"))))
    for seat in (0, 1, None):
        assert _shown(traded, seat).headline == (
            "Turn 1 · seat 0 has traded · now plant, speculate or pass (or trade again)"
        )
    assert GAME.decode_state(GAME.encode_state(traded)).traded_this_turn
    assert b"traded_this_turn" not in GAME.encode_state(before)  # as states stored before it
    view = GAME.view(traded, 1)
    assert GAME.view_from_proto(GAME.view_to_proto(view)) == view
    next_turn = GAME.apply(traded, 0, Pass())
    assert next_turn.active == 1 and not next_turn.traded_this_turn
    assert "to play · trade first" in _shown(next_turn, 0).headline


def test_the_river_says_what_each_flood_card_is():
    """Issue 36: the river's cards were bare crop chips; the top one floods this turn."""
    state = table(flood_pile=["wheat", "flax", "castor", "lettuce"])
    river = _shown(state, 0).zones[0]
    cards = [(item.label, item.value) for item in river.items if "flood card" in item.value]
    assert cards == [
        ("flax", "earlier flood card"),
        ("castor", "earlier flood card"),
        ("lettuce", "flood card on top"),
    ]
    assert [item.value for item in river.items if item.label == "flooded this turn"] == ["lettuce"]
