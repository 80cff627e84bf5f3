"""Sobek's view described for people (Game.present) and its moves as paths of choices.

Reads only the View message, so it cannot say more than the seat's view does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from serai.game import Item, ItemLook, Presentation, TableGuide, Zone

from serai_sobek import sobek_pb2 as pb
from serai_sobek.codec import card_from_proto
from serai_sobek.house_rules import HOUSE_RULES, TAG, card_tag
from serai_sobek.moves import (
    AddToSet,
    ChooseEvent,
    FinalSet,
    Move,
    PickCards,
    PlayCharacter,
    PlaySet,
    Take,
    label,
)


def present_view(view: pb.View) -> Presentation:
    row = tuple(
        Item("character", 1, value=f"position {i + 1}", hidden=True)
        if slot.face_down
        else Item(_card(slot.card), 1, value=_tagged(f"position {i + 1}", slot.card))
        for i, slot in enumerate(view.row)
    )
    zones = [
        Zone(
            "market", "Market", row, note="take from the left; the cards before yours corrupt you"
        ),
        Zone(
            "piles",
            "Piles and event tokens",
            (
                Item("deck", view.deck_count, hidden=True),
                *_counted(view.discard, "discarded "),
                Item("event tokens left", view.tokens_left, hidden=True, kind="token"),
                *(
                    Item(_enum(pb.Event, e), 1, value=f"seen · {TAG}: effect", kind="token")
                    for e in view.tokens_seen
                ),
                *(
                    Item(_enum(pb.Event, e), 1, value=f"used · {TAG}: effect", kind="token")
                    for e in view.used_tokens
                ),
            ),
        ),
    ]
    own = view.viewer if view.HasField("viewer") else None
    for seat in view.seats:
        you = " (you)" if seat.seat == own else ""
        items: list[Item] = [
            Item("score", 0, value=str(seat.score), kind="score"),
            Item("bonus", 0, value=str(seat.bonus), kind="score"),
        ]
        if seat.seat != own:
            items.append(Item("cards in hand", seat.hand_count, hidden=True))
            if seat.HasField("corruption_count"):
                items.append(Item("corruption", seat.corruption_count, hidden=True))
        for table_set in seat.sets:
            faces = ", ".join(_card(card) for card in table_set.cards)
            lay = " (final)" if table_set.horizontal else ""
            guessed = any(card_tag(card_from_proto(card)) for card in table_set.cards)
            items.append(
                Item(
                    f"{_enum(pb.Goods, table_set.goods)} set{lay}",
                    len(table_set.cards),
                    value=f"{table_set.points} pts: {faces}"
                    + (f" · {TAG}: scarabs or characters" if guessed else ""),
                    kind="set",
                )
            )
        zones.append(
            Zone(f"seat{seat.seat}", f"Seat {seat.seat}{you}", tuple(items), owner=seat.seat)
        )
        if seat.seat == own:
            zones.extend(_own_cards(seat))
    if view.results:
        zones.append(
            Zone(
                "results",
                "Rounds",
                tuple(
                    Item(
                        f"round {r.round}",
                        0,
                        value=" · ".join(f"seat {s}: {score}" for s, score in enumerate(r.scores)),
                        kind="text",
                    )
                    for r in view.results
                ),
            )
        )
    zones.append(
        Zone(
            "house_rules",
            "House rules (guesses: not in the sources)",
            tuple(
                Item(rule.topic, 0, value=rule.text, kind="text")
                for rule in HOUSE_RULES
                if rule.topic != "two players" or len(view.seats) == 2
            ),
            note="marked '" + TAG + "' where they show on the table",
        )
    )
    phase = _enum(pb.Phase, view.phase)
    acting = ", ".join(str(s) for s in view.to_act)
    headline = (
        "The match is over"
        if view.phase == pb.PHASE_OVER
        else f"Round {view.round} · {phase} · seat {acting} to act"
    )
    return Presentation(headline, tuple(zones))


def _own_cards(seat: pb.SeatView) -> tuple[Zone, Zone]:
    """The viewer's hand and corruption pile, each a zone of its own: mixed in one, a card in
    hand and a card of the pile would read alike."""
    return (
        Zone("hand", f"Seat {seat.seat} (you): hand", tuple(_counted(seat.hand, "")), seat.seat),
        Zone(
            "corruption",
            f"Seat {seat.seat} (you): corruption pile",
            tuple(_counted(seat.corruption, "")),
            owner=seat.seat,
            note="the most corrupt at the end of a round lose ground",
        ),
    )


def move_steps(move: Move) -> tuple[str, ...]:
    match move:
        case Take():
            return ("take from the market", label(move))
        case PlayCharacter(character, target):
            name = character.name.lower().replace("_", " ")
            return ("play a character", name, *(() if target is None else (f"on seat {target}",)))
        case PlaySet(goods, cards) | AddToSet(goods, cards) | FinalSet(goods, cards):
            kind = {PlaySet: "play a set", AddToSet: "add to a set", FinalSet: "lay a final set"}
            faces = ", ".join(face.text() for face in cards)
            return (kind[type(move)], goods.name.lower(), faces)
        case ChooseEvent(slot, target):
            token = f"token {slot + 1}"
            return (
                "pick an event token",
                token,
                *(() if target is None else (f"against seat {target}",)),
            )
        case PickCards(cards):
            return ("pick cards", ", ".join(face.text() for face in cards) or "none")
    return (label(move),)


def _enum(enum: object, number: int) -> str:
    name: str = enum.Name(number)  # type: ignore[attr-defined]
    prefix = enum.DESCRIPTOR.values[0].name.removesuffix("UNSPECIFIED")  # type: ignore[attr-defined]
    return name.removeprefix(prefix).lower().replace("_", " ")


def _card(card: pb.Card) -> str:
    if card.kind == pb.CARD_KIND_AMULET:
        return "amulet"
    goods = _enum(pb.Goods, card.goods)
    scarabs = f" ({card.scarabs} scarab{'s' if card.scarabs != 1 else ''})" if card.scarabs else ""
    if card.kind == pb.CARD_KIND_CHARACTER:
        return f"{_enum(pb.Character, card.character)} ({goods})"
    return goods + scarabs


def _tagged(value: str, card: pb.Card) -> str:
    """``value`` with the card's house-rule tag, if anything on it is guessed."""
    tag = card_tag(card_from_proto(card))
    return f"{value} · {tag}" if value and tag else value or tag


