from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Crop(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CROP_UNSPECIFIED: _ClassVar[Crop]
    CROP_PAPYRUS: _ClassVar[Crop]
    CROP_WHEAT: _ClassVar[Crop]
    CROP_LETTUCE: _ClassVar[Crop]
    CROP_CASTOR: _ClassVar[Crop]
    CROP_FLAX: _ClassVar[Crop]
    CROP_GRAPES: _ClassVar[Crop]
    CROP_ONIONS: _ClassVar[Crop]

class CardKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CARD_KIND_UNSPECIFIED: _ClassVar[CardKind]
    CARD_KIND_CROP: _ClassVar[CardKind]
    CARD_KIND_SPECULATION: _ClassVar[CardKind]
    CARD_KIND_PLAGUE: _ClassVar[CardKind]
CROP_UNSPECIFIED: Crop
CROP_PAPYRUS: Crop
CROP_WHEAT: Crop
CROP_LETTUCE: Crop
CROP_CASTOR: Crop
CROP_FLAX: Crop
CROP_GRAPES: Crop
CROP_ONIONS: Crop
CARD_KIND_UNSPECIFIED: CardKind
CARD_KIND_CROP: CardKind
CARD_KIND_SPECULATION: CardKind
CARD_KIND_PLAGUE: CardKind

class Card(_message.Message):
    __slots__ = ("kind", "crops")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CROPS_FIELD_NUMBER: _ClassVar[int]
    kind: CardKind
    crops: _containers.RepeatedScalarFieldContainer[Crop]
    def __init__(self, kind: _Optional[_Union[CardKind, str]] = ..., crops: _Optional[_Iterable[_Union[Crop, str]]] = ...) -> None: ...

class CardCount(_message.Message):
    __slots__ = ("card", "count")
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    card: Card
    count: int
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ..., count: _Optional[int] = ...) -> None: ...

class CropCount(_message.Message):
    __slots__ = ("crop", "count")
    CROP_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    crop: Crop
    count: int
    def __init__(self, crop: _Optional[_Union[Crop, str]] = ..., count: _Optional[int] = ...) -> None: ...

class Trade(_message.Message):
    __slots__ = ("from_hand", "from_storehouse")
    FROM_HAND_FIELD_NUMBER: _ClassVar[int]
    FROM_STOREHOUSE_FIELD_NUMBER: _ClassVar[int]
    from_hand: _containers.RepeatedCompositeFieldContainer[Card]
    from_storehouse: _containers.RepeatedScalarFieldContainer[Crop]
    def __init__(self, from_hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., from_storehouse: _Optional[_Iterable[_Union[Crop, str]]] = ...) -> None: ...

class Plant(_message.Message):
    __slots__ = ("crops",)
    CROPS_FIELD_NUMBER: _ClassVar[int]
    crops: _containers.RepeatedCompositeFieldContainer[CropCount]
    def __init__(self, crops: _Optional[_Iterable[_Union[CropCount, _Mapping]]] = ...) -> None: ...

