"""Bytes and messages: stored state (compact JSON) and the typed protobuf moves and views.

Stored state is JSON with sorted keys and no spaces, cards spelled by :attr:`Card.code`, so equal
states give equal bytes and a stored match can be read by eye. A ``v`` field versions the layout.

Proto crops are numbered from 1 (0 is CROP_UNSPECIFIED); :class:`Crop` from 0, hence the +1.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any, cast

from serai.game import MalformedMove

from . import nile_pb2 as pb
from .cards import COPIES_PER_CROP, Card, Crop, crop_counts, multiset
from .moves import Market, NileMove, Offering, Pass, Plant, Speculate, check_cards_named
from .state import NileState
from .views import NileView

STATE_VERSION = 1


# --- state ----------------------------------------------------------------------------------------


def _codes(cards: Iterable[Card]) -> str:
    return " ".join(card.code for card in cards)


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.from_code(code) for code in text.split())


def encode_state(state: NileState) -> bytes:
    data: dict[str, Any] = {
        "v": STATE_VERSION,
        "seed": state.seed,
        "players": state.players,
        "crops": [int(crop) for crop in state.crops],
        "passes": state.passes,
        "pass": state.pass_number,
        "turn": state.turn,
        "active": state.active,
        "deck": _codes(state.deck),
        "flood_pile": _codes(state.flood_pile),
        "flooded": [int(crop) for crop in state.flooded],
        "discard": _codes(state.discard),
        "hands": [_codes(hand) for hand in state.hands],
        "storehouses": [list(counts) for counts in state.storehouses],
        "fields": [list(counts) for counts in state.fields],
        "speculations": [_codes(cards) for cards in state.speculations],
        "finished": state.finished,
        "events": list(state.events),
        "traded_hand": [_codes(cards) for cards in state.traded_hand],
        "traded_storehouse": [_codes(cards) for cards in state.traded_storehouse],
        "hand_sizes": "hidden" if state.hide_hand_sizes else "public",
    }
    if state.copies_per_crop != COPIES_PER_CROP:  # absent for base Nile, as before DeLuxor's 14
        data["copies"] = state.copies_per_crop
    if state.plague_drawn_by:  # absent when nobody did, as in states stored before it was kept
        data["plague_drawn_by"] = list(state.plague_drawn_by)
    if state.traded_this_turn:  # absent before a trade, as in states stored before it was kept
        data["traded_this_turn"] = True
    if state.harvested:  # absent in states stored before it was kept
        data["harvested"] = [list(counts) for counts in state.harvested]
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def decode_state(data: bytes) -> NileState:
    """The state :func:`encode_state` wrote; ValueError for bytes it did not write."""
    try:
        return _decode_state(data)
    except (KeyError, IndexError, TypeError, AttributeError, RecursionError) as error:
        # A field missing or of the wrong shape: JSON, but not what encode_state writes.
        raise ValueError(f"not a stored Nile state: {type(error).__name__} {error}") from None


def _decode_state(data: bytes) -> NileState:
    raw = json.loads(data)
    if raw.get("v") != STATE_VERSION:
        raise ValueError(f"stored Nile state has layout {raw.get('v')}, expected {STATE_VERSION}")
    return NileState(
        seed=raw["seed"],
        players=raw["players"],
        crops=tuple(Crop(c) for c in raw["crops"]),
        passes=raw["passes"],
        pass_number=raw["pass"],
        turn=raw["turn"],
        active=raw["active"],
        deck=_cards(raw["deck"]),
        flood_pile=_cards(raw["flood_pile"]),
        flooded=tuple(Crop(c) for c in raw["flooded"]),
        discard=_cards(raw["discard"]),
        hands=tuple(_cards(hand) for hand in raw["hands"]),
        storehouses=tuple(tuple(counts) for counts in raw["storehouses"]),
        fields=tuple(tuple(counts) for counts in raw["fields"]),
        speculations=tuple(_cards(cards) for cards in raw["speculations"]),
        finished=raw["finished"],
        events=tuple(raw["events"]),
        # Absent in states stored before trades were kept secret: none counted as traded.
        traded_hand=tuple(_cards(cards) for cards in raw.get("traded_hand", ())),
        traded_storehouse=tuple(_cards(cards) for cards in raw.get("traded_storehouse", ())),
        copies_per_crop=raw.get("copies", COPIES_PER_CROP),
        plague_drawn_by=tuple(raw.get("plague_drawn_by", ())),
        # Absent in states stored before the option: hand sizes were public then.
        hide_hand_sizes=raw.get("hand_sizes", "public") == "hidden",
        traded_this_turn=raw.get("traded_this_turn", False) is True,
        # Absent in states stored before harvests were counted: not known then.
        harvested=tuple(tuple(counts) for counts in raw.get("harvested", ())),
    )


# --- protobuf: cards ------------------------------------------------------------------------------


def crop_to_proto(crop: Crop) -> pb.Crop:
    return cast("pb.Crop", int(crop) + 1)


def crop_from_proto(value: int) -> Crop:
    try:
        return Crop(value - 1)
    except ValueError:
        raise MalformedMove(f"unknown crop {value} (CROP_UNSPECIFIED is not a crop)") from None


def card_to_proto(card: Card) -> pb.Card:
    kind = (
        pb.CARD_KIND_PLAGUE
        if card.is_plague
        else pb.CARD_KIND_SPECULATION
        if card.is_speculation
        else pb.CARD_KIND_CROP
    )
    return pb.Card(kind=kind, crops=[crop_to_proto(crop) for crop in card.crops])


_CROPS_SHOWN = {pb.CARD_KIND_CROP: 1, pb.CARD_KIND_SPECULATION: 2, pb.CARD_KIND_PLAGUE: 0}


def card_from_proto(message: pb.Card) -> Card:
    expected = _CROPS_SHOWN.get(message.kind)
    if expected is None:
        raise MalformedMove(f"card kind {message.kind} is not crop, speculation or plague")
    # The count first, by len(): a card listing a million crops is refused without reading them.
    crops = (
        [crop_from_proto(value) for value in message.crops]
        if len(message.crops) == expected
        else []
    )
    if len(message.crops) != expected or len(set(crops)) != len(crops):
        kind = pb.CardKind.Name(message.kind)
        raise MalformedMove(
            f"a {kind} card shows {expected} different crop(s), not {len(message.crops)}"
        )
    return Card(tuple(crops))


def _card_counts(cards: Iterable[Card]) -> list[pb.CardCount]:
    counts = Counter(cards)
    return [pb.CardCount(card=card_to_proto(card), count=counts[card]) for card in sorted(counts)]


def _crop_counts(counts: tuple[int, ...], crops: tuple[Crop, ...]) -> list[pb.CropCount]:
    return [
        pb.CropCount(crop=crop_to_proto(crop), count=counts[crop]) for crop in crops if counts[crop]
    ]


# --- protobuf: moves ------------------------------------------------------------------------------


def move_to_proto(move: NileMove) -> pb.Move:
    if isinstance(move, Market | Offering):
        trade = pb.Trade(
            from_hand=[card_to_proto(card) for card in move.hand],
            from_storehouse=[crop_to_proto(crop) for crop in move.storehouse],
        )
        return pb.Move(market=trade) if isinstance(move, Market) else pb.Move(offering=trade)
    if isinstance(move, Plant):
        counts = Counter(move.crops)
        return pb.Move(
            plant=pb.Plant(
                crops=[
                    pb.CropCount(crop=crop_to_proto(crop), count=counts[crop])
                    for crop in sorted(counts)
                ]
            )
        )
    if isinstance(move, Speculate):
        return pb.Move(speculate=pb.Speculate(cards=[card_to_proto(card) for card in move.cards]))
    if isinstance(move, Pass):
        return pb.Move(pass_turn=pb.PassTurn())
    raise MalformedMove(f"not a Nile move: {move!r}")


def move_from_proto(message: Any) -> NileMove:
    if not isinstance(message, pb.Move):
        raise MalformedMove(f"expected a serai.games.nile.v1.Move, got {type(message).__name__}")
    which = message.WhichOneof("move")
    if which is None:
        raise MalformedMove("the Move sets none of market, offering, plant, speculate, pass_turn")
    if which in ("market", "offering"):
        trade = getattr(message, which)
        check_cards_named(len(trade.from_hand) + len(trade.from_storehouse))
        hand = tuple(card_from_proto(card) for card in trade.from_hand)
        storehouse = tuple(crop_from_proto(crop) for crop in trade.from_storehouse)
        return Market(hand, storehouse) if which == "market" else Offering(hand, storehouse)
    if which == "plant":
        check_cards_named(len(message.plant.crops))
        crops: list[Crop] = []
        for entry in message.plant.crops:
            if entry.count == 0:
                raise MalformedMove("a plant entry needs a count of at least 1")
            check_cards_named(len(crops) + entry.count)
            crops += [crop_from_proto(entry.crop)] * entry.count
        return Plant(tuple(crops))
    if which == "speculate":
        check_cards_named(len(message.speculate.cards))
        return Speculate(tuple(card_from_proto(card) for card in message.speculate.cards))
    return Pass()


# --- protobuf: views ------------------------------------------------------------------------------


def view_to_proto(view: NileView) -> pb.View:
    players = []
    for seat in range(view.players):
        known = view.storehouses[seat]
        players.append(
            pb.PlayerView(
                seat=seat,
                hand_size=view.hand_sizes[seat],  # None leaves it absent
                storehouse_size=view.storehouse_sizes[seat],
                fields=_crop_counts(view.fields[seat], view.crops),
                speculations=[card_to_proto(card) for card in view.speculations[seat]],
                storehouse_known=known is not None,
                storehouse=_crop_counts(known, view.crops) if known is not None else [],
                traded_from_hand=view.traded_from_hand[seat],
                traded_from_storehouse=view.traded_from_storehouse[seat],
                harvested=_crop_counts(view.harvested[seat], view.crops) if view.harvested else [],
            )
        )
    message = pb.View(
        players=view.players,
        crops=[crop_to_proto(crop) for crop in view.crops],
        active_seat=view.active,
        turn=view.turn,
        pass_number=view.pass_number,
        passes=view.passes,
        deck_size=view.deck_size,
        flooded=[crop_to_proto(crop) for crop in view.flooded],
        flood_pile=[card_to_proto(card) for card in view.flood_pile],
        discard=_card_counts(view.discard),
        plague_in_deck=view.plague_in_deck,
        players_view=players,
        hand=_card_counts(view.hand),
        finished=view.finished,
        discard_size=view.discard_size,
        copies_per_crop=view.copies_per_crop,
        own_traded_from_hand=_card_counts(view.own_traded_hand),
        own_traded_from_storehouse=_crop_counts(
            crop_counts(view.own_traded_storehouse, view.crops), view.crops
        ),
        plague_drawn_by=view.plague_drawn_by,
        traded_this_turn=view.traded_this_turn,
        harvests_kept=bool(view.harvested),
    )
    if view.seat is not None:
        message.seat = view.seat
    return message


# --- views from protobuf (for bots) ------------------------------------------------------------


def _cards_from_proto(entries: Iterable[pb.CardCount]) -> tuple[Card, ...]:
    return multiset(card_from_proto(e.card) for e in entries for _ in range(e.count))


def _counts_from_proto(entries: Iterable[pb.CropCount], crops: tuple[Crop, ...]) -> tuple[int, ...]:
    counts = [0] * (max(crops) + 1 if crops else 0)
    for entry in entries:
        counts[crop_from_proto(entry.crop)] += entry.count
    return tuple(counts)


def view_from_proto(message: Any) -> NileView:
    """The plugin view a ``View`` message describes: the inverse of :func:`view_to_proto`, for
    bots that hold only what their seat was sent (field counts indexed by crop value, as the
    plugin keeps them). ValueError for another message type."""
    if not isinstance(message, pb.View):
        raise ValueError(f"a Nile view is a {pb.View.DESCRIPTOR.full_name}, not {message!r:.60}")
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
        discard=_cards_from_proto(message.discard),
        fields=tuple(_counts_from_proto(p.fields, crops) for p in players),
        speculations=tuple(tuple(card_from_proto(c) for c in p.speculations) for p in players),
        hand_sizes=tuple(p.hand_size if p.HasField("hand_size") else None for p in players),
        storehouse_sizes=tuple(p.storehouse_size for p in players),
        hand=_cards_from_proto(message.hand),
        storehouses=tuple(
            _counts_from_proto(p.storehouse, crops) if p.storehouse_known else None for p in players
        ),
        finished=message.finished,
        discard_size=message.discard_size,
        copies_per_crop=message.copies_per_crop,
        traded_from_hand=tuple(p.traded_from_hand for p in players),
        traded_from_storehouse=tuple(p.traded_from_storehouse for p in players),
        own_traded_hand=_cards_from_proto(message.own_traded_from_hand),
        own_traded_storehouse=multiset(
            Card.crop(crop_from_proto(e.crop))
            for e in message.own_traded_from_storehouse
            for _ in range(e.count)
        ),
        plague_drawn_by=tuple(message.plague_drawn_by),
        traded_this_turn=message.traded_this_turn,
        harvested=tuple(_counts_from_proto(p.harvested, crops) for p in players)
        if message.harvests_kept
        else (),
    )
