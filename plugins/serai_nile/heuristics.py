"""Nile judgement for the search bot: which moves to try first, how a rollout plays, and how far
each seat's storehouse is from a winning profile.

Nile is won by the largest smallest storehouse pile (then the next smallest, and so on), so a
seat's standing is its piles sorted smallest first, each weighted half the one before: growing
the smallest pile counts most. Cards still on the way count too, for less: a field card is
harvested at a flood of its crop unless locusts or a larger rival field take it, a crop card in
hand still has to be planted. The margin over the best other seat becomes a win chance.

The margin is of what each seat gained since the search began, not of where it stands: the
others' storehouses are hidden, so every sampled world gives them another one, and that draw,
the same whatever move is tried, would only add noise to the comparison of the moves.

Moves are ranked before the search sees them (:func:`move_score`), in rough cards: a planted
card by the weight of its crop's pile (the smallest first) while its field may still be
harvested, a new field and, most, a field taken from another seat; less the cards by which the
seat's largest field grows past everyone else's while the plague is still in this pass's deck
(locusts destroy the largest fields on the table); a speculation card and a pass at fixed
worths. The search never trades (:class:`NileEvaluation` says why). Played alone, this ranking
wins 0.68 of its matches against the ``simple`` bot (812 of 1,200, seeds 5000-6199,
2026-12-05), the ranking before it 0.53 (630): the locusts and the takeovers were what it
lacked, and the search inherits them through its rollouts and its width.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from serai.evaluation import Evaluation, margin_value, rank_value

from . import rules
from .cards import PLAGUE, Crop
from .moves import Market, NileMove, Pass, Plant, Speculate
from .state import NileState
from .views import NileView

FIELD = 0.6  # a card in a field, as a share of a card in the storehouse
HAND = 0.25  # a crop card in hand
DECAY = 0.5  # each pile, smallest first, weighs this much of the one before
SCALE = 0.8  # the margin (in weighted cards) for which a position is judged ~73% won
FLOODED = 0.22  # the chance a turn's flood shows a given crop: (16 crop + 4 speculation) / 91
PASS_CARDS = 50  # cards a reshuffle deals again, about: the discard and the flood pile

# Move ranking, in rough cards: a planted card, what a speculation and a pass are worth against
# it, and what a trade costs per card it discards.
PLANTED = 1.0  # times the crop's weight (DECAY per pile below it), per card it may harvest
NEW_FIELD = 0.5
TAKEOVER = 3.0  # per card of the field taken from another seat (that it may still harvest)
LOCUSTS = 1.0  # per card by which the seat's largest field grows past the others' largest
SPECULATION = 1.5
PASS = 0.5
MARKET = 0.3  # a market draws one card
OFFERING = 0.2  # an offering floods again: a harvest for the seat's fields, maybe
TRADED_HAND_CROP = 0.6
TRADED_HAND_OTHER = 0.2  # a speculation card, which pays only on a lucky flood
TRADED_STOREHOUSE = 2.0


def turns_left(state: NileState) -> float:
    """About how many floods the match has left: three cards leave the deck a turn (the flood
    and the draw), and each pass still to come deals about ``PASS_CARDS`` again."""
    return (len(state.deck) + PASS_CARDS * (state.passes - state.pass_number)) / 3


def standing(state: NileState, seat: int) -> float:
    """``seat``'s profile as one number: its expected piles, smallest first, decaying weights.
    A field counts no more than the harvests its crop may still get before the end."""
    harvests = FLOODED * turns_left(state)
    piles = [
        state.storehouses[seat][crop] + FIELD * min(state.fields[seat][crop], harvests)
        for crop in state.crops
    ]
    crops = {crop: index for index, crop in enumerate(state.crops)}
    for card in state.hands[seat]:
        if card.is_crop and card.crops[0] in crops:
            piles[crops[card.crops[0]]] += HAND
    piles.sort()
    return sum(pile * DECAY**index for index, pile in enumerate(piles))


def move_score(state: NileState, seat: int, move: NileMove) -> float:
    """A quick judgement of ``move`` before it is played, in rough cards (higher first)."""
    return scorer(state, seat)(move)


def scorer(state: NileState, seat: int) -> Callable[[NileMove], float]:
    """:func:`move_score` for one position, its per-position work done once (a search scores
    every move of every position it passes)."""
    harvests = FLOODED * turns_left(state)
    by_need = sorted(state.crops, key=lambda crop: state.storehouses[seat][crop])
    weight = {crop: DECAY**index for index, crop in enumerate(by_need)}
    mine = state.fields[seat]
    others = [state.fields[other] for other in range(state.players) if other != seat]
    others_largest = max((size for fields in others for size in fields), default=0)
    # Locusts take the largest fields on the table, ties included; they are a threat only
    # while the plague is still in this pass's deck (where it lies is public).
    locusts = PLAGUE in state.deck
    own_largest = max(mine, default=0)
    fields = sum(1 for crop in state.crops if mine[crop])

    def plant_score(crops: tuple[Crop, ...]) -> float:
        score = 0.0
        largest = own_largest
        for crop, count in Counter(crops).items():
            held = mine[crop]
            score += PLANTED * weight[crop] * (min(held + count, harvests) - min(held, harvests))
            if not held:
                score += NEW_FIELD
            taken = max((theirs[crop] for theirs in others), default=0)
            score += TAKEOVER * min(taken, harvests)
            largest = max(largest, held + count)
        if locusts and largest >= others_largest:
            score -= LOCUSTS * max(0, largest - max(own_largest, others_largest - 1))
        return score

    def score(move: NileMove) -> float:
        if isinstance(move, Plant):
            return plant_score(move.crops)
        if isinstance(move, Speculate):
            return SPECULATION * len(move.cards)
        if isinstance(move, Pass):
            return PASS
        cost = len(move.storehouse) * TRADED_STOREHOUSE + sum(
            TRADED_HAND_CROP if card.is_crop else TRADED_HAND_OTHER for card in move.hand
        )
        gain = MARKET if isinstance(move, Market) else OFFERING * fields
        return gain - cost

    return score


def turn_enders(state: NileState, seat: int) -> list[NileMove]:
    """``seat``'s legal moves but the trades: a pass, its plants and its speculations."""
    moves: list[NileMove] = [Pass()]
    moves += rules.plant_moves(state, seat)
    moves += rules.speculate_moves(state, seat)
    return moves


