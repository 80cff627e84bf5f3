"""What the SDK hands back: thin typed wrappers over the wire messages, views already unpacked.

The wire carries a game's view and moves inside ``google.protobuf.Any``. :class:`Decoder` finds
the game's message classes through the plugin registry (``serai.registry.load()``) by game name,
so ``snapshot.view`` is a ``JaipurView`` (or whatever the game defines), not an ``Any``. A game
not installed on this side stays an ``Any``: a generic client can still play it by move id.

Example::

    snapshot = client.get_match(seat)
    if snapshot.acts(seat.seat):
        print(snapshot.view.market)        # a typed field of the game's view
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import any_pb2
from google.protobuf.message import Message
from serai import registry as plugin_registry
from serai.api import match_service_pb2 as pb
from serai.game import Game


class Decoder:
    """Unpacks ``Any`` payloads into the game's own messages, using the installed plugins."""

    def __init__(self, plugins: plugin_registry.Registry | None = None) -> None:
        self._plugins = plugins

    @property
    def plugins(self) -> plugin_registry.Registry:
        if self._plugins is None:
            self._plugins = plugin_registry.load()
        return self._plugins

    def game(self, name: str) -> Game[Any, Any, Any] | None:
        """The installed plugin called ``name``, or None when this side does not have it."""
        return self.plugins.games.get(name)

    def view(self, game: str, payload: any_pb2.Any) -> Message | None:
        """The game's View message inside ``payload``; the Any itself for an unknown game."""
        if not payload.type_url:
            return None
        return self._unpack(game, payload, "view_message")

    def move(self, game: str, payload: any_pb2.Any) -> Message | None:
        """The game's Move message inside ``payload``; the Any itself for an unknown game."""
        if not payload.type_url:
            return None
        return self._unpack(game, payload, "move_message")

    def _unpack(self, game: str, payload: any_pb2.Any, which: str) -> Message:
        plugin = self.game(game)
        if plugin is None:
            return payload
        try:
            cls: type[Message] = getattr(plugin, which)
        except Exception:  # an unplayable stub has no messages
            return payload
        message = cls()
        if not payload.Is(message.DESCRIPTOR):
            return payload
        payload.Unpack(message)
        return message


@dataclass(frozen=True)
class SeatHandle:
    """A claimed seat: what JoinMatch returned. Keep ``token`` secret; it acts for the seat."""

    match_id: str
    seat: int
    token: str = field(repr=False)  # a log line or a traceback must not show it
    game: str
    player_name: str = ""


@dataclass(frozen=True)
class QueueMatch:
    """The match a queue seated the player in (JoinQueue): its seat, whether the match is
    rated, and the match as it was when the player was told."""

    seat: SeatHandle
    rated: bool
    match: pb.MatchSummary


@dataclass(frozen=True)
class Snapshot:
    """The match as the caller may see it, with the view decoded into the game's message."""

    proto: pb.MatchSnapshot
    view: Message | None = None

    @property
    def match_id(self) -> str:
        return self.proto.match.match_id

    @property
    def game(self) -> str:
        return self.proto.match.game

    @property
    def version(self) -> int:
        return self.proto.version

    @property
    def to_act(self) -> tuple[int, ...]:
        return tuple(self.proto.to_act)

    @property
    def viewer_seat(self) -> int | None:
        return self.proto.viewer_seat if self.proto.HasField("viewer_seat") else None

    @property
    def status(self) -> int:
        return self.proto.match.status

    @property
    def finished(self) -> bool:
        return self.proto.match.status == pb.MATCH_STATUS_FINISHED

    @property
    def outcome(self) -> pb.Outcome | None:
        return self.proto.outcome if self.proto.HasField("outcome") else None

    @property
    def last_event_id(self) -> str:
        return self.proto.last_event_id

    def acts(self, seat: int) -> bool:
        """Whether ``seat`` must act now (the match running and the seat in ``to_act``)."""
        return not self.finished and seat in self.proto.to_act


