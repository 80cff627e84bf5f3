"""One test per event token (the effects are guesses; see serai_sobek.events)."""

from collections import Counter

import pytest
from serai.game import IllegalMove
from serai_sobek.cards import Goods
from serai_sobek.events import TOKENS, Event
from serai_sobek.moves import ChooseEvent, PickCards, PlaySet, TakeAny
from serai_sobek.state import Pending, PendingKind
from test_sobek_support import GAME, build, filler, goods, hand_faces, pile_faces

IVORY, FISH, WHEAT = goods(Goods.IVORY), goods(Goods.FISH), goods(Goods.WHEAT)


def picking(*tokens, players=2, **kwargs):
    """A state where seat 0 has just laid a set and must pick one of ``tokens``."""
    return build(players, tokens=tokens, pending=(Pending(PendingKind.EVENT, 0),), **kwargs)


def test_a_picked_token_is_revealed_and_discarded():
    state = picking(Event.FINE, Event.POINTS, row=filler(3))
    after = GAME.apply(state, 0, ChooseEvent(1))
    assert after.tokens == (Event.FINE,) and after.used_tokens == (Event.POINTS,)
    assert GAME.view(after, 1).used_tokens == (Event.POINTS,)


def test_a_malus_needs_a_victim_and_a_bonus_takes_none():
    state = picking(Event.FINE, Event.POINTS, players=3, row=filler(3))
    assert GAME.legal_moves(state, 0) == [ChooseEvent(0, 1), ChooseEvent(0, 2), ChooseEvent(1)]
    with pytest.raises(IllegalMove):
        GAME.apply(state, 0, ChooseEvent(0))
    with pytest.raises(IllegalMove):
        GAME.apply(state, 0, ChooseEvent(1, 1))
    with pytest.raises(IllegalMove):
        GAME.apply(state, 0, ChooseEvent(0, 0))


def test_points_token_gives_its_picker_four_points_this_round():
    after = GAME.apply(picking(Event.POINTS, row=filler(3)), 0, ChooseEvent(0))
    assert after.seats[0].bonus == 4


def test_purge_token_discards_up_to_two_of_the_pickers_corruption_cards():
    state = picking(Event.PURGE, row=filler(3), corruption={0: [IVORY, FISH, WHEAT]})
    after = GAME.apply(state, 0, ChooseEvent(0))
    assert GAME.to_act(after) == (0,)
    after = GAME.apply(after, 0, PickCards((IVORY,)))
    assert pile_faces(after, 0) == sorted([FISH, WHEAT])


def test_first_card_token_takes_the_first_market_card_without_corruption():
    state = picking(Event.FIRST_CARD, row=[IVORY, *filler(3)])
    after = GAME.apply(state, 0, ChooseEvent(0))
    assert hand_faces(after, 0) == [IVORY] and after.seats[0].corruption == ()


def test_the_points_tokens_value_is_an_option():
    state = picking(Event.POINTS, row=filler(3), options={"event_points": 6})
    assert GAME.apply(state, 0, ChooseEvent(0)).seats[0].bonus == 6


def test_fine_token_costs_the_victim_four_points_this_round():
    after = GAME.apply(picking(Event.FINE, row=filler(3)), 0, ChooseEvent(0, 1))
    assert after.seats[1].bonus == -4 and after.seats[0].bonus == 0


def test_bribe_token_puts_the_first_market_card_in_the_victims_corruption():
    state = picking(Event.BRIBE, row=[IVORY, *filler(3)])
    after = GAME.apply(state, 0, ChooseEvent(0, 1))
    assert pile_faces(after, 1) == [IVORY] and len(after.row) == 3


def test_tribute_token_makes_the_victim_give_a_card_of_their_choice():
    state = picking(Event.TRIBUTE, players=3, row=filler(3), hands={2: [IVORY, FISH]})
    after = GAME.apply(state, 0, ChooseEvent(0, 2))
    assert GAME.to_act(after) == (2,)
    after = GAME.apply(after, 2, PickCards((FISH,)))
    assert hand_faces(after, 0) == [FISH] and hand_faces(after, 2) == [IVORY]


def test_a_token_without_effect_may_still_be_picked_to_waste_it():
    state = picking(Event.TRIBUTE, row=filler(3))  # seat 1 has no card to give
    after = GAME.apply(state, 0, ChooseEvent(0, 1))
    assert after.used_tokens == (Event.TRIBUTE,) and after.pending == ()


def test_only_the_picker_sees_the_tokens_faces_while_picking():
    state = build(hands={0: [IVORY] * 3}, row=filler(3), tokens=(Event.FINE, Event.POINTS))
    after = GAME.apply(state, 0, PlaySet(Goods.IVORY, (IVORY,) * 3))
    assert GAME.view(after, 0).tokens_seen == (Event.FINE, Event.POINTS)
    assert GAME.view(after, 1).tokens_seen == () and GAME.view(after, None).tokens_seen == ()
    assert GAME.view(after, 1).tokens_left == 2


def test_there_are_twelve_tokens_of_nine_kinds_six_single_and_three_twice():
    """A review describing the published tokens; which three come twice is a guess."""
    counts = Counter(TOKENS)
    assert len(TOKENS) == 12 and len(counts) == 9
    assert sorted(counts.values()) == [1] * 6 + [2] * 3


def test_any_card_token_takes_any_market_card_without_corruption():
    state = picking(Event.ANY_CARD, row=[*filler(3), IVORY])
    after = GAME.apply(state, 0, ChooseEvent(0))
    assert GAME.to_act(after) == (0,)
    after = GAME.apply(after, 0, TakeAny(3))
    assert hand_faces(after, 0) == [IVORY] and after.seats[0].corruption == ()


def test_scapegoat_token_moves_one_of_the_pickers_corruption_cards_to_the_victim():
    state = picking(Event.SCAPEGOAT, row=filler(3), corruption={0: [IVORY, FISH]})
    after = GAME.apply(state, 0, ChooseEvent(0, 1))
    after = GAME.apply(after, 0, PickCards((IVORY,)))
    assert pile_faces(after, 0) == [FISH] and pile_faces(after, 1) == [IVORY]


def test_spoil_token_makes_the_victim_corrupt_a_card_of_their_choice():
    state = picking(Event.SPOIL, row=filler(3), hands={1: [IVORY, FISH]})
    after = GAME.apply(state, 0, ChooseEvent(0, 1))
    assert GAME.to_act(after) == (1,)
    after = GAME.apply(after, 1, PickCards((FISH,)))
    assert hand_faces(after, 1) == [IVORY] and pile_faces(after, 1) == [FISH]


@pytest.mark.parametrize("extending", [False, True])
def test_picking_a_token_is_mandatory_when_laying_or_adding_to_a_set(extending):
    """Confirmed by a review: while tokens remain, the only moves are picks."""
    sets = {0: [(Goods.FISH, [FISH] * 3, False)]} if extending else None
    state = build(hands={0: [FISH] * 3}, sets=sets, row=filler(3), tokens=(Event.POINTS,))
    after = GAME.apply(state, 0, PlaySet(Goods.FISH, (FISH,) * 3))
    assert GAME.to_act(after) == (0,)
    assert GAME.legal_moves(after, 0) == [ChooseEvent(0)]
