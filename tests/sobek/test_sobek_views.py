"""Views hide what a seat may not know; determinize fills it in consistently; protobuf forms."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serai.game import MalformedMove
from serai_sobek import sobek_pb2 as pb
from serai_sobek.cards import CARDS, Character, Goods, Kind, face_of
from serai_sobek.events import TOKENS, Event
from serai_sobek.moves import (
    AddToSet,
    ChooseEvent,
    FinalSet,
    Finish,
    PickCards,
    PlayCharacter,
    PlaySet,
    Take,
    TakeAny,
)
from serai_sobek.state import PendingKind, Phase
from test_sobek_support import AMULET, GAME, all_cards, build, char, filler, goods


def view_bytes(state, seat):
    return GAME.view_to_proto(GAME.view(state, seat)).SerializeToString(deterministic=True)


def midgame(players, seed, steps, options=None):
    state = GAME.setup(players, seed=seed, options=options or {})
    rng = random.Random(seed)
    for _ in range(steps):
        if GAME.outcome(state) is not None:
            break
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
    return state


def picking_seat(state):
    if state.pending and state.pending[0].kind is PendingKind.EVENT:
        return state.pending[0].actor
    return None


def swap_with_deck(state, seat, rng):
    """Exchange one card of ``seat``'s hand with one of the deck."""
    hand = list(state.seats[seat].hand)
    deck = list(state.deck)
    if not hand or not deck:
        return state
    i, j = rng.randrange(len(hand)), rng.randrange(len(deck))
    hand[i], deck[j] = deck[j], hand[i]
    state = state.with_seat(seat, hand=tuple(sorted(hand)))
    return replace(state, deck=tuple(deck))


def hidden_changes(state, viewer, rng):
    """States that differ from ``state`` only in what ``viewer`` may not know."""
    changed = []
    deck = list(state.deck)
    rng.shuffle(deck)
    changed.append(replace(state, deck=tuple(deck)))
    for other in range(state.players):
        if other != viewer:
            changed.append(swap_with_deck(state, other, rng))
            pile = list(state.seats[other].corruption)
            if pile and state.deck:
                moved = replace(state, deck=(pile[0], *state.deck[1:]))
                changed.append(moved.with_seat(other, corruption=(state.deck[0], *pile[1:])))
    if picking_seat(state) != viewer or viewer is None:
        tokens = list(TOKENS)
        rng.shuffle(tokens)
        changed.append(replace(state, tokens=tuple(tokens[: len(state.tokens)])))
    down = [i for i, c in enumerate(state.row) if face_of(c).kind is Kind.CHARACTER]
    chars_in_deck = [i for i, c in enumerate(state.deck) if face_of(c).kind is Kind.CHARACTER]
    if down and chars_in_deck:
        row, deck = list(state.row), list(state.deck)
        a, b = down[0], chars_in_deck[0]
        row[a], deck[b] = deck[b], row[a]
        changed.append(replace(state, row=tuple(row), deck=tuple(deck)))
    if state.unused and state.deck:  # an unused green card for a deck card: both face down
        unused, deck = list(state.unused), list(state.deck)
        unused[0], deck[0] = deck[0], unused[0]
        changed.append(replace(state, unused=tuple(sorted(unused)), deck=tuple(deck)))
    if state.set_aside and state.deck:  # two players: the nine market cards sitting out
        aside, deck = list(state.set_aside), list(state.deck)
        aside[0], deck[0] = deck[0], aside[0]
        changed.append(replace(state, set_aside=tuple(sorted(aside)), deck=tuple(deck)))
    if state.removed and state.deck:  # corruption cards a power discarded went face down
        removed, deck = list(state.removed), list(state.deck)
        removed[0], deck[0] = deck[0], removed[0]
        changed.append(replace(state, removed=tuple(removed), deck=tuple(deck)))
    changed.append(replace(state, seed=state.seed + 1))  # what later shuffles will deal
    return changed


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=12)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 150), rng=st.randoms())
def test_a_view_does_not_change_with_what_its_seat_may_not_know(players, seed, steps, rng):
    state = midgame(players, seed, steps)
    for viewer in [None, *range(players)]:
        before = view_bytes(state, viewer)
        for other in hidden_changes(state, viewer, rng):
            assert all_cards(other) == list(range(63))
            assert view_bytes(other, viewer) == before


def test_no_view_shows_the_cards_powers_removed_or_the_unused_green_cards():
    """Both lie face down; the test above swaps them only when a random midgame has them."""
    checked = 0
    for seed in range(20):
        state, rng = GAME.setup(3, seed, {}), random.Random(seed)
        for _ in range(120):
            if GAME.outcome(state) is not None:
                break
            seat = GAME.to_act(state)[0]
            state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
            if not (state.removed and state.unused and len(state.deck) >= 2):
                continue
            removed, unused, deck = list(state.removed), list(state.unused), list(state.deck)
            removed[0], unused[0], deck[0], deck[1] = deck[0], deck[1], removed[0], unused[0]
            other = replace(
                state, removed=tuple(removed), unused=tuple(sorted(unused)), deck=tuple(deck)
            )
            assert all_cards(other) == list(range(63))
            for viewer in [None, *range(3)]:
                assert view_bytes(other, viewer) == view_bytes(state, viewer)
            checked += 1
    assert checked > 20  # the swaps did happen, in many positions


