"""Moves and views to and from the ``serai.games.sobek.v1`` protobuf messages.

Enum numbers are the same on both sides (``Goods.IVORY == pb.GOODS_IVORY == 1``), so the
conversion is field by field. Unknown or unset values become MalformedMove.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from google.protobuf.message import Message
from serai.game import MalformedMove, OptionValue

from serai_sobek import sobek_pb2 as pb
from serai_sobek.cards import CARD_COUNT, Character, Face, Goods, Kind
from serai_sobek.events import Event
from serai_sobek.moves import (
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
)
from serai_sobek.state import Pending, PendingKind, Phase, RoundResult
from serai_sobek.views import HIDDEN, SeatView, SetView, SobekView


def card_to_proto(face: Face) -> pb.Card:
    return pb.Card(
        kind=int(face.kind),  # type: ignore[arg-type]
        goods=face.goods,  # type: ignore[arg-type]
        scarabs=face.scarabs,
        character=face.character,  # type: ignore[arg-type]
    )


def card_from_proto(card: pb.Card) -> Face:
    try:
        kind = Kind(card.kind)
    except ValueError:
        raise MalformedMove(f"card kind {card.kind} is not a known CardKind") from None
    if kind is Kind.AMULET:
        return Face(kind, 0, 0)
    if card.goods not in Goods._value2member_map_:
        raise MalformedMove(f"a {kind.name.lower()} card needs a goods type, got {card.goods}")
    if kind is Kind.CHARACTER:
        if card.character not in Character._value2member_map_:
            raise MalformedMove(f"a character card needs a character, got {card.character}")
        return Face(kind, card.goods, card.scarabs, card.character)
    return Face(kind, card.goods, card.scarabs)


def _cards(cards: tuple[Face, ...]) -> list[pb.Card]:
    return [card_to_proto(face) for face in cards]


def _faces(cards: Sequence[pb.Card]) -> tuple[Face, ...]:
    # Counted before read: a list longer than the deck is refused without converting a card.
    if len(cards) > CARD_COUNT:
        raise MalformedMove(
            f"a move names {len(cards)} cards, but the game has only {CARD_COUNT}: it cannot be "
            "real"
        )
    return tuple(sorted(card_from_proto(card) for card in cards))


def _goods(value: int) -> Goods:
    try:
        return Goods(value)
    except ValueError:
        raise MalformedMove(f"goods {value} is not a known Goods (1 to 6)") from None


def move_to_proto(move: Move) -> pb.Move:
    match move:
        case Take(position):
            return pb.Move(take=pb.Take(position=position))
        case TakeAny(position):
            return pb.Move(take_any=pb.TakeAny(position=position))
        case PlayCharacter(character, target):
            return pb.Move(
                play_character=pb.PlayCharacter(character=int(character), target=target)  # type: ignore[arg-type]
            )
        case PlaySet(goods, cards):
            return pb.Move(play_set=pb.PlaySet(goods=int(goods), cards=_cards(cards)))  # type: ignore[arg-type]
        case ChooseEvent(slot, target):
            return pb.Move(choose_event=pb.ChooseEvent(slot=slot, target=target))
        case PickCards(cards):
            return pb.Move(pick_cards=pb.PickCards(cards=_cards(cards)))
        case AddToSet(goods, cards):
            return pb.Move(add_to_set=pb.AddToSet(goods=int(goods), cards=_cards(cards)))  # type: ignore[arg-type]
        case FinalSet(goods, cards):
            return pb.Move(final_set=pb.FinalSet(goods=int(goods), cards=_cards(cards)))  # type: ignore[arg-type]
        case Finish():
            return pb.Move(finish=pb.Finish())
        case ChooseStarter(seat):
            return pb.Move(choose_starter=pb.ChooseStarter(seat=seat))
    raise TypeError(f"not a Sobek move: {move!r}")


def move_from_proto(message: Message) -> Move:
    if not isinstance(message, pb.Move):
        raise MalformedMove(f"expected serai.games.sobek.v1.Move, got {type(message).__name__}")
    which = message.WhichOneof("move")
    if which is None:
        raise MalformedMove("the Move has none of its fields set (take, play_set, ...)")
    body = getattr(message, which)
    match which:
        case "take":
            return Take(body.position)
        case "take_any":
            return TakeAny(body.position)
        case "play_character":
            try:
                character = Character(body.character)
            except ValueError:
                raise MalformedMove(f"character {body.character} is not known") from None
            return PlayCharacter(character, body.target if body.HasField("target") else None)
        case "play_set":
            return PlaySet(_goods(body.goods), _faces(body.cards))
        case "choose_event":
            return ChooseEvent(body.slot, body.target if body.HasField("target") else None)
        case "pick_cards":
            return PickCards(_faces(body.cards))
        case "add_to_set":
            return AddToSet(_goods(body.goods), _faces(body.cards))
        case "final_set":
            return FinalSet(_goods(body.goods), _faces(body.cards))
        case "finish":
            return Finish()
        case "choose_starter":
            return ChooseStarter(body.seat)
    raise MalformedMove(f"unknown move field {which}")


def _slot(face: Face | None) -> pb.MarketSlot:
    if face is None:
        return pb.MarketSlot(face_down=True)
    return pb.MarketSlot(card=card_to_proto(face))


def _option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def view_to_proto(v: SobekView) -> pb.View:
    message = pb.View(
        players=v.players,
        options=[pb.Option(name=n, value=_option_text(x)) for n, x in v.options],
        round=v.round,
        phase=int(v.phase),  # type: ignore[arg-type]
        current=v.current,
        starter=v.starter,
        turn=v.turn,
        to_act=list(v.to_act),
        row=[_slot(face) for face in v.row],
        deck_count=v.deck_count,
        discard=_cards(v.discard),
        removed_count=v.removed_count,
        unused_count=v.unused_count,
        set_aside_count=v.set_aside_count,
        tokens_left=v.tokens_left,
        tokens_seen=[int(t) for t in v.tokens_seen],  # type: ignore[misc]
        used_tokens=[int(t) for t in v.used_tokens],  # type: ignore[misc]
        pending=[
            pb.Pending(kind=int(p.kind), actor=p.actor, other=None if p.other < 0 else p.other)  # type: ignore[arg-type]
            for p in v.pending
        ],
        finishing=list(v.finishing),
        results=[
            pb.RoundResult(
                round=r.round,
                points=list(r.points),
                corrupt=list(r.corrupt),
                penalties=list(r.penalties),
                scores=list(r.scores),
            )
            for r in v.results
        ],
    )
    if v.viewer is not None:
        message.viewer = v.viewer
    for s in v.seats:
        seat = message.seats.add(
            seat=s.seat,
            score=s.score,
            bonus=s.bonus,
            hand_count=s.hand_count,
            hand=_cards(s.hand),
            corruption=_cards(s.corruption),
            sets=[
                pb.TableSet(
                    goods=int(t.goods),  # type: ignore[arg-type]
                    cards=_cards(t.cards),
                    horizontal=t.horizontal,
                    points=t.points,
                )
                for t in s.sets
            ],
        )
        if s.corruption_count != HIDDEN:
            seat.corruption_count = s.corruption_count
    return message


# --- views from protobuf (for bots) ------------------------------------------------------------


def _face_from_proto(card: pb.Card) -> Face:
    return Face(Kind(card.kind), card.goods, card.scarabs, card.character)


def _faces_from_proto(cards: Iterable[pb.Card]) -> tuple[Face, ...]:
    return tuple(_face_from_proto(card) for card in cards)


def _seat_from_proto(entry: pb.SeatView) -> SeatView:
    return SeatView(
        seat=entry.seat,
        score=entry.score,
        bonus=entry.bonus,
        hand_count=entry.hand_count,
        hand=_faces_from_proto(entry.hand),
        corruption_count=(entry.corruption_count if entry.HasField("corruption_count") else HIDDEN),
        corruption=_faces_from_proto(entry.corruption),
        sets=tuple(
            SetView(Goods(s.goods), _faces_from_proto(s.cards), s.horizontal, s.points)
            for s in entry.sets
        ),
    )


def view_from_proto(
    message: Message, resolve_options: Callable[[dict[str, str]], dict[str, OptionValue]]
) -> SobekView:
    """The plugin view a ``View`` message describes: the inverse of :func:`view_to_proto`, for
    bots that hold only what their seat was sent; options come back typed by the game's
    ``resolve_options``. ValueError for another message type."""
    if not isinstance(message, pb.View):
        raise ValueError(f"a Sobek view is a {pb.View.DESCRIPTOR.full_name}, not {message!r:.60}")
    options = tuple(
        (option.name, resolve_options({option.name: option.value})[option.name])
        for option in message.options
    )
    return SobekView(
        viewer=message.viewer if message.HasField("viewer") else None,
        players=message.players,
        options=options,
        round=message.round,
        phase=Phase(message.phase),
        current=message.current,
        starter=message.starter,
        turn=message.turn,
        to_act=tuple(message.to_act),
        row=tuple(None if slot.face_down else _face_from_proto(slot.card) for slot in message.row),
        deck_count=message.deck_count,
        discard=_faces_from_proto(message.discard),
        removed_count=message.removed_count,
        unused_count=message.unused_count,
        tokens_left=message.tokens_left,
        tokens_seen=tuple(Event(t) for t in message.tokens_seen),
        used_tokens=tuple(Event(t) for t in message.used_tokens),
        seats=tuple(
            _seat_from_proto(entry) for entry in sorted(message.seats, key=lambda s: s.seat)
        ),
        pending=tuple(
            Pending(PendingKind(p.kind), p.actor, p.other if p.HasField("other") else -1)
            for p in message.pending
        ),
        finishing=tuple(message.finishing),
        results=tuple(
            RoundResult(
                r.round, tuple(r.points), tuple(r.corrupt), tuple(r.penalties), tuple(r.scores)
            )
            for r in message.results
        ),
        set_aside_count=message.set_aside_count,
    )
