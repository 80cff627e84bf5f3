"""The five kinds of Nile move, their canonical form and their labels.

A turn is a sequence of moves by the active seat: any number of trades (:class:`Market`,
:class:`Offering`), then one of :class:`Plant`, :class:`Speculate` or :class:`Pass`, which ends
the turn. Flood, harvest, speculation payouts, locusts and the final draw need no decision and
happen inside ``apply``.

Moves name cards by face, never by id: which of your wheat cards you discard does not matter. A
storehouse is face down, but its owner knows it, so a trade names storehouse cards by crop. A
label is public (every watcher reads it), and only the trader may know which cards a trade
discarded, so a trade's label says how many cards left the hand and the storehouse, not which;
the move's typed payload, which only its seat is offered, names them::

    >>> label(Market(hand=(Card.crop(Crop.LETTUCE),), storehouse=(Crop.FLAX,)))
    'market: discard 1 card from hand + 1 from storehouse'
    >>> label(Plant((Crop.WHEAT, Crop.WHEAT, Crop.WHEAT)))
    'plant 3 wheat'

All tuples are sorted in ``__post_init__``, so equal multisets give equal moves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from serai.game import MalformedMove

from .cards import MOST_CARDS, Card, Crop


def _sorted(value: object) -> object:
    try:
        return tuple(sorted(value))  # type: ignore[call-overload]
    except TypeError:
        return value  # left for the rules to refuse as malformed


@dataclass(frozen=True, slots=True)
class _Trade:
    """What both trades discard: exactly 2 cards, from the hand and/or the storehouse.

    Kept sorted, so that a trade compares equal whatever order its cards were named in. A Market
    never equals an Offering of the same cards (dataclass equality compares the class too).
    """

    hand: tuple[Card, ...] = ()
    storehouse: tuple[Crop, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "hand", _sorted(self.hand))
        object.__setattr__(self, "storehouse", _sorted(self.storehouse))


@dataclass(frozen=True, slots=True)
class Market(_Trade):
    """Trade: discard exactly 2 cards (hand and/or storehouse), draw 1 card into the hand."""


@dataclass(frozen=True, slots=True)
class Offering(_Trade):
    """Trade: discard exactly 2 cards (hand and/or storehouse), reveal a new flood card."""


@dataclass(frozen=True, slots=True)
class Plant:
    """Plant these crop cards from the hand; each goes to the planter's field of its crop.

    One field per crop on the table means the multiset says everything: a crop you already grow
    is added to your field, any other starts a new one (taking over an opponent's smaller field).
    """

    crops: tuple[Crop, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "crops", _sorted(self.crops))


@dataclass(frozen=True, slots=True)
class Speculate:
    """Place 1 or 2 speculation cards from the hand face up: a bet on the next flood."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _sorted(self.cards))


@dataclass(frozen=True, slots=True)
class Pass:
    """Neither plant nor speculate; the turn ends with the draw."""


Trade = Market | Offering
NileMove = Market | Offering | Plant | Speculate | Pass
MOVE_TYPES = (Market, Offering, Plant, Speculate, Pass)


def check_cards_named(count: int) -> None:
    """MalformedMove for a move naming more cards than any match has: refused by the count,
    before the cards are read, so that no move costs more than a real one."""
    if count > MOST_CARDS:
        raise MalformedMove(
            f"a move names {count} cards, but a match has only {MOST_CARDS}: it cannot be real"
        )


def cards_named(move: object) -> int:
    """How many cards ``move`` names (its sequences' lengths), without reading them."""
    parts: tuple[object, ...] = ()
    if isinstance(move, Market | Offering):
        parts = (move.hand, move.storehouse)
    elif isinstance(move, Plant):
        parts = (move.crops,)
    elif isinstance(move, Speculate):
        parts = (move.cards,)
    return sum(len(part) for part in parts if isinstance(part, tuple | list))


def trade_kind(move: Market | Offering) -> str:
    return "market" if isinstance(move, Market) else "offering"


def trade_counts(from_hand: int, from_storehouse: int) -> str:
    """ "2 cards from hand", "1 card from hand + 1 from storehouse": what others may know."""
    parts = []
    if from_hand:
        parts.append(f"{from_hand} card{'s' if from_hand != 1 else ''} from hand")
    if from_storehouse:
        noun = "" if parts else (" card" if from_storehouse == 1 else " cards")
        parts.append(f"{from_storehouse}{noun} from storehouse")
    return " + ".join(parts) or "nothing"


def label(move: NileMove) -> str:
    """A short public description: "plant 3 wheat", "speculate on papyrus/wheat", "market:
    discard 2 cards from hand" (a trade's cards are the trader's secret)."""
    if isinstance(move, Market | Offering):
        return f"{trade_kind(move)}: discard {trade_counts(len(move.hand), len(move.storehouse))}"
    if isinstance(move, Plant):
        counts = Counter(move.crops)
        return "plant " + " + ".join(f"{counts[crop]} {crop.label}" for crop in sorted(counts))
    if isinstance(move, Speculate):
        return "speculate on " + " and ".join(card.name for card in move.cards)
    return "pass"
