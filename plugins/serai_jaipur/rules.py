"""The rules of Jaipur: setup, legal moves, applying a move, the end of a round, scoring.

Everything is a pure function of immutable values. Randomness comes only from
``seeded_rng(seed, "deal", n)`` (the shuffle of deal ``n``: deck and bonus stacks) and
``seeded_rng(seed, "first player")`` (the lot for the first player of round 1), so a match is a
function of its seed and its moves.

Each refusal raises :class:`~serai.game.IllegalMove` whose message names the rule broken.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import repeat
from operator import add, is_, le
from typing import TypeVar

from serai.game import IllegalMove, seeded_rng

from .cards import (
    BONUS_KINDS,
    BONUS_TOKENS,
    CAMEL_TOKEN,
    EMPTY_STACKS_TO_END,
    EXCHANGE_MINIMUM,
    GOODS,
    GOODS_TOKENS,
    HAND_LIMIT,
    HAND_SIZE_AT_SETUP,
    MARKET_CAMELS_AT_SETUP,
    MARKET_SIZE,
    NUM_GOODS,
    NUM_TYPES,
    SEALS_TO_WIN,
    Good,
    bonus_kind,
    minimum_sale,
    plural,
    setup_deck,
)
from .legal import moves_for
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood, normalize
from .state import ENDED_BY_DECK, ENDED_BY_STACKS, Counts, RoundResult, State, Token, evolve

T = TypeVar("T")

PLAYERS = 2
CAMEL = int(Good.CAMEL)


# --- setup -------------------------------------------------------------------------------------


def first_player(seed: int) -> int:
    """The seat that starts round 1, drawn by lot from the seed."""
    return seeded_rng(seed, "first player").randrange(PLAYERS)


def new_match(seed: int) -> State:
    """Round 1, first deal, started by the seat the lot picks."""
    return deal(seed, 1, 1, first_player(seed), (0, 0), ())


def deal(
    seed: int,
    deal_number: int,
    round_number: int,
    starter: int,
    seals: tuple[int, ...],
    results: tuple[RoundResult, ...],
) -> State:
    """Set up a deal: 3 camels in the market, 52 cards shuffled, 5 to each seat, 2 to the market.

    Camels dealt to a hand go to that seat's herd; goods stacks are rebuilt; the bonus stacks are
    reshuffled with the same generator, after the deck.
    """
    rng = seeded_rng(seed, "deal", deal_number)
    cards = [int(card) for card in setup_deck()]
    rng.shuffle(cards)
    bonus = []
    for values in BONUS_TOKENS:
        stack = list(values)
        rng.shuffle(stack)
        bonus.append(tuple(stack))
    hands = []
    herds = []
    for seat in range(PLAYERS):
        dealt = cards[seat * HAND_SIZE_AT_SETUP : (seat + 1) * HAND_SIZE_AT_SETUP]
        hands.append(tuple(dealt.count(good) for good in range(NUM_GOODS)))
        herds.append(dealt.count(CAMEL))
    start = PLAYERS * HAND_SIZE_AT_SETUP
    turned = cards[start : start + MARKET_SIZE - MARKET_CAMELS_AT_SETUP]
    market = [turned.count(card) for card in range(NUM_TYPES)]
    market[CAMEL] += MARKET_CAMELS_AT_SETUP
    return State(
        seed=seed,
        deal=deal_number,
        round=round_number,
        starter=starter,
        turn=starter,
        market=tuple(market),
        deck=tuple(cards[start + len(turned) :]),
        hands=tuple(hands),
        herds=tuple(herds),
        discards=(0,) * NUM_GOODS,
        stacks=tuple(len(stack) for stack in GOODS_TOKENS),
        bonus=tuple(bonus),
        goods_tokens=((), ()),
        bonus_tokens=((), ()),
        seals=seals,
        results=results,
    )


# --- legal moves -------------------------------------------------------------------------------


def legal_moves(state: State, seat: int) -> tuple[Move, ...]:
    """Every legal move of ``seat``: takes of one good, take camels, exchanges, sales, in order."""
    if state.turn is None or seat != state.turn:
        return ()
    return moves_for(state.market, state.hands[seat], state.herds[seat])


# --- applying a move ---------------------------------------------------------------------------


def apply(state: State, seat: int, move: object) -> State:
    """The state after ``seat`` plays ``move``; IllegalMove (naming the rule) if it may not.

    A move that is one of the very objects :func:`legal_moves` lists for this position (as the
    server's move ids and every bot hand it back) is legal without a check: it is found by
    identity in the memoized list, in C. Any other object is normalized and checked.
    """
    if state.turn is None:
        raise IllegalMove("the match is over: no more moves")
    if seat != state.turn:
        raise IllegalMove(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    listed = moves_for(state.market, state.hands[seat], state.herds[seat])
    if any(map(is_, repeat(move), listed)):
        return advance(state, move)  # type: ignore[arg-type]
    move = normalize(move)
    if isinstance(move, TakeGood):
        _check_take_good(state, seat, move)
    elif isinstance(move, TakeCamels):
        _check_take_camels(state, seat, move)
    elif isinstance(move, Exchange):
        _check_exchange(state, seat, move)
    else:
        _check_sell(state, seat, move)
    return advance(state, move)


def advance(state: State, move: Move) -> State:
    """The state after the seat to act plays ``move``, which must be one of its legal moves.

    Nothing is checked: this is the fast path for playouts, bots and search, which pick among
    :func:`legal_moves` anyway. A move from anywhere else goes through :func:`apply`, which
    checks it and then comes here. Example::

        >>> state = new_match(seed=7)
        >>> move = legal_moves(state, state.turn)[0]
        >>> advance(state, move) == apply(state, state.turn, move)
        True
    """
    seat = state.turn
    assert seat is not None, "the match is over: no more moves"
    if isinstance(move, Exchange):
        return _exchange(state, seat, move)
    if isinstance(move, Sell):
        return _sell(state, seat, move.good, move.count)
    if isinstance(move, TakeGood):
        return _take_good(state, seat, move.good)
    return _take_camels(state, seat)


# --- checks: each refusal names the rule -------------------------------------------------------


def _check_take_good(state: State, seat: int, move: TakeGood) -> None:
    good = move.good
    if good is Good.CAMEL:
        raise IllegalMove(
            "camels are not taken one at a time: take all the camels in the market at once"
        )
    if not state.market[good]:
        raise IllegalMove(f"take one good: there is no {plural(good, 1)} in the market")
    hand = state.hands[seat]
    if sum(hand) >= HAND_LIMIT:
        raise IllegalMove(
            f"hand limit: you hold {sum(hand)} goods cards and a hand may hold at most "
            f"{HAND_LIMIT} at the end of a turn, so you cannot take one more"
        )


def _check_take_camels(state: State, seat: int, move: TakeCamels) -> None:
    camels = state.market[CAMEL]
    if not camels:
        raise IllegalMove("take camels: there are no camels in the market")
    if move.count != camels:
        raise IllegalMove(
            f"taking camels takes all of them: the market has {camels}, not {move.count}"
        )


def _check_exchange(state: State, seat: int, move: Exchange) -> None:
    take, give = _exchange_shape(move.take, move.give)
    market, hand, herd = state.market, state.hands[seat], state.herds[seat]
    # The market and hand checks in C first; the loop below only runs to name what is missing.
    if not (all(map(le, take, market)) and all(map(le, give, hand))):
        for good in GOODS:
            if take[good] > market[good]:
                raise IllegalMove(
                    f"exchange: the market has {market[good]} {plural(good, market[good])}, "
                    f"the exchange takes {take[good]}"
                )
            if give[good] > hand[good]:
                raise IllegalMove(
                    f"exchange: your hand has {hand[good]} {plural(good, hand[good])}, "
                    f"the exchange gives {give[good]}"
                )
    if give[CAMEL] > herd:
        raise IllegalMove(
            f"exchange: your herd has {herd} {plural(Good.CAMEL, herd)}, "
            f"the exchange gives {give[CAMEL]}"
        )
    hand_size = sum(hand) + len(move.take) - (len(move.give) - give[CAMEL])
    if hand_size > HAND_LIMIT:
        raise IllegalMove(
            f"hand limit: after this exchange your hand would hold {hand_size} goods cards; "
            f"at most {HAND_LIMIT} (camels given back grow the hand)"
        )


@lru_cache(maxsize=1 << 12)
def _exchange_shape(take: tuple[Good, ...], give: tuple[Good, ...]) -> tuple[Counts, Counts]:
    """The counts an exchange takes and gives (7 each), once the exchange itself is allowed.

    Raises IllegalMove for what is wrong whatever the table: camels taken, fewer than two goods,
    unequal sides, a type both taken and given. Memoized (refusals are not): the same exchanges
    come back all the time. Bounded, because clients choose the keys: tens of thousands of
    exchanges pass these checks and are then refused by the table.
    """
    if Good.CAMEL in take:
        raise IllegalMove(
            "an exchange takes no camels: camels are taken all together with 'take camels'"
        )
    if len(take) < EXCHANGE_MINIMUM:
        raise IllegalMove(
            f"an exchange takes {EXCHANGE_MINIMUM} or more goods from the market, not "
            f"{len(take)} (to take a single good, take one good)"
        )
    if len(give) != len(take):
        raise IllegalMove(
            f"an exchange puts back as many cards as it takes: it takes {len(take)} "
            f"and gives {len(give)}"
        )
    both = sorted(set(take) & set(give))
    if both:
        names = ", ".join(plural(good, 1) for good in both)
        raise IllegalMove(f"an exchange may not put back a type it takes: {names}")
    return tuple(_counts(take)), tuple(_counts(give))


def _check_sell(state: State, seat: int, move: Sell) -> None:
    good, count = move.good, move.count
    if good is Good.CAMEL:
        raise IllegalMove("camels can never be sold")
    least = minimum_sale(good)
    if count < least:
        if least > 1:
            raise IllegalMove(
                f"{plural(good, 2)} are sold {least} cards at least (even when the token stack "
                f"is empty), not {count}"
            )
        raise IllegalMove(f"a sale sells at least 1 card, not {count}")
    hand = state.hands[seat]
    if hand[good] < count:
        raise IllegalMove(
            f"sell: your hand has {hand[good]} {plural(good, hand[good])}, not {count}"
        )


def _counts(cards: Sequence[Good]) -> list[int]:
    counts = [0] * NUM_TYPES
    for card in cards:
        counts[card] += 1
    return counts


# --- playing a legal move ----------------------------------------------------------------------
#
# These build the next state and check nothing. Small count vectors are changed as lists and
# frozen again; evolve() copies what a move leaves alone, and the turn passes to the other seat.


def _take_good(state: State, seat: int, good: int) -> State:
    market = list(state.market)
    market[good] -= 1
    deck, short = _refill(market, state.deck, 1)
    after = evolve(
        state,
        turn=1 - seat,
        market=tuple(market),
        deck=deck,
        hands=_for_seat(state.hands, seat, _with(state.hands[seat], good, +1)),
    )
    return end_round(after, ENDED_BY_DECK) if short else after


def _take_camels(state: State, seat: int) -> State:
    market = list(state.market)
    camels, market[CAMEL] = market[CAMEL], 0
    deck, short = _refill(market, state.deck, camels)
    after = evolve(
        state,
        turn=1 - seat,
        market=tuple(market),
        deck=deck,
        herds=_for_seat(state.herds, seat, state.herds[seat] + camels),
    )
    return end_round(after, ENDED_BY_DECK) if short else after


def _refill(market: list[int], deck: tuple[int, ...], missing: int) -> tuple[tuple[int, ...], bool]:
    """Refill ``market`` in place from the top of the deck: the deck left, and True if it was short.

    With too few cards, what is left is placed and the round ends. A deck that runs out exactly
    as the market reaches 5 does not end the round.
    """
    for card in deck[:missing]:
        market[card] += 1
    return deck[missing:], len(deck) < missing


def _exchange(state: State, seat: int, move: Exchange) -> State:
    to_market, to_hand, camels = _exchange_deltas(move.take, move.give)
    hand = tuple(map(add, state.hands[seat], to_hand))
    return evolve(
        state,
        turn=1 - seat,
        market=tuple(map(add, state.market, to_market)),
        hands=_for_seat(state.hands, seat, hand),
        herds=_for_seat(state.herds, seat, state.herds[seat] - camels),
    )


@cache
def _exchange_deltas(take: tuple[Good, ...], give: tuple[Good, ...]) -> tuple[Counts, Counts, int]:
    """What an exchange adds to the market (7 counts), to the hand (6), and the camels it gives.

    Memoized without a bound: there are only so many exchanges (of 2 to 5 cards each way).
    """
    taken, given = _counts(take), _counts(give)
    to_market = tuple(given[card] - taken[card] for card in range(NUM_TYPES))
    return to_market, tuple(-delta for delta in to_market[:NUM_GOODS]), given[CAMEL]


def _sell(state: State, seat: int, good: int, count: int) -> State:
    tokens = _sale_tokens(good, state.stacks[good], count)
    goods_tokens = _for_seat(state.goods_tokens, seat, state.goods_tokens[seat] + tokens)
    # The bonus depends on cards sold, not tokens received; an empty bonus stack gives nothing.
    bonus, bonus_tokens = state.bonus, state.bonus_tokens
    index = _BONUS_STACK_OF_SALE[count]
    if index is not None and bonus[index]:
        gained = (BONUS_KINDS[index], bonus[index][0])
        bonus = (*bonus[:index], bonus[index][1:], *bonus[index + 1 :])
        bonus_tokens = _for_seat(bonus_tokens, seat, bonus_tokens[seat] + (gained,))
    stacks = _with(state.stacks, good, -len(tokens))
    after = evolve(
        state,
        turn=1 - seat,
        hands=_for_seat(state.hands, seat, _with(state.hands[seat], good, -count)),
        discards=_with(state.discards, good, +count),
        stacks=stacks,
        bonus=bonus,
        goods_tokens=goods_tokens,
        bonus_tokens=bonus_tokens,
    )
    if stacks.count(0) >= EMPTY_STACKS_TO_END:
        return end_round(after, ENDED_BY_STACKS)
    return after


@cache
def _sale_tokens(good: int, left: int, count: int) -> tuple[Token, ...]:
    """The goods tokens a sale of ``count`` cards takes from a stack of ``left`` tokens.

    From the top; fewer (or none) if the stack runs out. The sale itself is not capped.
    """
    stack = GOODS_TOKENS[good]
    top = len(stack) - left
    return tuple((int(good), value) for value in stack[top : top + min(count, left)])


_BONUS_STACK_OF_SALE: tuple[int | None, ...] = tuple(
    None if bonus_kind(count) is None else BONUS_KINDS.index(bonus_kind(count))
    for count in range(HAND_LIMIT + 1)
)
"""The bonus stack (index in BONUS_KINDS) a sale of that many cards draws from, or None."""


def _with(items: Counts, index: int, delta: int) -> Counts:
    changed = list(items)
    changed[index] += delta
    return tuple(changed)


def _for_seat(pair: tuple[T, ...], seat: int, value: T) -> tuple[T, ...]:
    """``pair`` with the entry of ``seat`` replaced by ``value``."""
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# --- the end of a round ------------------------------------------------------------------------


def score_round(state: State, ended_by: str) -> RoundResult:
    """Score the round as it stands: camel token, rupees, the winner by the tie-breaks.

    Rupees are goods tokens + bonus tokens + the camel token (5, to the larger herd; nobody on
    equal herds). Equal rupees: more bonus tokens wins, then more goods tokens. A complete tie
    has no winner (None): our choice, see the package docstring.
    """
    goods = tuple(tuple(value for _, value in tokens) for tokens in state.goods_tokens)
    bonus = tuple(tuple(value for _, value in tokens) for tokens in state.bonus_tokens)
    herds = state.herds
    camel_token = None if herds[0] == herds[1] else (0 if herds[0] > herds[1] else 1)
    rupees = tuple(
        sum(goods[seat]) + sum(bonus[seat]) + (CAMEL_TOKEN if camel_token == seat else 0)
        for seat in range(PLAYERS)
    )
    keys = [(rupees[seat], len(bonus[seat]), len(goods[seat])) for seat in range(PLAYERS)]
    winner = None if keys[0] == keys[1] else (0 if keys[0] > keys[1] else 1)
    return RoundResult(
        round=state.round,
        deal=state.deal,
        starter=state.starter,
        ended_by=ended_by,
        goods_tokens=goods,
        bonus_tokens=bonus,
        camels=herds,
        camel_token=camel_token,
        rupees=rupees,
        winner=winner,
    )


def end_round(state: State, ended_by: str) -> State:
    """Score the round, award the seal, then either end the match or deal the next round.

    The loser of a round starts the next; after a complete tie the round is replayed, started
    by the seat that did not start the tied deal.
    """
    result = score_round(state, ended_by)
    results = (*state.results, result)
    if result.winner is None:
        return deal(
            state.seed, state.deal + 1, state.round, 1 - state.starter, state.seals, results
        )
    seals = _for_seat(state.seals, result.winner, state.seals[result.winner] + 1)
    if seals[result.winner] >= SEALS_TO_WIN:
        return evolve(state, turn=None, seals=seals, results=results)
    loser = 1 - result.winner
    return deal(state.seed, state.deal + 1, state.round + 1, loser, seals, results)


def winner(state: State) -> int | None:
    """The seat that won the match, or None while it is still being played."""
    if state.turn is not None:
        return None
    return 0 if state.seals[0] > state.seals[1] else 1
