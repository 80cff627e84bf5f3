"""What a seat (or a spectator) may know, and a full state consistent with it.

A view copies only the public parts of the state listed in the rules ("Information"), plus the
viewer's own hand and the values of the viewer's own bonus tokens. It holds nothing derived from
hidden data: not the deck order, not the opponent's hand, not unrevealed bonus values, not the
seed. The hidden-information tests change exactly those and check the view bytes stay the same.

:func:`determinize` goes the other way for search bots: it samples the hidden part (the other
hands and the deck from the unseen cards, unrevealed bonus values from what is left of each
bonus stack) so that the sampled state gives back the same view.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass, replace

from .cards import BONUS_KINDS, BONUS_TOKENS, CARD_COUNTS, NUM_GOODS, Good
from .state import Counts, RoundResult, State, Token

PLAYERS = 2


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat as the viewer sees it. ``hand`` and ``bonus_tokens`` only for the viewer."""

    hand_size: int
    herd: int
    goods_tokens: tuple[Token, ...]
    bonus_counts: tuple[int, ...]
    """Bonus tokens held, by stack (3, 4, 5 cards): public, since every sale is public."""
    seals: int
    hand: Counts | None = None
    bonus_tokens: tuple[Token, ...] | None = None


@dataclass(frozen=True, slots=True)
class JaipurView:
    """The public table plus the viewer's own cards. ``viewer`` is None for a spectator."""

    viewer: int | None
    round: int
    deal: int
    starter: int
    turn: int | None
    market: Counts
    deck_size: int
    discards: Counts
    stacks: Counts
    """Goods tokens left per good; the values are the bottom ones of each fixed stack."""
    bonus_left: tuple[int, ...]
    players: tuple[PlayerView, ...]
    results: tuple[RoundResult, ...]

    @property
    def over(self) -> bool:
        return self.turn is None


_NO_KINDS = (0,) * len(BONUS_KINDS)


def _kinds(tokens: tuple[Token, ...]) -> tuple[int, ...]:
    """How many bonus tokens of each kind (3, 4, 5 cards)."""
    if not tokens:  # most of a match
        return _NO_KINDS
    kinds = [token[0] for token in tokens]
    return tuple(kinds.count(k) for k in BONUS_KINDS)


def view(state: State, seat: int | None) -> JaipurView:
    """What ``seat`` may know of ``state`` (``None``: a spectator, who sees no hand)."""
    players = []
    for other in range(PLAYERS):
        own = other == seat
        players.append(
            PlayerView(
                hand_size=sum(state.hands[other]),
                herd=state.herds[other],
                goods_tokens=state.goods_tokens[other],
                bonus_counts=_kinds(state.bonus_tokens[other]),
                seals=state.seals[other],
                hand=state.hands[other] if own else None,
                bonus_tokens=state.bonus_tokens[other] if own else None,
            )
        )
    return JaipurView(
        viewer=seat,
        round=state.round,
        deal=state.deal,
        starter=state.starter,
        turn=state.turn,
        market=state.market,
        deck_size=len(state.deck),
        discards=state.discards,
        stacks=state.stacks,
        bonus_left=tuple(len(stack) for stack in state.bonus),
        players=tuple(players),
        results=state.results,
    )


def unseen_cards(v: JaipurView) -> list[int]:
    """The cards the viewer cannot see (other hands and the deck), as a sorted list of types."""
    counts = list(CARD_COUNTS)
    for card in range(len(counts)):
        counts[card] -= v.market[card]
    for good in range(NUM_GOODS):
        counts[good] -= v.discards[good]
    counts[Good.CAMEL] -= sum(player.herd for player in v.players)
    for player in v.players:
        if player.hand is not None:
            for good in range(NUM_GOODS):
                counts[good] -= player.hand[good]
    if min(counts) < 0:
        raise ValueError("the view shows more cards of some type than the game has")
    return [card for card, count in enumerate(counts) for _ in range(count)]


