"""The plague of locusts: discarded when it comes off the deck, replaced, destroys the largest
fields of every player, and comes back with the next reshuffle."""

from dataclasses import replace

from nile_support import GAME, card, field, hand_names, table
from serai_nile.cards import PLAGUE
from serai_nile.moves import Market, Pass
from serai_nile.state import FLOOD


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


def test_every_seat_sees_who_drew_the_plague_though_the_table_is_the_same_either_way():
    """Drawn by seat 0 or come up as seat 1's flood card, the plague ends in the discard pile and
    the table is the same; the step's announcements say which, so the view does too (else
    `serai check` finds the events telling what the view does not keep)."""
    by_seat = GAME.apply(table(deck=["wheat", "plague", "flax"] + ["lettuce"] * 3), 0, Pass())
    by_flood = GAME.apply(table(deck=["wheat", "flax", "plague"] + ["lettuce"] * 3), 0, Pass())
    assert by_seat.events != by_flood.events
    for seat in (None, 0, 1):
        seen_by_seat, seen_by_flood = GAME.view(by_seat, seat), GAME.view(by_flood, seat)
        assert seen_by_seat.plague_drawn_by == (0,) and seen_by_flood.plague_drawn_by == (FLOOD,)
        assert replace(seen_by_seat, plague_drawn_by=()) == replace(
            seen_by_flood, plague_drawn_by=()
        )

    message = GAME.view_to_proto(GAME.view(by_flood, 1))
    assert list(message.plague_drawn_by) == [-1]
    river = GAME.present(message).zones[0]
    assert [item.value for item in river.items if item.label == "plague drawn"] == [
        "the flood card"
    ]
    river = GAME.present(GAME.view_to_proto(GAME.view(by_seat, 1))).zones[0]
    assert [item.value for item in river.items if item.label == "plague drawn"] == ["seat 0's draw"]

    assert GAME.decode_state(GAME.encode_state(by_seat)).plague_drawn_by == (0,)
    later = GAME.apply(by_seat, 1, Pass())  # a step with no plague says nothing of the last one
    assert later.plague_drawn_by == () and b"plague_drawn_by" not in GAME.encode_state(later)
