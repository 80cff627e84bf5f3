from google.protobuf import any_pb2 as _any_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TimeoutPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_POLICY_UNSPECIFIED: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_LOSE: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_DEFAULT_MOVE: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_LOSE_OR_CANCEL: _ClassVar[TimeoutPolicy]

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_OPEN: _ClassVar[MatchStatus]
    MATCH_STATUS_RUNNING: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]
TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy
TIMEOUT_POLICY_LOSE: TimeoutPolicy
TIMEOUT_POLICY_DEFAULT_MOVE: TimeoutPolicy
TIMEOUT_POLICY_LOSE_OR_CANCEL: TimeoutPolicy
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_OPEN: MatchStatus
MATCH_STATUS_RUNNING: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("name", "title", "min_players", "max_players", "version", "summary", "playable", "options", "guide")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    PLAYABLE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    GUIDE_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    min_players: int
    max_players: int
    version: str
    summary: str
    playable: bool
    options: _containers.RepeatedCompositeFieldContainer[GameOption]
    guide: TableGuide
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., version: _Optional[str] = ..., summary: _Optional[str] = ..., playable: _Optional[bool] = ..., options: _Optional[_Iterable[_Union[GameOption, _Mapping]]] = ..., guide: _Optional[_Union[TableGuide, _Mapping]] = ...) -> None: ...

class TableGuide(_message.Message):
    __slots__ = ("how_to_play", "zones", "looks")
    class ZonesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    HOW_TO_PLAY_FIELD_NUMBER: _ClassVar[int]
    ZONES_FIELD_NUMBER: _ClassVar[int]
    LOOKS_FIELD_NUMBER: _ClassVar[int]
    how_to_play: str
    zones: _containers.ScalarMap[str, str]
    looks: _containers.RepeatedCompositeFieldContainer[ItemLook]
    def __init__(self, how_to_play: _Optional[str] = ..., zones: _Optional[_Mapping[str, str]] = ..., looks: _Optional[_Iterable[_Union[ItemLook, _Mapping]]] = ...) -> None: ...

class ItemLook(_message.Message):
    __slots__ = ("word", "colour", "symbol", "help")
    WORD_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    HELP_FIELD_NUMBER: _ClassVar[int]
    word: str
    colour: str
    symbol: str
    help: str
    def __init__(self, word: _Optional[str] = ..., colour: _Optional[str] = ..., symbol: _Optional[str] = ..., help: _Optional[str] = ...) -> None: ...

class GetReplayRequest(_message.Message):
    __slots__ = ("match_id", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class GetReplayResponse(_message.Message):
    __slots__ = ("match", "steps", "deal_checked", "deal_check")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    DEAL_CHECKED_FIELD_NUMBER: _ClassVar[int]
    DEAL_CHECK_FIELD_NUMBER: _ClassVar[int]
    match: MatchSummary
    steps: _containers.RepeatedCompositeFieldContainer[ReplayStep]
    deal_checked: bool
    deal_check: str
    def __init__(self, match: _Optional[_Union[MatchSummary, _Mapping]] = ..., steps: _Optional[_Iterable[_Union[ReplayStep, _Mapping]]] = ..., deal_checked: _Optional[bool] = ..., deal_check: _Optional[str] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ("version", "seat", "label", "presentation")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PRESENTATION_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    label: str
    presentation: Presentation
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., label: _Optional[str] = ..., presentation: _Optional[_Union[Presentation, _Mapping]] = ...) -> None: ...

class GameOption(_message.Message):
    __slots__ = ("name", "description", "default_value", "choices", "minimum", "maximum")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    default_value: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    minimum: int
    maximum: int
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., default_value: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ..., minimum: _Optional[int] = ..., maximum: _Optional[int] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "seats", "options", "seed", "client_id", "move_seconds", "timeout_policy", "request_id", "bank_seconds", "spectator_delay_moves", "rated")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_POLICY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_MOVES_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    game: str
    seats: int
    options: _containers.ScalarMap[str, str]
    seed: int
    client_id: str
    move_seconds: int
    timeout_policy: TimeoutPolicy
    request_id: str
    bank_seconds: int
    spectator_delay_moves: int
    rated: bool
    def __init__(self, game: _Optional[str] = ..., seats: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., client_id: _Optional[str] = ..., move_seconds: _Optional[int] = ..., timeout_policy: _Optional[_Union[TimeoutPolicy, str]] = ..., request_id: _Optional[str] = ..., bank_seconds: _Optional[int] = ..., spectator_delay_moves: _Optional[int] = ..., rated: _Optional[bool] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchSummary
    def __init__(self, match: _Optional[_Union[MatchSummary, _Mapping]] = ...) -> None: ...

class JoinMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat", "player_name", "request_id", "entropy", "player_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    player_name: str
    request_id: str
    entropy: bytes
    player_token: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., player_name: _Optional[str] = ..., request_id: _Optional[str] = ..., entropy: _Optional[bytes] = ..., player_token: _Optional[str] = ...) -> None: ...

