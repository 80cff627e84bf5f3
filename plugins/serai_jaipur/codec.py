"""Bytes for storage and protobuf for the wire.

State bytes: a version byte, then every field of the state in a fixed order as unsigned varints
(the seed zigzag-encoded, optional seats shifted by one so that 0 means "none", sequences
prefixed by their length). Nothing in a state is a set or a dict, so equal states give equal
bytes, and a state of a whole match is about 150 bytes.

Protobuf: moves and views to and from ``serai.games.jaipur.v1`` messages. Reading a move message
checks its shape only (MalformedMove for a wrong type, an unset oneof, an unknown good);
legality is the rules' job.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from google.protobuf.message import Message
from serai.game import MalformedMove

from . import jaipur_pb2 as pb
from .cards import BONUS_KINDS, GOODS, GOODS_TOKENS, NUM_GOODS, NUM_TYPES, Good
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood, check_exchange_size, normalize
from .state import ENDED_BY_DECK, ENDED_BY_STACKS, RoundResult, State, Token
from .views import JaipurView, PlayerView

FORMAT_VERSION = 1
PLAYERS = 2
_ENDED_BY = (ENDED_BY_STACKS, ENDED_BY_DECK)


# --- state bytes -------------------------------------------------------------------------------


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray([FORMAT_VERSION])

    def uint(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"cannot encode negative {value} as unsigned")
        while value >= 0x80:
            self.out.append((value & 0x7F) | 0x80)
            value >>= 7
        self.out.append(value)

    def signed(self, value: int) -> None:
        self.uint(value * 2 if value >= 0 else -value * 2 - 1)

    def seat(self, value: int | None) -> None:
        self.uint(0 if value is None else value + 1)

    def ints(self, values: Sequence[int]) -> None:
        for value in values:
            self.uint(value)

    def seq(self, values: Sequence[int]) -> None:
        self.uint(len(values))
        self.ints(values)

    def tokens(self, tokens: Sequence[Token]) -> None:
        self.uint(len(tokens))
        for kind, value in tokens:
            self.uint(kind)
            self.uint(value)


class _Reader:
    def __init__(self, data: bytes) -> None:
        if not data or data[0] != FORMAT_VERSION:
            raise ValueError("not a Jaipur state (unknown format version)")
        self.data = data
        self.pos = 1

    def uint(self) -> int:
        value, shift = 0, 0
        while True:
            if self.pos >= len(self.data):
                raise ValueError("truncated Jaipur state")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    def signed(self) -> int:
        raw = self.uint()
        return raw // 2 if raw % 2 == 0 else -(raw + 1) // 2

    def seat(self) -> int | None:
        raw = self.uint()
        return None if raw == 0 else raw - 1

    def ints(self, count: int) -> tuple[int, ...]:
        return tuple(self.uint() for _ in range(count))

    def seq(self) -> tuple[int, ...]:
        return self.ints(self.uint())

    def tokens(self) -> tuple[Token, ...]:
        return tuple((self.uint(), self.uint()) for _ in range(self.uint()))


def encode_state(state: State) -> bytes:
    """Deterministic bytes of ``state``; see the module docstring for the layout."""
    # Every field but the seed is almost always below 0x80, a varint of one byte: lay them out as
    # a list of ints and make bytes of it at once; encode them one by one only when that fails.
    seed = state.seed
    values = [
        state.deal,
        state.round,
        state.starter,
        0 if state.turn is None else state.turn + 1,
        *state.market,
        len(state.deck),
        *state.deck,
    ]
    for hand in state.hands:
        values += hand
    values += state.herds
    values += state.discards
    values += state.stacks
    for stack in state.bonus:
        values.append(len(stack))
        values += stack
    for tokens in (*state.goods_tokens, *state.bonus_tokens):
        values.append(len(tokens))
        for kind, value in tokens:
            values.append(kind)
            values.append(value)
    values += state.seals
    values.append(len(state.results))
    for result in state.results:
        values += (result.round, result.deal, result.starter, _ENDED_BY.index(result.ended_by))
        for seq in (*result.goods_tokens, *result.bonus_tokens):
            values.append(len(seq))
            values += seq
        values += result.camels
        values.append(0 if result.camel_token is None else result.camel_token + 1)
        values += result.rupees
        values.append(0 if result.winner is None else result.winner + 1)
    try:
        body = bytes(values)
    except ValueError:  # a value outside 0..255
        return _encode_state_slowly(state)
    if not body.isascii():  # a value of 0x80 or more: a varint of more than one byte
        return _encode_state_slowly(state)
    w = _Writer()
    w.signed(seed)
    return bytes(w.out) + body


def _encode_state_slowly(state: State) -> bytes:
    """:func:`encode_state`, one value at a time."""
    w = _Writer()
    w.signed(state.seed)
    w.ints((state.deal, state.round, state.starter))
    w.seat(state.turn)
    w.ints(state.market)
    w.seq(state.deck)
    for hand in state.hands:
        w.ints(hand)
    w.ints(state.herds)
    w.ints(state.discards)
    w.ints(state.stacks)
    for stack in state.bonus:
        w.seq(stack)
    for tokens in state.goods_tokens:
        w.tokens(tokens)
    for tokens in state.bonus_tokens:
        w.tokens(tokens)
    w.ints(state.seals)
    w.uint(len(state.results))
    for result in state.results:
        w.ints((result.round, result.deal, result.starter, _ENDED_BY.index(result.ended_by)))
        for values in (*result.goods_tokens, *result.bonus_tokens):
            w.seq(values)
        w.ints(result.camels)
        w.seat(result.camel_token)
        w.ints(result.rupees)
        w.seat(result.winner)
    return bytes(w.out)


def decode_state(data: bytes) -> State:
    """The state :func:`encode_state` wrote; ValueError for bytes it did not write."""
    r = _Reader(data)
    seed = r.signed()
    deal, round_number, starter = r.ints(3)
    turn = r.seat()
    market = r.ints(NUM_TYPES)
    deck = r.seq()
    hands = tuple(r.ints(NUM_GOODS) for _ in range(PLAYERS))
    herds = r.ints(PLAYERS)
    discards = r.ints(NUM_GOODS)
    stacks = r.ints(NUM_GOODS)
    bonus = tuple(r.seq() for _ in BONUS_KINDS)
    goods_tokens = tuple(r.tokens() for _ in range(PLAYERS))
    bonus_tokens = tuple(r.tokens() for _ in range(PLAYERS))
    seals = r.ints(PLAYERS)
    results = []
    for _ in range(r.uint()):
        rnd, rdeal, rstarter, ended = r.ints(4)
        goods = tuple(r.seq() for _ in range(PLAYERS))
        bonuses = tuple(r.seq() for _ in range(PLAYERS))
        results.append(
            RoundResult(
                round=rnd,
                deal=rdeal,
                starter=rstarter,
                ended_by=_ended_by(ended),
                goods_tokens=goods,
                bonus_tokens=bonuses,
                camels=r.ints(PLAYERS),
                camel_token=r.seat(),
                rupees=r.ints(PLAYERS),
                winner=r.seat(),
            )
        )
    if r.pos != len(data):
        raise ValueError("trailing bytes after a Jaipur state")
    return State(
        seed=seed,
        deal=deal,
        round=round_number,
        starter=starter,
        turn=turn,
        market=market,
        deck=deck,
        hands=hands,
        herds=herds,
        discards=discards,
        stacks=stacks,
        bonus=bonus,
        goods_tokens=goods_tokens,
        bonus_tokens=bonus_tokens,
        seals=seals,
        results=tuple(results),
    )


def _ended_by(number: int) -> str:
    if number >= len(_ENDED_BY):
        raise ValueError(f"not a Jaipur state: a round ended in way {number}, of 0 and 1")
    return _ENDED_BY[number]


# --- moves as protobuf -------------------------------------------------------------------------


def good_to_proto(good: int) -> int:
    """The wire enum value of a card type (GOOD_UNSPECIFIED is 0, so every type is shifted)."""
    return int(good) + 1


def good_from_proto(value: int, where: str) -> Good:
    if not 1 <= value <= NUM_TYPES:
        raise MalformedMove(
            f"{where}: {value} is not a known good; use GOOD_DIAMOND .. GOOD_CAMEL "
            "(GOOD_UNSPECIFIED means the field was not set)"
        )
    return Good(value - 1)


_moves_cache: dict[object, bytes] = {}


def move_to_proto(move: Move) -> pb.Move:
    """The move as a ``serai.games.jaipur.v1.Move``; MalformedMove if it cannot be read."""
    # Moves are values (frozen dataclasses), and few: their bytes are kept, and parsed (in C) for
    # a fresh message each time, which is cheaper than setting its fields from Python. Found by
    # equality, so only canonical moves: TakeCamels(2.0) == TakeCamels(2).
    move = normalize(move)
    data = _moves_cache.get(move)
    if data is None:
        message = _move_message(move)
        _remember(_moves_cache, move, message.SerializeToString(deterministic=True))
        return message
    return pb.Move.FromString(data)


def _move_message(move: Move) -> pb.Move:
    message = pb.Move()
    if isinstance(move, TakeGood):
        message.take_good.good = good_to_proto(move.good)  # type: ignore[assignment]
    elif isinstance(move, TakeCamels):
        message.take_camels.count = move.count
    elif isinstance(move, Exchange):
        message.exchange.take.extend(good_to_proto(g) for g in move.take)  # type: ignore[misc]
        message.exchange.give.extend(good_to_proto(g) for g in move.give)  # type: ignore[misc]
    elif isinstance(move, Sell):
        message.sell.good = good_to_proto(move.good)  # type: ignore[assignment]
        message.sell.count = move.count
    else:
        raise MalformedMove(f"{type(move).__name__} is not a Jaipur move")
    return message


def move_from_proto(message: Message) -> Move:
    """The move a ``Move`` message describes; MalformedMove if it cannot be read."""
    if not isinstance(message, pb.Move):
        raise MalformedMove(
            f"expected a serai.games.jaipur.v1.Move, got {message.DESCRIPTOR.full_name}"
        )
    kind = message.WhichOneof("kind")
    if kind == "take_good":
        return TakeGood(good_from_proto(message.take_good.good, "take_good.good"))
    if kind == "take_camels":
        return TakeCamels(message.take_camels.count)
    if kind == "exchange":
        check_exchange_size(len(message.exchange.take), len(message.exchange.give))
        take = tuple(good_from_proto(g, "exchange.take") for g in message.exchange.take)
        give = tuple(good_from_proto(g, "exchange.give") for g in message.exchange.give)
        return Exchange(take, give)
    if kind == "sell":
        return Sell(good_from_proto(message.sell.good, "sell.good"), message.sell.count)
    raise MalformedMove(
        "the Move message has no action set: set one of take_good, take_camels, exchange, sell"
    )


# --- views as protobuf -------------------------------------------------------------------------
#
# A View is assembled as wire bytes and parsed once (in C): building its forty-odd sub-messages
# field by field in Python cost more than the rest of the plugin's work on a move. From one move
# to the next only a few parts of a view change, so the bytes of the parts that are values of
# their own (a row of cards, a seat's goods tokens, the goods stacks, the scored rounds) are kept
# by value, in small caches that start over when full. The message is the same as the one built
# field by field: the same fields set, sub-messages present in the same places.

_CACHE_SIZE = 4096
_BYTE = tuple(bytes([value]) for value in range(0x80))


def _varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return _BYTE[value]
    if value < 0:
        raise ValueError(f"cannot encode negative {value} as unsigned")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _sub(tag: bytes, body: bytes) -> bytes:
    """A length-delimited field: its tag byte(s), the length, the body."""
    return tag + _varint(len(body)) + body


def _tag(message: type[Message], field: str) -> bytes:
    """The key that starts ``field`` of ``message`` on the wire: its number and wire type
    (2, length-delimited, for messages and packed repeated numbers; 0, varint, otherwise)."""
    descriptor = message.DESCRIPTOR.fields_by_name[field]
    length_delimited = descriptor.message_type is not None or descriptor.is_repeated
    return _varint(descriptor.number << 3 | (2 if length_delimited else 0))


_VIEW_VIEWER = _tag(pb.View, "viewer")
_VIEW_ROUND = _tag(pb.View, "round")
_VIEW_DEAL = _tag(pb.View, "deal")
_VIEW_STARTER = _tag(pb.View, "starter")
_VIEW_TO_ACT = _tag(pb.View, "to_act")
_VIEW_MARKET = _tag(pb.View, "market")
_VIEW_DECK_SIZE = _tag(pb.View, "deck_size")
_VIEW_DISCARDS = _tag(pb.View, "discards")
_VIEW_GOODS_STACKS = _tag(pb.View, "goods_stacks")
_VIEW_BONUS_LEFT = _tag(pb.View, "bonus_left")
_VIEW_PLAYERS = _tag(pb.View, "players")
_VIEW_WINNER = _tag(pb.View, "winner")
_PLAYER_SEAT = _tag(pb.Player, "seat")
_PLAYER_HAND_SIZE = _tag(pb.Player, "hand_size")
_PLAYER_HERD = _tag(pb.Player, "herd")
_PLAYER_GOODS_TOKENS = _tag(pb.Player, "goods_tokens")
_PLAYER_BONUS_COUNTS = _tag(pb.Player, "bonus_counts")
_PLAYER_SEALS = _tag(pb.Player, "seals")
_PLAYER_HAND = _tag(pb.Player, "hand")
_PLAYER_BONUS_TOKENS = _tag(pb.Player, "bonus_tokens")
_TOKEN_GOOD = _tag(pb.GoodsToken, "good")
_TOKEN_VALUE = _tag(pb.GoodsToken, "value")
_BONUS_CARDS = _tag(pb.BonusToken, "cards")
_BONUS_VALUE = _tag(pb.BonusToken, "value")
_BONUS_THREE = _tag(pb.BonusCounts, "three")
_BONUS_FOUR = _tag(pb.BonusCounts, "four")
_BONUS_FIVE = _tag(pb.BonusCounts, "five")
_STACK_GOOD = _tag(pb.GoodsStack, "good")
_STACK_VALUES = _tag(pb.GoodsStack, "values")


def _remember(cache: dict[object, bytes], key: object, value: bytes) -> bytes:
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


_cards_cache: dict[object, bytes] = {}
_tokens_cache: dict[object, bytes] = {}
_stacks_cache: dict[object, bytes] = {}
_results_cache: dict[object, bytes] = {}
_CARD_TAGS = tuple(_tag(pb.Cards, good.name.lower()) for good in Good)  # in Good order


def _cards(counts: tuple[int, ...]) -> bytes:
    """The body of a Cards message (fields in Good order; a hand has no camel field)."""
    body = _cards_cache.get(counts)
    if body is None:
        body = b"".join(
            _CARD_TAGS[good] + _varint(count) for good, count in enumerate(counts) if count
        )
        body = _remember(_cards_cache, counts, body)
    return body


def _bonus_counts(counts: Sequence[int]) -> bytes:
    """The body of a BonusCounts message (three, four, five)."""
    three, four, five = counts
    return (
        (_BONUS_THREE + _varint(three) if three else b"")
        + (_BONUS_FOUR + _varint(four) if four else b"")
        + (_BONUS_FIVE + _varint(five) if five else b"")
    )


def _goods_tokens(tokens: tuple[Token, ...]) -> bytes:
    """A seat's goods tokens as repeated Player.goods_tokens fields."""
    data = _tokens_cache.get(tokens)
    if data is None:
        data = b"".join(
            _sub(
                _PLAYER_GOODS_TOKENS,
                _TOKEN_GOOD + _varint(good_to_proto(good)) + _TOKEN_VALUE + _varint(value),
            )
            for good, value in tokens
        )
        data = _remember(_tokens_cache, tokens, data)
    return data


