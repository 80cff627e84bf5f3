"""The plague of locusts: discarded when it comes off the deck, replaced, destroys the largest
fields of every player, and comes back with the next reshuffle."""

from nile_support import GAME, card, field, hand_names, table
from serai_nile.cards import PLAGUE
from serai_nile.moves import Market, Pass


def test_the_plague_destroys_every_field_of_the_largest_size_whoever_owns_it():
    before = table(
        players=3,
        fields=[{"wheat": 3, "flax": 1}, {"castor": 3}, {"papyrus": 2}],
        deck=["plague"] + ["lettuce"] * 6,
    )
    after = GAME.apply(before, 0, Pass())
    assert field(after, 0, "wheat") == 0 and field(after, 1, "castor") == 0
    assert field(after, 0, "flax") == 1 and field(after, 2, "papyrus") == 2
    assert sorted(c.name for c in after.discard).count("wheat") == 3


def test_a_plague_in_the_end_of_turn_draw_is_replaced_so_the_hand_still_gets_two_cards():
    after = GAME.apply(table(deck=["wheat", "plague", "flax"] + ["lettuce"] * 3), 0, Pass())
    assert hand_names(after, 0) == ["wheat", "flax"]
    assert PLAGUE in after.discard and all(PLAGUE not in hand for hand in after.hands)
    assert "seat 0 draws the plague of locusts and draws a replacement" in after.events


def test_with_no_field_on_the_table_the_plague_does_nothing():
    after = GAME.apply(table(deck=["plague", "wheat", "flax"] + ["lettuce"] * 3), 0, Pass())
    assert "the locusts find no field" in after.events
    assert [c.name for c in after.discard] == ["plague"]


def test_the_plague_returns_with_the_next_reshuffle():
    before = table(
        hands=[["wheat", "wheat"], []],
        deck=["plague", "flax"],
        flood_pile=["lettuce"],
        passes=2,
    )
    after = GAME.apply(before, 0, Market(hand=(card("wheat"), card("wheat"))))
    assert hand_names(after, 0) == ["flax"]
    assert after.pass_number == 2
    assert sorted(c.name for c in after.deck) == sorted(["plague", "wheat", "wheat", "lettuce"])
    assert after.discard == () and after.flood_pile == ()