def ranked_moves(state: NileState, seat: int, moves: Sequence[NileMove]) -> list[NileMove]:
    """``moves`` best first by :func:`move_score`; ties keep the rules' order."""
    score = scorer(state, seat)
    return sorted(moves, key=lambda move: -score(move))


class NileEvaluation(Evaluation):
    """The 3 best plants, speculations or passes by :func:`move_score` enter the tree, a
    rollout of 4 moves plays the best of them, and the piles judge where it leads.

    Never a trade: a market is a net loss of a card and an offering of two, and searched they
    were worse than useless (a traced match had 18 market trades, each a card lost; the search
    saw a speculation card, worth nothing in :func:`standing`, traded for a random one). The
    tree is narrow because the ranking, not the search, is where the strength is: played alone
    the ranking wins as often as the search at width 6, which spreads a hundred iterations over
    moves it cannot tell apart."""

    width = 3
    rollout_depth = 4
    rollout_randomness = 0.0

    def ranked(self, state: NileState, seat: int) -> list[NileMove]:
        if state.finished or seat != state.active:
            return []
        return ranked_moves(state, seat, turn_enders(state, seat))

    def rollout_move(self, state: NileState, seat: int, rng: random.Random) -> NileMove:
        """The best plant, speculation or pass by :func:`move_score` (no need to sort them)."""
        return max(turn_enders(state, seat), key=scorer(state, seat))

    def value(self, start: NileState, state: NileState, seat: int) -> float:
        outcome = self.game.outcome(state)
        if outcome is not None:
            return rank_value(outcome.ranks, seat)
        gains = [standing(state, other) - standing(start, other) for other in range(state.players)]
        return margin_value(gains, seat, SCALE)


class SimpleStrategy:
    """The ``simple`` bot, a yardstick for the search: plant the most cards it can, else
    speculate (two cards before one), else pass; it never trades. Reads no hidden card (it
    needs none) and draws nothing from its rng: the first of equal moves in the rules' order."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: NileView, seat: int, moves: Sequence[NileMove]) -> NileMove:
        plants = [move for move in moves if isinstance(move, Plant)]
        if plants:
            return max(plants, key=lambda move: len(move.crops))
        bets = [move for move in moves if isinstance(move, Speculate)]
        if bets:
            return max(bets, key=lambda move: len(move.cards))
        return next(move for move in moves if isinstance(move, Pass))