def _stack_values(stacks: Sequence[int]) -> Iterator[tuple[Good, tuple[int, ...]]]:
    for good in GOODS:
        full = GOODS_TOKENS[good]
        yield good, full[len(full) - stacks[good] :]


def _goods_stacks(stacks: tuple[int, ...]) -> bytes:
    """Every good's stack as repeated View.goods_stacks fields (present even when empty)."""
    data = _stacks_cache.get(stacks)
    if data is None:
        fields = []
        for good, values in _stack_values(stacks):
            body = _STACK_GOOD + _varint(good_to_proto(good))
            if values:
                body += _sub(_STACK_VALUES, b"".join(map(_varint, values)))
            fields.append(_sub(_VIEW_GOODS_STACKS, body))
        data = _remember(_stacks_cache, stacks, b"".join(fields))
    return data


def _player(seat: int, player: PlayerView) -> bytes:
    """The body of a Player message."""
    parts = [
        _PLAYER_SEAT + _varint(seat) if seat else b"",
        _PLAYER_HAND_SIZE + _varint(player.hand_size) if player.hand_size else b"",
        _PLAYER_HERD + _varint(player.herd) if player.herd else b"",
        _goods_tokens(player.goods_tokens),
        _sub(
            _PLAYER_BONUS_COUNTS, _bonus_counts(player.bonus_counts)
        ),  # present even when all zero
        _PLAYER_SEALS + _varint(player.seals) if player.seals else b"",
    ]
    if player.hand is not None:  # present even when empty: this is the viewer's own hand
        parts.append(_sub(_PLAYER_HAND, _cards(player.hand)))
    for kind, value in player.bonus_tokens or ():
        parts.append(
            _sub(_PLAYER_BONUS_TOKENS, _BONUS_CARDS + _varint(kind) + _BONUS_VALUE + _varint(value))
        )
    return b"".join(parts)


