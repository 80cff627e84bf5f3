"""The four kinds of Jaipur move, their canonical form and their labels.

Moves are frozen dataclasses: hashable, compared by value, so a submitted move can be found in
``legal_moves``. An exchange is a pair of multisets of card types, kept sorted, because which
cloth card you give back does not matter, only how many:

    >>> label(Exchange(take=(Good.SILVER, Good.GOLD), give=(Good.CAMEL, Good.CLOTH)))
    'exchange camel + cloth for gold + silver'

:func:`normalize` turns whatever a caller passed into that canonical form, or raises
:class:`~serai.game.MalformedMove` when it cannot be read at all; whether it is legal is the
rules' job.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from serai.game import MalformedMove

from .cards import MARKET_SIZE, NUM_TYPES, Good, plural


@dataclass(frozen=True, slots=True)
class TakeGood:
    """Take one goods card from the market into the hand."""

    good: Good


@dataclass(frozen=True, slots=True)
class TakeCamels:
    """Take every camel in the market into the herd. ``count`` must be all of them.

    The count is part of the move so that the move log and its label say what happened ("take
    all 3 camels"), and so that a request to take only some camels is refused by name.
    """

    count: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """Take ``take`` (2+ goods) from the market, put back ``give`` (goods and/or camels).

    Both are stored sorted by :class:`Good`, so equal multisets give equal moves.
    """

    take: tuple[Good, ...]
    give: tuple[Good, ...]

    def __post_init__(self) -> None:
        for name in ("take", "give"):
            cards = getattr(self, name)
            if not _is_canonical(cards) and _all_goods(cards):
                object.__setattr__(self, name, tuple(sorted(Good(card) for card in cards)))


@dataclass(frozen=True, slots=True)
class Sell:
    """Sell ``count`` cards of one good from the hand."""

    good: Good
    count: int


Move = TakeGood | TakeCamels | Exchange | Sell


def sorted_exchange(take: tuple[Good, ...], give: tuple[Good, ...]) -> Exchange:
    """``Exchange(take, give)`` for sides already in canonical form (sorted tuples of Good).

    Skips ``__init__`` and its canonical-form check: for the move lists, which build thousands of
    exchanges from canonical sides in a fresh process. The result equals ``Exchange(take, give)``.
    """
    exchange = object.__new__(Exchange)
    object.__setattr__(exchange, "take", take)
    object.__setattr__(exchange, "give", give)
    return exchange


def _all_goods(cards: object) -> bool:
    if not isinstance(cards, tuple | list):
        return False
    return all(_is_good(card) for card in cards)


def _is_good(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < NUM_TYPES


def _is_canonical(cards: object) -> bool:
    """A sorted tuple of Good members: the form moves are stored in (checked fast)."""
    if type(cards) is not tuple:
        return False
    previous = -1
    for card in cards:
        if type(card) is not Good or card < previous:
            return False
        previous = card
    return True


def _good(value: object, where: str) -> Good:
    if not _is_good(value):
        names = ", ".join(g.name.lower() for g in Good)
        raise MalformedMove(f"{where}: {value!r} is not a card type (one of {names})")
    return Good(value)  # type: ignore[arg-type]


def _count(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise MalformedMove(f"{where}: {value!r} is not a count of cards (a whole number >= 0)")
    return value


def _cards(value: object, where: str) -> tuple[Good, ...]:
    if not isinstance(value, tuple | list):
        raise MalformedMove(f"{where}: expected a sequence of card types, got {value!r}")
    return tuple(sorted(_good(card, where) for card in value))


def check_exchange_size(take: int, give: int) -> None:
    """MalformedMove for an exchange of more cards than the market holds, on either side: no
    table allows it, and it is refused by its length, before its cards are read."""
    if take > MARKET_SIZE or give > MARKET_SIZE:
        raise MalformedMove(
            f"an exchange takes at most {MARKET_SIZE} cards (the market holds {MARKET_SIZE}) and "
            f"puts back as many, not {take} and {give}"
        )


def _length(cards: object) -> int:
    return len(cards) if isinstance(cards, tuple | list) else 0


def normalize(move: object) -> Move:
    """The canonical form of ``move``; MalformedMove if it is not a readable Jaipur move."""
    if isinstance(move, TakeGood):
        if type(move.good) is Good:
            return move
        return TakeGood(_good(move.good, "take one good"))
    if isinstance(move, TakeCamels):
        if type(move.count) is int and move.count >= 0:
            return move
        return TakeCamels(_count(move.count, "take camels"))
    if isinstance(move, Exchange):
        check_exchange_size(_length(move.take), _length(move.give))
        if _is_canonical(move.take) and _is_canonical(move.give):
            return move
        return Exchange(_cards(move.take, "exchange take"), _cards(move.give, "exchange give"))
    if isinstance(move, Sell):
        if type(move.good) is Good and type(move.count) is int and move.count >= 0:
            return move
        return Sell(_good(move.good, "sell"), _count(move.count, "sell"))
    raise MalformedMove(
        f"{type(move).__name__} is not a Jaipur move; expected TakeGood, TakeCamels, Exchange "
        "or Sell"
    )


def _group(cards: Iterable[Good]) -> str:
    counts: dict[Good, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    parts = []
    for good in sorted(counts, key=lambda g: (g is not Good.CAMEL, g)):
        count = counts[good]
        name = plural(good, count)
        parts.append(name if count == 1 else f"{count} {name}")
    return " + ".join(parts)


def label(move: Move) -> str:
    """A short public description: "take 1 diamond", "exchange 2 camels + cloth for gold + silver".

    Camels are named first in what an exchange gives, then goods in the order of :class:`Good`.
    MalformedMove for a move :func:`normalize` cannot read.
    """
    # The memo finds moves by equality, and Sell(CLOTH, True) == Sell(CLOTH, 1): only canonical
    # moves may reach it, or whichever form came first would name the other.
    return _label(normalize(move))


@lru_cache(maxsize=1 << 12)  # moves are values, and few recur: listing a position labels ~25
def _label(move: Move) -> str:
    if isinstance(move, TakeGood):
        return f"take 1 {plural(Good(move.good), 1)}"
    if isinstance(move, TakeCamels):
        return f"take all {move.count} {plural(Good.CAMEL, move.count)}"
    if isinstance(move, Exchange):
        return f"exchange {_group(move.give)} for {_group(move.take)}"
    return f"sell {move.count} {plural(Good(move.good), move.count)}"
