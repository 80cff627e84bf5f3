"""Where matches live: the :class:`Store` protocol (its records, in :mod:`.records`, re-exported),
the one door through which the server reaches storage. Two stores implement it: Redis
(:mod:`serai.store.redis`, what ``serai serve`` runs on) and memory (:mod:`serai.store.memory`,
one process's, for tests of the core); tests/store/test_store_contract.py holds both to the same
behaviour.

A store keeps, per match, one record (metadata, the encoded game state, its version), an
append-only move log (for replay), an event stream (for watchers on every replica) and the answers
to request ids already seen (for idempotent retries). It knows nothing of games or of gRPC: states
and moves are opaque bytes here.

Every change is a :meth:`Store.commit`: it applies only if the stored version is still the one the
caller read, and answers in the same reply with the current record when it is not, so a caller that
lost a race can retry on fresh state without another read. Example::

    store = RedisStore.from_url("redis://localhost:6379/0")
    record = await store.load("a1b2c3")
    result = await store.commit("a1b2c3", record.version, Commit(state=b"...", events=(...)))
    if isinstance(result, Conflict):
        record = result.current      # someone else moved first: decide again on this
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Protocol

from serai.store.api_keys import ApiKeyStore
from serai.store.community import (
    Applied,
    PairingPolicy,
    QueueEntry,
    QueueKey,
    QueuePoll,
    RatedMatch,
    RatingBoard,
    RatingRow,
    RatingUpdate,
)
from serai.store.records import (
    REQUEST_WINDOW,
    STATUSES,
    TIMEOUT_POLICIES,
    UNCHANGED,
    Answer,
    Commit,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    Ended,
    FeedPush,
    FeedRead,
    LogEntry,
    MatchIdTaken,
    MatchRecord,
    NewEvent,
    SeatRecord,
    Status,
    StoredEvent,
    StoreError,
    StoreFull,
    StoreUnavailable,
    TimeoutPolicy,
    Unchanged,
    event_id_after,
    event_id_key,
)
from serai.store.webhooks import WebhookOutbox


class EventFeed(Protocol):
    """Many matches' events read at once, for a process's watch hub
    (:class:`serai.matches.hub.WatchHub`): one reader per shard (a Redis node; "" where one
    store holds every match), whose waiting read :meth:`wake` can end early, and where the
    store can, each commit of the matches it listens to pushed as it happens. From
    :meth:`Store.event_feed`. Example::

        feed = store.event_feed()
        got = await feed.read(feed.shard_of(m), {m: "0-0"}, block_ms=1000, count=500)
        got.events[m]   # its events; got.records: the records that moved (with versions=)
    """

    def shard_of(self, match_id: str) -> str:
        """The shard whose reader follows the match."""

    async def read(
        self,
        shard: str,
        after: Mapping[str, str],
        *,
        block_ms: int,
        count: int,
        versions: Mapping[str, int] | None = None,
    ) -> FeedRead:
        """The events after each match's id in ``after`` (match id -> event id), waiting up to
        ``block_ms`` for one to come (or until :meth:`wake`); at most ``count`` per match.
        With ``versions`` (match id -> the version the reader holds), also the records of the
        matches it names that moved on, in the same round trip (see :class:`FeedRead`): a
        delivery needs no load of its own. A match it does not name gets its events alone
        (the reader has its record another way: pushed)."""

    async def wake(self, shard: str) -> bool:
        """End the shard's waiting read now (it answers as if it timed out); whether one was."""

    @property
    def pushes(self) -> bool:
        """Whether :meth:`listen` has commits pushed to :meth:`pushed` (not on a Redis Cluster,
        whose nodes would each get every push: there the feed is read alone)."""

    async def listen(
        self, shard: str, add: Collection[str] = (), drop: Collection[str] = ()
    ) -> None:
        """Have each later commit with events of the matches in ``add`` pushed to
        :meth:`pushed`, and no more of those in ``drop``. A push can be missed (a commit ran
        before the listen took, a connection was lost): :meth:`read` stays the lossless way,
        and a push's ``after_event_id`` tells whether it follows what was read."""

    async def pushed(self, shard: str, *, timeout_ms: int) -> list[FeedPush]:
        """The commits pushed since the last call, in their order, waiting up to
        ``timeout_ms`` for one (none: an empty list)."""

    async def close(self) -> None:
        """Release what the feed holds (its connections)."""


