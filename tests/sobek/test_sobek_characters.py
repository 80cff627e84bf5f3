"""One test per character power (the powers are guesses; see serai_sobek.powers)."""

import pytest
from serai.game import IllegalMove
from serai_sobek.cards import CHARACTER_IDS, Character, Goods
from serai_sobek.events import Event
from serai_sobek.moves import AddToSet, ChooseEvent, PickCards, PlayCharacter, Take, TakeAny
from serai_sobek.state import Pending, PendingKind
from test_sobek_support import AMULET, GAME, build, char, filler, goods, hand_faces, pile_faces

IVORY, EBONY, FISH, WHEAT = (goods(g) for g in (Goods.IVORY, Goods.EBONY, Goods.FISH, Goods.WHEAT))
MARBLE, CATTLE = goods(Goods.MARBLE), goods(Goods.CATTLE)


def test_a_played_character_is_revealed_on_the_discard_pile():
    state = build(hands={0: [char(Character.BOATMAN)]}, row=filler(4))
    after = GAME.apply(state, 0, PlayCharacter(Character.BOATMAN))
    assert after.discard == (CHARACTER_IDS[Character.BOATMAN],)
    assert GAME.view(after, 1).discard == (char(Character.BOATMAN),)


def test_vizier_each_other_player_in_turn_gives_a_card_of_their_choice():
    state = build(
        3, hands={0: [char(Character.VIZIER)], 1: [IVORY, FISH], 2: [EBONY]}, row=filler(4)
    )
    after = GAME.apply(state, 0, PlayCharacter(Character.VIZIER))
    assert GAME.to_act(after) == (1,)
    assert GAME.legal_moves(after, 1) == [PickCards((IVORY,)), PickCards((FISH,))]
    after = GAME.apply(after, 1, PickCards((IVORY,)))
    assert GAME.to_act(after) == (2,)
    after = GAME.apply(after, 2, PickCards((EBONY,)))
    assert hand_faces(after, 0) == sorted([IVORY, EBONY])
    assert hand_faces(after, 1) == [FISH] and hand_faces(after, 2) == []
    assert after.current == 1 and after.pending == ()


def test_vizier_skips_players_with_empty_hands():
    state = build(3, hands={0: [char(Character.VIZIER)], 2: [EBONY]}, row=filler(4))
    after = GAME.apply(state, 0, PlayCharacter(Character.VIZIER))
    assert GAME.to_act(after) == (2,)


def test_thief_takes_a_random_card_from_the_named_players_hand():
    state = build(3, hands={0: [char(Character.THIEF)], 2: [IVORY, FISH]}, row=filler(4))
    moves = [m for m in GAME.legal_moves(state, 0) if isinstance(m, PlayCharacter)]
    assert moves == [PlayCharacter(Character.THIEF, 1), PlayCharacter(Character.THIEF, 2)]
    after = GAME.apply(state, 0, PlayCharacter(Character.THIEF, 2))
    assert len(after.seats[0].hand) == 1 and len(after.seats[2].hand) == 1
    assert sorted(hand_faces(after, 0) + hand_faces(after, 2)) == sorted([IVORY, FISH])
    assert GAME.apply(state, 0, PlayCharacter(Character.THIEF, 2)) == after  # seeded


def test_thief_needs_a_target():
    state = build(hands={0: [char(Character.THIEF)]}, row=filler(4))
    with pytest.raises(IllegalMove, match="needs a target"):
        GAME.apply(state, 0, PlayCharacter(Character.THIEF))


def test_scribe_discards_up_to_two_cards_of_your_choice_from_your_corruption():
    state = build(
        hands={0: [char(Character.SCRIBE)]}, corruption={0: [IVORY, FISH, WHEAT]}, row=filler(4)
    )
    after = GAME.apply(state, 0, PlayCharacter(Character.SCRIBE))
    moves = GAME.legal_moves(after, 0)
    assert PickCards(()) in moves and PickCards(tuple(sorted((IVORY, FISH)))) in moves
    assert all(len(m.cards) <= 2 for m in moves)
    after = GAME.apply(after, 0, PickCards(tuple(sorted((IVORY, FISH)))))
    assert pile_faces(after, 0) == [WHEAT] and len(after.removed) == len(state.removed) + 2