@dataclass(frozen=True)
class LegalMove:
    """One legal move: its id (valid for ``version`` only), its label and its typed payload."""

    id: str
    label: str
    payload: Message | None
    proto: pb.LegalMove = field(repr=False, compare=False)


@dataclass(frozen=True)
class LegalMoves:
    """The legal moves of ``seat`` at ``version``."""

    seat: int
    version: int
    moves: tuple[LegalMove, ...]

    def __len__(self) -> int:
        return len(self.moves)

    def by_id(self, move_id: str) -> LegalMove:
        for move in self.moves:
            if move.id == move_id:
                return move
        raise KeyError(f"no legal move with id {move_id!r} at version {self.version}")


@dataclass(frozen=True)
class SubmitResult:
    """What SubmitMove answered: the new snapshot, the move's label, whether it was a replay."""

    snapshot: Snapshot
    label: str
    replayed: bool
    attempts: int = 1


@dataclass(frozen=True)
class Event:
    """One match event. ``snapshot`` is set on the newest event of each batch the server sent."""

    proto: pb.MatchEvent
    snapshot: Snapshot | None

    @property
    def id(self) -> str:
        return self.proto.event_id

    @property
    def version(self) -> int:
        return self.proto.version

    @property
    def kind(self) -> str:
        """The oneof case: created, joined, started, move, announcement, resigned, finished."""
        return self.proto.WhichOneof("kind") or ""

    def describe(self) -> str:
        """One line for a log: "seat 0: sell 3 cloth"."""
        p = self.proto
        match self.kind:
            case "created":
                return f"match created: {p.created.game}, {p.created.seats} seats"
            case "joined":
                name = f" ({p.joined.player_name})" if p.joined.player_name else ""
                return f"seat {p.joined.seat} joined{name}"
            case "started":
                return "match started"
            case "move":
                return f"seat {p.move.seat}: {p.move.label}"
            case "announcement":
                said = p.announcement
                if not said.to_seats:
                    return said.text
                seats = ", ".join(str(seat) for seat in said.to_seats)
                if said.withheld:  # what the others read of what seats ``to_seats`` were told
                    return f"{said.text} (private to seat {seats})"
                return f"to seat {seats} alone: {said.text}"
            case "resigned":
                return f"seat {p.resigned.seat} resigned"
            case "finished":
                return f"match finished: {p.finished.outcome.summary}"
        return self.kind or "event"


@dataclass(frozen=True)
class PlayAnswer:
    """The answer to one move or resignation sent on a Play stream, by its ``request_id``:
    ``submitted`` (a move played, or replayed), ``resigned`` (the finished match), or ``error``
    (what SubmitMove or Resign would have raised; the stream goes on)."""

    request_id: str
    submitted: SubmitResult | None = None
    resigned: Snapshot | None = None
    error: Exception | None = None  # a serai_client.errors.SeraiError


@dataclass(frozen=True)
class PlayUpdate:
    """One message of a Play stream: an ``event`` (the newest of each batch with the seat's
    snapshot, and ``moves`` when the seat is to act in it) or an ``answer``."""

    proto: pb.PlayUpdate
    event: Event | None = None
    moves: LegalMoves | None = None
    answer: PlayAnswer | None = None

    @property
    def snapshot(self) -> Snapshot | None:
        """The event's snapshot, if it carries one."""
        return None if self.event is None else self.event.snapshot


Choice = Callable[[Snapshot, LegalMoves], "LegalMove | str"]
"""A choice function: given the fresh snapshot and the legal moves, the move to play (or its id).

The SDK calls it again after ABORTED (someone moved first), on the new view and moves.
"""


_STREAM_ID = re.compile(r"^(\d+)-(\d+)$")


def event_is_after(event_id: str, last: str) -> bool:
    """Whether ``event_id`` comes after ``last`` (Redis stream ids "ms-seq" compare as numbers).

    Ids the SDK cannot read as stream ids are compared only for equality.
    """
    if not last:
        return True
    a, b = _STREAM_ID.match(event_id), _STREAM_ID.match(last)
    if a and b:
        return (int(a[1]), int(a[2])) > (int(b[1]), int(b[2]))
    return event_id != last
