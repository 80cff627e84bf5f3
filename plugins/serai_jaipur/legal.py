"""Every legal move of a position, listed fast: the inner loop of playouts, bots and the server.

A turn's legal moves depend on three things only: the market, the hand of the seat to act, and
its herd. Random playouts seldom meet the same three twice, so a memo of whole positions helps
little; what recurs are the parts, and these are memoized as pure functions of small keys:

- :func:`_market_moves` — by market: take one good, take all camels, and every way to take 2+
  goods for an exchange (a :class:`_Take` each);
- :func:`_hand_facts` — by hand: its size, its packed form, and every sale it allows;
- :data:`_GIVES` — by camels that may be given, size, and packed goods that may be given: the
  give-backs of an exchange, each found by an ``&`` of precomputed masks (:class:`_GiveVectors`).

An exchange is a take and a give-back of the same size with no type in common, paid from the
hand's goods and the camels the seat may give (its herd, capped by the room left in the hand,
since every camel given grows the hand). For the give-back lookup the hand is packed into an int,
four bits a type, so masking out the types a take uses is one ``&``. Give vectors are numbered
once (:class:`_GiveVectors`) and each :class:`_Take` keeps its Exchange objects by that number,
so a move is built once per process and then shared, like small ints.

Every table is a memo of a pure function, filled on demand and bounded by the game's
combinatorics (462 markets, 1,716 hands of up to 7 goods), so nothing here is state that could
make two runs differ. Only the 784 give vectors and their masks are built at import (about 1 ms).

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
from itertools import chain, combinations_with_replacement, product, repeat

from .cards import (
    EXCHANGE_MINIMUM,
    GOODS,
    HAND_LIMIT,
    MARKET_SIZE,
    NUM_GOODS,
    Good,
    minimum_sale,
)
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood, sorted_exchange
from .state import Counts

CAMEL = int(Good.CAMEL)
_BITS = 4
"""Bits per card type in a packed hand: a hand holds at most 7 cards of a type."""
_TYPE_MASK = (1 << _BITS) - 1
_TYPES = tuple(Good)


@lru_cache(maxsize=1 << 12)
def moves_for(market: Counts, hand: Counts, herd: int) -> tuple[Move, ...]:
    """The legal moves of the seat to act, given the market, its hand and its herd.

    Memoized on the position, for callers that ask about one position more than once (the
    server lists moves, then applies one of them; a search revisits positions). Kept small on
    purpose: random play seldom meets a position twice, and a memo of 65,536 positions cost more
    in memory and garbage collection than it saved (a fresh process: 19.3M -> 18.7M instructions
    a match). A position that fell out is listed again, with the same shared move objects.
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
    camels: tuple[Move, ...] = (_take_camels(market[CAMEL]),) if market[CAMEL] else ()
    goods = tuple(_take_good(good) for good in GOODS if market[good])
    takes = tuple(
        _take_of(counts)
        for counts in product(*(range(market[good] + 1) for good in GOODS))
        if sum(counts) >= EXCHANGE_MINIMUM
    )
    entries = tuple((take.keep, take.size, take.exchange) for take in takes)
    return (*goods, *camels), camels, entries


class _Take:
    """One way to take 2+ goods from the market, and the exchanges made with it so far.

    ``keep`` masks a packed hand down to the goods this take leaves alone (a type taken may not
    be given back); ``exchanges`` maps a give vector's number to the shared Exchange object, and
    ``exchange`` is its lookup, made once (every market allowing this take lists the same one).
    """

    __slots__ = ("counts", "exchange", "exchanges", "keep", "size")

    def __init__(self, counts: Counts) -> None:
        self.counts = counts
        self.size = sum(counts)
        self.keep = sum(_TYPE_MASK << _BITS * good for good, n in enumerate(counts) if n == 0)
        self.exchanges = _ExchangesOf(_spelled(counts))
        self.exchange = self.exchanges.__getitem__


class _ExchangesOf(dict[int, Exchange]):
    """The exchanges of one take, by give vector number, each built the first time it is asked."""

    __slots__ = ("take",)

    def __init__(self, take: tuple[Good, ...]) -> None:
        super().__init__()
        self.take = take

    def __missing__(self, give: int) -> Exchange:
        exchange = self[give] = sorted_exchange(self.take, _GIVE_VECTORS.spelled[give])
        return exchange


# One object per distinct move, shared by every market and hand that allows it (as the exchanges
# of a take are): the memos above hold thousands of listings, and a full garbage collection walks
# every object they hold (the server's pauses grow with them).
_take_good = cache(TakeGood)
_take_camels = cache(TakeCamels)
_sell = cache(Sell)


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
        _sell(good, count) for good in GOODS for count in range(minimum_sale(good), hand[good] + 1)
    )
    return sum(hand), packed, sales


# --- give-backs --------------------------------------------------------------------------------
#
# Every give-back of 2 to 5 cards (7 counts, camels last) is numbered once, at import: 784 vectors,
# each size in ascending count order, so the number of a vector is also its bit in a Python int.
# The give-backs within caps are then an ``&`` of one precomputed mask per type (the vectors that
# give at most that many of that type) and a walk over the set bits, lowest first: the same
# vectors, in the same order, as a product over the caps filtered by size.


