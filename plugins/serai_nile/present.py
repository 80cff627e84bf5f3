"""Nile's view described for people (Game.present) and its moves as paths of choices.

Reads only the View message, so it cannot say more than the seat's view does.
"""

from __future__ import annotations

from collections import Counter

from serai.game import Item, ItemLook, Presentation, TableGuide, Zone

from . import nile_pb2 as pb
from .moves import Market, NileMove, Offering, Plant, Speculate, label


def present_view(view: pb.View) -> Presentation:
    flood = ", ".join(_crop(c) for c in view.flooded) or "none yet"
    zones = [
        Zone(
            "river",
            "The river",
            (
                Item("flooded this turn", 0, value=flood, kind="text"),
                *_flood_cards(view),
                Item("deck", view.deck_size, hidden=True),
                Item("discards", view.discard_size, hidden=True),
                Item(
                    "plague still in deck",
                    0,
                    value="yes" if view.plague_in_deck else "no",
                    kind="text",
                ),
                *(
                    (Item("plague drawn", 0, value=_plague_drawers(view), kind="text"),)
                    if view.plague_drawn_by
                    else ()
                ),
            ),
        ),
    ]
    if view.HasField("seat"):
        zones.append(
            Zone(
                "hand",
                f"Seat {view.seat} (you): hand",
                tuple(Item(_card(c.card), c.count) for c in view.hand),
                owner=view.seat,
            )
        )
    own = view.seat if view.HasField("seat") else None
    for player in view.players_view:
        seat = player.seat
        you = " (you)" if seat == own else ""
        items: list[Item] = [Item(f"{_crop(f.crop)} field", f.count) for f in player.fields]
        items.extend(
            Item(_card(c), 1, value="speculation", kind="card") for c in player.speculations
        )
        if seat != own and player.HasField("hand_size"):  # absent: hidden (option hand_sizes)
            items.append(Item("cards in hand", player.hand_size, hidden=True))
        zones.append(Zone(f"seat{seat}", f"Seat {seat}{you}: fields", tuple(items), owner=seat))
        zones.append(
            Zone(
                f"storehouse{seat}",
                f"Seat {seat}{you}: storehouse",
                _storehouse(view, player),
                owner=seat,
            )
        )
    return Presentation(_headline(view), tuple(zones))


def _headline(view: pb.View) -> str:
    """Whose turn, and which of its two phases: before a trade it may trade or end the turn;
    after one, the turn ends with a plant, a speculation or a pass (or another trade)."""
    if view.finished:
        return "The match is over"
    turn = f"Turn {view.turn} · seat {view.active_seat}"
    if view.traded_this_turn:
        return f"{turn} has traded · now plant, speculate or pass (or trade again)"
    return f"{turn} to play · trade first, or plant, speculate or pass"


def _flood_cards(view: pb.View) -> tuple[Item, ...]:
    """The last flood cards turned up, each saying what it is: the top one floods this turn."""
    shown = view.flood_pile[-3:]
    return tuple(
        Item(
            _card(card),
            1,
            value="flood card on top" if i == len(shown) - 1 else "earlier flood card",
            kind="card",
        )
        for i, card in enumerate(shown)
    )


def _storehouse(view: pb.View, player: pb.PlayerView) -> tuple[Item, ...]:
    """The seat's storehouse piles and the score they make (the smallest pile over the crops in
    play) where the viewer knows them: its own, and everyone's once the match is over; else how
    many crops it holds, face down."""
    if not player.storehouse_known:
        return (Item("stored crops", player.storehouse_size, hidden=True, kind="token"),)
    stored = {c.crop: c.count for c in player.storehouse}
    score = min((stored.get(crop, 0) for crop in view.crops), default=0)
    return (
        Item("score", 0, value=str(score), kind="score"),
        *(Item(f"{_crop(c.crop)} stored", c.count, kind="token") for c in player.storehouse),
    )


def move_steps(move: NileMove) -> tuple[str, ...]:
    if isinstance(move, Market | Offering):
        kind = "market: discard 2, draw 1" if isinstance(move, Market) else "offering: discard 2"
        parts = [card.name for card in move.hand] + [f"{c.label} (stored)" for c in move.storehouse]
        return (kind, "discard " + " + ".join(parts))
    if isinstance(move, Plant):
        counts = Counter(move.crops)
        return ("plant", *(f"{counts[crop]} {crop.label}" for crop in sorted(counts)))
    if isinstance(move, Speculate):
        return ("speculate", " and ".join(card.name for card in move.cards))
    return (label(move),)


def _crop(crop: int) -> str:
    return pb.Crop.Name(crop).removeprefix("CROP_").lower()  # type: ignore[arg-type]


def _plague_drawers(view: pb.View) -> str:
    """Who drew the plague in the last step: "the flood card", "seat 2's draw"."""
    return ", ".join(
        "the flood card" if seat < 0 else f"seat {seat}'s draw" for seat in view.plague_drawn_by
    )


def _card(card: pb.Card) -> str:
    return "/".join(_crop(c) for c in card.crops) if card.crops else "plague"


GUIDE = TableGuide(
    how_to_play=(
        "A turn: a flood card is turned up and its crop floods; the one field of that crop "
        "(anyone's) harvests its top card into its owner's storehouse. Speculation cards "
        "showing a flooded crop pay 3 cards.\n\n"
        "Then trade as often as you like, discarding 2 cards from hand or storehouse: market "
        "draws 1 card, offering turns up a new flood card. Then plant (never a flooded crop; to "
        "take an opponent's field play more of that crop than it holds), or speculate, or pass, "
        "and draw 2.\n\n"
        "The plague destroys the largest fields. Your score is your smallest storehouse pile over "
        "the five crops, so store some of every crop."
    ),
    zones=(
        (
            "river",
            "The flood: the crops flooded this turn, the last flood cards turned up (the top one "
            "floods), deck and discards.",
        ),
        ("hand", "Your cards: crop cards to plant, speculation cards showing two crops."),
        ("seat", "A player's fields (one per crop on the whole table) and speculations."),
        (
            "storehouse",
            "A player's harvested crops, hidden from the others; the score is the smallest pile.",
        ),
    ),
    looks=(
        ItemLook("papyrus", "#558b2f", "P", "papyrus"),
        ItemLook("wheat", "#c99a06", "W", "wheat"),
        ItemLook("lettuce", "#43a047", "L", "lettuce"),
        ItemLook("castor", "#8d3b72", "C", "castor"),
        ItemLook("flax", "#1e88e5", "F", "flax"),
        ItemLook("onions", "#c0793b", "O", "onions (DeLuxor)"),
        ItemLook("grapes", "#6a1b9a", "G", "grapes (DeLuxor)"),
        ItemLook("plague", "#37474f", "☠", "plague of locusts: destroys the largest fields"),
        ItemLook("stored", "#795548", "▣", "a storehouse pile: your score is your smallest one"),
    ),
)
