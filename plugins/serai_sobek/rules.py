"""The rules engine: setup, whose move it is, legal moves, and applying a move.

Pure functions over :class:`SobekState`. A turn is one action (take a market card, play a
character, lay a set); decisions a power or event hands to a seat are queued as ``pending`` and
answered before the turn ends. When the market row is empty it is refilled with 9 cards from the
deck; when the deck is empty too, the round ends and every seat, in turn order, may lay final sets
horizontally before scoring. After scoring, the player furthest behind names who begins the next
round (a pending decision like the others).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from serai.game import IllegalMove, MalformedMove, OptionValue, seeded_rng

from serai_sobek import powers
from serai_sobek.cards import (
    CARD_COUNT,
    CHARACTER_IDS,
    GREEN_IDS,
    MARKET_IDS,
    Character,
    Face,
    Goods,
    Kind,
    face_of,
    faces,
    scarabs,
    take_faces,
    without,
)
from serai_sobek.events import TOKENS, TOKENS_PER_ROUND, is_malus
from serai_sobek.moves import (
    MOVE_TYPES,
    AddToSet,
    ChooseEvent,
    ChooseStarter,
    FinalSet,
    Finish,
    Move,
    PickCards,
    PlayCharacter,
    PlaySet,
    Take,
    TakeAny,
    label,
)
from serai_sobek.sets import MIN_SET, multisets, points, set_choices, set_of
from serai_sobek.state import (
    HAND_SIZE,
    INSTANT_WIN,
    REACH,
    ROUNDS,
    ROW_SIZE,
    TWO_PLAYER_SET_ASIDE,
    Pending,
    PendingKind,
    Phase,
    RoundResult,
    SeatState,
    SobekState,
    TableSet,
)

# --- setup -------------------------------------------------------------------------------------


def setup(players: int, seed: int, options: Mapping[str, OptionValue]) -> SobekState:
    state = SobekState(
        players=players,
        seed=seed,
        options=tuple(sorted(options.items())),
        round=0,
        phase=Phase.PLAY,
        current=0,
        starter=0,
        turn=0,
        deck=(),
        row=(),
        discard=(),
        removed=(),
        unused=(),
        tokens=(),
        used_tokens=(),
        seats=tuple(SeatState() for _ in range(players)),
    )
    return start_round(state, 1, starter=0)


def start_round(state: SobekState, number: int, starter: int) -> SobekState:
    """Shuffle everything back: 2 green cards each, 9 in the market, 5 event tokens.

    With two players a round has 5 deliveries of 9 market cards instead of 6 (a review of the
    published game), so 9 cards sit out. Which 9 is not sourced: the last 9 of the shuffled market
    deck, that is 9 at random, face down, seen by nobody (``set_aside``).
    """
    green = list(GREEN_IDS)
    seeded_rng(state.seed, "green", number).shuffle(green)
    market = list(MARKET_IDS)
    seeded_rng(state.seed, "market", number).shuffle(market)
    set_aside: list[int] = []
    if state.players == 2:
        market, set_aside = market[:-TWO_PLAYER_SET_ASIDE], market[-TWO_PLAYER_SET_ASIDE:]
    tokens = list(TOKENS)
    seeded_rng(state.seed, "tokens", number).shuffle(tokens)
    hands: list[list[int]] = [[] for _ in range(state.players)]
    for _ in range(HAND_SIZE):
        for step in range(state.players):
            hands[(starter + step) % state.players].append(green.pop(0))
    seats = tuple(
        SeatState(hand=tuple(sorted(hand)), score=seat.score)
        for hand, seat in zip(hands, state.seats, strict=True)
    )
    return replace(
        state,
        round=number,
        phase=Phase.PLAY,
        current=starter,
        starter=starter,
        turn=0,
        deck=tuple(market[ROW_SIZE:]),
        row=tuple(market[:ROW_SIZE]),
        discard=(),
        removed=(),
        unused=tuple(sorted(green)),
        tokens=tuple(tokens[:TOKENS_PER_ROUND]),
        used_tokens=(),
        seats=seats,
        pending=(),
        finishing=(),
        set_aside=tuple(sorted(set_aside)),
    )


# --- who acts, what they may do ----------------------------------------------------------------


def to_act(state: SobekState) -> tuple[int, ...]:
    if state.phase is Phase.OVER:
        return ()
    if state.pending:
        return (state.pending[0].actor,)
    if state.phase is Phase.FINAL:
        return (state.finishing[0],)
    return (state.current,)


def _distinct_faces(cards: tuple[int, ...]) -> list[tuple[Face, ...]]:
    return [(face,) for face in sorted(set(faces(cards)))]


def _needs_goods(state: SobekState) -> bool:
    return bool(state.option("new_set_needs_goods"))


def legal_moves(state: SobekState, seat: int) -> list[Move]:
    if seat not in to_act(state):
        return []
    me = state.seats[seat]
    if state.pending:
        return _pending_moves(state, state.pending[0])
    if state.phase is Phase.FINAL:
        moves: list[Move] = [
            FinalSet(goods, cards)
            for goods in Goods
            for cards in set_choices(me.hand, goods, MIN_SET, len(me.hand), _needs_goods(state))
        ]
        return [*moves, Finish()]
    moves = [Take(position) for position in range(min(REACH, len(state.row)))]
    for face in sorted(set(faces(me.hand))):
        if face.kind is not Kind.CHARACTER:
            continue
        character = Character(face.character)
        if character in powers.TARGETED:
            moves += [PlayCharacter(character, o) for o in powers.opponents(state, seat)]
        else:
            moves.append(PlayCharacter(character))
    for goods in Goods:
        extending = set_of(me.sets, goods) is not None
        need = _needs_goods(state) and not extending
        moves += [
            PlaySet(goods, cards)
            for cards in set_choices(me.hand, goods, MIN_SET, len(me.hand), need)
        ]
    return moves


def _pending_moves(state: SobekState, pending: Pending) -> list[Move]:
    me = state.seats[pending.actor]
    match pending.kind:
        case PendingKind.EVENT:
            moves: list[Move] = []
            for slot, event in enumerate(state.tokens):
                if is_malus(event):
                    moves += [ChooseEvent(slot, o) for o in powers.opponents(state, pending.actor)]
                else:
                    moves.append(ChooseEvent(slot))
            return moves
        case PendingKind.GIVE | PendingKind.SELF_CORRUPT:
            return [PickCards(cards) for cards in _distinct_faces(me.hand)]
        case PendingKind.PASS_CORRUPTION:
            return [PickCards(cards) for cards in _distinct_faces(me.corruption)]
        case PendingKind.PURGE:
            counts = _counter(me.corruption)
            return [PickCards(cards) for cards in multisets(counts, 0, 2)]
        case PendingKind.TAKE_ANY:
            return [TakeAny(position) for position in range(len(state.row))]
        case PendingKind.STARTER:
            return [ChooseStarter(seat) for seat in range(state.players)]
        case PendingKind.ARCHITECT:
            return [
                AddToSet(s.goods, cards)
                for s in sorted(me.sets, key=lambda s: s.goods)
                if not s.horizontal
                for cards in set_choices(me.hand, s.goods, 1, 2, False)
            ]
    raise AssertionError(pending)


def _counter(cards: tuple[int, ...]) -> Counter[Face]:
    return Counter(map(face_of, cards))


# --- applying a move ---------------------------------------------------------------------------


def apply(state: SobekState, seat: int, move: Move) -> SobekState:
    check_form(move)
    if move not in legal_moves(state, seat):
        raise IllegalMove(why_illegal(state, seat, move))
    me = state.seats[seat]
    pending = state.pending[0] if state.pending else None
    if pending is not None:
        state = replace(state, pending=state.pending[1:])
    match move:
        case TakeAny(position):  # the High Priest
            state = powers.take_from_row(state, seat, position)
        case Take(position):
            skipped = state.row[:position]
            state = state.with_seat(seat, corruption=(*me.corruption, *skipped))
            state = replace(state, row=state.row[position:])
            state = powers.take_from_row(state, seat, 0)
        case PlayCharacter(character, target):
            state = powers.play_character(state, seat, character, target)
        case PlaySet(goods, cards):
            state = _lay(state, seat, goods, cards, horizontal=False)
            extending = set_of(me.sets, goods) is not None
            if state.tokens and (not extending or state.option("extension_takes_event")):
                state = powers.push(state, Pending(PendingKind.EVENT, seat))
        case ChooseEvent(slot, target):
            event = state.tokens[slot]
            state = replace(
                state,
                tokens=state.tokens[:slot] + state.tokens[slot + 1 :],
                used_tokens=(*state.used_tokens, event),
            )
            state = powers.apply_event(state, seat, event, target)
        case PickCards(cards):
            assert pending is not None
            state = _answer(state, pending, cards)
        case AddToSet(goods, cards):
            state = _lay(state, seat, goods, cards, horizontal=False)
        case FinalSet(goods, cards):
            return _lay(state, seat, goods, cards, horizontal=True)
        case Finish():
            state = state.with_seat(seat, hand=(), corruption=(*me.corruption, *me.hand))
            state = replace(state, finishing=state.finishing[1:])
            return state if state.finishing else score_round(state)
        case ChooseStarter(starter):
            return start_round(state, state.round + 1, starter=starter)
    return _settle(state)


def _lay(
    state: SobekState, seat: int, goods: Goods, cards: tuple[Face, ...], horizontal: bool
) -> SobekState:
    me = state.seats[seat]
    ids = take_faces(me.hand, cards)
    assert ids is not None
    hand = without(me.hand, ids)
    index = None if horizontal else set_of(me.sets, goods)
    if index is None:
        sets = (*me.sets, TableSet(goods, ids, horizontal))
    else:
        old = me.sets[index]
        grown = replace(old, cards=tuple(sorted((*old.cards, *ids))))
        sets = (*me.sets[:index], grown, *me.sets[index + 1 :])
    return state.with_seat(seat, hand=hand, sets=sets)


def _answer(state: SobekState, pending: Pending, cards: tuple[Face, ...]) -> SobekState:
    actor = state.seats[pending.actor]
    match pending.kind:
        case PendingKind.GIVE:
            ids = take_faces(actor.hand, cards)
            assert ids is not None
            return powers.move_card(state, pending.actor, pending.other, ids[0])
        case PendingKind.SELF_CORRUPT:
            ids = take_faces(actor.hand, cards)
            assert ids is not None
            return state.with_seat(
                pending.actor,
                hand=without(actor.hand, ids),
                corruption=(*actor.corruption, *ids),
            )
        case PendingKind.PURGE:
            ids = take_faces(actor.corruption, cards)
            assert ids is not None
            state = state.with_seat(pending.actor, corruption=without(actor.corruption, ids))
            return replace(state, removed=(*state.removed, *ids))
        case PendingKind.PASS_CORRUPTION:
            ids = take_faces(actor.corruption, cards)
            assert ids is not None
            state = state.with_seat(pending.actor, corruption=without(actor.corruption, ids))
            other = state.seats[pending.other]
            return state.with_seat(pending.other, corruption=(*other.corruption, *ids))
    raise AssertionError(pending)


def _live(state: SobekState, pending: Pending) -> bool:
    """Whether the decision can be made at all; one that cannot is skipped (no effect)."""
    return bool(_pending_moves(state, pending))


def _settle(state: SobekState) -> SobekState:
    """Drop decisions that cannot be made; once none is left, the turn ends."""
    while state.pending and not _live(state, state.pending[0]):
        state = replace(state, pending=state.pending[1:])
    if state.pending or state.phase is not Phase.PLAY:
        return state
    return _end_turn(state)


def _end_turn(state: SobekState) -> SobekState:
    state = replace(state, turn=state.turn + 1)
    if not state.row:
        if state.deck:
            state = replace(state, row=state.deck[:ROW_SIZE], deck=state.deck[ROW_SIZE:])
        else:
            n = state.players
            order = tuple((state.current + step) % n for step in range(1, 1 + n))
            return replace(state, phase=Phase.FINAL, finishing=order)
    return replace(state, current=(state.current + 1) % state.players)


# --- the end of a round ------------------------------------------------------------------------


def most_corrupt(state: SobekState) -> tuple[int, ...]:
    """Most corruption cards, then most scarabs on them; a full tie makes all of them corrupt.

    Nobody is corrupt when no one holds a corruption card (a guess: the rules do not say).
    """
    keys = [(len(s.corruption), scarabs(s.corruption)) for s in state.seats]
    top = max(keys)
    if top[0] == 0:
        return ()
    return tuple(seat for seat, key in enumerate(keys) if key == top)


def round_points(seat: SeatState) -> int:
    return sum(points(s) for s in seat.sets) + seat.bonus


def penalty(state: SobekState, scored: int) -> int:
    """Squares back: one guild symbol (``squares_per_symbol``) for each 10 points this round."""
    return int(state.option("squares_per_symbol")) * (max(scored, 0) // 10)


def score_round(state: SobekState) -> SobekState:
    scored = tuple(round_points(s) for s in state.seats)
    corrupt = most_corrupt(state)
    penalties = tuple(
        penalty(state, scored[i]) if i in corrupt else 0 for i in range(state.players)
    )
    totals = tuple(max(0, s.score + scored[i] - penalties[i]) for i, s in enumerate(state.seats))
    seats = tuple(replace(s, score=totals[i]) for i, s in enumerate(state.seats))
    result = RoundResult(state.round, scored, corrupt, penalties, totals)
    state = replace(state, seats=seats, results=(*state.results, result), finishing=())
    if state.round >= ROUNDS or (state.round >= 2 and max(totals) >= INSTANT_WIN):
        return replace(state, phase=Phase.OVER)
    return replace(state, pending=(Pending(PendingKind.STARTER, starter_chooser(state)),))


def starter_chooser(state: SobekState) -> int:
    """The player furthest behind names who begins the next round; a tie for it is drawn by lot
    (Yucata's rule)."""
    low = min(s.score for s in state.seats)
    tied = [seat for seat, s in enumerate(state.seats) if s.score == low]
    return seeded_rng(state.seed, "starter", state.round).choice(tied)


# --- explaining refusals -----------------------------------------------------------------------

_PENDING_TEXT = {
    PendingKind.EVENT: "pick an event token (ChooseEvent)",
    PendingKind.GIVE: "give one card of their hand (PickCards with one card)",
    PendingKind.PURGE: "discard up to two corruption cards (PickCards with 0 to 2 cards)",
    PendingKind.PASS_CORRUPTION: "pass one corruption card on (PickCards with one card)",
    PendingKind.SELF_CORRUPT: "put one hand card into their corruption (PickCards, one card)",
    PendingKind.TAKE_ANY: "take any market card (TakeAny)",
    PendingKind.ARCHITECT: "add one or two cards to one of their sets (AddToSet)",
    PendingKind.STARTER: "name the seat that begins the next round (ChooseStarter)",
}


def check_form(move: object) -> None:
    """Raise MalformedMove unless ``move`` is a well-typed Sobek move."""
    if not isinstance(move, MOVE_TYPES):
        raise MalformedMove(f"not a Sobek move: {move!r}")

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise MalformedMove(f"{type(move).__name__}: {what}")

    def is_int(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    def is_faces(value: object) -> bool:
        # The length first: no move names more cards than the game has, and a longer one is
        # refused before its cards are looked at.
        if isinstance(value, tuple) and len(value) > CARD_COUNT:
            raise MalformedMove(
                f"{type(move).__name__}: {len(value)} cards, but the game has only {CARD_COUNT}"
            )
        return isinstance(value, tuple) and all(isinstance(f, Face) for f in value)

    match move:
        case Take(position) | TakeAny(position):
            need(is_int(position), "position must be an integer")
        case PlayCharacter(character, target):
            need(isinstance(character, Character), "character must be a Character")
            need(target is None or is_int(target), "target must be a seat number or None")
        case PlaySet(goods, cards) | AddToSet(goods, cards) | FinalSet(goods, cards):
            need(isinstance(goods, Goods), "goods must be a Goods")
            need(is_faces(cards), "cards must be a tuple of Face")
        case ChooseStarter(seat):
            need(is_int(seat), "seat must be an integer")
        case ChooseEvent(slot, target):
            need(is_int(slot), "slot must be an integer")
            need(target is None or is_int(target), "target must be a seat number or None")
        case PickCards(cards):
            need(is_faces(cards), "cards must be a tuple of Face")


def why_illegal(state: SobekState, seat: int, move: Move) -> str:
    text = label(move)
    if state.phase is Phase.OVER:
        return "the match is over"
    acting = to_act(state)
    if seat not in acting:
        if state.pending:
            p = state.pending[0]
            return f"seat {p.actor} must first {_PENDING_TEXT[p.kind]}; seat {seat} must wait"
        return f"it is seat {acting[0]}'s turn, not seat {seat}'s"
    me = state.seats[seat]
    if state.pending:
        return f"you must first {_PENDING_TEXT[state.pending[0].kind]}; '{text}' is not that"
    if state.phase is Phase.FINAL and not isinstance(move, (FinalSet, Finish)):
        return "the market has run out: lay final sets (FinalSet) or finish the round (Finish)"
    match move:
        case FinalSet() | Finish():
            return "final sets are laid only once the market and the deck have run out"
        case Take(position):
            return (
                f"you may take one of the first {min(REACH, len(state.row))} market cards "
                f"(positions 0 to {min(REACH, len(state.row)) - 1}), not position {position}"
            )
        case PlayCharacter(character, _):
            name = character.name.lower().replace("_", " ")
            if CHARACTER_IDS[character] not in me.hand:
                return f"you do not hold the {name}"
            if character in powers.TARGETED:
                return f"the {name} needs a target: the seat number of another player"
            return f"the {name} takes no target"
        case PlaySet(goods, cards) | FinalSet(goods, cards):
            return _why_set(state, me, goods, cards)
        case ChooseEvent() | PickCards() | AddToSet() | TakeAny():
            return f"'{text}' answers a power or event, and none is waiting"
        case ChooseStarter():
            return "the next round's first player is named only once a round is scored"
    return f"'{text}' is not a legal move now"


def _why_set(state: SobekState, me: SeatState, goods: Goods, cards: tuple[Face, ...]) -> str:
    name = goods.name.lower()
    if len(cards) < MIN_SET:
        return f"a set needs at least {MIN_SET} cards, even to extend one; you gave {len(cards)}"
    misfit = [f.text() for f in cards if not f.fits(goods)]
    if misfit:
        return f"{', '.join(misfit)} cannot go in a set of {name} (only {name} or amulets)"
    if take_faces(me.hand, tuple(sorted(cards))) is None:
        return "you do not hold all of those cards"
    if all(f.kind is Kind.AMULET for f in cards):
        return f"a new set needs at least one real {name} card besides amulets"
    return f"that set of {name} is not legal now"


__all__ = ["apply", "legal_moves", "setup", "to_act", "why_illegal"]
