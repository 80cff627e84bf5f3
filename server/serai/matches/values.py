"""The values the lifecycle hands to the service: pages of matches, snapshots, legal moves, seats
joined, moves submitted, watch batches, replay reports, and the typed move as it came over the
wire."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from serai.game import Game, Seat
from serai.matches.cache import Entry
from serai.store import MatchRecord, StoredEvent


@dataclass(frozen=True)
class PackedMove:
    """A typed move as it came over the wire: the Any's type URL and the message bytes."""

    type_url: str
    value: bytes


@dataclass(frozen=True)
class MatchPage:
    """One page of a listing, newest first; ``next_page_token`` "" when it is the last."""

    matches: tuple[MatchRecord, ...]
    next_page_token: str


@dataclass(frozen=True)
class Snapshot:
    """The match as one viewer may see it. ``view`` is the plugin's View for ``viewer_seat``;
    ``entry``, when given, is the decoded match it was made from, which keeps the view's bytes
    once for every answer and watcher of that version and seat."""

    record: MatchRecord
    game: Game[Any, Any, Any]
    viewer_seat: Seat | None
    view: Any
    to_act: tuple[Seat, ...]
    entry: Entry | None = field(default=None, compare=False, repr=False)

    @property
    def version(self) -> int:
        return self.record.version

    @property
    def outcome(self) -> Mapping[str, Any] | None:
        return self.record.outcome


@dataclass(frozen=True)
class LegalMove:
    id: str
    label: str
    move: Any


@dataclass(frozen=True)
class LegalMoves:
    game: Game[Any, Any, Any]
    seat: Seat
    version: int
    moves: tuple[LegalMove, ...]


@dataclass(frozen=True)
class Joined:
    seat: Seat
    token: str
    record: MatchRecord
    replayed: bool = False  # the answer to a repeated request id, not a new claim


@dataclass(frozen=True)
class Submitted:
    """A move's answer. ``events``: those its commit wrote, newest last (none for a replayed
    answer), which came right after the event ``after_event_id`` (the newest before the move)."""

    snapshot: Snapshot
    label: str
    replayed: bool = False
    events: tuple[StoredEvent, ...] = ()
    after_event_id: str = ""


@dataclass(frozen=True)
class WatchBatch:
    """Events in order, and the match as the watcher may see it after the newest of them.
    ``entry``: the decoded match that snapshot was made from (a seat's legal moves at that
    version come from it, computed once for every stream that shares it)."""

    events: tuple[StoredEvent, ...]
    snapshot: Snapshot
    entry: Entry | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ReplayReport:
    """What an audit found. ``message`` never quotes the seed: with it and the game's open code,
    anyone can work out every hand of a match still being played, so the caller decides whether
    to show ``seed`` (``serai replay`` does for a finished match)."""

    match_id: str
    ok: bool
    moves: int
    message: str
    seed: int
