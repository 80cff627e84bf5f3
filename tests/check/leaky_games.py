"""Deliberately leaky plugins: real games with one slip each, for ``serai check`` to catch.

Each is a thin subclass of an installed game that overrides what the slip needs (one method,
two for those that keep a state aside), and is handed to the checker in-process, never
registered by entry point.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf.message import Message
from serai.game import Game, IllegalMove, Item, Presentation, Seat, Zone
from serai_jaipur import JaipurGame, JaipurView, Move, State
from serai_jaipur.cards import Good
from serai_jaipur.moves import TakeGood
from serai_sobek import SobekGame
from serai_sobek.moves import Move as SobekMove
from serai_sobek.moves import PickCards


class LabelNamesPickedCards(SobekGame):
    """Sobek whose label of a PickCards move names the cards: they go where the other seats may
    not see them (a corruption pile, another hand), so the label tells every watcher."""

    def label(self, move: SobekMove) -> str:
        if isinstance(move, PickCards):
            return "pick " + ", ".join(face.text() for face in move.cards)
        return super().label(move)


class AnnouncementNamesHand(JaipurGame):
    """Jaipur that announces, after each move, the cards the mover keeps in hand (a debugging
    line left in): the hand is hidden from the other seat."""

    def announcements(self, before: State, after: State) -> Sequence[str]:
        news = list(super().announcements(before, after))
        mover = before.turn
        if mover is not None and after.round == before.round and after.deal == before.deal:
            kept = [
                Good(good).name.lower()
                for good, n in enumerate(after.hands[mover])
                for _ in range(n)
            ]
            news.append(f"seat {mover} keeps {', '.join(kept) or 'nothing'}")
        return news


class DeterminizeReturnsTruth(JaipurGame):
    """Jaipur whose determinize looks its view up among the states views were made from, and so
    hands back the true state: a search bot using it cheats."""

    def __init__(self) -> None:
        self.made_from: dict[JaipurView, State] = {}

    def view(self, state: State, seat: Seat | None) -> JaipurView:
        made = super().view(state, seat)
        self.made_from[made] = state
        return made

    def determinize(self, view: JaipurView, rng: random.Random) -> State:
        return self.made_from[view]


class SpectatorSeesSeatZero(JaipurGame):
    """Jaipur whose spectator view is seat 0's (the slip ``seat or 0``): every watcher of the
    match reads seat 0's hand."""

    def view(self, state: State, seat: Seat | None) -> JaipurView:
        return super().view(state, seat or 0)


class ErrorNamesNextCard(JaipurGame):
    """Jaipur whose refusals add the deck's next card ("the deck's next card is gold"): a seat
    that submits a bad move learns the hidden deck."""

    def apply(self, state: State, seat: Seat, move: Move) -> State:  # type: ignore[override]
        try:
            return JaipurGame.apply(state, seat, move)
        except IllegalMove as error:
            if not state.deck:
                raise
            top = Good(state.deck[0]).name.lower()
            raise IllegalMove(f"{error} (the deck's next card is {top})") from None


class WithoutDeterminize(JaipurGame):
    """Jaipur as a plugin that declares no determinize: only the contract can be checked."""

    info = replace(JaipurGame.info, provides=replace(JaipurGame.info.provides, determinize=False))
    determinize = Game.determinize  # type: ignore[assignment]


class ListsAMoveTwice(JaipurGame):
    """Jaipur whose legal moves repeat the first one: move ids no longer name one move each."""

    def legal_moves(self, state: State, seat: Seat) -> Sequence[Move]:  # type: ignore[override]
        moves = list(JaipurGame.legal_moves(state, seat))
        return moves + moves[:1]


class PresentationNamesNextCard(JaipurGame):
    """Jaipur whose presentation adds the deck's next card, read from the last state it viewed
    (a helper that keeps the state aside instead of reading the view it is given): every client
    that draws the table learns the deck."""

    def __init__(self) -> None:
        self.viewed: State | None = None

    def view(self, state: State, seat: Seat | None) -> JaipurView:
        self.viewed = state
        return super().view(state, seat)

    def present(self, view: Message) -> Presentation:
        shown = super().present(view)
        if self.viewed is None or not self.viewed.deck:
            return shown
        top = Good(self.viewed.deck[0]).name.lower()
        deck = Zone("deck", "deck", (Item("next card", value=top, kind="text"),))
        return replace(shown, zones=(*shown.zones, deck))


class StepsNameNextCard(JaipurGame):
    """Jaipur whose steps of a take end with the card that will refill the market, read from the
    last state it listed moves of: the seat picking a take learns the deck."""

    def __init__(self) -> None:
        self.listed: State | None = None

    def legal_moves(self, state: State, seat: Seat) -> Sequence[Move]:  # type: ignore[override]
        self.listed = state
        return JaipurGame.legal_moves(state, seat)

    def move_steps(self, move: Move) -> tuple[str, ...]:
        shown = super().move_steps(move)
        if not isinstance(move, TakeGood) or self.listed is None or not self.listed.deck:
            return shown
        return (*shown, f"the market gets {Good(self.listed.deck[0]).name.lower()}")
