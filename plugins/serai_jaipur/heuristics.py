"""Jaipur judgement in numbers: what a move is worth now, and what a position is worth; the
``greedy`` bot and the search's evaluation that :class:`~serai_jaipur.JaipurGame` declares.

Both are in rupees, from one seat's side, and read only what that seat may know (its own hand,
the public table) — the greedy bot (:class:`GreedyStrategy`) uses :func:`move_value` on the
view alone; the search bot uses :func:`position_value` on states it sampled with
``determinize``, through :class:`JaipurEvaluation`.

The ideas, each a term below:

- **Sell timing**: cards in hand are worth their tokens *if sold now*, discounted by ``HOLD``
  (the opponent may sell first and the tokens fall); a sale turns that into real rupees, so a
  bot sells when holding on gains less than the discount loses.
- **Bonus sizes**: a set of 3, 4, 5+ cards carries the expected value of its bonus stack, so
  growing a set towards 5 is worth more than the tokens alone.
- **Camel control**: the larger herd takes the camel token (5), and camels pay for exchanges;
  taking camels refills the market from the deck, which hands the opponent fresh cards.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache

from serai.evaluation import Evaluation

from . import rules
from .cards import BONUS_KINDS, BONUS_TOKENS, GOODS, GOODS_TOKENS, PRECIOUS, Good
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood
from .state import Counts, State
from .views import JaipurView

HOLD = 0.62  # cards in hand count this much of their sale value
REFILL = 0.9  # each card the market refills from the deck is a gift to the next player
GIFT = 0.3  # goods put back in the market by an exchange: a share of their top token
CAMEL_MAJORITY = 2.5  # half the camel token, either way: the herd race is rarely decided early
TEMPO = 0.35  # the seat to move may take the best good in the market
SEAL = 45.0  # a seal in rupees, for positions past the end of a round
SCALE = 12.0  # rupee margin for which a position is judged ~73% won

_CAMEL = int(Good.CAMEL)
_DEFAULT_BONUS = tuple(sum(values) / len(values) for values in BONUS_TOKENS)


def bonus_means(
    bonus_left: Counts, stacks: tuple[tuple[int, ...], ...] | None = None
) -> tuple[float, ...]:
    """The expected bonus of a sale of 3, 4 and 5+ cards (0 once its stack is empty).

    Without ``stacks`` (a seat never sees their values) the mean of the full stack is used.
    """
    means: list[float] = []
    for index in range(len(BONUS_KINDS)):
        if not bonus_left[index]:
            means.append(0.0)
        elif stacks is not None and stacks[index]:
            means.append(sum(stacks[index]) / len(stacks[index]))
        else:
            means.append(_DEFAULT_BONUS[index])
    return tuple(means)


def sale_tokens(stacks: Counts, good: int, count: int) -> int:
    """The goods tokens a sale of ``count`` cards of ``good`` takes now (fewer past the end)."""
    tokens = GOODS_TOKENS[good]
    top = len(tokens) - stacks[good]
    return sum(tokens[top : top + count])


@lru_cache(maxsize=1 << 16)
def holding(stacks: Counts, good: int, count: int, bonus: tuple[float, ...]) -> float:
    """What ``count`` cards of ``good`` in hand are worth (before the HOLD discount)."""
    if count <= 0:
        return 0.0
    if good in PRECIOUS and count == 1:
        return 0.5 * sale_tokens(stacks, good, 1)  # half a pair
    value = float(sale_tokens(stacks, good, count))
    if count >= 3:
        value += bonus[min(count, 5) - 3]
    return value


def crowding(hand_size: int) -> float:
    """A full hand cannot take goods, and is forced to sell small: a cost from 6 cards up."""
    return 1.5 * max(0, hand_size - 5)


def herd_use(herd: int) -> float:
    """Camels pay for exchanges: the first few matter most."""
    return 0.8 * min(herd, 3) + 0.25 * max(0, min(herd, 6) - 3)


def majority(mine: int, theirs: int) -> float:
    return CAMEL_MAJORITY if mine > theirs else -CAMEL_MAJORITY if mine < theirs else 0.0


def hand_value(hand: Counts, stacks: Counts, bonus: tuple[float, ...]) -> float:
    return HOLD * sum(holding(stacks, good, hand[good], bonus) for good in GOODS)


def move_value(
    move: Move,
    *,
    hand: Counts,
    herd: int,
    other_herd: int,
    market: Counts,
    stacks: Counts,
    bonus: tuple[float, ...],
) -> float:
    """The change a move makes to the mover's standing, judged from what the mover sees."""
    size = sum(hand)
    if isinstance(move, Sell):
        good, count = int(move.good), move.count
        after = list(stacks)
        after[good] = max(0, stacks[good] - count)
        gained = float(sale_tokens(stacks, good, count))
        if count >= 3:
            gained += bonus[min(count, 5) - 3]
        before = HOLD * holding(stacks, good, hand[good], bonus)
        kept = HOLD * holding(tuple(after), good, hand[good] - count, bonus)
        return gained + kept - before + crowding(size) - crowding(size - count)
    if isinstance(move, TakeGood):
        good = int(move.good)
        gain = holding(stacks, good, hand[good] + 1, bonus) - holding(
            stacks, good, hand[good], bonus
        )
        return HOLD * gain - (crowding(size + 1) - crowding(size)) - REFILL
    if isinstance(move, TakeCamels):
        count = move.count
        return (
            herd_use(herd + count)
            - herd_use(herd)
            + majority(herd + count, other_herd)
            - majority(herd, other_herd)
            - REFILL * count
        )
    if isinstance(move, Exchange):
        new_hand = list(hand)
        camels = 0
        gift = 0.0
        for card in move.take:
            new_hand[card] += 1
        for card in move.give:
            if card == _CAMEL:
                camels += 1
            else:
                new_hand[card] -= 1
                gift += GIFT * sale_tokens(stacks, card, 1)
        goods = HOLD * sum(
            holding(stacks, g, new_hand[g], bonus) - holding(stacks, g, hand[g], bonus)
            for g in GOODS
            if new_hand[g] != hand[g]
        )
        return (
            goods
            - (crowding(sum(new_hand)) - crowding(size))
            + herd_use(herd - camels)
            - herd_use(herd)
            + majority(herd - camels, other_herd)
            - majority(herd, other_herd)
            - gift
        )
    return 0.0


