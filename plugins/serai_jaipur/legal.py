"""Every legal move of a position, listed fast: the inner loop of playouts, bots and the server.

A turn's legal moves depend on three things only: the market, the hand of the seat to act, and
its herd. Random playouts seldom meet the same three twice, so a memo of whole positions helps
little; what recurs are the parts, and these are memoized as pure functions of small keys:

- :func:`_singles` — take one good (unless the hand is full), take all camels: by market;
- :func:`_sales` — every sale a hand allows: by hand;
- :func:`_takes` — every way to take 2+ goods from a market, a :class:`_Take` each: by market;
- :data:`_GIVES` — the give-backs of one size that avoid the types taken: by a packed key.

An exchange is a take and a give-back of the same size with no type in common, paid from the
hand's goods and the camels the seat may give (its herd, capped by the room left in the hand,
since every camel given grows the hand). For the give-back lookup the hand is packed into an int,
four bits a type (:func:`_packed`), so masking out the types a take uses is one ``&``; the give
vectors are numbered once (:class:`_GiveVectors`) and each :class:`_Take` keeps its Exchange
objects by that number, so a move is built once per process and then shared, like ints.

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

from functools import cache, lru_cache
from itertools import product

from .cards import EXCHANGE_MINIMUM, GOODS, HAND_LIMIT, NUM_GOODS, Good, minimum_sale
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
    hand_size = sum(hand)
    camel_room = HAND_LIMIT - hand_size
    if herd < camel_room:
        camel_room = herd
    exchanges: list[Exchange] = []
    packed = _packed(hand)
    gives = _GIVES
    for take in _takes(market[:NUM_GOODS]):
        size = take.size
        key = (packed & take.keep, camel_room if camel_room < size else size, size)
        exchanges.extend(map(take.exchanges.__getitem__, gives[key]))
    return (*_singles(market, hand_size < HAND_LIMIT), *exchanges, *_sales(hand))


@cache
def _singles(market: Counts, may_take_a_good: bool) -> tuple[Move, ...]:
    """Take one good (each good in the market, if the hand has room), then take all camels."""
    moves: list[Move] = []
    if may_take_a_good:
        moves.extend(TakeGood(good) for good in GOODS if market[good])
    if market[CAMEL]:
        moves.append(TakeCamels(market[CAMEL]))
    return tuple(moves)


@cache
def _sales(hand: Counts) -> tuple[Sell, ...]:
    """Every sale of a hand: each good, from its minimum (2 for precious goods) to all held."""
    return tuple(
        Sell(good, count) for good in GOODS for count in range(minimum_sale(good), hand[good] + 1)
    )


@cache
def _packed(hand: Counts) -> int:
    """The hand as one int, four bits a good: ``hand[i]`` is ``packed >> 4 * i & 0xF``."""
    return sum(count << _BITS * good for good, count in enumerate(hand))


def _unpacked(packed: int) -> Counts:
    return tuple(packed >> _BITS * good & _TYPE_MASK for good in range(NUM_GOODS))


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


@cache
def _takes(goods: Counts) -> tuple[_Take, ...]:
    """Every take of 2+ goods from the market's goods, in ascending count order."""
    return tuple(
        _take_of(counts)
        for counts in product(*(range(count + 1) for count in goods))
        if sum(counts) >= EXCHANGE_MINIMUM
    )


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


class _Gives(dict[tuple[int, int, int], tuple[int, ...]]):
    """Give-backs by (packed goods that may be given, camels that may be given, size).

    The value lists every give vector of that size within those caps, as numbers of
    :data:`_GIVE_VECTORS`, in ascending count order. Filled on demand: a memo of a pure function,
    whose misses go to :func:`_gives_within`, keyed by the caps clipped to the size (many hands
    give back alike: 4 cloth or 5, a give-back of 3 takes at most 3).
    """

    def __missing__(self, key: tuple[int, int, int]) -> tuple[int, ...]:
        packed, camels, size = key
        caps = (*(min(count, size) for count in _unpacked(packed)), camels)
        gives = self[key] = _gives_within(caps, size)
        return gives


@cache
def _gives_within(caps: Counts, size: int) -> tuple[int, ...]:
    return tuple(map(_GIVE_VECTORS.number, _vectors(caps, size)))


_GIVES = _Gives()


@lru_cache(maxsize=1 << 14)
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