def _results(results: tuple[RoundResult, ...]) -> bytes:
    """The scored rounds as repeated View.results fields (rare, so built as messages)."""
    data = _results_cache.get(results)
    if data is None:
        message = pb.View()
        for result in results:
            item = message.results.add(
                round=result.round,
                deal=result.deal,
                starter=result.starter,
                ended_by=result.ended_by,
            )
            for seat in range(PLAYERS):
                item.scores.add(
                    seat=seat,
                    rupees=result.rupees[seat],
                    goods_tokens=result.goods_tokens[seat],
                    bonus_tokens=result.bonus_tokens[seat],
                    camels=result.camels[seat],
                    camel_token=result.camel_token == seat,
                )
            if result.winner is not None:
                item.winner = result.winner
        data = _remember(_results_cache, results, message.SerializeToString(deterministic=True))
    return data


def view_to_proto(view: JaipurView) -> pb.View:
    """The view as a ``serai.games.jaipur.v1.View``; optional fields unset where not known."""
    return pb.View.FromString(view_bytes(view))


def view_bytes(view: JaipurView) -> bytes:
    """:func:`view_to_proto`'s message serialized (deterministically), without building it:
    the fields in field-number order, each sub-message from kept parts."""
    parts = [
        b"" if view.viewer is None else _VIEW_VIEWER + _varint(view.viewer),
        # Scalars without presence only when not 0, as protobuf writes them.
        _VIEW_ROUND + _varint(view.round) if view.round else b"",
        _VIEW_DEAL + _varint(view.deal) if view.deal else b"",
        _VIEW_STARTER + _varint(view.starter) if view.starter else b"",
        b"" if view.turn is None else _VIEW_TO_ACT + _varint(view.turn),
        _sub(_VIEW_MARKET, _cards(view.market)),
        _VIEW_DECK_SIZE + _varint(view.deck_size) if view.deck_size else b"",
        _sub(_VIEW_DISCARDS, _cards(view.discards)),
        _goods_stacks(view.stacks),
        _sub(_VIEW_BONUS_LEFT, _bonus_counts(view.bonus_left)),
    ]
    for seat, player in enumerate(view.players):
        parts.append(_sub(_VIEW_PLAYERS, _player(seat, player)))
    if view.results:
        parts.append(_results(view.results))
    if view.turn is None:
        parts.append(
            _VIEW_WINNER + _BYTE[0 if view.players[0].seals > view.players[1].seals else 1]
        )
    return b"".join(parts)