def determinize(v: JaipurView, rng: random.Random, seed: int | None = None) -> State:
    """A full state whose view for ``v.viewer`` is ``v``, the hidden part sampled from ``rng``.

    Hands never hold camels, so unseen hands are dealt from the unseen goods; the deck is the rest,
    shuffled. The seed of the sampled state (which only decides future deals) is drawn from
    ``rng`` unless given.
    """
    unseen = unseen_cards(v)
    rng.shuffle(unseen)
    goods = [card for card in unseen if card != Good.CAMEL]
    camels = [card for card in unseen if card == Good.CAMEL]
    hands: list[Counts] = []
    for player in v.players:
        if player.hand is not None:
            hands.append(player.hand)
            continue
        if player.hand_size > len(goods):
            raise ValueError("the view's hand sizes do not fit the unseen goods")
        dealt, goods = goods[: player.hand_size], goods[player.hand_size :]
        hands.append(tuple(dealt.count(good) for good in range(NUM_GOODS)))
    deck = goods + camels
    rng.shuffle(deck)
    if len(deck) != v.deck_size:
        raise ValueError(f"the view's deck size {v.deck_size} does not fit {len(deck)} unseen")

    bonus_stacks = []
    bonus_tokens: list[list[Token]] = [[], []]
    for index, kind in enumerate(BONUS_KINDS):
        pool = list(BONUS_TOKENS[index])
        for player in v.players:
            for token_kind, value in player.bonus_tokens or ():
                if token_kind == kind:
                    pool.remove(value)
        rng.shuffle(pool)
        for seat, player in enumerate(v.players):
            if player.bonus_tokens is None:
                count = player.bonus_counts[index]
                bonus_tokens[seat].extend((kind, value) for value in pool[:count])
                pool = pool[count:]
        if len(pool) != v.bonus_left[index]:
            raise ValueError(f"the view's {kind}-card bonus stack does not fit the unseen tokens")
        bonus_stacks.append(tuple(pool))
    # Keep the viewer's own bonus tokens in the order held; unseen ones are ordered by stack.
    tokens = tuple(
        player.bonus_tokens if player.bonus_tokens is not None else tuple(bonus_tokens[seat])
        for seat, player in enumerate(v.players)
    )
    return State(
        seed=rng.getrandbits(63) if seed is None else seed,
        deal=v.deal,
        round=v.round,
        starter=v.starter,
        turn=v.turn,
        market=v.market,
        deck=tuple(deck),
        hands=tuple(hands),
        herds=tuple(player.herd for player in v.players),
        discards=v.discards,
        stacks=v.stacks,
        bonus=tuple(bonus_stacks),
        goods_tokens=tuple(player.goods_tokens for player in v.players),
        bonus_tokens=tokens,
        seals=tuple(player.seals for player in v.players),
        results=v.results,
    )


def observation(state: State, seat: int | None) -> Hashable:
    """What the rules show ``seat`` (None: a spectator) now, written from the state apart from
    :func:`view`, so that ``serai check`` holds the view to it: the round, the deal, who started
    it and whose turn it is, the market, the discards, the deck's size, the goods tokens left,
    the bonus stacks' sizes, every seat's hand size, herd, goods tokens, bonus tokens by stack
    and seals; the seat's own hand and bonus tokens; the rounds scored."""
    seats = tuple(
        (
            sum(state.hands[other]),
            state.herds[other],
            state.goods_tokens[other],
            tuple(sorted(kind for kind, _ in state.bonus_tokens[other])),
            state.seals[other],
            (state.hands[other], state.bonus_tokens[other]) if other == seat else None,
        )
        for other in range(PLAYERS)
    )
    table = (state.market, state.discards, len(state.deck), state.stacks)
    bonus_left = tuple(len(stack) for stack in state.bonus)
    turns = (state.round, state.deal, state.starter, state.turn)
    return turns, table, bonus_left, seats, state.results


def redeal(state: State, seat: int | None, rng: random.Random) -> State:
    """``state`` with cards ``seat`` has not seen dealt anew, for ``serai check``: the other
    hands and the bottom half of the deck shuffled together (hands get goods, as dealt), the top
    half kept (the market refills as it did, for a while), the bonus stacks reshuffled."""
    others = [other for other in range(PLAYERS) if other != seat]
    kept = len(state.deck) // 2
    pool = list(state.deck[kept:])
    for other in others:
        pool += [good for good, count in enumerate(state.hands[other]) for _ in range(count)]
    goods = [card for card in pool if card != Good.CAMEL]
    rng.shuffle(goods)
    hands = list(state.hands)
    for other in others:
        size = sum(state.hands[other])
        dealt, goods = goods[:size], goods[size:]
        hands[other] = tuple(dealt.count(good) for good in range(NUM_GOODS))
    rest = goods + [card for card in pool if card == Good.CAMEL]
    rng.shuffle(rest)
    bonus = tuple(tuple(rng.sample(stack, len(stack))) for stack in state.bonus)
    return replace(state, deck=state.deck[:kept] + tuple(rest), hands=tuple(hands), bonus=bonus)
