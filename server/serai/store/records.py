"""The values a store keeps and hands back: match and seat records, events, log entries, commits
and the answers to them, and the store's errors (see :mod:`serai.store` for the protocol)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

Status = Literal["open", "running", "finished"]
STATUSES: tuple[Status, ...] = ("open", "running", "finished")
TimeoutPolicy = Literal["lose", "default_move", "lose_or_cancel"]
TIMEOUT_POLICIES: tuple[TimeoutPolicy, ...] = ("lose", "default_move", "lose_or_cancel")
# "ended": an operator ended the match (serai's console; the seat it names is seat 0), or a seat
# cancelled its match before it started (CancelMatch; the seat it names is that seat).
Ended = Literal["resigned", "timed_out", "ended"]

# Request ids are remembered per seat for this many most recent moves: a client retries its latest
# request (the SDK never has more than one move of a seat in flight), and a small window keeps a
# match small in memory (16 took about 4.5 KiB of a finished Jaipur match, 4 about 0.6 KiB).
REQUEST_WINDOW = 4


class StoreError(Exception):
    """The store failed in a way the caller cannot fix (bad data, a script error)."""


class StoreUnavailable(StoreError):
    """The store cannot be reached right now; retrying later may work."""


class StoreFull(StoreUnavailable):
    """The store is out of memory and refuses writes (nothing was written); reads still work.
    Unavailable, as it passes once memory is freed or added, but not worth an immediate retry."""


class MatchIdTaken(StoreError):
    """``create`` found a match with that id already stored."""


@dataclass(frozen=True)
class SeatRecord:
    """One seat: who joined it, whether they resigned, and the SHA-256 hex of its token.

    A seat joined with a request id also keeps what answers a repeated JoinMatch with that id
    (see ``Matches.join``): ``join_id``, a hash of the id, and ``sealed_token``, the token sealed
    with a key only that id gives. Neither the id nor the token is kept as such.

    ``entropy``: the bytes the seat added to the deal when it joined (see serai.matches.fairness);
    kept secret until the match is finished.

    ``player``: for a seat joined with a player token, a hash of the player id the app vouched
    for (see serai.matches.access.player_key): whom ReclaimSeat gives the seat back to. Never
    shown to anyone. ``replaced_token``: the hash of the token the seat's last ReclaimSeat
    replaced, so that a call with it is told the seat moved to another device, not that the
    token is wrong."""

    name: str = ""
    joined: bool = False
    resigned: bool = False
    token_hash: str = ""
    join_id: str = ""
    sealed_token: str = ""
    entropy: bytes = b""
    player: str = ""
    replaced_token: str = ""
    bank_ms: int = 0  # with a time bank: what is left of this seat's (see serai.matches.clocks)


@dataclass(frozen=True)
class MatchRecord:
    """A match as stored. ``state`` is the plugin's encoded state (empty in list results).

    ``server_seed``: the server's secret part of a committed deal (see serai.matches.fairness),
    empty for a chosen seed and for matches made before; with one, ``seed`` is the placeholder
    until the match starts, then the seed derived from it and the seats' entropy."""

    match_id: str
    game: str
    options: Mapping[str, Any]
    seed: int
    created_ms: int
    status: Status
    version: int
    seats: tuple[SeatRecord, ...]
    state: bytes = b""
    outcome: Mapping[str, Any] | None = None
    last_event_id: str = ""
    client_id: str = ""
    move_seconds: int = 0
    timeout_policy: TimeoutPolicy = "lose"
    deadline_ms: int = 0  # with a clock: when the seats to act run out of time (0: none)
    bank_seconds: int = 0  # with a clock: each seat's time bank, drawn on past move_seconds
    seed_chosen: bool = False  # by the creator, who can then work out the deal
    server_seed: bytes = b""
    tenant: str = ""  # the API key's name that created it ("": made without a key)
    spectator_delay_moves: int = 0  # spectators see it this many moves late while it runs