def _realized(state: State, seat: int) -> int:
    goods = sum(value for _, value in state.goods_tokens[seat])
    bonus = sum(value for _, value in state.bonus_tokens[seat])
    return goods + bonus


def round_margin(state: State, seat: int) -> float:
    """The seat's expected rupee lead in the round being played (negative: behind)."""
    other = 1 - seat
    bonus = bonus_means(tuple(len(s) for s in state.bonus))
    standing = []
    for player in (seat, other):
        hand = state.hands[player]
        standing.append(
            _realized(state, player)
            + hand_value(hand, state.stacks, bonus)
            + herd_use(state.herds[player])
            - crowding(sum(hand))
        )
    margin = standing[0] - standing[1] + majority(state.herds[seat], state.herds[other])
    if state.turn is not None:
        best = max(
            (sale_tokens(state.stacks, g, 1) for g in GOODS if state.market[g]),
            default=0,
        )
        margin += TEMPO * best if state.turn == seat else -TEMPO * best
    return margin


def position_value(state: State, seat: int, seals_before: tuple[int, ...]) -> float:
    """How likely ``seat`` is to win from ``state``, in [0, 1].

    Seals won since ``seals_before`` (the position searched from) count as ``SEAL`` rupees each;
    a finished match is a 1 or a 0.
    """
    if state.turn is None:
        return 1.0 if state.seals[seat] > state.seals[1 - seat] else 0.0
    other = 1 - seat
    seals = (state.seals[seat] - seals_before[seat]) - (state.seals[other] - seals_before[other])
    margin = SEAL * seals + round_margin(state, seat)
    return 1.0 / (1.0 + math.exp(-margin / SCALE))


@lru_cache(maxsize=1 << 16)
def ranked_moves(
    market: Counts,
    hand: Counts,
    herd: int,
    other_herd: int,
    stacks: Counts,
    bonus_left: Counts,
) -> tuple[tuple[float, Move], ...]:
    """Every legal move of a position with its greedy score, best first (ties in rules order).

    Keyed by exactly what a Jaipur turn's legality and the score depend on, so that the many
    positions a search revisits are scored once.
    """
    bonus = bonus_means(bonus_left)
    scored = [
        (
            move_value(
                move,
                hand=hand,
                herd=herd,
                other_herd=other_herd,
                market=market,
                stacks=stacks,
                bonus=bonus,
            ),
            move,
        )
        for move in rules.moves_for(market, hand, herd)
    ]
    scored.sort(key=lambda item: item[0], reverse=True)
    return tuple(scored)


class JaipurEvaluation(Evaluation):
    """The search bot's Jaipur judgement: the 8 best moves by the greedy score enter the tree, a
    4-move rollout mostly plays the greedy move, and :func:`position_value` judges the leaf. The
    search looks no further than the end of the round it began in (the next deal is unknown)."""

    width = 8
    rollout_depth = 4
    rollout_randomness = 0.25

    def ranked(self, state: State, seat: int) -> list[Move]:
        return [move for _, move in self.scored(state, seat)]

    def scored(self, state: State, seat: int) -> tuple[tuple[float, Move], ...]:
        return ranked_moves(
            state.market,
            state.hands[seat],
            state.herds[seat],
            state.herds[1 - seat],
            state.stacks,
            tuple(len(stack) for stack in state.bonus),
        )

    def stops(self, start: State, state: State) -> bool:
        return state.turn is None or len(state.results) != len(start.results)

    def value(self, start: State, state: State, seat: int) -> float:
        return position_value(state, seat, start.seals)


class GreedyStrategy:
    """The ``greedy`` bot: the move with the best immediate value by :func:`move_value`, judged
    on the seat's own view (sell timing, bonus sizes, camel control). No lookahead and no
    sampling; ties go to ``rng``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: JaipurView, seat: int, moves: Sequence[Move]) -> Move:
        scored = score_moves(view, seat, moves)
        best = max(value for value, _ in scored)
        return self.rng.choice([move for value, move in scored if value >= best - 1e-9])


def score_moves(view: JaipurView, seat: int, moves: Sequence[Move]) -> list[tuple[float, Move]]:
    """Each of ``moves`` with its heuristic value for ``seat``, from ``seat``'s view."""
    me, other = view.players[seat], view.players[1 - seat]
    if me.hand is None:
        raise ValueError(f"the view holds no hand of seat {seat}: it is not that seat's view")
    bonus = bonus_means(view.bonus_left, None)
    return [
        (
            move_value(
                move,
                hand=me.hand,
                herd=me.herd,
                other_herd=other.herd,
                market=view.market,
                stacks=view.stacks,
                bonus=bonus,
            ),
            move,
        )
        for move in moves
    ]
