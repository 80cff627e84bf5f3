"""Crops and cards: what a Nile card shows, and the deck a match is played with.

A card is its face and nothing else. Two wheat cards are interchangeable, and there is one
speculation card per pair of crops, so every zone of the game is a multiset of faces and no card
needs an id. A card's ``crops`` says what it is: one crop for a crop card, two for a speculation
card, none for the plague of locusts::

    >>> Card.speculation(Crop.WHEAT, Crop.PAPYRUS).name
    'papyrus/wheat'
    >>> len(build_deck(base_crops()))
    91
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations

COPIES_PER_CROP = 16
DELUXOR_COPIES_PER_CROP = 14
"""DeLuxor's one published component list (141 cards: 98 crop cards, 7 crops x 14; 21
speculation; 14 stone; 3 monument; 3 season; 1 plague; 1 flood) gives 14 per crop; under
``deluxor`` every player count uses it. The rulebook itself was not available."""
HAND_SIZE = 5


class Crop(IntEnum):
    """The crops, in the order the base game lists them; DeLuxor adds grapes and onions.

    The value doubles as the index into per-crop count tuples (fields, storehouses), which is why
    the crops in play are always a prefix of this order.
    """

    PAPYRUS = 0
    WHEAT = 1
    LETTUCE = 2
    CASTOR = 3
    FLAX = 4
    GRAPES = 5
    ONIONS = 6

    @property
    def label(self) -> str:
        return self.name.lower()


BASE_CROP_COUNT = 5


def base_crops() -> tuple[Crop, ...]:
    """The five crops of the base game."""
    return tuple(Crop)[:BASE_CROP_COUNT]


def deluxor_crops(players: int) -> tuple[Crop, ...]:
    """DeLuxor plays one more crop per player beyond four: 5 crops for 2-4, 6 for 5, 7 for 6."""
    return tuple(Crop)[: BASE_CROP_COUNT + max(0, players - 4)]


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card face. ``crops`` is sorted; () is the plague of locusts."""

    crops: tuple[Crop, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "crops", tuple(sorted(self.crops)))

    @classmethod
    def crop(cls, crop: Crop) -> Card:
        # The rules and the search ask for crop cards in their inner loops: one per crop, made once.
        card = CROP_CARDS.get(crop)
        return cls((Crop(crop),)) if card is None else card

    @classmethod
    def speculation(cls, first: Crop, second: Crop) -> Card:
        if first == second:
            raise ValueError("a speculation card shows two different crops")
        return cls((Crop(first), Crop(second)))

    @property
    def is_plague(self) -> bool:
        return not self.crops

    @property
    def is_speculation(self) -> bool:
        return len(self.crops) == 2

    @property
    def is_crop(self) -> bool:
        return len(self.crops) == 1

    @property
    def name(self) -> str:
        """ "wheat", "papyrus/wheat" or "plague": how labels and announcements name the card."""
        return "/".join(crop.label for crop in self.crops) if self.crops else "plague"

    @property
    def code(self) -> str:
        """A compact, stable spelling for stored state: "1", "0-1", "X"."""
        return "-".join(str(int(crop)) for crop in self.crops) if self.crops else "X"

    @classmethod
    def from_code(cls, code: str) -> Card:
        if code == "X":
            return PLAGUE
        crops = tuple(Crop(int(part)) for part in code.split("-"))
        if len(crops) == 1:
            return cls.crop(crops[0])
        if len(crops) == 2:
            return cls.speculation(*crops)
        raise ValueError(f"not a card code: {code!r}")


PLAGUE = Card(())
CROP_CARDS: dict[Crop, Card] = {crop: Card((crop,)) for crop in Crop}
"""The crop card of each crop (cards are values: one of each face serves every zone)."""

MOST_CARDS = DELUXOR_COPIES_PER_CROP * len(Crop) + len(Crop) * (len(Crop) - 1) // 2 + 1
"""120: the cards of the largest deck (DeLuxor with six players; base Nile has 91), so no move
names more."""


def build_deck(crops: Iterable[Crop], copies: int = COPIES_PER_CROP) -> tuple[Card, ...]:
    """Every card of a match, sorted: ``copies`` of each crop (16, or 14 with DeLuxor), a
    speculation card per pair, the plague."""
    crops = tuple(crops)
    cards = [Card.crop(crop) for crop in crops for _ in range(copies)]
    cards += [Card.speculation(a, b) for a, b in combinations(crops, 2)]
    cards.append(PLAGUE)
    return tuple(sorted(cards))


def multiset(cards: Iterable[Card]) -> tuple[Card, ...]:
    """The canonical form of a zone whose order does not matter (a hand, the discard pile)."""
    return tuple(sorted(cards))


def crop_counts(cards: Iterable[Card], crops: tuple[Crop, ...]) -> tuple[int, ...]:
    """How many crop cards of each crop in play, indexed by crop value."""
    counter = Counter(card.crops[0] for card in cards if card.is_crop)
    return tuple(counter[crop] for crop in crops)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
