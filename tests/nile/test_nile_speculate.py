"""Speculate: 1 or 2 speculation cards face up, never on a flooded crop, never with a plant."""

import pytest
from nile_support import GAME, card, table
from serai.game import IllegalMove
from serai_nile.moves import Plant, Speculate


def speculate(*names):
    return Speculate(tuple(card(name) for name in names))


def test_speculation_cards_are_placed_face_up_and_bet_on_the_next_flood():
    before = table(hands=[["wheat/flax", "wheat"], []], deck=["castor"] * 5)
    after = GAME.apply(before, 0, speculate("wheat/flax"))
    assert after.active == 1, "speculating ends the turn"
    # The next flood (castor) comes at once with seat 1's turn: the bet is lost and discarded.
    assert "seat 0's speculation on wheat/flax fails" in after.events
    assert [c.name for c in after.discard] == ["wheat/flax"]


def test_two_speculation_cards_may_be_placed_together_and_each_is_judged():
    before = table(
        hands=[["wheat/flax", "papyrus/castor"], []], deck=["lettuce", "lettuce", "castor"] * 3
    )
    after = GAME.apply(before, 0, speculate("wheat/flax", "papyrus/castor"))
    assert "seat 0's speculation on papyrus/castor wins" in after.events
    assert "seat 0's speculation on wheat/flax fails" in after.events
    assert len(after.hands[0]) == 2 + 3
    assert GAME.label(speculate("wheat/flax", "papyrus/castor")) == (
        "speculate on papyrus/castor and wheat/flax"
    )


def test_three_speculation_cards_are_too_many():
    before = table(hands=[["wheat/flax", "papyrus/castor", "papyrus/wheat"], []])
    with pytest.raises(IllegalMove, match="1 or 2 speculation cards, not 3"):
        GAME.apply(before, 0, speculate("wheat/flax", "papyrus/castor", "papyrus/wheat"))
    assert all(len(m.cards) <= 2 for m in GAME.legal_moves(before, 0) if isinstance(m, Speculate))


def test_a_crop_card_is_not_a_speculation_card():
    before = table(hands=[["wheat"], []])
    with pytest.raises(IllegalMove, match="wheat is not a speculation card"):
        GAME.apply(before, 0, speculate("wheat"))


def test_a_speculation_card_showing_a_flooded_crop_cannot_be_placed():
    before = table(hands=[["wheat/lettuce", "papyrus/flax"], []], flood_pile=["lettuce"])
    with pytest.raises(IllegalMove, match="cannot speculate on wheat/lettuce: lettuce is flooded"):
        GAME.apply(before, 0, speculate("wheat/lettuce"))
    listed = [m for m in GAME.legal_moves(before, 0) if isinstance(m, Speculate)]
    assert listed == [speculate("papyrus/flax")]


def test_a_speculation_card_must_be_in_the_hand():
    before = table(hands=[["wheat/flax"], []])
    with pytest.raises(IllegalMove, match="you have no papyrus/flax in hand"):
        GAME.apply(before, 0, speculate("papyrus/flax"))


def test_a_seat_plants_or_speculates_never_both():
    before = table(hands=[["wheat/flax", "castor", "castor"], []], deck=["lettuce"] * 8)
    after = GAME.apply(before, 0, speculate("wheat/flax"))
    with pytest.raises(IllegalMove, match="seat 1's turn"):
        GAME.apply(after, 0, Plant((card("castor").crops[0],) * 2))


def test_a_payout_reshuffle_takes_the_winning_cards_but_not_the_losing_ones():
    """Board Game Arena discards a seat's winning speculation cards before it draws its payout
    and the losing ones after all payouts, so a reshuffle that the payout starts holds the
    winners only. The deck here holds the flood card and one more: the payout empties it."""
    before = table(
        hands=[["castor", "castor"], []],
        flood_pile=["lettuce"],
        speculations=[[], ["papyrus/wheat", "lettuce/flax"]],
        deck=["lettuce", "lettuce", "wheat", "papyrus", "papyrus"],
        discard=["castor"] * 4,
        passes=2,
    )
    # Seat 0 plants and draws 2 lettuce; seat 1's flood is wheat; its payout of 3 takes the two
    # papyrus left and then draws from the reshuffled deck.
    after = GAME.apply(before, 0, Plant((card("castor").crops[0],) * 2))
    assert "seat 1's speculation on papyrus/wheat wins" in after.events
    assert "seat 1's speculation on lettuce/flax fails" in after.events
    assert any("reshuffled for pass 2" in event for event in after.events)
    everything_reshuffled = [c.name for c in after.deck] + [
        c.name for hand in after.hands for c in hand
    ]
    assert "papyrus/wheat" in everything_reshuffled, "the winner went in before the reshuffle"
    assert "lettuce/flax" not in everything_reshuffled, "the loser waits for all payouts"
    assert [c.name for c in after.discard] == ["lettuce/flax"]