@dataclass(frozen=True)
class NewEvent:
    """An event to add to the match's stream. ``data`` is JSON-able and public, but for a
    private announcement's ``"told"`` (which :func:`serai.matches.events.seen_by` keeps for the
    seats it is addressed to)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredEvent:
    """An event read back from the stream; ``version`` is the match version it produced."""

    event_id: str
    version: int
    kind: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class FeedRead:
    """What one :meth:`serai.store.EventFeed.read` found: ``events``, the new events of each
    match that has some; ``records`` (when asked for), the record of such a match read at once
    with its events (so they end at its version, unless ``count`` cut them): :data:`UNCHANGED`
    where it is at the version the reader holds. A match with events and no record is for the
    reader to load (a store that cannot read records with the events, a Redis Cluster, has
    none; a match whose last events were archived as they were read has only the first)."""

    events: Mapping[str, Sequence[StoredEvent]]
    records: Mapping[str, MatchRecord | Unchanged] = field(default_factory=dict)


@dataclass(frozen=True)
class FeedPush:
    """One commit's events as the store pushed them to a feed that listens to the match
    (:meth:`serai.store.EventFeed.listen`), with the match's record just after them: the
    watch hub delivers them half a round trip after the commit, with no read of its own.
    ``after_event_id`` is the match's last event before them ("" none): a reader whose cursor
    is not there (or past it) missed something, and waits for its read instead."""

    match_id: str
    after_event_id: str
    events: Sequence[StoredEvent]
    record: MatchRecord


def event_id_key(event_id: str) -> tuple[int, int]:
    """What an event id ("<ms>-<seq>", as Redis streams number their entries; "" before any)
    sorts by: ids compare as numbers, not as text ("10-0" comes after "9-1")."""
    ms, _, seq = event_id.partition("-")
    return int(ms or 0), int(seq or 0)


def event_id_after(event_id: str, than: str) -> bool:
    """Whether ``event_id`` comes after ``than`` in a match's events ("" is before the first)."""
    return event_id_key(event_id) > event_id_key(than)


class LogEntry:
    """One line of a match's move log: the version it produced and the seat that acted, with
    either the move's bytes (its protobuf message, serialized deterministically) or ``ended``,
    how that seat lost the match there (resigned, or ran out of time), never both.

    Read-only (mypy holds every attribute Final). A plain ``__slots__`` class rather than a
    frozen dataclass or a NamedTuple: every SubmitMove builds one, and this is the cheapest to
    build and read (about 2,800 CPU instructions to build and read all four fields, against
    4,500 for a NamedTuple; a frozen dataclass sets each field through ``object.__setattr__``).

    >>> LogEntry(12, 0, b"\\x08\\x01")
    LogEntry(version=12, seat=0, move=b'\\x08\\x01', ended=None)
    """

    __slots__ = ("ended", "move", "seat", "version")

    def __init__(
        self, version: int, seat: int, move: bytes | None = None, ended: Ended | None = None
    ) -> None:
        self.version: Final = version
        self.seat: Final = seat
        self.move: Final = move
        self.ended: Final = ended

    def _values(self) -> tuple[int, int, bytes | None, Ended | None]:
        return self.version, self.seat, self.move, self.ended

    def __eq__(self, other: object) -> bool:
        if type(other) is not LogEntry:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (
            f"LogEntry(version={self.version!r}, seat={self.seat!r}, move={self.move!r}, "
            f"ended={self.ended!r})"
        )


@dataclass(frozen=True)
class Commit:
    """One atomic change of a match. Fields left ``None`` keep their stored value.

    ``log`` entries (:class:`LogEntry`) are appended to the move log; ``events`` to the stream;
    when ``request_id`` is set, ``answer`` is remembered for it (with the new version and the last
    event id) among the :data:`REQUEST_WINDOW` most recent requests of ``request_seat``, and a
    later commit with the same seat and id is answered :class:`Duplicate` and applies nothing.

    ``deadline_ms`` (when not None) replaces the stored move deadline, ``seed`` the seed (the one
    derived when a match with a committed deal starts). ``idle_ms`` > 0 makes every
    key of an unfinished match expire after that many idle milliseconds (each commit restarts the
    count; a store may keep them up to a 64th longer, so as not to set their expiry anew on
    every commit); a commit that finishes the match keeps its keys until the archive has it (then
    they expire after a retention: see :meth:`serai.store.Store.archived`).
    """

    state: bytes | None = None
    status: Status | None = None
    seats: tuple[SeatRecord, ...] | None = None
    outcome: Mapping[str, Any] | None = None
    log: Sequence[LogEntry] = ()
    events: Sequence[NewEvent] = ()
    request_seat: int = 0
    request_id: str = ""
    answer: str = ""
    deadline_ms: int | None = None
    idle_ms: int = 0
    seed: int | None = None


@dataclass(frozen=True)
class Committed:
    version: int
    event_ids: tuple[str, ...]

    @property
    def last_event_id(self) -> str:
        return self.event_ids[-1] if self.event_ids else ""


@dataclass(frozen=True)
class Answer:
    """What a request id was answered the first time."""

    version: int
    last_event_id: str
    answer: str


@dataclass(frozen=True)
class Conflict:
    """The version moved on; ``current`` is the record now (None: the match is gone)."""

    current: MatchRecord | None


@dataclass(frozen=True)
class Duplicate:
    """The request key was already committed; nothing was applied this time."""

    first: Answer


CommitResult = Committed | Conflict | Duplicate


class Unchanged:
    """The answer of :meth:`Store.load` when the caller's copy is current."""

    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED = Unchanged()