class Speculate(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class PassTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Move(_message.Message):
    __slots__ = ("market", "offering", "plant", "speculate", "pass_turn")
    MARKET_FIELD_NUMBER: _ClassVar[int]
    OFFERING_FIELD_NUMBER: _ClassVar[int]
    PLANT_FIELD_NUMBER: _ClassVar[int]
    SPECULATE_FIELD_NUMBER: _ClassVar[int]
    PASS_TURN_FIELD_NUMBER: _ClassVar[int]
    market: Trade
    offering: Trade
    plant: Plant
    speculate: Speculate
    pass_turn: PassTurn
    def __init__(self, market: _Optional[_Union[Trade, _Mapping]] = ..., offering: _Optional[_Union[Trade, _Mapping]] = ..., plant: _Optional[_Union[Plant, _Mapping]] = ..., speculate: _Optional[_Union[Speculate, _Mapping]] = ..., pass_turn: _Optional[_Union[PassTurn, _Mapping]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("seat", "hand_size", "storehouse_size", "fields", "speculations", "storehouse_known", "storehouse", "traded_from_hand", "traded_from_storehouse", "harvested")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    STOREHOUSE_SIZE_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    SPECULATIONS_FIELD_NUMBER: _ClassVar[int]
    STOREHOUSE_KNOWN_FIELD_NUMBER: _ClassVar[int]
    STOREHOUSE_FIELD_NUMBER: _ClassVar[int]
    TRADED_FROM_HAND_FIELD_NUMBER: _ClassVar[int]
    TRADED_FROM_STOREHOUSE_FIELD_NUMBER: _ClassVar[int]
    HARVESTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_size: int
    storehouse_size: int
    fields: _containers.RepeatedCompositeFieldContainer[CropCount]
    speculations: _containers.RepeatedCompositeFieldContainer[Card]
    storehouse_known: bool
    storehouse: _containers.RepeatedCompositeFieldContainer[CropCount]
    traded_from_hand: int
    traded_from_storehouse: int
    harvested: _containers.RepeatedCompositeFieldContainer[CropCount]
    def __init__(self, seat: _Optional[int] = ..., hand_size: _Optional[int] = ..., storehouse_size: _Optional[int] = ..., fields: _Optional[_Iterable[_Union[CropCount, _Mapping]]] = ..., speculations: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., storehouse_known: _Optional[bool] = ..., storehouse: _Optional[_Iterable[_Union[CropCount, _Mapping]]] = ..., traded_from_hand: _Optional[int] = ..., traded_from_storehouse: _Optional[int] = ..., harvested: _Optional[_Iterable[_Union[CropCount, _Mapping]]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("seat", "players", "crops", "active_seat", "turn", "pass_number", "passes", "deck_size", "flooded", "flood_pile", "discard", "plague_in_deck", "players_view", "hand", "finished", "discard_size", "copies_per_crop", "own_traded_from_hand", "own_traded_from_storehouse", "plague_drawn_by", "traded_this_turn", "harvests_kept")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CROPS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PASS_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    FLOODED_FIELD_NUMBER: _ClassVar[int]
    FLOOD_PILE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    PLAGUE_IN_DECK_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_VIEW_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    DISCARD_SIZE_FIELD_NUMBER: _ClassVar[int]
    COPIES_PER_CROP_FIELD_NUMBER: _ClassVar[int]
    OWN_TRADED_FROM_HAND_FIELD_NUMBER: _ClassVar[int]
    OWN_TRADED_FROM_STOREHOUSE_FIELD_NUMBER: _ClassVar[int]
    PLAGUE_DRAWN_BY_FIELD_NUMBER: _ClassVar[int]
    TRADED_THIS_TURN_FIELD_NUMBER: _ClassVar[int]
    HARVESTS_KEPT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    crops: _containers.RepeatedScalarFieldContainer[Crop]
    active_seat: int
    turn: int
    pass_number: int
    passes: int
    deck_size: int
    flooded: _containers.RepeatedScalarFieldContainer[Crop]
    flood_pile: _containers.RepeatedCompositeFieldContainer[Card]
    discard: _containers.RepeatedCompositeFieldContainer[CardCount]
    plague_in_deck: bool
    players_view: _containers.RepeatedCompositeFieldContainer[PlayerView]
    hand: _containers.RepeatedCompositeFieldContainer[CardCount]
    finished: bool
    discard_size: int
    copies_per_crop: int
    own_traded_from_hand: _containers.RepeatedCompositeFieldContainer[CardCount]
    own_traded_from_storehouse: _containers.RepeatedCompositeFieldContainer[CropCount]
    plague_drawn_by: _containers.RepeatedScalarFieldContainer[int]
    traded_this_turn: bool
    harvests_kept: bool
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., crops: _Optional[_Iterable[_Union[Crop, str]]] = ..., active_seat: _Optional[int] = ..., turn: _Optional[int] = ..., pass_number: _Optional[int] = ..., passes: _Optional[int] = ..., deck_size: _Optional[int] = ..., flooded: _Optional[_Iterable[_Union[Crop, str]]] = ..., flood_pile: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., discard: _Optional[_Iterable[_Union[CardCount, _Mapping]]] = ..., plague_in_deck: _Optional[bool] = ..., players_view: _Optional[_Iterable[_Union[PlayerView, _Mapping]]] = ..., hand: _Optional[_Iterable[_Union[CardCount, _Mapping]]] = ..., finished: _Optional[bool] = ..., discard_size: _Optional[int] = ..., copies_per_crop: _Optional[int] = ..., own_traded_from_hand: _Optional[_Iterable[_Union[CardCount, _Mapping]]] = ..., own_traded_from_storehouse: _Optional[_Iterable[_Union[CropCount, _Mapping]]] = ..., plague_drawn_by: _Optional[_Iterable[int]] = ..., traded_this_turn: _Optional[bool] = ..., harvests_kept: _Optional[bool] = ...) -> None: ...
