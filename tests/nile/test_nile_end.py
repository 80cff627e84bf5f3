"""Passes through the deck, the end on the last pass, and scoring by the smallest pile."""

from dataclasses import replace

import pytest
from nile_support import GAME, card, crop, field, hand_names, store, table
from serai.game import IllegalMove, seeded_rng
from serai_nile.cards import PLAGUE
from serai_nile.moves import Market, Pass, Plant


def test_an_empty_deck_with_passes_left_is_refilled_from_the_discard_and_whole_flood_pile():
    before = table(
        hands=[[], ["flax", "flax"]],
        deck=["wheat", "castor", "flax"],
        flood_pile=["lettuce", "papyrus"],
        discard=["wheat/flax", "castor"],
        passes=2,
        seed=42,
    )
    after = GAME.apply(before, 0, Pass())
    assert after.pass_number == 2
    assert after.flood_pile == () and after.discard == ()
    expected = sorted(card(n) for n in ["lettuce", "papyrus", "flax", "wheat/flax", "castor"])
    seeded_rng(42, "reshuffle", 2).shuffle(expected)
    assert list(after.deck) == expected
    # The flood card went into the reshuffle, but flax stays flooded for this turn.
    assert [c.label for c in after.flooded] == ["flax"]
    with pytest.raises(IllegalMove, match="flax is flooded"):
        GAME.apply(after, 1, Plant((crop("flax"), crop("flax"))))


def test_the_match_ends_when_the_deck_runs_out_on_its_last_pass():
    before = table(hands=[["wheat", "wheat"], []], deck=["flax"], pass_number=2, passes=2)
    after = GAME.apply(before, 0, Market(hand=(card("wheat"), card("wheat"))))
    assert after.finished and GAME.to_act(after) == ()
    assert GAME.legal_moves(after, 0) == []
    assert GAME.outcome(after) is not None
    with pytest.raises(IllegalMove, match="the match is over"):
        GAME.apply(after, 0, Pass())
    assert not table().finished and GAME.outcome(table()) is None


def test_a_draw_that_wants_more_cards_than_are_left_gets_what_is_left_and_the_match_ends():
    after = GAME.apply(table(deck=["wheat"], pass_number=2, passes=2), 0, Pass())
    assert hand_names(after, 0) == ["wheat"]
    assert after.finished and after.active == 0


def test_the_game_ends_at_once_when_the_last_card_is_turned_as_the_flood_card():
    """The written rule ("the game is over as soon as the last deck is empty"): the last flood
    card floods nothing; no payout, no harvest."""
    before = table(
        fields=[{}, {"flax": 2}],
        deck=["wheat", "wheat", "flax"],
        speculations=[["wheat/flax"], []],
        pass_number=2,
        passes=2,
    )
    after = GAME.apply(before, 0, Pass())
    assert after.finished
    assert after.flood_pile[-1] == card("flax")
    assert store(after, 1, "flax") == 0 and field(after, 1, "flax") == 2, "no harvest"
    assert after.speculations[0] == (card("wheat/flax"),), "no speculation resolves"
    assert hand_names(after, 0) == ["wheat", "wheat"]


def test_the_game_ends_at_once_when_a_speculation_payout_takes_the_last_card():
    before = table(
        fields=[{"castor": 3}, {"flax": 2}],
        deck=["wheat", "wheat", "flax", "plague", "castor"],
        speculations=[["wheat/flax"], []],
        pass_number=2,
        passes=2,
    )
    after = GAME.apply(before, 0, Pass())
    assert after.finished
    assert hand_names(after, 0) == ["wheat", "wheat", "castor"], "paid what was left"
    assert store(after, 1, "flax") == 0 and field(after, 1, "flax") == 2, "no harvest"
    assert field(after, 0, "castor") == 3, "the plague drawn in the payout destroys nothing"


def test_the_game_ends_at_once_when_the_last_card_is_the_plague():
    before = table(
        fields=[{"wheat": 2}, {"flax": 2}],
        deck=["castor", "castor", "plague"],
        pass_number=2,
        passes=2,
    )
    after = GAME.apply(before, 0, Pass())
    assert after.finished
    assert field(after, 0, "wheat") == 2 and field(after, 1, "flax") == 2
    assert [c.label for c in after.flooded] == ["lettuce"]
    assert PLAGUE in after.discard


def finished(storehouses):
    return replace(table(players=len(storehouses), storehouses=storehouses), finished=True)


def test_the_score_is_the_smallest_storehouse_pile_and_a_missing_crop_counts_zero():
    result = GAME.outcome(
        finished(
            [
                {"papyrus": 9, "wheat": 9, "lettuce": 9, "castor": 9},
                {"papyrus": 1, "wheat": 1, "lettuce": 1, "castor": 1, "flax": 1},
            ]
        )
    )
    assert result.scores == (0, 1)
    assert result.ranks == (1, 0) and result.winners == (1,)


def test_a_tie_on_the_smallest_pile_is_broken_by_the_next_smallest_and_so_on():
    result = GAME.outcome(
        finished(
            [
                {"papyrus": 2, "wheat": 3, "lettuce": 3, "castor": 4, "flax": 9},
                {"papyrus": 2, "wheat": 3, "lettuce": 4, "castor": 4, "flax": 4},
                {"papyrus": 2, "wheat": 2, "lettuce": 9, "castor": 9, "flax": 9},
            ]
        )
    )
    assert result.scores == (2, 2, 2)
    assert result.ranks == (1, 0, 2)
    assert "seat 1 wins" in result.summary


def test_identical_profiles_share_their_place():
    result = GAME.outcome(
        finished(
            [
                {"papyrus": 2, "wheat": 3, "lettuce": 3, "castor": 4, "flax": 5},
                {"papyrus": 5, "wheat": 4, "lettuce": 3, "castor": 3, "flax": 2},
                {"papyrus": 1, "wheat": 3, "lettuce": 3, "castor": 4, "flax": 5},
            ]
        )
    )
    assert result.ranks == (0, 0, 2)
    assert result.winners == (0, 1)
    assert "seats 0 and 1 share first place" in result.summary
