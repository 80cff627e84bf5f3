"""Flood, speculation payouts and harvest: what happens at the start of every turn."""

from nile_support import GAME, field, hand_names, store, table
from serai_nile.cards import PLAGUE
from serai_nile.moves import Pass


def end_turn(state):
    return GAME.apply(state, state.active, Pass())


def test_the_turn_ends_with_a_draw_of_two_and_the_next_seat_floods_with_the_top_card():
    state = end_turn(table(deck=["wheat", "castor", "flax", "papyrus"]))
    assert hand_names(state, 0) == ["wheat", "castor"]
    assert state.active == 1
    assert state.flood_pile[-1].name == "flax" and [c.label for c in state.flooded] == ["flax"]
    assert [c.name for c in state.deck] == ["papyrus"]


def test_every_player_with_a_flooded_field_harvests_not_only_the_active_one():
    state = end_turn(
        table(players=3, fields=[{"flax": 2}, {}, {"papyrus": 1}], deck=["wheat"] * 2 + ["flax"])
    )
    assert state.active == 1
    assert field(state, 0, "flax") == 1 and store(state, 0, "flax") == 1


def test_a_harvest_moves_one_card_and_an_emptied_field_is_gone():
    state = end_turn(table(fields=[{}, {"flax": 1}], deck=["wheat"] * 2 + ["flax", "wheat"]))
    assert store(state, 1, "flax") == 1 and field(state, 1, "flax") == 0
    assert state.field_owner(state.flooded[0]) is None


def test_a_speculation_card_as_flood_card_floods_both_its_crops():
    state = end_turn(
        table(
            fields=[{"wheat": 3}, {"papyrus": 2, "flax": 2}],
            deck=["castor"] * 2 + ["papyrus/wheat"],
        )
    )
    assert sorted(c.label for c in state.flooded) == ["papyrus", "wheat"]
    assert store(state, 0, "wheat") == 1 and store(state, 1, "papyrus") == 1
    assert field(state, 1, "flax") == 2


def test_a_speculation_wins_if_one_of_its_crops_is_flooded_and_pays_its_owner_three_cards():
    state = end_turn(
        table(speculations=[["wheat/flax"], []], deck=["castor"] * 2 + ["flax"] + ["lettuce"] * 5)
    )
    assert state.active == 1
    assert hand_names(state, 0) == ["lettuce"] * 3 + ["castor"] * 2
    assert state.speculations == ((), ())
    assert [c.name for c in state.discard] == ["wheat/flax"]


def test_a_speculation_with_both_crops_flooded_pays_three_cards_only_once():
    state = end_turn(
        table(
            speculations=[[], ["wheat/flax"]],
            deck=["castor"] * 2 + ["wheat/flax"] + ["lettuce"] * 8,
        )
    )
    assert len(state.hands[1]) == 3


def test_two_winning_speculation_cards_pay_three_each():
    state = end_turn(
        table(
            speculations=[["wheat/flax", "castor/flax"], []],
            deck=["castor"] * 2 + ["flax"] + ["lettuce"] * 8,
        )
    )
    assert hand_names(state, 0).count("lettuce") == 6


def test_every_speculation_card_is_discarded_after_the_flood_won_or_lost():
    state = end_turn(
        table(
            speculations=[["wheat/flax"], ["lettuce/castor"]],
            deck=["castor"] * 2 + ["flax"] + ["lettuce"] * 5,
        )
    )
    assert state.speculations == ((), ())
    assert sorted(c.name for c in state.discard) == ["lettuce/castor", "wheat/flax"]
    assert len(state.hands[1]) == 0


def test_payouts_go_from_the_active_seat_clockwise():
    # Seat 1's turn starts: seat 1 is paid first, then seat 2, then seat 0.
    state = end_turn(
        table(
            players=3,
            speculations=[["wheat/flax"], ["papyrus/flax"], ["castor/flax"]],
            deck=["lettuce"] * 2 + ["flax"] + ["wheat"] * 3 + ["castor"] * 3 + ["papyrus"] * 3,
        )
    )
    assert hand_names(state, 1) == ["wheat"] * 3
    assert hand_names(state, 2) == ["castor"] * 3
    assert hand_names(state, 0).count("papyrus") == 3


def test_a_plague_drawn_in_a_payout_is_replaced_and_resolved_after_payouts_before_harvest():
    # Wheat (3) is the largest field; harvesting first would make wheat and papyrus both 2.
    state = end_turn(
        table(
            fields=[{"wheat": 3}, {"papyrus": 2}],
            speculations=[[], ["wheat/castor"]],
            deck=["lettuce"] * 2 + ["wheat", "flax", "plague", "flax", "flax", "castor"],
        )
    )
    assert hand_names(state, 1) == ["flax"] * 3
    assert field(state, 0, "wheat") == 0 and store(state, 0, "wheat") == 0
    assert field(state, 1, "papyrus") == 2
    assert PLAGUE in state.discard
    assert "locusts destroy seat 0's wheat field (3 cards)" in state.events


def test_a_plague_as_flood_card_destroys_the_largest_fields_then_a_new_flood_card_is_revealed():
    state = end_turn(
        table(
            fields=[{"wheat": 3, "flax": 2}, {"papyrus": 3}],
            speculations=[["castor/flax"], []],
            deck=["lettuce"] * 2 + ["plague", "flax"] + ["castor"] * 5,
        )
    )
    assert field(state, 0, "wheat") == 0 and field(state, 1, "papyrus") == 0
    assert [c.label for c in state.flooded] == ["flax"]
    assert field(state, 0, "flax") == 1 and store(state, 0, "flax") == 1
    assert hand_names(state, 0).count("castor") == 3  # the new flood card resolved speculation
    assert PLAGUE in state.discard and PLAGUE not in state.flood_pile


def test_announcements_tell_the_public_news_and_never_the_cards_drawn():
    before = table(fields=[{}, {"flax": 2}], deck=["castor", "papyrus", "flax", "wheat"])
    after = end_turn(before)
    assert list(GAME.announcements(before, after)) == [
        "seat 0 draws 2 cards",
        "turn 2: seat 1",
        "flood: flax",
        "seat 1 harvests flax",
    ]


def test_winning_speculation_cards_join_the_discard_before_their_owner_draws():
    """As on Board Game Arena: a reshuffle that the payout triggers takes the speculation card."""
    state = end_turn(
        table(
            deck=["wheat", "wheat", "flax", "castor"],
            speculations=[[], ["wheat/flax"]],
            discard=["papyrus"] * 3,
            passes=2,
        )
    )
    assert state.pass_number == 2 and state.speculations == ((), ())
    assert "wheat/flax" in hand_names(state, 1) + [c.name for c in state.deck]
    assert len(hand_names(state, 1)) == 3 and len(state.deck) == 4


def test_payouts_when_the_deck_runs_short_go_from_the_active_seat_clockwise():
    """Our order, not Board Game Arena's (player-list order): seat 1 floods, so seat 1 is paid
    first and takes the last cards; seat 0, paid after, gets none."""
    state = end_turn(
        table(
            deck=["lettuce", "lettuce", "flax", "wheat", "wheat", "wheat"],
            speculations=[["wheat/flax"], ["papyrus/flax"]],
            pass_number=2,
            passes=2,
        )
    )
    assert state.finished
    assert hand_names(state, 1) == ["wheat"] * 3 and hand_names(state, 0) == ["lettuce"] * 2