# --- views from protobuf (for bots) ------------------------------------------------------------


def _good_from_wire(value: int) -> Good:
    return Good(value - 1)  # the wire shifts by one for GOOD_UNSPECIFIED


def _counts_from_proto(cards: pb.Cards, types: int) -> tuple[int, ...]:
    return tuple(getattr(cards, good.name.lower()) for good in list(Good)[:types])


def _bonus_from_proto(counts: pb.BonusCounts) -> tuple[int, ...]:
    return (counts.three, counts.four, counts.five)


def _player_from_proto(entry: pb.Player) -> PlayerView:
    own = entry.HasField("hand")
    return PlayerView(
        hand_size=entry.hand_size,
        herd=entry.herd,
        goods_tokens=tuple((int(_good_from_wire(t.good)), t.value) for t in entry.goods_tokens),
        bonus_counts=_bonus_from_proto(entry.bonus_counts),
        seals=entry.seals,
        hand=_counts_from_proto(entry.hand, NUM_GOODS) if own else None,
        bonus_tokens=tuple((t.cards, t.value) for t in entry.bonus_tokens) if own else None,
    )


def _result_from_proto(item: pb.RoundResult) -> RoundResult:
    scores = sorted(item.scores, key=lambda score: score.seat)
    camel_token = next((s.seat for s in scores if s.camel_token), None)
    return RoundResult(
        round=item.round,
        deal=item.deal,
        starter=item.starter,
        ended_by=item.ended_by,
        goods_tokens=tuple(tuple(s.goods_tokens) for s in scores),
        bonus_tokens=tuple(tuple(s.bonus_tokens) for s in scores),
        camels=tuple(s.camels for s in scores),
        camel_token=camel_token,
        rupees=tuple(s.rupees for s in scores),
        winner=item.winner if item.HasField("winner") else None,
    )


def view_from_proto(message: Message) -> JaipurView:
    """The plugin view a ``View`` message describes: the inverse of :func:`view_to_proto`, for
    bots that hold only what their seat was sent. ValueError for another message type."""
    if not isinstance(message, pb.View):
        raise ValueError(f"a Jaipur view is a {pb.View.DESCRIPTOR.full_name}, not {message!r:.60}")
    stacks = [0] * NUM_GOODS
    for stack in message.goods_stacks:
        stacks[_good_from_wire(stack.good)] = len(stack.values)
    players = tuple(
        _player_from_proto(entry) for entry in sorted(message.players, key=lambda p: p.seat)
    )
    return JaipurView(
        viewer=message.viewer if message.HasField("viewer") else None,
        round=message.round,
        deal=message.deal,
        starter=message.starter,
        turn=message.to_act if message.HasField("to_act") else None,
        market=_counts_from_proto(message.market, len(Good)),
        deck_size=message.deck_size,
        discards=_counts_from_proto(message.discards, NUM_GOODS),
        stacks=tuple(stacks[good] for good in GOODS),
        bonus_left=_bonus_from_proto(message.bonus_left),
        players=players,
        results=tuple(_result_from_proto(item) for item in message.results),
    )
