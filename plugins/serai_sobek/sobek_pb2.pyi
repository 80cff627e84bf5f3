from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Goods(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GOODS_UNSPECIFIED: _ClassVar[Goods]
    GOODS_IVORY: _ClassVar[Goods]
    GOODS_EBONY: _ClassVar[Goods]
    GOODS_MARBLE: _ClassVar[Goods]
    GOODS_CATTLE: _ClassVar[Goods]
    GOODS_FISH: _ClassVar[Goods]
    GOODS_WHEAT: _ClassVar[Goods]

class CardKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CARD_KIND_UNSPECIFIED: _ClassVar[CardKind]
    CARD_KIND_GOODS: _ClassVar[CardKind]
    CARD_KIND_AMULET: _ClassVar[CardKind]
    CARD_KIND_CHARACTER: _ClassVar[CardKind]

class Character(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHARACTER_UNSPECIFIED: _ClassVar[Character]
    CHARACTER_VIZIER: _ClassVar[Character]
    CHARACTER_THIEF: _ClassVar[Character]
    CHARACTER_SCRIBE: _ClassVar[Character]
    CHARACTER_COURTESAN: _ClassVar[Character]
    CHARACTER_HIGH_PRIEST: _ClassVar[Character]
    CHARACTER_QUEEN: _ClassVar[Character]
    CHARACTER_ARCHITECT: _ClassVar[Character]
    CHARACTER_PRINCESS: _ClassVar[Character]
    CHARACTER_BOATMAN: _ClassVar[Character]

class Event(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_UNSPECIFIED: _ClassVar[Event]
    EVENT_POINTS: _ClassVar[Event]
    EVENT_PURGE: _ClassVar[Event]
    EVENT_FIRST_CARD: _ClassVar[Event]
    EVENT_FINE: _ClassVar[Event]
    EVENT_BRIBE: _ClassVar[Event]
    EVENT_TRIBUTE: _ClassVar[Event]
    EVENT_ANY_CARD: _ClassVar[Event]
    EVENT_SCAPEGOAT: _ClassVar[Event]
    EVENT_SPOIL: _ClassVar[Event]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_FINAL: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]

class PendingKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENDING_KIND_UNSPECIFIED: _ClassVar[PendingKind]
    PENDING_KIND_EVENT: _ClassVar[PendingKind]
    PENDING_KIND_GIVE: _ClassVar[PendingKind]
    PENDING_KIND_PURGE: _ClassVar[PendingKind]
    PENDING_KIND_PASS_CORRUPTION: _ClassVar[PendingKind]
    PENDING_KIND_SELF_CORRUPT: _ClassVar[PendingKind]
    PENDING_KIND_TAKE_ANY: _ClassVar[PendingKind]
    PENDING_KIND_ARCHITECT: _ClassVar[PendingKind]
    PENDING_KIND_STARTER: _ClassVar[PendingKind]
GOODS_UNSPECIFIED: Goods
GOODS_IVORY: Goods
GOODS_EBONY: Goods
GOODS_MARBLE: Goods
GOODS_CATTLE: Goods
GOODS_FISH: Goods
GOODS_WHEAT: Goods
CARD_KIND_UNSPECIFIED: CardKind
CARD_KIND_GOODS: CardKind
CARD_KIND_AMULET: CardKind
CARD_KIND_CHARACTER: CardKind
CHARACTER_UNSPECIFIED: Character
CHARACTER_VIZIER: Character
CHARACTER_THIEF: Character
CHARACTER_SCRIBE: Character
CHARACTER_COURTESAN: Character
CHARACTER_HIGH_PRIEST: Character
CHARACTER_QUEEN: Character
CHARACTER_ARCHITECT: Character
CHARACTER_PRINCESS: Character
CHARACTER_BOATMAN: Character
EVENT_UNSPECIFIED: Event
EVENT_POINTS: Event
EVENT_PURGE: Event
EVENT_FIRST_CARD: Event
EVENT_FINE: Event
EVENT_BRIBE: Event
EVENT_TRIBUTE: Event
EVENT_ANY_CARD: Event
EVENT_SCAPEGOAT: Event
EVENT_SPOIL: Event
PHASE_UNSPECIFIED: Phase
PHASE_PLAY: Phase
PHASE_FINAL: Phase
PHASE_OVER: Phase
PENDING_KIND_UNSPECIFIED: PendingKind
PENDING_KIND_EVENT: PendingKind
PENDING_KIND_GIVE: PendingKind
PENDING_KIND_PURGE: PendingKind
PENDING_KIND_PASS_CORRUPTION: PendingKind
PENDING_KIND_SELF_CORRUPT: PendingKind
PENDING_KIND_TAKE_ANY: PendingKind
PENDING_KIND_ARCHITECT: PendingKind
PENDING_KIND_STARTER: PendingKind

class Card(_message.Message):
    __slots__ = ("kind", "goods", "scarabs", "character")
    KIND_FIELD_NUMBER: _ClassVar[int]
    GOODS_FIELD_NUMBER: _ClassVar[int]
    SCARABS_FIELD_NUMBER: _ClassVar[int]
    CHARACTER_FIELD_NUMBER: _ClassVar[int]
    kind: CardKind
    goods: Goods
    scarabs: int
    character: Character
    def __init__(self, kind: _Optional[_Union[CardKind, str]] = ..., goods: _Optional[_Union[Goods, str]] = ..., scarabs: _Optional[int] = ..., character: _Optional[_Union[Character, str]] = ...) -> None: ...

class Take(_message.Message):
    __slots__ = ("position",)
    POSITION_FIELD_NUMBER: _ClassVar[int]
    position: int
    def __init__(self, position: _Optional[int] = ...) -> None: ...

class TakeAny(_message.Message):
    __slots__ = ("position",)
    POSITION_FIELD_NUMBER: _ClassVar[int]
    position: int
    def __init__(self, position: _Optional[int] = ...) -> None: ...

class PlayCharacter(_message.Message):
    __slots__ = ("character", "target")
    CHARACTER_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    character: Character
    target: int
    def __init__(self, character: _Optional[_Union[Character, str]] = ..., target: _Optional[int] = ...) -> None: ...

class PlaySet(_message.Message):
    __slots__ = ("goods", "cards")
    GOODS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    goods: Goods
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, goods: _Optional[_Union[Goods, str]] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class ChooseEvent(_message.Message):
    __slots__ = ("slot", "target")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    slot: int
    target: int
    def __init__(self, slot: _Optional[int] = ..., target: _Optional[int] = ...) -> None: ...

class PickCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class AddToSet(_message.Message):
    __slots__ = ("goods", "cards")
    GOODS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    goods: Goods
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, goods: _Optional[_Union[Goods, str]] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class FinalSet(_message.Message):
    __slots__ = ("goods", "cards")
    GOODS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    goods: Goods
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, goods: _Optional[_Union[Goods, str]] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Finish(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ChooseStarter(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("take", "play_character", "play_set", "choose_event", "pick_cards", "add_to_set", "final_set", "finish", "take_any", "choose_starter")
    TAKE_FIELD_NUMBER: _ClassVar[int]
    PLAY_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    PLAY_SET_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_EVENT_FIELD_NUMBER: _ClassVar[int]
    PICK_CARDS_FIELD_NUMBER: _ClassVar[int]
    ADD_TO_SET_FIELD_NUMBER: _ClassVar[int]
    FINAL_SET_FIELD_NUMBER: _ClassVar[int]
    FINISH_FIELD_NUMBER: _ClassVar[int]
    TAKE_ANY_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_STARTER_FIELD_NUMBER: _ClassVar[int]
    take: Take
    play_character: PlayCharacter
    play_set: PlaySet
    choose_event: ChooseEvent
    pick_cards: PickCards
    add_to_set: AddToSet
    final_set: FinalSet
    finish: Finish
    take_any: TakeAny
    choose_starter: ChooseStarter
    def __init__(self, take: _Optional[_Union[Take, _Mapping]] = ..., play_character: _Optional[_Union[PlayCharacter, _Mapping]] = ..., play_set: _Optional[_Union[PlaySet, _Mapping]] = ..., choose_event: _Optional[_Union[ChooseEvent, _Mapping]] = ..., pick_cards: _Optional[_Union[PickCards, _Mapping]] = ..., add_to_set: _Optional[_Union[AddToSet, _Mapping]] = ..., final_set: _Optional[_Union[FinalSet, _Mapping]] = ..., finish: _Optional[_Union[Finish, _Mapping]] = ..., take_any: _Optional[_Union[TakeAny, _Mapping]] = ..., choose_starter: _Optional[_Union[ChooseStarter, _Mapping]] = ...) -> None: ...

class MarketSlot(_message.Message):
    __slots__ = ("face_down", "card")
    FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    face_down: bool
    card: Card
    def __init__(self, face_down: _Optional[bool] = ..., card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class TableSet(_message.Message):
    __slots__ = ("goods", "cards", "horizontal", "points")
    GOODS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    HORIZONTAL_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    goods: Goods
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    horizontal: bool
    points: int
    def __init__(self, goods: _Optional[_Union[Goods, str]] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., horizontal: _Optional[bool] = ..., points: _Optional[int] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "score", "bonus", "hand_count", "hand", "corruption_count", "corruption", "sets")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    CORRUPTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    CORRUPTION_FIELD_NUMBER: _ClassVar[int]
    SETS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    score: int
    bonus: int
    hand_count: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    corruption_count: int
    corruption: _containers.RepeatedCompositeFieldContainer[Card]
    sets: _containers.RepeatedCompositeFieldContainer[TableSet]
    def __init__(self, seat: _Optional[int] = ..., score: _Optional[int] = ..., bonus: _Optional[int] = ..., hand_count: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., corruption_count: _Optional[int] = ..., corruption: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., sets: _Optional[_Iterable[_Union[TableSet, _Mapping]]] = ...) -> None: ...

class Pending(_message.Message):
    __slots__ = ("kind", "actor", "other")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    kind: PendingKind
    actor: int
    other: int
    def __init__(self, kind: _Optional[_Union[PendingKind, str]] = ..., actor: _Optional[int] = ..., other: _Optional[int] = ...) -> None: ...

class RoundResult(_message.Message):
    __slots__ = ("round", "points", "corrupt", "penalties", "scores")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    CORRUPT_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    round: int
    points: _containers.RepeatedScalarFieldContainer[int]
    corrupt: _containers.RepeatedScalarFieldContainer[int]
    penalties: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., corrupt: _Optional[_Iterable[int]] = ..., penalties: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class Option(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("viewer", "players", "options", "round", "phase", "current", "starter", "turn", "to_act", "row", "deck_count", "discard", "removed_count", "unused_count", "tokens_left", "tokens_seen", "used_tokens", "seats", "pending", "finishing", "results", "set_aside_count")
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    REMOVED_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNUSED_COUNT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_SEEN_FIELD_NUMBER: _ClassVar[int]
    USED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    FINISHING_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    SET_ASIDE_COUNT_FIELD_NUMBER: _ClassVar[int]
    viewer: int
    players: int
    options: _containers.RepeatedCompositeFieldContainer[Option]
    round: int
    phase: Phase
    current: int
    starter: int
    turn: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    row: _containers.RepeatedCompositeFieldContainer[MarketSlot]
    deck_count: int
    discard: _containers.RepeatedCompositeFieldContainer[Card]
    removed_count: int
    unused_count: int
    tokens_left: int
    tokens_seen: _containers.RepeatedScalarFieldContainer[Event]
    used_tokens: _containers.RepeatedScalarFieldContainer[Event]
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    pending: _containers.RepeatedCompositeFieldContainer[Pending]
    finishing: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedCompositeFieldContainer[RoundResult]
    set_aside_count: int
    def __init__(self, viewer: _Optional[int] = ..., players: _Optional[int] = ..., options: _Optional[_Iterable[_Union[Option, _Mapping]]] = ..., round: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., current: _Optional[int] = ..., starter: _Optional[int] = ..., turn: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., row: _Optional[_Iterable[_Union[MarketSlot, _Mapping]]] = ..., deck_count: _Optional[int] = ..., discard: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., removed_count: _Optional[int] = ..., unused_count: _Optional[int] = ..., tokens_left: _Optional[int] = ..., tokens_seen: _Optional[_Iterable[_Union[Event, str]]] = ..., used_tokens: _Optional[_Iterable[_Union[Event, str]]] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[Pending, _Mapping]]] = ..., finishing: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[RoundResult, _Mapping]]] = ..., set_aside_count: _Optional[int] = ...) -> None: ...
