"""The 12 event tokens; 5 of them, face down, are in play each round.

Playing a set lets you look at every token still in play and pick one; it is applied at once and
discarded. A bonus helps the player who picked it; a malus hits another player that the picker
names (seed: BGA help). The token count (12, 5 a round) is from the rulebook's component list and
reviews; the EFFECTS below are GUESSES, the rulebook's token page was not found: six kinds, two of
each, following a review's summary ("tokens give points, change actions, turn corruption around").
"""

from __future__ import annotations

from enum import IntEnum


class Event(IntEnum):
    POINTS = 1  # bonus: +event_points (option, default 4) points this round
    PURGE = 2  # bonus: discard up to 2 cards of your choice from your corruption pile
    FIRST_CARD = 3  # bonus: take the first card of the market row, without corruption
    FINE = 4  # malus: the target loses event_points points this round
    BRIBE = 5  # malus: the first card of the market row goes to the target's corruption pile
    TRIBUTE = 6  # malus: the target gives you one card of their choice from their hand


POINTS_VALUE = 4  # the default of option event_points
TOKENS: tuple[Event, ...] = tuple(event for event in Event for _ in range(2))
TOKENS_PER_ROUND = 5
MALUS = frozenset({Event.FINE, Event.BRIBE, Event.TRIBUTE})

DESCRIPTIONS: dict[Event, str] = {
    Event.POINTS: "points for you this round",
    Event.PURGE: "discard up to 2 of your corruption cards",
    Event.FIRST_CARD: "take the first card of the market without corruption",
    Event.FINE: "a player of your choice loses points this round",
    Event.BRIBE: "the first market card goes to the corruption pile of a player of your choice",
    Event.TRIBUTE: "a player of your choice gives you a card of their choice",
}


def is_malus(event: Event) -> bool:
    return event in MALUS
