"""Build Jaipur states by hand for rule tests: name the cards that matter, the rest is filled in.

Cards not placed anywhere go to the deck (in type order, unless a deck is given), so every built
state holds exactly the game's 55 cards unless a test asks otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping

from serai_jaipur.cards import BONUS_TOKENS, CARD_COUNTS, GOODS_TOKENS, NUM_GOODS, Good
from serai_jaipur.state import State, Token

D, G, S, C, P, L, K = (
    Good.DIAMOND,
    Good.GOLD,
    Good.SILVER,
    Good.CLOTH,
    Good.SPICE,
    Good.LEATHER,
    Good.CAMEL,
)
"""Short names: diamond, gold, silver, cloth, sPice, leather, camel (Kamel)."""

Cards = Mapping[Good, int]


def counts(cards: Cards, size: int) -> tuple[int, ...]:
    return tuple(cards.get(Good(index), 0) for index in range(size))


def build(
    *,
    market: Cards | None = None,
    hands: tuple[Cards, Cards] = ({}, {}),
    herds: tuple[int, int] = (0, 0),
    deck: list[Good] | None = None,
    discards: Cards | None = None,
    stacks: Mapping[Good, int] | None = None,
    bonus: tuple[tuple[int, ...], ...] | None = None,
    goods_tokens: tuple[tuple[Token, ...], ...] = ((), ()),
    bonus_tokens: tuple[tuple[Token, ...], ...] = ((), ()),
    turn: int | None = 0,
    starter: int = 0,
    seals: tuple[int, int] = (0, 0),
    round: int = 1,
    deal: int = 1,
    seed: int = 1,
) -> State:
    """A state with the given parts; unplaced cards fill the deck (in Good order)."""
    market = {K: 3, L: 2} if market is None else market
    discards = discards or {}
    if deck is None:
        left = list(CARD_COUNTS)
        left[K] -= herds[0] + herds[1]
        for cards in (market, discards, *hands):
            for good, count in cards.items():
                left[good] -= count
        assert min(left) >= 0, f"more cards placed than the game has: {left}"
        deck = [Good(card) for card, count in enumerate(left) for _ in range(count)]
    full_stacks = {good: len(GOODS_TOKENS[good]) for good in Good if good is not K}
    full_stacks.update(stacks or {})
    return State(
        seed=seed,
        deal=deal,
        round=round,
        starter=starter,
        turn=turn,
        market=counts(market, 7),
        deck=tuple(int(card) for card in deck),
        hands=tuple(counts(hand, NUM_GOODS) for hand in hands),
        herds=herds,
        discards=counts(discards, NUM_GOODS),
        stacks=tuple(full_stacks[Good(good)] for good in range(NUM_GOODS)),
        bonus=BONUS_TOKENS if bonus is None else bonus,
        goods_tokens=goods_tokens,
        bonus_tokens=bonus_tokens,
        seals=seals,
        results=(),
    )


def total_cards(state: State) -> int:
    return (
        sum(state.market)
        + len(state.deck)
        + sum(map(sum, state.hands))
        + sum(state.herds)
        + sum(state.discards)
    )
