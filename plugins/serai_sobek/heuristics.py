"""Sobek judgement for the search bot: the score so far plus what the round and the hand hold.

A seat's standing is its place on the scoring track, the points its sets and event tokens have
made this round, and a share of the scarabs in its hand (cards that may still make a set, and
that go to corruption if they do not), less a cost per corruption card (the most corrupt seat
moves back at the end of the round). The margin over the best other seat becomes a win chance.

Moves are ranked before the search sees them (:func:`move_score`): a set by the points it adds,
a market card by its scarabs and the hand cards it fits with, less a corruption cost per card
skipped to reach it. Only the best few enter the tree, and a rollout mostly plays the
first-ranked move, so that a hundred iterations look at each candidate many times.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from serai.evaluation import Evaluation, margin_value, rank_value

from .cards import Face, Goods, Kind, face_of, scarabs
from .moves import FinalSet, Move, PlayCharacter, PlaySet, Take, TakeAny
from .rules import round_points
from .sets import set_of
from .state import SobekState
from .views import SobekView

HAND = 1.0  # points per scarab in hand
CORRUPTION = 1.5  # points lost per card in the corruption pile
SCALE = 8.0  # the point margin for which a position is judged ~73% won
FIT = 0.5  # per hand card of a market card's goods: the card helps a set
CHARACTER = 1.0  # playing a character for its power, before any set or card


def standing(state: SobekState, seat: int) -> float:
    """``seat``'s expected points: track, this round's sets and tokens, hand, corruption."""
    me = state.seats[seat]
    return me.score + round_points(me) + HAND * scarabs(me.hand) - CORRUPTION * len(me.corruption)


def _card_value(state: SobekState, seat: int, card: int) -> float:
    face = face_of(card)
    hand = [face_of(held) for held in state.seats[seat].hand]
    fits = sum(1 for held in hand if face.kind is Kind.AMULET or held.goods == face.goods)
    return HAND * face.scarabs + FIT * fits


def _set_gain(state: SobekState, seat: int, goods: Goods, cards: tuple[Face, ...]) -> float:
    me = state.seats[seat]
    index = set_of(me.sets, goods)
    old_cards = me.sets[index].cards if index is not None else ()
    old_scarabs = scarabs(old_cards)
    added = sum(face.scarabs for face in cards)
    before = old_scarabs * len(old_cards)
    after = (old_scarabs + added) * (len(old_cards) + len(cards))
    return after - before - HAND * added


def move_score(state: SobekState, seat: int, move: Move) -> float:
    """A quick judgement of ``move`` before it is played, in rough points (higher first)."""
    if isinstance(move, PlaySet):
        return 1.0 + _set_gain(state, seat, move.goods, move.cards)
    if isinstance(move, FinalSet):
        # scores its scarabs once, and keeps its cards out of the corruption pile
        return sum(face.scarabs for face in move.cards) + CORRUPTION * len(move.cards)
    if isinstance(move, Take):
        skipped = move.position
        return _card_value(state, seat, state.row[skipped]) - CORRUPTION * skipped
    if isinstance(move, TakeAny):
        return _card_value(state, seat, state.row[move.position])
    if isinstance(move, PlayCharacter):
        return CHARACTER
    return 0.0


class SobekEvaluation(Evaluation):
    """The 6 best moves by :func:`move_score` enter the tree, a rollout of 4 moves mostly plays
    the first-ranked one, and the points judge where it leads."""

    width = 6
    rollout_depth = 4
    rollout_randomness = 0.2

    def ranked(self, state: SobekState, seat: int) -> list[Move]:
        moves = self.game.legal_moves(state, seat)
        return sorted(moves, key=lambda move: -move_score(state, seat, move))

    def value(self, start: Any, state: SobekState, seat: int) -> float:
        outcome = self.game.outcome(state)
        if outcome is not None:
            return rank_value(outcome.ranks, seat)
        scores = [standing(state, other) for other in range(state.players)]
        return margin_value(scores, seat, SCALE)


class SimpleStrategy:
    """The ``simple`` bot, a yardstick for the search: lay the biggest set, else take the first
    market card; any other decision (a power's or an event's question) the first legal move,
    and of the final sets the biggest. Draws nothing from its rng."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SobekView, seat: int, moves: Sequence[Move]) -> Move:
        sets = [move for move in moves if isinstance(move, PlaySet)]
        if sets:
            return max(sets, key=lambda move: len(move.cards))
        first = [move for move in moves if isinstance(move, Take) and move.position == 0]
        if first:
            return first[0]
        finals = [move for move in moves if isinstance(move, FinalSet)]
        if finals:
            return max(finals, key=lambda move: len(move.cards))
        return moves[0]
