"""The match state: every zone of the table, immutable.

Order matters only for the deck (top first) and the flood pile (bottom first, the last card on
top). Every other zone is a multiset and is kept in canonical form, so that equal situations give
equal states and equal stored bytes: hands, speculation areas and the discard pile as sorted card
tuples; fields and storehouses, which only ever hold crop cards, as counts indexed by crop value.

``traded_hand`` and ``traded_storehouse`` say, per seat, which of the cards in the discard pile
that seat discarded in trades since the last reshuffle, from its hand and from its storehouse.
Only the trader knows which cards (Board Game Arena announces only "X used the market" or "X
made an offering"), so views show the others only how many came from each place, as at the
table, where everyone sees whether a card leaves a hand or a storehouse pile.

``hide_hand_sizes`` is the match option ``hand_sizes`` ("hidden", the default, as on Board Game
Arena): whether views leave out how many cards the other seats hold in hand.

``traded_this_turn`` says whether the active seat has traded since its turn began: a turn is
two phases (trade as often as you like, then plant, speculate or pass), and the table says which
one it is in. Public, as every trade is.

``harvested`` counts, per seat and crop, every card the seat harvested into its storehouse this
match: public (each harvest is announced at the table), and all a storehouse ever receives. A
storehouse loses cards only to trades, whose crops are the trader's secret, so the others know a
storehouse as these harvests less that many cards of unknown crops. Empty in states stored before
it was kept (nothing known then).

``plague_drawn_by`` says who drew the plague of locusts in the step that led here (a seat, or
``FLOOD`` for the flood card), in order: public at the table, and gone from every other zone by the
end of the step (the plague is discarded either way), so kept for the views to say it.

``flooded`` is kept apart from the flood pile because a reshuffle takes the whole flood pile
(rules: "everything not in a hand, field, speculation area or storehouse"), the card on top
included, while the crops it flooded still forbid planting for the rest of the turn.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .cards import COPIES_PER_CROP, Card, Crop

FLOOD = -1
"""In ``plague_drawn_by``: the plague came up as the flood card, not into a seat's draw."""


@dataclass(frozen=True, slots=True)
class NileState:
    """One moment of a match. ``events`` are the public news of the step that led here."""

    seed: int
    players: int
    crops: tuple[Crop, ...]
    passes: int
    pass_number: int
    turn: int
    active: int
    deck: tuple[Card, ...]
    flood_pile: tuple[Card, ...]
    flooded: tuple[Crop, ...]
    discard: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]
    storehouses: tuple[tuple[int, ...], ...]
    fields: tuple[tuple[int, ...], ...]
    speculations: tuple[tuple[Card, ...], ...]
    finished: bool = False
    events: tuple[str, ...] = ()
    copies_per_crop: int = COPIES_PER_CROP
    traded_hand: tuple[tuple[Card, ...], ...] = ()  # per seat; () is read as none for all
    traded_storehouse: tuple[tuple[Card, ...], ...] = ()
    plague_drawn_by: tuple[int, ...] = ()  # this step's: seats, or FLOOD
    hide_hand_sizes: bool = True  # option hand_sizes
    traded_this_turn: bool = False  # the active seat has traded since its turn began
    harvested: tuple[tuple[int, ...], ...] = ()  # per seat, by crop value; () when not kept

    def __post_init__(self) -> None:
        # One canonical form, so that equal situations stay equal states and equal bytes.
        for name in ("traded_hand", "traded_storehouse"):
            if not getattr(self, name):
                object.__setattr__(self, name, ((),) * self.players)

    def field_owner(self, crop: Crop) -> int | None:
        """The seat with a field of ``crop``, if any: there is at most one on the table."""
        for seat, fields in enumerate(self.fields):
            if fields[crop]:
                return seat
        return None

    def all_cards(self) -> Counter[Card]:
        """Every card of the match wherever it lies: for conservation checks and determinize."""
        total: Counter[Card] = Counter(self.deck)
        total.update(self.flood_pile)
        total.update(self.discard)
        for seat in range(self.players):
            total.update(self.hands[seat])
            total.update(self.speculations[seat])
            for crop in self.crops:
                count = self.storehouses[seat][crop] + self.fields[seat][crop]
                total[Card.crop(crop)] += count
        return +total
