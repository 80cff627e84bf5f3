from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Good(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GOOD_UNSPECIFIED: _ClassVar[Good]
    GOOD_DIAMOND: _ClassVar[Good]
    GOOD_GOLD: _ClassVar[Good]
    GOOD_SILVER: _ClassVar[Good]
    GOOD_CLOTH: _ClassVar[Good]
    GOOD_SPICE: _ClassVar[Good]
    GOOD_LEATHER: _ClassVar[Good]
    GOOD_CAMEL: _ClassVar[Good]
GOOD_UNSPECIFIED: Good
GOOD_DIAMOND: Good
GOOD_GOLD: Good
GOOD_SILVER: Good
GOOD_CLOTH: Good
GOOD_SPICE: Good
GOOD_LEATHER: Good
GOOD_CAMEL: Good

class TakeGood(_message.Message):
    __slots__ = ("good",)
    GOOD_FIELD_NUMBER: _ClassVar[int]
    good: Good
    def __init__(self, good: _Optional[_Union[Good, str]] = ...) -> None: ...

class TakeCamels(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class Exchange(_message.Message):
    __slots__ = ("take", "give")
    TAKE_FIELD_NUMBER: _ClassVar[int]
    GIVE_FIELD_NUMBER: _ClassVar[int]
    take: _containers.RepeatedScalarFieldContainer[Good]
    give: _containers.RepeatedScalarFieldContainer[Good]
    def __init__(self, take: _Optional[_Iterable[_Union[Good, str]]] = ..., give: _Optional[_Iterable[_Union[Good, str]]] = ...) -> None: ...

class Sell(_message.Message):
    __slots__ = ("good", "count")
    GOOD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    good: Good
    count: int
    def __init__(self, good: _Optional[_Union[Good, str]] = ..., count: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("take_good", "take_camels", "exchange", "sell")
    TAKE_GOOD_FIELD_NUMBER: _ClassVar[int]
    TAKE_CAMELS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    SELL_FIELD_NUMBER: _ClassVar[int]
    take_good: TakeGood
    take_camels: TakeCamels
    exchange: Exchange
    sell: Sell
    def __init__(self, take_good: _Optional[_Union[TakeGood, _Mapping]] = ..., take_camels: _Optional[_Union[TakeCamels, _Mapping]] = ..., exchange: _Optional[_Union[Exchange, _Mapping]] = ..., sell: _Optional[_Union[Sell, _Mapping]] = ...) -> None: ...

class Cards(_message.Message):
    __slots__ = ("diamond", "gold", "silver", "cloth", "spice", "leather", "camel")
    DIAMOND_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    SILVER_FIELD_NUMBER: _ClassVar[int]
    CLOTH_FIELD_NUMBER: _ClassVar[int]
    SPICE_FIELD_NUMBER: _ClassVar[int]
    LEATHER_FIELD_NUMBER: _ClassVar[int]
    CAMEL_FIELD_NUMBER: _ClassVar[int]
    diamond: int
    gold: int
    silver: int
    cloth: int
    spice: int
    leather: int
    camel: int
    def __init__(self, diamond: _Optional[int] = ..., gold: _Optional[int] = ..., silver: _Optional[int] = ..., cloth: _Optional[int] = ..., spice: _Optional[int] = ..., leather: _Optional[int] = ..., camel: _Optional[int] = ...) -> None: ...

class GoodsToken(_message.Message):
    __slots__ = ("good", "value")
    GOOD_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    good: Good
    value: int
    def __init__(self, good: _Optional[_Union[Good, str]] = ..., value: _Optional[int] = ...) -> None: ...

class BonusToken(_message.Message):
    __slots__ = ("cards", "value")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    cards: int
    value: int
    def __init__(self, cards: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...

class BonusCounts(_message.Message):
    __slots__ = ("three", "four", "five")
    THREE_FIELD_NUMBER: _ClassVar[int]
    FOUR_FIELD_NUMBER: _ClassVar[int]
    FIVE_FIELD_NUMBER: _ClassVar[int]
    three: int
    four: int
    five: int
    def __init__(self, three: _Optional[int] = ..., four: _Optional[int] = ..., five: _Optional[int] = ...) -> None: ...

class GoodsStack(_message.Message):
    __slots__ = ("good", "values")
    GOOD_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    good: Good
    values: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, good: _Optional[_Union[Good, str]] = ..., values: _Optional[_Iterable[int]] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("seat", "hand_size", "herd", "goods_tokens", "bonus_counts", "seals", "hand", "bonus_tokens")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    HERD_FIELD_NUMBER: _ClassVar[int]
    GOODS_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BONUS_COUNTS_FIELD_NUMBER: _ClassVar[int]
    SEALS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    BONUS_TOKENS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_size: int
    herd: int
    goods_tokens: _containers.RepeatedCompositeFieldContainer[GoodsToken]
    bonus_counts: BonusCounts
    seals: int
    hand: Cards
    bonus_tokens: _containers.RepeatedCompositeFieldContainer[BonusToken]
    def __init__(self, seat: _Optional[int] = ..., hand_size: _Optional[int] = ..., herd: _Optional[int] = ..., goods_tokens: _Optional[_Iterable[_Union[GoodsToken, _Mapping]]] = ..., bonus_counts: _Optional[_Union[BonusCounts, _Mapping]] = ..., seals: _Optional[int] = ..., hand: _Optional[_Union[Cards, _Mapping]] = ..., bonus_tokens: _Optional[_Iterable[_Union[BonusToken, _Mapping]]] = ...) -> None: ...

class RoundScore(_message.Message):
    __slots__ = ("seat", "rupees", "goods_tokens", "bonus_tokens", "camels", "camel_token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RUPEES_FIELD_NUMBER: _ClassVar[int]
    GOODS_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BONUS_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CAMELS_FIELD_NUMBER: _ClassVar[int]
    CAMEL_TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rupees: int
    goods_tokens: _containers.RepeatedScalarFieldContainer[int]
    bonus_tokens: _containers.RepeatedScalarFieldContainer[int]
    camels: int
    camel_token: bool
    def __init__(self, seat: _Optional[int] = ..., rupees: _Optional[int] = ..., goods_tokens: _Optional[_Iterable[int]] = ..., bonus_tokens: _Optional[_Iterable[int]] = ..., camels: _Optional[int] = ..., camel_token: _Optional[bool] = ...) -> None: ...

class RoundResult(_message.Message):
    __slots__ = ("round", "deal", "starter", "ended_by", "scores", "winner")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    round: int
    deal: int
    starter: int
    ended_by: str
    scores: _containers.RepeatedCompositeFieldContainer[RoundScore]
    winner: int
    def __init__(self, round: _Optional[int] = ..., deal: _Optional[int] = ..., starter: _Optional[int] = ..., ended_by: _Optional[str] = ..., scores: _Optional[_Iterable[_Union[RoundScore, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("viewer", "round", "deal", "starter", "to_act", "market", "deck_size", "discards", "goods_stacks", "bonus_left", "players", "results", "winner")
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    MARKET_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    GOODS_STACKS_FIELD_NUMBER: _ClassVar[int]
    BONUS_LEFT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    viewer: int
    round: int
    deal: int
    starter: int
    to_act: int
    market: Cards
    deck_size: int
    discards: Cards
    goods_stacks: _containers.RepeatedCompositeFieldContainer[GoodsStack]
    bonus_left: BonusCounts
    players: _containers.RepeatedCompositeFieldContainer[Player]
    results: _containers.RepeatedCompositeFieldContainer[RoundResult]
    winner: int
    def __init__(self, viewer: _Optional[int] = ..., round: _Optional[int] = ..., deal: _Optional[int] = ..., starter: _Optional[int] = ..., to_act: _Optional[int] = ..., market: _Optional[_Union[Cards, _Mapping]] = ..., deck_size: _Optional[int] = ..., discards: _Optional[_Union[Cards, _Mapping]] = ..., goods_stacks: _Optional[_Iterable[_Union[GoodsStack, _Mapping]]] = ..., bonus_left: _Optional[_Union[BonusCounts, _Mapping]] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[RoundResult, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...