def test_a_view_shows_its_own_hand_and_pile_but_only_counts_of_others():
    state = build(
        hands={0: [goods(Goods.IVORY)], 1: [goods(Goods.FISH), AMULET]},
        corruption={0: [goods(Goods.WHEAT)], 1: [goods(Goods.EBONY)]},
        row=[char(Character.THIEF), goods(Goods.MARBLE)],
        options={"corruption_counts": "public"},
    )
    mine = GAME.view(state, 0)
    assert mine.seats[0].hand == (goods(Goods.IVORY),)
    assert mine.seats[0].corruption == (goods(Goods.WHEAT),)
    assert mine.seats[1].hand == () and mine.seats[1].hand_count == 2
    assert mine.seats[1].corruption == () and mine.seats[1].corruption_count == 1
    assert mine.row == (None, goods(Goods.MARBLE))
    spectator = GAME.view(state, None)
    assert all(s.hand == () and s.corruption == () for s in spectator.seats)


def test_corruption_counts_are_hidden_from_other_seats_by_default():
    state = build(corruption={1: [goods(Goods.EBONY)]})
    message = GAME.view_to_proto(GAME.view(state, 0))
    assert not message.seats[1].HasField("corruption_count")
    assert GAME.view(state, 1).seats[1].corruption_count == 1
    moved = state.with_seat(1, corruption=())
    assert view_bytes(moved, 0) == view_bytes(state, 0)


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=8)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 150), rng=st.randoms())
def test_determinize_gives_a_full_state_the_seat_cannot_tell_apart(players, seed, steps, rng):
    state = midgame(players, seed, steps)
    for viewer in range(players):
        guess = GAME.determinize(GAME.view(state, viewer), rng)
        assert all_cards(guess) == list(range(63))
        assert view_bytes(guess, viewer) == view_bytes(state, viewer)
        assert GAME.legal_moves(guess, viewer) == GAME.legal_moves(state, viewer)
        assert all(CARDS[c].green for c in guess.unused)
        assert not any(CARDS[c].green for c in guess.deck)


def test_determinize_shares_hidden_corruption_among_the_other_piles():
    state = midgame(3, seed=4, steps=60, options={"corruption_counts": "hidden"})
    view = GAME.view(state, 0)
    guess = GAME.determinize(view, random.Random(2))
    assert all_cards(guess) == list(range(63))
    assert view_bytes(guess, 0) == view_bytes(state, 0)
    hidden = sum(len(s.corruption) for s in state.seats[1:])
    assert sum(len(s.corruption) for s in guess.seats[1:]) == hidden


def test_every_move_survives_its_protobuf_form():
    ivory = goods(Goods.IVORY)
    moves = [
        Take(3),
        TakeAny(8),
        PlayCharacter(Character.VIZIER),
        PlayCharacter(Character.THIEF, 2),
        PlaySet(Goods.IVORY, tuple(sorted((ivory, AMULET, char(Character.VIZIER))))),
        ChooseEvent(4),
        ChooseEvent(0, 0),
        PickCards(()),
        PickCards((ivory,)),
        AddToSet(Goods.FISH, (goods(Goods.FISH),)),
        FinalSet(Goods.WHEAT, (goods(Goods.WHEAT, 0),) * 3),
        Finish(),
    ]
    for move in moves:
        message = GAME.move_to_proto(move)
        assert isinstance(message, GAME.move_message)
        assert GAME.move_from_proto(message) == move


def test_unreadable_move_messages_are_malformed():
    with pytest.raises(MalformedMove, match=r"expected serai\.games\.sobek\.v1\.Move"):
        GAME.move_from_proto(pb.View())
    with pytest.raises(MalformedMove, match="none of its fields set"):
        GAME.move_from_proto(pb.Move())
    with pytest.raises(MalformedMove, match="not a known Goods"):
        GAME.move_from_proto(pb.Move(play_set=pb.PlaySet(goods=0)))
    with pytest.raises(MalformedMove, match="not a known CardKind"):
        GAME.move_from_proto(pb.Move(pick_cards=pb.PickCards(cards=[pb.Card()])))


def test_labels_are_short_and_never_name_a_hidden_card():
    assert GAME.label(Take(2)) == "take market card 3, 2 to corruption"
    assert GAME.label(TakeAny(6)) == "take market card 7 without corruption"
    assert GAME.label(PickCards((goods(Goods.IVORY),))) == "pick 1 card"
    assert GAME.label(PlayCharacter(Character.THIEF, 1)) == "play the thief on seat 1"
    assert GAME.label(ChooseEvent(0, 1)) == "pick event token 1 against seat 1"


def test_a_finished_match_is_viewed_with_its_results():
    state = build(round=3, phase=Phase.FINAL, finishing=(0, 1))
    state = GAME.apply(GAME.apply(state, 0, Finish()), 1, Finish())
    message = GAME.view_to_proto(GAME.view(state, None))
    assert message.phase == pb.PHASE_OVER and len(message.results) == 1
    assert list(message.to_act) == []
    assert Event.POINTS.value == pb.EVENT_POINTS and filler(1)
