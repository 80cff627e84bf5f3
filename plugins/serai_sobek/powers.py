"""What characters and event tokens do. Each function returns a new state; none decides turns.

Character powers are GUESSES except where noted: the rulebook's power page was not found. Names
from sources: Scribe, Thief, Vizier and Queen (designer's page), High Priest and Queen (a German
review). Architect, Princess, Boatman and Courtesan (named in the task brief) are stand-in names.
A power that needs another seat's decision leaves a :class:`Pending` naming that seat.

| character   | power (guess)                                                                   |
|-------------|---------------------------------------------------------------------------------|
| Vizier      | every other player, in turn order, gives you one card of their choice            |
| Thief       | take one card at random from the hand of a player you name                       |
| Scribe      | discard up to two cards of your choice from your corruption pile                  |
| Courtesan   | move one card of your corruption pile to the pile of a player you name            |
| High Priest | take any card of the market row, without corruption                               |
| Queen       | look at the event tokens left and pick one, as if you had laid a set              |
| Architect   | add one or two cards of your hand to one of your sets                             |
| Princess    | a player you name puts one card of their choice from hand into their corruption  |
| Boatman     | take the first two cards of the market row, without corruption                    |
"""

from __future__ import annotations

from dataclasses import replace

from serai.game import seeded_rng

from serai_sobek.cards import CHARACTER_IDS, Character
from serai_sobek.events import Event
from serai_sobek.state import Pending, PendingKind, SobekState

TARGETED = frozenset({Character.THIEF, Character.COURTESAN, Character.PRINCESS})


def opponents(state: SobekState, seat: int) -> tuple[int, ...]:
    """The other seats in turn order, starting on the left of ``seat``."""
    return tuple((seat + step) % state.players for step in range(1, state.players))


def push(state: SobekState, *pending: Pending) -> SobekState:
    """Decisions to make before anything already waiting."""
    return replace(state, pending=(*pending, *state.pending))


def take_from_row(state: SobekState, seat: int, position: int) -> SobekState:
    card = state.row[position]
    state = replace(state, row=state.row[:position] + state.row[position + 1 :])
    return state.with_seat(seat, hand=tuple(sorted((*state.seats[seat].hand, card))))


def move_card(state: SobekState, giver: int, receiver: int, card: int) -> SobekState:
    hand = list(state.seats[giver].hand)
    hand.remove(card)
    state = state.with_seat(giver, hand=tuple(hand))
    return state.with_seat(receiver, hand=tuple(sorted((*state.seats[receiver].hand, card))))


def play_character(
    state: SobekState, seat: int, character: Character, target: int | None
) -> SobekState:
    """Reveal the character, discard it, and apply (or queue) its power."""
    card = CHARACTER_IDS[character]
    hand = list(state.seats[seat].hand)
    hand.remove(card)
    state = state.with_seat(seat, hand=tuple(hand))
    state = replace(state, discard=(*state.discard, card))
    match character:
        case Character.VIZIER:
            givers = [Pending(PendingKind.GIVE, o, seat) for o in opponents(state, seat)]
            return push(state, *givers)
        case Character.THIEF:
            assert target is not None
            victim = state.seats[target].hand
            if not victim:
                return state
            rng = seeded_rng(state.seed, "thief", state.round, state.turn)
            return move_card(state, target, seat, rng.choice(sorted(victim)))
        case Character.SCRIBE:
            return push(state, Pending(PendingKind.PURGE, seat))
        case Character.COURTESAN:
            assert target is not None
            return push(state, Pending(PendingKind.PASS_CORRUPTION, seat, target))
        case Character.HIGH_PRIEST:
            return push(state, Pending(PendingKind.TAKE_ANY, seat))
        case Character.QUEEN:
            return push(state, Pending(PendingKind.EVENT, seat))
        case Character.ARCHITECT:
            return push(state, Pending(PendingKind.ARCHITECT, seat))
        case Character.PRINCESS:
            assert target is not None
            return push(state, Pending(PendingKind.SELF_CORRUPT, target))
        case Character.BOATMAN:
            for _ in range(min(2, len(state.row))):
                state = take_from_row(state, seat, 0)
            return state
    raise AssertionError(character)


def _points(state: SobekState) -> int:
    return int(state.option("event_points"))


def apply_event(state: SobekState, seat: int, event: Event, target: int | None) -> SobekState:
    """The picked token's effect: a bonus for ``seat`` or a malus for ``target``."""
    match event:
        case Event.POINTS:
            return state.with_seat(seat, bonus=state.seats[seat].bonus + _points(state))
        case Event.PURGE:
            return push(state, Pending(PendingKind.PURGE, seat))
        case Event.FIRST_CARD:
            return take_from_row(state, seat, 0) if state.row else state
        case Event.FINE:
            assert target is not None
            return state.with_seat(target, bonus=state.seats[target].bonus - _points(state))
        case Event.BRIBE:
            assert target is not None
            if not state.row:
                return state
            card, row = state.row[0], state.row[1:]
            state = replace(state, row=row)
            return state.with_seat(target, corruption=(*state.seats[target].corruption, card))
        case Event.TRIBUTE:
            assert target is not None
            return push(state, Pending(PendingKind.GIVE, target, seat))
        case Event.ANY_CARD:
            return push(state, Pending(PendingKind.TAKE_ANY, seat))
        case Event.SCAPEGOAT:
            assert target is not None
            return push(state, Pending(PendingKind.PASS_CORRUPTION, seat, target))
        case Event.SPOIL:
            assert target is not None
            return push(state, Pending(PendingKind.SELF_CORRUPT, target))
    raise AssertionError(event)
