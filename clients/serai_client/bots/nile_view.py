"""A Nile view from the wire back into the plugin's :class:`~serai_nile.views.NileView`.

Why this exists: the search bot samples worlds with the plugin's ``determinize(view, rng)``,
which takes the plugin's own view value, while the server sends a ``serai.games.nile.v1.View``
and the plugin offers ``view_to_proto`` only. This is its inverse, written against the proto and
the plugin's dataclass; it reads only the message a seat received. Field counts are indexed by
crop value, as the plugin keeps them.

Example::

    view = view_from_proto(snapshot.view)          # snapshot from SeraiClient.get_match(seat)
    state = NileGame().determinize(view, random.Random(1))
"""

from __future__ import annotations

from collections.abc import Iterable

from serai_nile import nile_pb2 as npb
from serai_nile.cards import Card, Crop, multiset
from serai_nile.codec import card_from_proto, crop_from_proto
from serai_nile.views import NileView


def _cards(entries: Iterable[npb.CardCount]) -> tuple[Card, ...]:
    return multiset(card_from_proto(e.card) for e in entries for _ in range(e.count))


def _counts(entries: Iterable[npb.CropCount], crops: tuple[Crop, ...]) -> tuple[int, ...]:
    counts = [0] * (max(crops) + 1 if crops else 0)
    for entry in entries:
        counts[crop_from_proto(entry.crop)] += entry.count
    return tuple(counts)


def view_from_proto(message: npb.View) -> NileView:
    """The plugin view a ``View`` message describes (the inverse of ``view_to_proto``)."""
    crops = tuple(crop_from_proto(value) for value in message.crops)
    players = sorted(message.players_view, key=lambda p: p.seat)
    return NileView(
        seat=message.seat if message.HasField("seat") else None,
        players=message.players,
        crops=crops,
        active=message.active_seat,
        turn=message.turn,
        pass_number=message.pass_number,
        passes=message.passes,
        deck_size=message.deck_size,
        flooded=tuple(crop_from_proto(value) for value in message.flooded),
        flood_pile=tuple(card_from_proto(card) for card in message.flood_pile),
        discard=_cards(message.discard),
        fields=tuple(_counts(p.fields, crops) for p in players),
        speculations=tuple(tuple(card_from_proto(c) for c in p.speculations) for p in players),
        hand_sizes=tuple(p.hand_size if p.HasField("hand_size") else None for p in players),
        storehouse_sizes=tuple(p.storehouse_size for p in players),
        hand=_cards(message.hand),
        storehouses=tuple(
            _counts(p.storehouse, crops) if p.storehouse_known else None for p in players
        ),
        finished=message.finished,
        discard_size=message.discard_size,
        copies_per_crop=message.copies_per_crop,
        traded_from_hand=tuple(p.traded_from_hand for p in players),
        traded_from_storehouse=tuple(p.traded_from_storehouse for p in players),
        own_traded_hand=_cards(message.own_traded_from_hand),
        own_traded_storehouse=multiset(
            Card.crop(crop_from_proto(e.crop))
            for e in message.own_traded_from_storehouse
            for _ in range(e.count)
        ),
        plague_drawn_by=tuple(message.plague_drawn_by),
    )