class ReclaimSeatRequest(_message.Message):
    __slots__ = ("match_id", "player_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    player_token: str
    def __init__(self, match_id: _Optional[str] = ..., player_token: _Optional[str] = ...) -> None: ...

class JoinMatchResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "match", "replayed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    match: MatchSummary
    replayed: bool
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., match: _Optional[_Union[MatchSummary, _Mapping]] = ..., replayed: _Optional[bool] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("status", "game", "limit", "page_token", "player_token")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    status: MatchStatus
    game: str
    limit: int
    page_token: str
    player_token: str
    def __init__(self, status: _Optional[_Union[MatchStatus, str]] = ..., game: _Optional[str] = ..., limit: _Optional[int] = ..., page_token: _Optional[str] = ..., player_token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "player_name", "joined", "resigned", "bank_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_name: str
    joined: bool
    resigned: bool
    bank_ms: int
    def __init__(self, seat: _Optional[int] = ..., player_name: _Optional[str] = ..., joined: _Optional[bool] = ..., resigned: _Optional[bool] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "game", "status", "seats", "version", "options", "created_at_ms", "move_seconds", "timeout_policy", "seed_chosen", "seed_commitment", "seed_reveal", "bank_seconds", "spectator_delay_moves")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_POLICY_FIELD_NUMBER: _ClassVar[int]
    SEED_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_REVEAL_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_MOVES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    status: MatchStatus
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    version: int
    options: _containers.ScalarMap[str, str]
    created_at_ms: int
    move_seconds: int
    timeout_policy: TimeoutPolicy
    seed_chosen: bool
    seed_commitment: bytes
    seed_reveal: SeedReveal
    bank_seconds: int
    spectator_delay_moves: int
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., version: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., created_at_ms: _Optional[int] = ..., move_seconds: _Optional[int] = ..., timeout_policy: _Optional[_Union[TimeoutPolicy, str]] = ..., seed_chosen: _Optional[bool] = ..., seed_commitment: _Optional[bytes] = ..., seed_reveal: _Optional[_Union[SeedReveal, _Mapping]] = ..., bank_seconds: _Optional[int] = ..., spectator_delay_moves: _Optional[int] = ...) -> None: ...

class SeedReveal(_message.Message):
    __slots__ = ("server_seed", "seat_entropy", "seed")
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    server_seed: bytes
    seat_entropy: _containers.RepeatedScalarFieldContainer[bytes]
    seed: int
    def __init__(self, server_seed: _Optional[bytes] = ..., seat_entropy: _Optional[_Iterable[bytes]] = ..., seed: _Optional[int] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("scores", "ranks", "winners", "summary", "cancelled")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    summary: str
    cancelled: bool
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., summary: _Optional[str] = ..., cancelled: _Optional[bool] = ...) -> None: ...

class MatchSnapshot(_message.Message):
    __slots__ = ("match", "viewer_seat", "version", "to_act", "view", "outcome", "last_event_id", "move_deadline_ms", "presentation")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    PRESENTATION_FIELD_NUMBER: _ClassVar[int]
    match: MatchSummary
    viewer_seat: int
    version: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    view: _any_pb2.Any
    outcome: Outcome
    last_event_id: str
    move_deadline_ms: int
    presentation: Presentation
    def __init__(self, match: _Optional[_Union[MatchSummary, _Mapping]] = ..., viewer_seat: _Optional[int] = ..., version: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., view: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., last_event_id: _Optional[str] = ..., move_deadline_ms: _Optional[int] = ..., presentation: _Optional[_Union[Presentation, _Mapping]] = ...) -> None: ...

class Presentation(_message.Message):
    __slots__ = ("headline", "zones")
    HEADLINE_FIELD_NUMBER: _ClassVar[int]
    ZONES_FIELD_NUMBER: _ClassVar[int]
    headline: str
    zones: _containers.RepeatedCompositeFieldContainer[Zone]
    def __init__(self, headline: _Optional[str] = ..., zones: _Optional[_Iterable[_Union[Zone, _Mapping]]] = ...) -> None: ...

class Zone(_message.Message):
    __slots__ = ("id", "title", "owner", "items", "note")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    owner: int
    items: _containers.RepeatedCompositeFieldContainer[Item]
    note: str
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., owner: _Optional[int] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., note: _Optional[str] = ...) -> None: ...

