"""Every legal move of a position, listed fast: the inner loop of playouts, bots and the server.

A turn's legal moves depend on three things only: the market, the hand of the seat to act, and
its herd. Random playouts seldom meet the same three twice, so a memo of whole positions helps
little; what recurs are the parts, and these are memoized as pure functions of small keys:

- :func:`_market_moves` — by market: take one good, take all camels, and every way to take 2+
  goods for an exchange (a :class:`_Take` each);
- :func:`_hand_facts` — by hand: its size, its packed form, and every sale it allows;
- :data:`_GIVES` — by camels that may be given, size, and packed goods that may be given: the
  give-backs of an exchange.

An exchange is a take and a give-back of the same size with no type in common, paid from the
hand's goods and the camels the seat may give (its herd, capped by the room left in the hand,
since every camel given grows the hand). For the give-back lookup the hand is packed into an int,
four bits a type, so masking out the types a take uses is one ``&``. Give vectors are numbered
once (:class:`_GiveVectors`) and each :class:`_Take` keeps its Exchange objects by that number,
so a move is built once per process and then shared, like small ints.

Every table is a memo of a pure function, filled on demand and bounded by the game's
combinatorics (462 markets, 1,716 hands of up to 7 goods), so nothing here is state that could
make two runs differ.

The order is the rules' canonical one, the same as a plain enumeration would give: takes of one
good (in :class:`Good` order), take camels, exchanges (takes in ascending count order, then
give-backs likewise), sales (by good, then count).

Example::

    >>> from serai_jaipur.moves import label
    >>> market, hand, herd = (0, 0, 0, 0, 0, 2, 3), (1, 0, 0, 1, 0, 0), 0  # 2 leather, 3 camels
    >>> [label(move) for move in moves_for(market, hand, herd)]  # doctest: +NORMALIZE_WHITESPACE
    ['take 1 leather', 'take all 3 camels', 'exchange diamond + cloth for 2 leather',
     'sell 1 cloth']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from itertools import product

from .cards import (
    EXCHANGE_MINIMUM,
    GOODS,
    HAND_LIMIT,
    MARKET_SIZE,
    NUM_GOODS,
    Good,
    minimum_sale,
)
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood
from .state import Counts

CAMEL = int(Good.CAMEL)
_BITS = 4
"""Bits per card type in a packed hand: a hand holds at most 7 cards of a type."""
_TYPE_MASK = (1 << _BITS) - 1


@lru_cache(maxsize=1 << 16)
def moves_for(market: Counts, hand: Counts, herd: int) -> tuple[Move, ...]:
    """The legal moves of the seat to act, given the market, its hand and its herd.

    Memoized on the position, for callers that ask about one position more than once (the
    server lists moves, then applies one of them; a search revisits positions).
    """
    return list_moves(market, hand, herd)


def list_moves(market: Counts, hand: Counts, herd: int) -> tuple[Move, ...]:
    """:func:`moves_for` without the memo of whole positions: the cost of a new position."""
    singles_if_room, singles_if_full, takes = _market_moves(market)
    hand_size, packed, sales = _hand_facts(hand)
    camel_room = HAND_LIMIT - hand_size
    gives_by_size = _GIVES[herd if herd < camel_room else camel_room]
    exchanges: list[Exchange] = []
    for keep, size, exchange in takes:
        exchanges += map(exchange, gives_by_size[size][packed & keep])
    singles = singles_if_room if hand_size < HAND_LIMIT else singles_if_full
    return (*singles, *exchanges, *sales)


# --- by market ---------------------------------------------------------------------------------

_TakeEntry = tuple[int, int, Callable[[int], Exchange]]
"""A take as the loop of :func:`list_moves` reads it: (keep mask, size, give number -> move)."""


_MarketMoves = tuple[tuple[Move, ...], tuple[Move, ...], tuple[_TakeEntry, ...]]


@cache
def _market_moves(market: Counts) -> _MarketMoves:
    """Single takes with room in the hand, single takes with a full hand, and exchange takes.

    A take of one good needs room in the hand; taking all the camels is always allowed. Exchange
    takes are every way to take 2+ goods, in ascending count order.
    """
    camels: tuple[Move, ...] = (TakeCamels(market[CAMEL]),) if market[CAMEL] else ()
    goods = tuple(TakeGood(good) for good in GOODS if market[good])
    takes = tuple(
        _take_of(counts)
        for counts in product(*(range(market[good] + 1) for good in GOODS))
        if sum(counts) >= EXCHANGE_MINIMUM
    )
    entries = tuple((take.keep, take.size, take.exchanges.__getitem__) for take in takes)
    return (*goods, *camels), camels, entries


class _Take:
    """One way to take 2+ goods from the market, and the exchanges made with it so far.

    ``keep`` masks a packed hand down to the goods this take leaves alone (a type taken may not
    be given back); ``exchanges`` maps a give vector's number to the shared Exchange object.
    """

    __slots__ = ("counts", "exchanges", "keep", "size")

    def __init__(self, counts: Counts) -> None:
        self.counts = counts
        self.size = sum(counts)
        self.keep = sum(_TYPE_MASK << _BITS * good for good, n in enumerate(counts) if n == 0)
        self.exchanges = _ExchangesOf(_spelled(counts))


class _ExchangesOf(dict[int, Exchange]):
    """The exchanges of one take, by give vector number, each built the first time it is asked."""

    __slots__ = ("take",)

    def __init__(self, take: tuple[Good, ...]) -> None:
        super().__init__()
        self.take = take

    def __missing__(self, give: int) -> Exchange:
        exchange = self[give] = Exchange(self.take, _GIVE_VECTORS.spelled[give])
        return exchange


@cache
def _take_of(counts: Counts) -> _Take:
    """The one :class:`_Take` of these counts, shared by every market that allows it."""
    return _Take(counts)


# --- by hand -----------------------------------------------------------------------------------


@cache
def _hand_facts(hand: Counts) -> tuple[int, int, tuple[Sell, ...]]:
    """The hand's size, the hand packed four bits a good, and every sale it allows.

    A sale sells one good, from its minimum (2 for precious goods) to all the cards held.
    """
    packed = sum(count << _BITS * good for good, count in enumerate(hand))
    sales = tuple(
        Sell(good, count) for good in GOODS for count in range(minimum_sale(good), hand[good] + 1)
    )
    return sum(hand), packed, sales


def _unpacked(packed: int) -> Counts:
    return tuple(packed >> _BITS * good & _TYPE_MASK for good in range(NUM_GOODS))


# --- give-backs --------------------------------------------------------------------------------


class _GiveVectors:
    """Give vectors (7 counts, camels last) numbered in the order they are first met."""

    def __init__(self) -> None:
        self.numbers: dict[Counts, int] = {}
        self.spelled: list[tuple[Good, ...]] = []

    def number(self, vector: Counts) -> int:
        number = self.numbers.get(vector)
        if number is None:
            number = self.numbers[vector] = len(self.spelled)
            self.spelled.append(_spelled(vector))
        return number


_GIVE_VECTORS = _GiveVectors()


class _Gives(dict[int, tuple[int, ...]]):
    """Give-backs of ``size`` cards with at most ``camels`` camels, by packed goods that may go.

    The value lists every give vector within those caps, as numbers of :data:`_GIVE_VECTORS`, in
    ascending count order. Misses go to :func:`_gives_within`, keyed by the caps clipped to the
    size (many hands give back alike: 4 cloth or 5, a give-back of 3 takes at most 3).
    """

    __slots__ = ("camels", "size")

    def __init__(self, camels: int, size: int) -> None:
        super().__init__()
        self.camels = camels
        self.size = size

    def __missing__(self, packed: int) -> tuple[int, ...]:
        size = self.size
        caps = (*(min(count, size) for count in _unpacked(packed)), self.camels)
        gives = self[packed] = _gives_within(caps, size)
        return gives


def _gives_table() -> tuple[tuple[_Gives, ...], ...]:
    """``table[camel_room][size]``: camels beyond the size cannot be given, so those share."""
    by_caps = {
        (camels, size): _Gives(camels, size)
        for size in range(MARKET_SIZE + 1)
        for camels in range(size + 1)
    }
    return tuple(
        tuple(by_caps[min(room, size), size] for size in range(MARKET_SIZE + 1))
        for room in range(HAND_LIMIT + 1)
    )


_GIVES = _gives_table()


@cache
def _gives_within(caps: Counts, size: int) -> tuple[int, ...]:
    return tuple(map(_GIVE_VECTORS.number, _vectors(caps, size)))


@cache
def _vectors(caps: Counts, total: int) -> tuple[Counts, ...]:
    """Every count vector ``v`` with ``0 <= v[i] <= caps[i]`` and ``sum(v) == total``."""
    if not caps:
        return ((),) if total == 0 else ()
    head, rest = caps[0], caps[1:]
    room = sum(rest)
    return tuple(
        (first, *tail)
        for first in range(max(0, total - room), min(head, total) + 1)
        for tail in _vectors(rest, total - first)
    )


def _spelled(counts: Counts) -> tuple[Good, ...]:
    """Count vector to the sorted cards an Exchange holds: (0, 2, 1) -> (GOLD, GOLD, SILVER)."""
    return tuple(Good(card) for card, count in enumerate(counts) for _ in range(count))