def _counted(cards: Iterable[pb.Card], prefix: str) -> list[Item]:
    counts = Counter((_card(card), _tagged("", card)) for card in cards)
    return [Item(prefix + text, n, value=tag) for (text, tag), n in sorted(counts.items())]


GUIDE = TableGuide(
    how_to_play=(
        "A turn is one action. Take one of the first four market cards: every card you pass over, "
        "face-down ones too, goes to your corruption pile. Or play a character and use its power. "
        "Or play a set of three or more goods of one kind (amulets are wild) and then pick one of "
        "the face-down event tokens.\n\n"
        "A set scores its scarabs times its cards. At the end of a round the most corrupt player "
        "loses ground on the score track. Three rounds; 100 points after round two wins at once. "
        "Rules the sources do not give are house rules, marked on the table."
    ),
    zones=(
        ("market", "The row of cards: take from the first four; those before yours corrupt you."),
        ("piles", "The deck, the discards and the event tokens, seen and used."),
        ("seat", "A player's score, the sets laid on the table, how many cards in hand."),
        ("hand", "Your cards in hand: goods to lay in sets, characters to play."),
        ("corruption", "Your corruption pile: the cards passed over when you took from the row."),
        ("results", "Each round's points."),
        ("house_rules", "What serai decided where the sources are silent."),
    ),
    looks=(
        ItemLook("ivory", "#a68b5b", "I", "ivory"),
        ItemLook("ebony", "#3e2723", "E", "ebony"),
        ItemLook("marble", "#90a4ae", "M", "marble"),
        ItemLook("cattle", "#8d6e63", "C", "cattle"),
        ItemLook("fish", "#0277bd", "F", "fish"),
        ItemLook("wheat", "#c99a06", "W", "wheat"),
        ItemLook("amulet", "#00897b", "☥", "amulet: wild in any set"),
        ItemLook("corruption", "#6a1b9a", "✗", "corruption: the most corrupt lose ground"),
        ItemLook("character", "#5b3a1e", "♟", "a character card: play it for its power"),
    ),
)