class Item(_message.Message):
    __slots__ = ("label", "count", "value", "hidden", "kind")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    label: str
    count: int
    value: str
    hidden: bool
    kind: str
    def __init__(self, label: _Optional[str] = ..., count: _Optional[int] = ..., value: _Optional[str] = ..., hidden: _Optional[bool] = ..., kind: _Optional[str] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "presentation")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PRESENTATION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    presentation: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., presentation: _Optional[bool] = ...) -> None: ...

class LegalMove(_message.Message):
    __slots__ = ("id", "label", "payload", "steps")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    payload: _any_pb2.Any
    steps: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ..., payload: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., steps: _Optional[_Iterable[str]] = ...) -> None: ...

class ListLegalMovesRequest(_message.Message):
    __slots__ = ("match_id", "seat_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class ListLegalMovesResponse(_message.Message):
    __slots__ = ("seat", "version", "moves")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    version: int
    moves: _containers.RepeatedCompositeFieldContainer[LegalMove]
    def __init__(self, seat: _Optional[int] = ..., version: _Optional[int] = ..., moves: _Optional[_Iterable[_Union[LegalMove, _Mapping]]] = ...) -> None: ...

class SubmitMoveRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "expected_version", "move_id", "payload", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    expected_version: int
    move_id: str
    payload: _any_pb2.Any
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., expected_version: _Optional[int] = ..., move_id: _Optional[str] = ..., payload: _Optional[_Union[_any_pb2.Any, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class SubmitMoveResponse(_message.Message):
    __slots__ = ("snapshot", "label", "replayed")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    snapshot: MatchSnapshot
    label: str
    replayed: bool
    def __init__(self, snapshot: _Optional[_Union[MatchSnapshot, _Mapping]] = ..., label: _Optional[str] = ..., replayed: _Optional[bool] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "after_event_id", "presentation")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    PRESENTATION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    after_event_id: str
    presentation: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., after_event_id: _Optional[str] = ..., presentation: _Optional[bool] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("event_id", "version", "created", "joined", "started", "move", "announcement", "resigned", "finished", "timed_out", "snapshot")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCEMENT_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    version: int
    created: MatchCreated
    joined: SeatJoined
    started: MatchStarted
    move: MovePlayed
    announcement: Announcement
    resigned: SeatResigned
    finished: MatchFinished
    timed_out: SeatTimedOut
    snapshot: MatchSnapshot
    def __init__(self, event_id: _Optional[str] = ..., version: _Optional[int] = ..., created: _Optional[_Union[MatchCreated, _Mapping]] = ..., joined: _Optional[_Union[SeatJoined, _Mapping]] = ..., started: _Optional[_Union[MatchStarted, _Mapping]] = ..., move: _Optional[_Union[MovePlayed, _Mapping]] = ..., announcement: _Optional[_Union[Announcement, _Mapping]] = ..., resigned: _Optional[_Union[SeatResigned, _Mapping]] = ..., finished: _Optional[_Union[MatchFinished, _Mapping]] = ..., timed_out: _Optional[_Union[SeatTimedOut, _Mapping]] = ..., snapshot: _Optional[_Union[MatchSnapshot, _Mapping]] = ...) -> None: ...

class MatchCreated(_message.Message):
    __slots__ = ("game", "seats")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seats: int
    def __init__(self, game: _Optional[str] = ..., seats: _Optional[int] = ...) -> None: ...

class SeatJoined(_message.Message):
    __slots__ = ("seat", "player_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_name: str
    def __init__(self, seat: _Optional[int] = ..., player_name: _Optional[str] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MovePlayed(_message.Message):
    __slots__ = ("seat", "label")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    label: str
    def __init__(self, seat: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class Announcement(_message.Message):
    __slots__ = ("text", "to_seats", "withheld")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TO_SEATS_FIELD_NUMBER: _ClassVar[int]
    WITHHELD_FIELD_NUMBER: _ClassVar[int]
    text: str
    to_seats: _containers.RepeatedScalarFieldContainer[int]
    withheld: bool
    def __init__(self, text: _Optional[str] = ..., to_seats: _Optional[_Iterable[int]] = ..., withheld: _Optional[bool] = ...) -> None: ...

class SeatResigned(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SeatTimedOut(_message.Message):
    __slots__ = ("seat", "default_move")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_MOVE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    default_move: str
    def __init__(self, seat: _Optional[int] = ..., default_move: _Optional[str] = ...) -> None: ...

class MatchFinished(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    def __init__(self, outcome: _Optional[_Union[Outcome, _Mapping]] = ...) -> None: ...

class GetTranscriptRequest(_message.Message):
    __slots__ = ("match_id", "seat_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class GetTranscriptResponse(_message.Message):
    __slots__ = ("transcript",)
    TRANSCRIPT_FIELD_NUMBER: _ClassVar[int]
    transcript: str
    def __init__(self, transcript: _Optional[str] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("match_id", "seat_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("open", "move", "resign")
    OPEN_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    open: PlayOpen
    move: PlayMove
    resign: PlayResign
    def __init__(self, open: _Optional[_Union[PlayOpen, _Mapping]] = ..., move: _Optional[_Union[PlayMove, _Mapping]] = ..., resign: _Optional[_Union[PlayResign, _Mapping]] = ...) -> None: ...

class PlayOpen(_message.Message):
    __slots__ = ("match_id", "seat_token", "after_event_id", "presentation", "steps", "keep_open", "answer_with_event")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    PRESENTATION_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    KEEP_OPEN_FIELD_NUMBER: _ClassVar[int]
    ANSWER_WITH_EVENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    after_event_id: str
    presentation: bool
    steps: bool
    keep_open: bool
    answer_with_event: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., after_event_id: _Optional[str] = ..., presentation: _Optional[bool] = ..., steps: _Optional[bool] = ..., keep_open: _Optional[bool] = ..., answer_with_event: _Optional[bool] = ...) -> None: ...

class PlayMove(_message.Message):
    __slots__ = ("request_id", "expected_version", "move_id", "payload")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    expected_version: int
    move_id: str
    payload: _any_pb2.Any
    def __init__(self, request_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., move_id: _Optional[str] = ..., payload: _Optional[_Union[_any_pb2.Any, _Mapping]] = ...) -> None: ...

class PlayResign(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class PlayUpdate(_message.Message):
    __slots__ = ("event", "answer", "legal_moves", "answered")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    ANSWERED_FIELD_NUMBER: _ClassVar[int]
    event: MatchEvent
    answer: PlayAnswer
    legal_moves: _containers.RepeatedCompositeFieldContainer[LegalMove]
    answered: PlayAnswer
    def __init__(self, event: _Optional[_Union[MatchEvent, _Mapping]] = ..., answer: _Optional[_Union[PlayAnswer, _Mapping]] = ..., legal_moves: _Optional[_Iterable[_Union[LegalMove, _Mapping]]] = ..., answered: _Optional[_Union[PlayAnswer, _Mapping]] = ...) -> None: ...

class PlayAnswer(_message.Message):
    __slots__ = ("request_id", "submitted", "resigned", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    submitted: SubmitMoveResponse
    resigned: MatchSnapshot
    error: PlayError
    def __init__(self, request_id: _Optional[str] = ..., submitted: _Optional[_Union[SubmitMoveResponse, _Mapping]] = ..., resigned: _Optional[_Union[MatchSnapshot, _Mapping]] = ..., error: _Optional[_Union[PlayError, _Mapping]] = ...) -> None: ...

class PlayError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class JoinQueueRequest(_message.Message):
    __slots__ = ("game", "options", "seats", "pool", "player_token", "player_name", "bot")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    game: str
    options: _containers.ScalarMap[str, str]
    seats: int
    pool: str
    player_token: str
    player_name: str
    bot: bool
    def __init__(self, game: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., seats: _Optional[int] = ..., pool: _Optional[str] = ..., player_token: _Optional[str] = ..., player_name: _Optional[str] = ..., bot: _Optional[bool] = ...) -> None: ...

class QueueUpdate(_message.Message):
    __slots__ = ("waiting", "matched")
    WAITING_FIELD_NUMBER: _ClassVar[int]
    MATCHED_FIELD_NUMBER: _ClassVar[int]
    waiting: QueueWaiting
    matched: QueueMatched
    def __init__(self, waiting: _Optional[_Union[QueueWaiting, _Mapping]] = ..., matched: _Optional[_Union[QueueMatched, _Mapping]] = ...) -> None: ...

class QueueWaiting(_message.Message):
    __slots__ = ("position", "waiting", "waited_ms", "estimate_ms")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    WAITED_MS_FIELD_NUMBER: _ClassVar[int]
    ESTIMATE_MS_FIELD_NUMBER: _ClassVar[int]
    position: int
    waiting: int
    waited_ms: int
    estimate_ms: int
    def __init__(self, position: _Optional[int] = ..., waiting: _Optional[int] = ..., waited_ms: _Optional[int] = ..., estimate_ms: _Optional[int] = ...) -> None: ...

class QueueMatched(_message.Message):
    __slots__ = ("match_id", "seat", "seat_token", "match", "rated")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    seat_token: str
    match: MatchSummary
    rated: bool
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., match: _Optional[_Union[MatchSummary, _Mapping]] = ..., rated: _Optional[bool] = ...) -> None: ...

class LeaveQueueRequest(_message.Message):
    __slots__ = ("game", "options", "seats", "pool", "player_token")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: str
    options: _containers.ScalarMap[str, str]
    seats: int
    pool: str
    player_token: str
    def __init__(self, game: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., seats: _Optional[int] = ..., pool: _Optional[str] = ..., player_token: _Optional[str] = ...) -> None: ...

class LeaveQueueResponse(_message.Message):
    __slots__ = ("left",)
    LEFT_FIELD_NUMBER: _ClassVar[int]
    left: bool
    def __init__(self, left: _Optional[bool] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("player_name", "mu", "sigma", "score", "games", "provisional", "bot", "rank")
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    player_name: str
    mu: float
    sigma: float
    score: float
    games: int
    provisional: bool
    bot: bool
    rank: int
    def __init__(self, player_name: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., score: _Optional[float] = ..., games: _Optional[int] = ..., provisional: _Optional[bool] = ..., bot: _Optional[bool] = ..., rank: _Optional[int] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("match_id", "mu", "sigma", "score", "score_before", "place", "at_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SCORE_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    mu: float
    sigma: float
    score: float
    score_before: float
    place: int
    at_ms: int
    def __init__(self, match_id: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., score: _Optional[float] = ..., score_before: _Optional[float] = ..., place: _Optional[int] = ..., at_ms: _Optional[int] = ...) -> None: ...

class GetRatingRequest(_message.Message):
    __slots__ = ("game", "pool", "player_token", "bot")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    game: str
    pool: str
    player_token: str
    bot: bool
    def __init__(self, game: _Optional[str] = ..., pool: _Optional[str] = ..., player_token: _Optional[str] = ..., bot: _Optional[bool] = ...) -> None: ...

class GetRatingResponse(_message.Message):
    __slots__ = ("rating", "history")
    RATING_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    rating: Rating
    history: _containers.RepeatedCompositeFieldContainer[RatingChange]
    def __init__(self, rating: _Optional[_Union[Rating, _Mapping]] = ..., history: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ...) -> None: ...

class ListLeaderboardRequest(_message.Message):
    __slots__ = ("game", "pool", "limit", "page_token", "bots")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    pool: str
    limit: int
    page_token: str
    bots: bool
    def __init__(self, game: _Optional[str] = ..., pool: _Optional[str] = ..., limit: _Optional[int] = ..., page_token: _Optional[str] = ..., bots: _Optional[bool] = ...) -> None: ...

class ListLeaderboardResponse(_message.Message):
    __slots__ = ("ratings", "next_page_token")
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    next_page_token: str
    def __init__(self, ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "entropy")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    entropy: bytes
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., entropy: _Optional[bytes] = ...) -> None: ...

class GetMatchRatingsRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchRatingsResponse(_message.Message):
    __slots__ = ("ratings",)
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[SeatRating]
    def __init__(self, ratings: _Optional[_Iterable[_Union[SeatRating, _Mapping]]] = ...) -> None: ...

class SeatRating(_message.Message):
    __slots__ = ("seat", "rating", "change")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rating: Rating
    change: RatingChange
    def __init__(self, seat: _Optional[int] = ..., rating: _Optional[_Union[Rating, _Mapping]] = ..., change: _Optional[_Union[RatingChange, _Mapping]] = ...) -> None: ...

class CancelMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...