class StoreHealth(Protocol):
    """Whether a store answers, as its own probe finds it (the Redis store's breaker,
    serai.store.redis.breaker): what health reports; calls fail fast meanwhile."""

    up: bool

    def on_change(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(up)`` each time the store goes down or comes back."""

    def start(self) -> None:
        """Start probing (on the running loop)."""

    async def stop(self) -> None:
        """Stop probing."""


class Store(Protocol):
    """What the server needs from storage: matches (the match lifecycle), the indexes that list
    and count them, an event feed for watchers, the API keys (``api_keys``), the webhook outbox
    (``webhooks``) and whether it answers (``health``)."""

    @property
    def api_keys(self) -> ApiKeyStore:
        """The store's API keys (see :mod:`serai.store.api_keys`)."""

    @property
    def webhooks(self) -> WebhookOutbox:
        """The matches that may owe webhooks, and the delivery logs (see
        :mod:`serai.store.webhooks`)."""

    @property
    def health(self) -> StoreHealth | None:
        """Whether the store answers, probed; None: a store that always does (in memory)."""

    def event_feed(self) -> EventFeed:
        """A new reader of many matches' events at once (the caller closes it)."""

    async def create(
        self,
        record: MatchRecord,
        events: Sequence[NewEvent],
        *,
        idle_ms: int = 0,
        listed: bool = False,
    ) -> str:
        """Store a new match at its record's version; returns the last event id.

        ``idle_ms`` as in :class:`Commit`. ``listed``: index it as :meth:`index` (``record``,
        None, its status) does, in the same step where the store can (one round trip, not two).
        Raises StoreError if the id is taken (and indexes nothing).
        """

    async def existed(self, match_id: str) -> bool:
        """Whether the match was ever created (still listed in the index of all matches), for
        telling an expired match from an unknown id."""

    async def load(
        self, match_id: str, unless_version: int | None = None
    ) -> MatchRecord | Unchanged | None:
        """The match, or None if unknown; :data:`UNCHANGED` when the stored version is
        ``unless_version`` (the caller's copy is current, so the state is not sent again)."""

    async def commit(
        self,
        match_id: str,
        expected_version: int,
        commit: Commit,
        *,
        listed: MatchRecord | None = None,
    ) -> CommitResult:
        """Apply ``commit`` if the stored version is ``expected_version``; see :class:`Commit`.

        ``listed``: the match's record before a commit that moves it to another unfinished
        status (the start); once committed, the match is indexed as :meth:`index` (``listed``,
        its status, the commit's status) does, in the same step where the store can (one round
        trip, not two). Nothing is indexed when the commit is not written.
        """

    async def request_answer(self, match_id: str, seat: int, request_id: str) -> Answer | None:
        """The remembered answer to one of the seat's recent request ids, if any."""

    async def read_log(self, match_id: str) -> list[LogEntry]:
        """Every log entry, oldest first, as committed (a move's bytes byte for byte)."""

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]:
        """Events after ``after_event_id`` ("" for all); waits up to ``block_ms`` (0: no wait).

        A finished match's events may have been archived (see :meth:`index`): they are read back
        the same, ids included, but a wait on them may last the whole ``block_ms`` first, so read
        a finished match with ``block_ms=0``. The archive may leave out the label of a "move"
        event ``{"seat": s, "label": ...}`` whose move the log holds at the same version by the
        same seat: it is rebuilt as ``label_of(<that move's bytes>)`` ("" without ``label_of``),
        so a move event's label must be what ``label_of`` gives for its logged move."""

    async def index(self, record: MatchRecord, previous: Status | None, current: Status) -> None:
        """Move the match between the status indexes (idempotent). For ``current`` "finished"
        (called once its last events are committed) the store may also compact the match: archive
        its events, log and remembered request answers; every read gives back the same after
        that, request_answer included. A finished match is also queued for the archive
        (:meth:`unarchived`) once compacted."""

    async def unarchived(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """Up to ``limit`` finished matches not archived yet, each leased to the caller: not
        given to another caller for ``lease_ms`` (after that, to whoever asks: the caller may
        have died). The store may also forget, here, the index entries of archived matches whose
        keys have expired. See serai.matches.archiving for the handoff."""

    async def archived(self, record: MatchRecord, keep_ms: int, now_ms: int) -> None:
        """The archive holds ``record``'s match (finished): its keys expire ``keep_ms`` from now
        (its index entries too, then), and it leaves :meth:`unarchived` (last, so that a crash
        before leaves it there, to be archived again: archiving is idempotent)."""

    async def list_matches(
        self,
        status: Status | None,
        game: str | None,
        limit: int,
        *,
        after: tuple[int, str] | None = None,
        tenant: str = "",
    ) -> list[MatchRecord]:
        """Matches of ``tenant`` ("": those made without an API key) newest first, without
        their state: ordered by (created_ms, match_id), both
        descending, and with ``after`` only those that come after that position (a page token's:
        matches created meanwhile, which come first, do not shift the pages)."""

    async def index_player(self, tenant: str, player: str, match_id: str, created_ms: int) -> None:
        """Note that ``player`` (a player id's hash, see SeatRecord.player) of ``tenant`` holds a
        seat of ``match_id`` (idempotent), for :meth:`player_matches`."""

    async def player_matches(
        self,
        tenant: str,
        player: str,
        status: Status | None,
        game: str | None,
        limit: int,
        *,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        """As :meth:`list_matches`, of the matches of ``tenant`` in which ``player`` holds a
        seat (by status and game when not None)."""

    async def open_matches(self, client_id: str) -> int:
        """How many unfinished matches ``client_id`` created."""

    async def claim_open_slot(
        self, client_id: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        """Count ``match_id``, about to be created, among ``client_id``'s unfinished matches,
        unless the client has ``limit`` already: None when counted, else how many it has. Atomic:
        concurrent claims (on any replica) never pass the limit together. A claim whose match is
        never created is dropped after a while."""

    async def claim_quota_slot(
        self, quota_key: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        """As :meth:`claim_open_slot`, among the unfinished matches a caller created, counted
        under its ``quota_key`` (see serai.rpc.limits.quota_key_of)."""

    async def claim_unfinished_slot(self, match_id: str, now_ms: int, limit: int) -> int | None:
        """As :meth:`claim_open_slot`, among every unfinished match of the store (all replicas);
        :meth:`index` takes a match out of the count when it finishes."""

    async def release_open_slots(
        self, match_id: str, *, client_id: str = "", quota_key: str = ""
    ) -> None:
        """Give back the places claimed for ``match_id`` (a create refused by a later limit):
        the client's and the caller's, when named, and the store's."""

    async def deadlines(self, limit: int, offset: int = 0) -> tuple[list[tuple[str, int]], int]:
        """(match id, move deadline in ms) of the running ones among up to ``limit`` unfinished
        matches with a clock, from the ``offset``-th (oldest first); and the offset to read on
        from next time (0 once the last was read)."""

    async def match_counts(self) -> dict[Status, int]:
        """How many matches the status indexes hold, by status, every tenant together (for
        metrics; an expired match may be counted until a listing or the sweeper prunes it)."""

    # The community (serai.community): matchmaking queues and rating boards.

    async def queue_enter(
        self, queue: QueueKey, entry: QueueEntry, now_ms: int, clear: str = ""
    ) -> str | None:
        """Put the player in the queue (again: a new entry and rating, its waiting time kept),
        unless the pairing already assigned it a match: then that assignment (it stays queued
        out), unless its pairing id is ``clear`` (the player is done with it: it is dropped and
        the player queued). Atomic with :meth:`queue_pair`."""

    async def queue_poll(self, queue: QueueKey, player: str, now_ms: int) -> QueuePoll:
        """The player's assignment, else its place in the queue; a waiting player is marked
        seen at ``now_ms`` (one not seen for the policy's ``stale_ms`` leaves at the next pass)."""

    async def queue_leave(self, queue: QueueKey, player: str) -> bool:
        """Take the player out of the queue; whether it was waiting (not paired)."""

    async def queue_pair(
        self, queue: QueueKey, player: str, now_ms: int, policy: PairingPolicy, pairing_id: str
    ) -> bool:
        """Seat ``player`` (if still waiting) with its neighbours in rating: of the groups of
        ``queue.seats`` consecutive waiting players (by rating) that hold it, the one of the
        smallest spread that fits every member's window (see PairingPolicy). Every member's
        assignment, JSON ``{"pairing": pairing_id, "seat", "players": [entries in seat order],
        "at"}``, is stored and it leaves the queue, all in one step (players not seen for
        ``policy.stale_ms`` are dropped first). Whether a group was seated. Its cost does not
        grow with the queue (a few sorted-set reads), so every waiting stream may run it. Each
        member's wait (``now_ms`` less when it joined) is kept among the queue's recent waits
        (the last :data:`~serai.store.community.WAITS_KEPT`, which :meth:`queue_poll` gives)."""

    async def queue_fill(
        self, queue: QueueKey, player: str, fill: Sequence[str], now_ms: int, pairing_id: str
    ) -> bool:
        """Seat ``player`` (if still waiting) with ``fill``, entries of players who are not in
        the queue (house bots), in one step as :meth:`queue_pair` seats a group (the same
        assignment, the first seat rotated by the same turn, the wait kept); whether it did."""

    async def rating_rows(self, board: RatingBoard, players: Sequence[str]) -> dict[str, RatingRow]:
        """The rows of those of ``players`` rated on ``board`` (the others are left out)."""

    async def apply_ratings(
        self, board: RatingBoard, match_id: str, updates: Sequence[RatingUpdate]
    ) -> Applied:
        """Write every update of one match's result at once: "duplicate" (nothing written) when
        ``match_id`` was applied to the board before, "conflict" (nothing written) when a row
        no longer has its ``games_before``, else "applied": rows, leaderboards and histories
        written and the match noted as applied, in one step."""

    async def leaderboard(
        self, board: RatingBoard, bots: bool, offset: int, limit: int
    ) -> list[tuple[str, RatingRow]]:
        """(player, row) by score, best first, from the ``offset``-th: people's or bots'."""

    async def rating_history(self, board: RatingBoard, player: str, limit: int) -> list[str]:
        """The player's last ``limit`` history lines on the board, newest first."""

    async def register_rated(self, rated: RatedMatch, due_ms: int) -> None:
        """Note a rated match, to be rated once finished (idempotent): :meth:`rated_due` gives
        it from ``due_ms`` on until :meth:`rated_done`."""

    async def rated_due(self, now_ms: int, lease_ms: int, limit: int) -> list[RatedMatch]:
        """Up to ``limit`` registered matches due, each leased to the caller for ``lease_ms``
        (then given to whoever asks: the caller may have died), as :meth:`unarchived`."""

    async def rated_done(self, match_id: str) -> None:
        """The match is rated (or will never be): it leaves :meth:`rated_due`; its registration
        stays readable by :meth:`rated_match` for
        :data:`~serai.store.community.RATED_KEPT_MS`."""

    async def rated_match(self, match_id: str) -> RatedMatch | None:
        """The match's registration, from :meth:`register_rated` until
        :data:`~serai.store.community.RATED_KEPT_MS` after :meth:`rated_done` (a rematch of a
        rated match is rated on the same board); None for a match not registered rated."""

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""

    async def time_ms(self) -> int:
        """The store's own clock (Redis ``TIME``), in ms since the epoch: the one clock that
        every replica's turn deadlines are taken from (see serai.matches.clocks)."""

    async def close(self) -> None:
        """Release connections."""


__all__ = [
    "REQUEST_WINDOW",
    "STATUSES",
    "TIMEOUT_POLICIES",
    "UNCHANGED",
    "Answer",
    "Commit",
    "CommitResult",
    "Committed",
    "Conflict",
    "Duplicate",
    "Ended",
    "EventFeed",
    "FeedPush",
    "FeedRead",
    "LogEntry",
    "MatchIdTaken",
    "MatchRecord",
    "NewEvent",
    "SeatRecord",
    "Status",
    "Store",
    "StoreError",
    "StoreFull",
    "StoreHealth",
    "StoreUnavailable",
    "StoredEvent",
    "TimeoutPolicy",
    "Unchanged",
    "event_id_after",
    "event_id_key",
]