_CAPS = 1 << _BITS
"""Caps a mask table is indexed by: a nibble of a packed hand, 0 to 15."""


class _GiveVectors:
    """Every give vector of 2 to 5 cards, numbered, with the masks that select them by caps.

    ``masks[size][card][cap]`` has bit ``n`` set when vector ``n`` gives ``size`` cards, at most
    ``cap`` of them of type ``card``. ``spelled[n]`` is vector ``n`` as the cards an Exchange
    holds, ``vectors[n]`` as counts.

    The sorted card tuples of one size, from ``combinations_with_replacement``, come in
    descending count order (more of a lower type first), so reversed they are in ascending
    count order: the order of a product over the counts.
    """

    def __init__(self) -> None:
        self.spelled: list[tuple[Good, ...]] = []
        self.vectors: list[Counts] = []
        masks: list[tuple[tuple[int, ...], ...]] = [()] * EXCHANGE_MINIMUM
        for size in range(EXCHANGE_MINIMUM, MARKET_SIZE + 1):
            first = len(self.vectors)
            spelled = list(combinations_with_replacement(_TYPES, size))[::-1]
            vectors = [tuple(map(cards.count, _TYPES)) for cards in spelled]
            self.spelled += spelled
            self.vectors += vectors
            everything = ((1 << len(vectors)) - 1) << first
            by_card = []
            for column in zip(*vectors, strict=True):
                # One digit per vector, highest number first, so that int(..., 2) numbers them.
                digits = bytes(column[::-1])
                by_card.append(
                    tuple(
                        int(digits.translate(_AT_MOST[cap]), 2) << first
                        if cap < size
                        else everything
                        for cap in range(_CAPS)
                    )
                )
            masks.append(tuple(by_card))
        self.masks: tuple[tuple[tuple[int, ...], ...], ...] = tuple(masks)


_AT_MOST = [bytes(0x31 if count <= cap else 0x30 for count in range(256)) for cap in range(_CAPS)]
"""Translation tables: a count byte to the digit "1" if it is at most ``cap``, else "0"."""


def _numbers(mask: int) -> tuple[int, ...]:
    """The set bits of ``mask``, lowest first."""
    numbers = []
    while mask:
        low = mask & -mask
        numbers.append(low.bit_length() - 1)
        mask ^= low
    return tuple(numbers)


class _Gives(dict[int, tuple[int, ...]]):
    """Give-backs of ``size`` cards with at most ``camels`` camels, by packed goods that may go.

    The value lists every give vector within those caps, as numbers of :data:`_GIVE_VECTORS`, in
    ascending count order. A miss ands the masks of the caps; hands that allow the same
    give-backs (4 cloth or 5, when 3 cards are given) share one tuple through :data:`_BY_MASK`.
    """

    __slots__ = ("by_card", "camels_mask")

    def __init__(self, camels: int, size: int) -> None:
        super().__init__()
        masks = _GIVE_VECTORS.masks[size]
        self.by_card = masks[:NUM_GOODS]
        self.camels_mask = masks[CAMEL][camels]

    def __missing__(self, packed: int) -> tuple[int, ...]:
        m0, m1, m2, m3, m4, m5 = self.by_card
        mask = (
            self.camels_mask
            & m0[packed & 15]
            & m1[packed >> 4 & 15]
            & m2[packed >> 8 & 15]
            & m3[packed >> 12 & 15]
            & m4[packed >> 16 & 15]
            & m5[packed >> 20]
        )
        gives = _BY_MASK.get(mask)
        if gives is None:
            gives = _BY_MASK[mask] = _numbers(mask)
        self[packed] = gives
        return gives


_BY_MASK: dict[int, tuple[int, ...]] = {}
"""Give-back numbers by the mask that selects them: a memo of :func:`_numbers`."""


def _gives_table() -> tuple[tuple[dict[int, tuple[int, ...]], ...], ...]:
    """``table[camel_room][size]``: camels beyond the size cannot be given, so those share."""
    by_caps = {
        (camels, size): _Gives(camels, size)
        for size in range(EXCHANGE_MINIMUM, MARKET_SIZE + 1)
        for camels in range(size + 1)
    }
    return tuple(
        tuple(
            by_caps[min(room, size), size] if size >= EXCHANGE_MINIMUM else _NO_GIVES
            for size in range(MARKET_SIZE + 1)
        )
        for room in range(HAND_LIMIT + 1)
    )


_NO_GIVES: dict[int, tuple[int, ...]] = {}
"""Stands for give-backs of fewer cards than an exchange takes: never asked."""


def _spelled(counts: Counts) -> tuple[Good, ...]:
    """Count vector to the sorted cards an Exchange holds: (0, 2, 1) -> (GOLD, GOLD, SILVER)."""
    return tuple(chain.from_iterable(map(repeat, _TYPES, counts)))


_GIVE_VECTORS = _GiveVectors()
_GIVES = _gives_table()
