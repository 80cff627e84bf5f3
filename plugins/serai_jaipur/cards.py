"""The components of Jaipur as constants: card types and counts, token stacks, bonus stacks.

Cards of one type are interchangeable, so every pile the rules care about as a multiset (market,
hand, discards) is a tuple of counts indexed by :class:`Good`; only the deck keeps an order. Token
stacks never change their order, so a stack is fully described by how many tokens remain on it:
the remaining tokens are the last ``n`` of :data:`GOODS_TOKENS`.

Example::

    >>> GOODS_TOKENS[Good.DIAMOND][:2]
    (7, 7)
    >>> bonus_kind(6)
    5
"""

from __future__ import annotations

from enum import IntEnum


class Good(IntEnum):
    """A card type. The order is the canonical order of counts, moves and labels."""

    DIAMOND = 0
    GOLD = 1
    SILVER = 2
    CLOTH = 3
    SPICE = 4
    LEATHER = 5
    CAMEL = 6


GOODS: tuple[Good, ...] = tuple(g for g in Good if g is not Good.CAMEL)
"""The six goods types, camels excluded: the types that can be held in hand and sold."""

NUM_GOODS = len(GOODS)
NUM_TYPES = len(Good)

CARD_COUNTS: tuple[int, ...] = (6, 6, 6, 8, 8, 10, 11)
"""How many cards of each type the game has, by :class:`Good`: 55 in all."""

TOTAL_CARDS = sum(CARD_COUNTS)

MARKET_SIZE = 5
MARKET_CAMELS_AT_SETUP = 3
HAND_SIZE_AT_SETUP = 5
HAND_LIMIT = 7
EXCHANGE_MINIMUM = 2

GOODS_TOKENS: tuple[tuple[int, ...], ...] = (
    (7, 7, 5, 5, 5),
    (6, 6, 5, 5, 5),
    (5, 5, 5, 5, 5),
    (5, 3, 3, 2, 2, 1, 1),
    (5, 3, 3, 2, 2, 1, 1),
    (4, 3, 2, 1, 1, 1, 1, 1, 1),
)
"""The goods tokens of each good, top of the stack first (highest on top)."""

PRECIOUS: frozenset[Good] = frozenset({Good.DIAMOND, Good.GOLD, Good.SILVER})
"""Goods that must be sold two cards at least, even when their token stack is empty."""

BONUS_KINDS: tuple[int, ...] = (3, 4, 5)
"""The three bonus stacks, named by the cards sold: 3, 4, and 5 or more."""

BONUS_TOKENS: tuple[tuple[int, ...], ...] = (
    (1, 1, 2, 2, 2, 3, 3),
    (4, 4, 5, 5, 6, 6),
    (8, 8, 9, 10, 10),
)
"""The values of each bonus stack, by position in :data:`BONUS_KINDS`, before shuffling."""

CAMEL_TOKEN = 5
SEALS_TO_WIN = 2
EMPTY_STACKS_TO_END = 3


def minimum_sale(good: Good) -> int:
    """Diamonds, gold and silver sell two at least; cloth, spice and leather one."""
    return 2 if good in PRECIOUS else 1


def bonus_kind(cards_sold: int) -> int | None:
    """The bonus stack a sale of that many cards draws from: 3, 4, 5 (for 5, 6 or 7), or None."""
    if cards_sold < 3:
        return None
    return min(cards_sold, 5)


def plural(good: Good, count: int) -> str:
    """The good's name for ``count`` cards: "diamond", "diamonds", "gold", "camels"."""
    name = good.name.lower()
    if count != 1 and good in (Good.DIAMOND, Good.CAMEL):
        return name + "s"
    return name


def setup_deck() -> list[Good]:
    """The 52 cards shuffled at setup (all but the 3 camels laid in the market), in type order."""
    cards: list[Good] = []
    for good in Good:
        count = CARD_COUNTS[good]
        if good is Good.CAMEL:
            count -= MARKET_CAMELS_AT_SETUP
        cards.extend([good] * count)
    return cards
