"""The 63 Sobek cards: 54 goods cards (49 typed goods + 5 amulets) and 9 characters.

A card is known to the rules by its id (0..62) and to players by its :class:`Face`: what is printed
on it. Cards with the same face are interchangeable, so moves name faces, never ids; the rules
always move the lowest-numbered card of a face. Example::

    >>> face_of(0)
    Face(kind=<Kind.GOODS: 1>, goods=1, scarabs=3, character=0)

Counts per goods type are from the rulebook's component list (6 ivory, 7 ebony, 7 marble,
9 cattle, 10 fish, 5 amulets; wheat, 10, is what makes the stated total of 54). Which cards carry
scarabs, how many of each type do, which 9 have the green starting-hand back, and which goods type
each character belongs to are GUESSES (see the package docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Goods(IntEnum):
    IVORY = 1
    EBONY = 2
    MARBLE = 3
    CATTLE = 4
    FISH = 5
    WHEAT = 6


class Kind(IntEnum):
    GOODS = 1
    AMULET = 2
    CHARACTER = 3


class Character(IntEnum):
    VIZIER = 1
    THIEF = 2
    SCRIBE = 3
    COURTESAN = 4
    HIGH_PRIEST = 5
    QUEEN = 6
    ARCHITECT = 7
    PRINCESS = 8
    BOATMAN = 9


@dataclass(frozen=True, order=True)
class Face:
    """What a card shows. ``goods`` is 0 for an amulet; ``character`` is 0 unless a character."""

    kind: Kind
    goods: int
    scarabs: int
    character: int = 0

    def fits(self, goods: Goods) -> bool:
        """Whether the card may stand in a set of ``goods`` (amulets are wild)."""
        return self.kind is Kind.AMULET or self.goods == goods

    def text(self) -> str:
        if self.kind is Kind.AMULET:
            return "amulet"
        name = Goods(self.goods).name.lower()
        if self.kind is Kind.CHARACTER:
            return f"{Character(self.character).name.lower().replace('_', ' ')} ({name})"
        return f"{name} ({self.scarabs} scarab{'s' if self.scarabs != 1 else ''})"


@dataclass(frozen=True)
class GoodsSpec:
    count: int  # cards of this type (rulebook)
    value: int  # scarabs on a card that has a trade value (ivory 3: rulebook; others: guess)
    valued: int  # how many of the cards have a trade value (guess)
    green: int  # how many plain cards of this type have the green starting-hand back (guess)


GOODS_SPECS: dict[Goods, GoodsSpec] = {
    Goods.IVORY: GoodsSpec(count=6, value=3, valued=4, green=1),
    Goods.EBONY: GoodsSpec(count=7, value=2, valued=4, green=1),
    Goods.MARBLE: GoodsSpec(count=7, value=2, valued=4, green=1),
    Goods.CATTLE: GoodsSpec(count=9, value=1, valued=5, green=2),
    Goods.FISH: GoodsSpec(count=10, value=1, valued=6, green=2),
    Goods.WHEAT: GoodsSpec(count=10, value=1, valued=6, green=2),
}
AMULETS = 5

# Each character also belongs to a goods family (rulebook); which one is a guess.
CHARACTER_GOODS: dict[Character, Goods] = {
    Character.VIZIER: Goods.IVORY,
    Character.THIEF: Goods.EBONY,
    Character.SCRIBE: Goods.MARBLE,
    Character.COURTESAN: Goods.CATTLE,
    Character.HIGH_PRIEST: Goods.FISH,
    Character.QUEEN: Goods.WHEAT,
    Character.ARCHITECT: Goods.EBONY,
    Character.PRINCESS: Goods.CATTLE,
    Character.BOATMAN: Goods.WHEAT,
}


@dataclass(frozen=True)
class Card:
    id: int
    face: Face
    green: bool  # green back: dealt as a starting hand, never in the market deck


def _catalog() -> tuple[Card, ...]:
    cards: list[Card] = []
    for goods, spec in GOODS_SPECS.items():
        for index in range(spec.count):
            valued = index < spec.valued
            face = Face(Kind.GOODS, int(goods), spec.value if valued else 0)
            green = index >= spec.count - spec.green
            cards.append(Card(len(cards), face, green))
    for _ in range(AMULETS):
        cards.append(Card(len(cards), Face(Kind.AMULET, 0, 0), False))
    for character, goods in CHARACTER_GOODS.items():
        cards.append(Card(len(cards), Face(Kind.CHARACTER, int(goods), 0, int(character)), False))
    return tuple(cards)


CARDS: tuple[Card, ...] = _catalog()
CARD_COUNT = len(CARDS)
GREEN_IDS: tuple[int, ...] = tuple(card.id for card in CARDS if card.green)
MARKET_IDS: tuple[int, ...] = tuple(card.id for card in CARDS if not card.green)
CHARACTER_IDS: dict[Character, int] = {
    Character(card.face.character): card.id for card in CARDS if card.face.kind is Kind.CHARACTER
}


def face_of(card_id: int) -> Face:
    return CARDS[card_id].face


def faces(card_ids: tuple[int, ...]) -> tuple[Face, ...]:
    """The faces of some cards, sorted: a multiset in canonical order."""
    return tuple(sorted(face_of(card) for card in card_ids))


def scarabs(card_ids: tuple[int, ...]) -> int:
    return sum(face_of(card).scarabs for card in card_ids)


def take_faces(pool: tuple[int, ...], wanted: tuple[Face, ...]) -> tuple[int, ...] | None:
    """The lowest-numbered cards of ``pool`` showing ``wanted`` (a multiset), or None if missing."""
    left = sorted(pool)
    chosen: list[int] = []
    for face in wanted:
        match = next((card for card in left if face_of(card) == face), None)
        if match is None:
            return None
        left.remove(match)
        chosen.append(match)
    return tuple(sorted(chosen))


def without(pool: tuple[int, ...], removed: tuple[int, ...]) -> tuple[int, ...]:
    gone = list(removed)
    kept = []
    for card in pool:
        if card in gone:
            gone.remove(card)
        else:
            kept.append(card)
    return tuple(kept)
