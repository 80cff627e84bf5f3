"""The 12 event tokens of 9 kinds; 5 of them, face down, are in play each round.

Playing a set (or adding to one) lets you look at every token still in play and pick one, which
is mandatory while any are left; it is applied at once and discarded. A bonus helps the player
who picked it; a malus hits another player that the picker names (seed: BGA help).

From sources: 12 tokens, 5 a round (rulebook component list, reviews); 9 kinds, 6 of them single
and 3 that come twice (a review describing the published tokens); the pick is mandatory (raccoon
review). GUESSES, until the rulebook's token page is found: every EFFECT below, and which three
kinds come twice (here POINTS, PURGE and FINE), following a review's summary ("tokens give
points, change actions, turn corruption around").
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
    ANY_CARD = 7  # bonus: take any card of the market row, without corruption
    SCAPEGOAT = 8  # malus: you move one of your corruption cards to the target's pile
    SPOIL = 9  # malus: the target puts one card of their choice from hand into their corruption


POINTS_VALUE = 4  # the default of option event_points
TWICE = frozenset({Event.POINTS, Event.PURGE, Event.FINE})  # which kinds: a guess
TOKENS: tuple[Event, ...] = tuple(
    event for event in Event for _ in range(2 if event in TWICE else 1)
)
TOKENS_PER_ROUND = 5
MALUS = frozenset({Event.FINE, Event.BRIBE, Event.TRIBUTE, Event.SCAPEGOAT, Event.SPOIL})

DESCRIPTIONS: dict[Event, str] = {
    Event.POINTS: "points for you this round",
    Event.PURGE: "discard up to 2 of your corruption cards",
    Event.FIRST_CARD: "take the first card of the market without corruption",
    Event.FINE: "a player of your choice loses points this round",
    Event.BRIBE: "the first market card goes to the corruption pile of a player of your choice",
    Event.TRIBUTE: "a player of your choice gives you a card of their choice",
    Event.ANY_CARD: "take any card of the market without corruption",
    Event.SCAPEGOAT: "move one of your corruption cards to a player of your choice",
    Event.SPOIL: "a player of your choice puts a card of their hand into their corruption",
}


def is_malus(event: Event) -> bool:
    return event in MALUS
