"""Plant, in one of three forms; one field per crop on the table; taking over a smaller field."""

import pytest
from nile_support import GAME, crop, field, hand_names, table
from serai.game import IllegalMove
from serai_nile.moves import Plant


def plant(*names):
    return Plant(tuple(crop(name) for name in names))


def labels(state):
    return [GAME.label(move) for move in GAME.legal_moves(state, state.active)]


def test_two_or_more_cards_of_one_crop_start_a_field():
    before = table(hands=[["wheat"] * 3 + ["flax"], []], deck=["castor"] * 5)
    after = GAME.apply(before, 0, plant("wheat", "wheat", "wheat"))
    assert field(after, 0, "wheat") == 3
    assert hand_names(after, 0) == ["castor", "castor", "flax"]
    assert {"plant 2 wheat", "plant 3 wheat"} <= set(labels(before))


def test_a_lone_card_never_starts_a_field():
    before = table(hands=[["wheat", "flax"], []])
    with pytest.raises(IllegalMove, match="a lone card never starts a field"):
        GAME.apply(before, 0, plant("wheat"))
    assert "plant 1 wheat" not in labels(before)


def test_exactly_two_cards_of_different_crops_each_start_a_field():
    before = table(hands=[["wheat", "flax"], []], deck=["castor"] * 5)
    after = GAME.apply(before, 0, plant("wheat", "flax"))
    assert field(after, 0, "wheat") == 1 and field(after, 0, "flax") == 1


def test_of_two_different_cards_one_may_join_a_field_of_yours():
    before = table(hands=[["wheat", "flax"], []], fields=[{"flax": 2}, {}], deck=["castor"] * 5)
    after = GAME.apply(before, 0, plant("wheat", "flax"))
    assert field(after, 0, "wheat") == 1 and field(after, 0, "flax") == 3


def test_three_cards_of_two_crops_cannot_start_a_field():
    before = table(hands=[["wheat", "wheat", "flax"], []])
    with pytest.raises(IllegalMove, match="exactly 2 cards of different crops"):
        GAME.apply(before, 0, plant("wheat", "wheat", "flax"))
    assert "plant 2 wheat + 1 flax" not in labels(before)


def test_any_number_of_cards_even_one_go_into_fields_you_already_have():
    before = table(
        hands=[["wheat", "flax", "flax", "castor"], []],
        fields=[{"wheat": 1, "flax": 1, "castor": 2}, {}],
        deck=["papyrus"] * 5,
    )
    after = GAME.apply(before, 0, plant("wheat", "flax", "flax", "castor"))
    assert [field(after, 0, c) for c in ("wheat", "flax", "castor")] == [2, 3, 3]
    assert "plant 1 wheat" in labels(before)
    assert "plant 1 wheat + 1 castor + 2 flax" in labels(before)


def test_cards_into_your_fields_do_not_combine_with_starting_a_field_of_two_or_more():
    before = table(hands=[["wheat", "wheat", "flax"], []], fields=[{"flax": 1}, {}])
    with pytest.raises(IllegalMove, match="starting a field"):
        GAME.apply(before, 0, plant("wheat", "wheat", "flax"))


def test_a_flooded_crop_cannot_be_planted():
    before = table(hands=[["wheat", "wheat"], []], flood_pile=["wheat"])
    with pytest.raises(IllegalMove, match="wheat is flooded this turn"):
        GAME.apply(before, 0, plant("wheat", "wheat"))
    assert labels(before) == [
        "pass",
        "market: discard 2 cards from hand",
        "offering: discard 2 cards from hand",
    ]


def test_a_speculation_card_that_floods_a_crop_forbids_planting_it():
    before = table(hands=[["wheat", "wheat"], []], flood_pile=["papyrus/wheat"])
    with pytest.raises(IllegalMove, match="wheat is flooded"):
        GAME.apply(before, 0, plant("wheat", "wheat"))


def test_an_opponents_field_blocks_a_new_field_of_as_many_cards():
    before = table(hands=[["wheat"] * 3, []], fields=[{}, {"wheat": 3}])
    with pytest.raises(IllegalMove, match="seat 1's wheat field holds 3 cards: plant at least 4"):
        GAME.apply(before, 0, plant("wheat", "wheat", "wheat"))
    assert not [label for label in labels(before) if label.startswith("plant")]


def test_strictly_more_cards_take_over_an_opponents_field_which_is_discarded():
    before = table(hands=[["wheat"] * 4, []], fields=[{}, {"wheat": 3}], deck=["castor"] * 5)
    after = GAME.apply(before, 0, plant("wheat", "wheat", "wheat", "wheat"))
    assert field(after, 0, "wheat") == 4 and field(after, 1, "wheat") == 0
    assert [c.name for c in after.discard] == ["wheat"] * 3
    assert labels(before).count("plant 4 wheat") == 1


def test_there_is_never_more_than_one_field_of_a_crop_on_the_table():
    before = table(hands=[["wheat", "flax"], []], fields=[{}, {"wheat": 1}])
    with pytest.raises(IllegalMove, match="seat 1's wheat field holds 1 card"):
        GAME.apply(before, 0, plant("wheat", "flax"))


def test_planting_uses_hand_cards_only():
    before = table(hands=[["wheat"], []], storehouses=[{"wheat": 3}, {}])
    with pytest.raises(IllegalMove, match="you have only 1 wheat in hand"):
        GAME.apply(before, 0, plant("wheat", "wheat"))


def test_planting_ends_the_turn_with_a_draw_of_two():
    before = table(hands=[["wheat", "wheat"], []], deck=["castor", "flax", "papyrus"])
    after = GAME.apply(before, 0, plant("wheat", "wheat"))
    assert hand_names(after, 0) == ["castor", "flax"]
    assert after.active == 1


def test_plant_moves_are_listed_as_multisets_without_duplicates():
    before = table(
        hands=[["wheat"] * 4 + ["flax"] * 3 + ["castor"] * 2, []],
        fields=[{"wheat": 1, "flax": 1}, {}],
    )
    plants = [m for m in GAME.legal_moves(before, 0) if isinstance(m, Plant)]
    assert len(plants) == len(set(plants))
    # (c): (4+1)(3+1) - 1 into wheat/flax; (a): 2 castor; (b): castor + wheat, castor + flax.
    assert len(plants) == 19 + 1 + 2