def test_courtesan_moves_one_of_your_corruption_cards_to_the_named_player():
    state = build(
        hands={0: [char(Character.COURTESAN)]}, corruption={0: [IVORY, FISH]}, row=filler(4)
    )
    after = GAME.apply(state, 0, PlayCharacter(Character.COURTESAN, 1))
    assert GAME.legal_moves(after, 0) == [PickCards((IVORY,)), PickCards((FISH,))]
    after = GAME.apply(after, 0, PickCards((IVORY,)))
    assert pile_faces(after, 0) == [FISH] and pile_faces(after, 1) == [IVORY]


def test_high_priest_takes_any_market_card_without_corruption():
    state = build(hands={0: [char(Character.HIGH_PRIEST)]}, row=[*filler(6), IVORY])
    after = GAME.apply(state, 0, PlayCharacter(Character.HIGH_PRIEST))
    assert GAME.legal_moves(after, 0) == [TakeAny(p) for p in range(7)]
    with pytest.raises(IllegalMove, match="must first take any market card"):
        GAME.apply(after, 0, Take(0))
    after = GAME.apply(after, 0, TakeAny(6))
    assert hand_faces(after, 0) == [IVORY] and after.seats[0].corruption == ()
    assert len(after.row) == 6


def test_queen_picks_an_event_token_as_if_a_set_were_laid():
    state = build(hands={0: [char(Character.QUEEN)]}, row=filler(4), tokens=(Event.POINTS,))
    after = GAME.apply(state, 0, PlayCharacter(Character.QUEEN))
    assert GAME.legal_moves(after, 0) == [ChooseEvent(0)]
    after = GAME.apply(after, 0, ChooseEvent(0))
    assert after.seats[0].bonus == 4


def test_architect_adds_one_or_two_cards_to_one_of_your_sets():
    state = build(
        hands={0: [char(Character.ARCHITECT), FISH, AMULET, IVORY]},
        sets={0: [(Goods.FISH, [FISH] * 3, False)]},
        row=filler(4),
    )
    after = GAME.apply(state, 0, PlayCharacter(Character.ARCHITECT))
    moves = GAME.legal_moves(after, 0)
    assert AddToSet(Goods.FISH, (FISH,)) in moves
    assert AddToSet(Goods.FISH, tuple(sorted((FISH, AMULET)))) in moves
    assert all(m.goods is Goods.FISH for m in moves)
    after = GAME.apply(after, 0, AddToSet(Goods.FISH, tuple(sorted((FISH, AMULET)))))
    assert len(after.seats[0].sets[0].cards) == 5 and hand_faces(after, 0) == [IVORY]


def test_architect_without_a_set_has_no_effect():
    state = build(hands={0: [char(Character.ARCHITECT), FISH]}, row=filler(4))
    after = GAME.apply(state, 0, PlayCharacter(Character.ARCHITECT))
    assert after.pending == () and after.current == 1


def test_princess_makes_the_named_player_corrupt_a_card_of_their_choice():
    state = build(hands={0: [char(Character.PRINCESS)], 1: [IVORY, FISH]}, row=filler(4))
    after = GAME.apply(state, 0, PlayCharacter(Character.PRINCESS, 1))
    assert GAME.to_act(after) == (1,)
    after = GAME.apply(after, 1, PickCards((FISH,)))
    assert hand_faces(after, 1) == [IVORY] and pile_faces(after, 1) == [FISH]


def test_boatman_takes_the_first_two_market_cards_without_corruption():
    state = build(hands={0: [char(Character.BOATMAN)]}, row=[IVORY, EBONY, MARBLE, CATTLE])
    after = GAME.apply(state, 0, PlayCharacter(Character.BOATMAN))
    assert hand_faces(after, 0) == sorted([IVORY, EBONY]) and after.seats[0].corruption == ()
    assert len(after.row) == 2


def test_a_power_that_empties_the_market_refills_it_at_the_end_of_the_turn():
    state = build(hands={0: [char(Character.BOATMAN)]}, row=[IVORY, EBONY], deck=filler(9))
    after = GAME.apply(state, 0, PlayCharacter(Character.BOATMAN))
    assert len(after.row) == 9 and after.deck == ()


def test_a_pending_power_names_the_seat_that_must_choose():
    state = build(3, hands={2: [FISH]}, row=filler(3), pending=(Pending(PendingKind.GIVE, 2, 0),))
    assert GAME.to_act(state) == (2,) and GAME.view(state, 1).to_act == (2,)
