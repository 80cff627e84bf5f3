"""Sets: which groups of cards may be laid, and what a laid set is worth.

A set is 3+ cards of one goods type; amulets are wild and a character counts as its goods type
(seed). A set laid during play scores its scarabs times its cards; a final set laid horizontally
at the round's end scores its scarabs only (seed: "8 cards with 3 scarabs are worth 3 points").
Example: ivory (3 scarabs) + ivory (0) + amulet is worth 3 x 3 = 9.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import product

from serai_sobek.cards import Face, Goods, Kind, face_of, scarabs
from serai_sobek.state import TableSet

MIN_SET = 3


def fitting(hand: tuple[int, ...], goods: Goods) -> Counter[Face]:
    """How many cards of each face in ``hand`` may join a set of ``goods``."""
    return Counter(face for face in map(face_of, hand) if face.fits(goods))


def multisets(counts: Counter[Face], low: int, high: int) -> Iterator[tuple[Face, ...]]:
    """Every multiset of the faces with ``low <= size <= high``, sorted, in a fixed order."""
    ordered = sorted(counts)
    for picks in product(*(range(counts[face] + 1) for face in ordered)):
        size = sum(picks)
        if low <= size <= high:
            yield tuple(face for face, n in zip(ordered, picks, strict=True) for _ in range(n))


def has_natural(cards: tuple[Face, ...]) -> bool:
    return any(face.kind is not Kind.AMULET for face in cards)


def set_choices(
    hand: tuple[int, ...], goods: Goods, low: int, high: int, need_natural: bool
) -> list[tuple[Face, ...]]:
    """The groups of hand cards that may be laid as (or added to) a set of ``goods``."""
    return [
        cards
        for cards in multisets(fitting(hand, goods), low, high)
        if not need_natural or has_natural(cards)
    ]


def points(table_set: TableSet) -> int:
    value = scarabs(table_set.cards)
    return value if table_set.horizontal else value * len(table_set.cards)


def set_of(sets: tuple[TableSet, ...], goods: Goods) -> int | None:
    """Index of the vertical set of ``goods`` among ``sets``, if there is one."""
    return next(
        (i for i, s in enumerate(sets) if s.goods == goods and not s.horizontal),
        None,
    )
