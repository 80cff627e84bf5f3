"""Moves: frozen, hashable values that compare by content.

Cards are named by :class:`~serai_sobek.cards.Face` (what is printed on them), as a sorted tuple:
identical cards are interchangeable, so one move stands for every choice among them.
"""

from __future__ import annotations

from dataclasses import dataclass

from serai_sobek.cards import Character, Face, Goods
from serai_sobek.events import Event


@dataclass(frozen=True)
class Take:
    """Take the market card at ``position`` (0..3, 0 = first); the cards before it go to your
    corruption pile."""

    position: int


@dataclass(frozen=True)
class TakeAny:
    """High Priest: take the market card at ``position`` (any), without corruption."""

    position: int


@dataclass(frozen=True)
class PlayCharacter:
    """Play a character from your hand for its power; ``target`` for powers aimed at a player."""

    character: Character
    target: int | None = None


@dataclass(frozen=True)
class PlaySet:
    """Lay 3+ cards of one goods type (amulets wild); extends your set of that type if any."""

    goods: Goods
    cards: tuple[Face, ...]


@dataclass(frozen=True)
class ChooseEvent:
    """Pick the event token in ``slot`` (0-based among those left); ``target`` for a malus."""

    slot: int
    target: int | None = None


@dataclass(frozen=True)
class PickCards:
    """Answer a power or event that asks you to pick cards (to give, discard, pass on)."""

    cards: tuple[Face, ...]


@dataclass(frozen=True)
class AddToSet:
    """Architect: add one or two cards to your set of ``goods``."""

    goods: Goods
    cards: tuple[Face, ...]


@dataclass(frozen=True)
class FinalSet:
    """After the market runs out: lay a set horizontally (it scores its scarabs only)."""

    goods: Goods
    cards: tuple[Face, ...]


@dataclass(frozen=True)
class Finish:
    """After the market runs out: lay no more sets; your hand goes to corruption."""


@dataclass(frozen=True)
class ChooseStarter:
    """After a round, the player furthest behind names who begins the next one (any seat)."""

    seat: int


Move = (
    Take
    | TakeAny
    | PlayCharacter
    | PlaySet
    | ChooseEvent
    | PickCards
    | AddToSet
    | FinalSet
    | Finish
    | ChooseStarter
)
MOVE_TYPES = (
    Take,
    TakeAny,
    PlayCharacter,
    PlaySet,
    ChooseEvent,
    PickCards,
    AddToSet,
    FinalSet,
    Finish,
    ChooseStarter,
)


def _cards(cards: tuple[Face, ...]) -> str:
    return f"{len(cards)} card{'s' if len(cards) != 1 else ''}"


def _faces(cards: tuple[Face, ...]) -> str:
    """Cards laid face up, by face: "cattle (1 scarab), 2 x amulet" (two sets of one goods type
    differ only there, so a label without them would name two moves alike)."""
    counts: dict[str, int] = {}
    for face in cards:
        counts[face.text()] = counts.get(face.text(), 0) + 1
    return ", ".join(text if n == 1 else f"{n} x {text}" for text, n in counts.items())


def label(move: Move) -> str:
    """A short public description: it never names a card taken from a hidden place, nor one
    picked to go where the others may not see it (so PickCards moves may share a label); cards
    laid face up are named, so that two sets of one goods type differ."""
    match move:
        case Take(position):
            corrupt = f", {position} to corruption" if position else ""
            return f"take market card {position + 1}{corrupt}"
        case TakeAny(position):
            return f"take market card {position + 1} without corruption"
        case PlayCharacter(character, target):
            name = character.name.lower().replace("_", " ")
            return f"play the {name}" + (f" on seat {target}" if target is not None else "")
        case PlaySet(goods, cards):
            return f"play a set of {len(cards)} {goods.name.lower()}: {_faces(cards)}"
        case ChooseEvent(slot, target):
            return f"pick event token {slot + 1}" + (
                f" against seat {target}" if target is not None else ""
            )
        case PickCards(cards):
            return f"pick {_cards(cards)}"
        case AddToSet(goods, cards):
            return f"add {_faces(cards)} to the {goods.name.lower()} set"
        case FinalSet(goods, cards):
            return f"lay a final set of {len(cards)} {goods.name.lower()}: {_faces(cards)}"
        case Finish():
            return "finish the round"
        case ChooseStarter(seat):
            return f"let seat {seat} begin the next round"
    raise TypeError(f"not a Sobek move: {move!r}")


__all__ = [
    "MOVE_TYPES",
    "AddToSet",
    "ChooseEvent",
    "ChooseStarter",
    "Event",
    "FinalSet",
    "Finish",
    "Move",
    "PickCards",
    "PlayCharacter",
    "PlaySet",
    "Take",
    "TakeAny",
    "label",
]
