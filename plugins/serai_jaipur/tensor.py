"""A Jaipur view as a fixed-length vector of numbers, for agents that learn from the view.

Everything is read from the :class:`~serai_jaipur.views.JaipurView` alone and seen from the
viewer's side: the viewer's own numbers come first, the opponent's after, so that one agent can
learn from both seats. Counts are scaled to roughly 0..1 by the most the game ever has of them.
A spectator's view encodes as seat 0's table with an empty hand (it holds no hand).

Layout (:data:`TENSOR_SIZE` = 49 numbers):

- the viewer's turn (1 or 0), the round (/3), round results so far (/5);
- market by card type (7, /5); deck size (/40); discards by good (6); tokens left by good (6);
  bonus tokens left by stack (3);
- the viewer: hand by good (6, /7), hand size, herd, goods tokens taken and their rupees, bonus
  tokens by stack (3), the rupees of its own bonus tokens, seals;
- the opponent: hand size, herd, goods tokens and their rupees, bonus tokens by stack (3), seals.

Example::

    >>> from serai_jaipur import JaipurGame
    >>> game = JaipurGame()
    >>> state = game.setup(2, seed=7, options={})
    >>> len(game.view_tensor(game.view(state, 0))) == TENSOR_SIZE
    True
"""

from __future__ import annotations

from .cards import BONUS_TOKENS, CARD_COUNTS, GOODS_TOKENS, HAND_LIMIT, MARKET_SIZE, NUM_GOODS
from .views import JaipurView, PlayerView

_DECK_AT_DEAL = 40
"""Cards left in the deck right after a deal (55 - 5 market - 2 hands of 5): the deck's most."""
_MOST_ROUNDS = 3
_MOST_RESULTS = 5
"""Three scored rounds and, rarely, a replayed tie or two: a scale, not a bound."""
_MOST_GOODS_TOKENS = sum(len(stack) for stack in GOODS_TOKENS)
_MOST_RUPEES = 100
_MOST_BONUS = tuple(len(stack) for stack in BONUS_TOKENS)
_MOST_SEALS = 3

TENSOR_SIZE = 3 + 7 + 1 + NUM_GOODS + NUM_GOODS + 3 + (NUM_GOODS + 9) + 8
"""The length of every Jaipur view tensor."""


def view_tensor(view: JaipurView) -> tuple[float, ...]:
    """The numbers of ``view`` in the layout above, from the viewer's side."""
    me = 0 if view.viewer is None else view.viewer
    mine, theirs = view.players[me], view.players[1 - me]
    numbers: list[float] = [
        1.0 if view.turn is not None and view.turn == view.viewer else 0.0,
        view.round / _MOST_ROUNDS,
        len(view.results) / _MOST_RESULTS,
    ]
    numbers += [count / MARKET_SIZE for count in view.market]
    numbers.append(view.deck_size / _DECK_AT_DEAL)
    numbers += [view.discards[good] / CARD_COUNTS[good] for good in range(NUM_GOODS)]
    numbers += [view.stacks[good] / len(GOODS_TOKENS[good]) for good in range(NUM_GOODS)]
    numbers += [left / most for left, most in zip(view.bonus_left, _MOST_BONUS, strict=True)]
    hand = mine.hand if mine.hand is not None else (0,) * NUM_GOODS
    numbers += [count / HAND_LIMIT for count in hand]
    own_bonus = sum(value for _, value in mine.bonus_tokens or ())
    numbers += [*_public(mine)[:-1], own_bonus / _MOST_RUPEES, mine.seals / _MOST_SEALS]
    numbers += _public(theirs)
    assert len(numbers) == TENSOR_SIZE
    return tuple(numbers)


def _public(player: PlayerView) -> list[float]:
    """What anyone sees of a seat: hand size, herd, goods tokens and rupees, bonus tokens, seals."""
    return [
        player.hand_size / HAND_LIMIT,
        player.herd / CARD_COUNTS[-1],
        len(player.goods_tokens) / _MOST_GOODS_TOKENS,
        sum(value for _, value in player.goods_tokens) / _MOST_RUPEES,
        *(count / most for count, most in zip(player.bonus_counts, _MOST_BONUS, strict=True)),
        player.seals / _MOST_SEALS,
    ]
