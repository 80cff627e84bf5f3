"""The :class:`Matches` facade: one object that the service, the clients' local server, the
tests and the benchmarks call for everything about matches, made of one room per job.

The rooms, each a module of this package: :mod:`.requests` (the shape of what a client sends),
:mod:`.access` (token to seat), :mod:`.events` (the event vocabulary), :mod:`.planning` (a move
or forfeit as a commit, without I/O), :mod:`.entries` (the cache and the store kept consistent),
:mod:`.clocks` (turn clocks and the sweeper), :mod:`.seating` (create, join), :mod:`.moves`
(submit, resign), :mod:`.reading` (list, get, legal moves), :mod:`.watching` (watch) and
:mod:`.replay` (rebuild from the log), :mod:`.fairness` (committed deals) and :mod:`.transcripts`
(what ``serai verify`` checks), :mod:`.archiving` (finished matches handed to the archive).

Limits: ``idle_seconds`` lets the store drop an unfinished match nobody changed for that long
(it answers :class:`MatchExpired` afterwards; see :mod:`.clocks`); ``limits`` (one
:class:`~serai.matches.limits.Limits`, named as serve's flags are) bounds the unfinished matches
and the watches of one caller, one match and the whole store. With an ``archive``
(:mod:`serai.archive`), finished matches are written there and expire from the store
``keep_finished_seconds`` later; reads of a finished match find it there afterwards. Watches
read through :class:`.watching.Polling` (a read per watch) until :meth:`Matches.use_watch_hub`
gives the process's shared hub (:mod:`.hub`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from serai.archive import Archive
from serai.game import Game, GameInfo, Seat
from serai.matches import access, replay, transcripts
from serai.matches.archiving import Archiving
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.entries import Entries
from serai.matches.errors import MatchNotRunning, Unauthenticated
from serai.matches.hub import WatchHub
from serai.matches.limits import NO_LIMITS, Limits
from serai.matches.moves import Moves
from serai.matches.reading import Reading
from serai.matches.request_ids import rematch_request_id
from serai.matches.seating import Seating
from serai.matches.values import (
    Joined,
    LegalMoves,
    MatchPage,
    PackedMove,
    ReplayReport,
    Snapshot,
    Submitted,
    WatchBatch,
)
from serai.matches.watching import Polling, Watching, label_of
from serai.registry import Registry
from serai.store import EventFeed, MatchRecord, Status, Store, TimeoutPolicy

__all__ = ["Matches", "label_of"]


class Matches:
    """Every operation on matches. One instance per process; safe for concurrent coroutines."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        *,
        cache_size: int = 4096,
        watch_block_ms: int = 1000,
        max_retries: int = 8,
        clock: Callable[[], float] = time.time,
        idle_seconds: int = 0,
        limits: Limits = NO_LIMITS,
        sweep_seconds: float = 1.0,
        allow_chosen_seeds: bool = True,
        watch_queue: int = 256,
        archive: Archive | None = None,
        keep_finished_seconds: float = 3600.0,
    ) -> None:
        self.store = store
        self.registry = registry
        self.archive = archive
        self._entries = entries = Entries(
            store,
            registry,
            cache_size=cache_size,
            max_retries=max_retries,
            idle_seconds=idle_seconds,
            archive=archive,
        )
        self._archiving = (
            Archiving(store, archive, clock, keep_ms=int(keep_finished_seconds * 1000))
            if archive is not None
            else None
        )
        self._cache = entries.cache
        self._clocks = clocks = Clocks(
            entries, clock, idle_seconds=idle_seconds, sweep_seconds=sweep_seconds
        )
        self._seating = Seating(
            entries,
            clocks,
            allow_chosen_seeds=allow_chosen_seeds,
            limits=limits,
        )
        self._moves = moves = Moves(entries, clocks)
        # The hot path is called straight, without a frame of the facade's own; the method
        # below says what it does and takes the same arguments.
        self.submit = moves.submit  # type: ignore[method-assign]
        self._reading = Reading(store, clocks, archive)
        self._polling = Polling(store, clocks, block_ms=watch_block_ms)
        self._watch_block_ms = watch_block_ms
        self._watch_queue = watch_queue
        self._hub: WatchHub | None = None
        self._watching = Watching(self._polling, clocks, limits=limits)

    @property
    def closing(self) -> bool:
        """Set when the process shuts down: the sweeper stops and every watch ends."""
        return self._polling.closing

    @closing.setter
    def closing(self, value: bool) -> None:
        self._clocks.closing = self._polling.closing = value
        if self._archiving is not None:
            self._archiving.closing = value
        if value and self._hub is not None:
            self._hub.closing = True

    @property
    def watching(self) -> int:
        """How many watches are open now."""
        return self._watching.open

    # games

    def games(self) -> list[GameInfo]:
        """The installed games, by name."""
        return self._entries.games()

    def game(self, name: str) -> Game[Any, Any, Any]:
        return self._entries.game(name)

    # creating and joining

    async def create(
        self,
        game: str,
        seats: int = 0,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        *,
        client_id: str = "",
        move_seconds: int = 0,
        timeout_policy: TimeoutPolicy = "lose",
        bank_seconds: int = 0,
        request_id: str = "",
        quota_key: str = "",
        tenant: str = "",
        max_open: int | None = None,
        spectator_delay_moves: int = 0,
    ) -> MatchRecord:
        """A new open match; see :meth:`serai.matches.seating.Seating.create`."""
        return await self._seating.create(
            game,
            seats,
            options,
            seed,
            client_id=client_id,
            quota_key=quota_key,
            move_seconds=move_seconds,
            timeout_policy=timeout_policy,
            bank_seconds=bank_seconds,
            request_id=request_id,
            tenant=tenant,
            max_open=max_open,
            spectator_delay_moves=spectator_delay_moves,
        )

    async def join(
        self,
        match_id: str,
        seat: Seat | None = None,
        player_name: str = "",
        *,
        request_id: str = "",
        entropy: bytes = b"",
        tenant: str | None = None,
        player_id: str = "",
        player_key: str = "",
    ) -> Joined:
        """Claim a seat; see :meth:`serai.matches.seating.Seating.join`."""
        return await self._seating.join(
            match_id,
            seat,
            player_name,
            request_id=request_id,
            entropy=entropy,
            tenant=tenant,
            player_id=player_id,
            player_key=player_key,
        )

    async def rematch(
        self,
        match_id: str,
        token: str,
        *,
        entropy: bytes = b"",
        tenant: str | None = None,
        quota_key: str = "",
        max_open: int | None = None,
    ) -> Joined:
        """The same players again once the match is finished: the seat ``token`` holds asks, and
        joins the seat after its own (the first seat rotates) in one new match with the old one's
        game, seats, options, clocks and tenant, and a committed deal of its own. Every seat lands
        in the same match: its id comes from a request id only the seats' token hashes give (no
        one can make it first with other settings); each seat's join from its own token (a repeat
        answers the same seat and token; no one else can take it)."""
        entry = await self.inspect(match_id)
        access.check_tenant(entry, tenant)
        seat = access.authenticate(entry, token)
        if seat is None:
            raise Unauthenticated("a rematch is asked for by a seat: send its seat_token")
        old = entry.record
        if old.status != "finished":
            raise MatchNotRunning(f"match {match_id} is not finished: ask for a rematch after")
        new = await self.create(
            old.game,
            len(old.seats),
            {
                name: str(value).lower() if isinstance(value, bool) else str(value)
                for name, value in old.options.items()
            },
            client_id=old.client_id,
            move_seconds=old.move_seconds,
            timeout_policy=old.timeout_policy,
            bank_seconds=old.bank_seconds,
            spectator_delay_moves=old.spectator_delay_moves,
            request_id=rematch_request_id(
                "rematch", match_id, "".join(s.token_hash for s in old.seats)
            ),
            quota_key=quota_key,
            tenant=old.tenant,
            max_open=max_open,
        )
        mine = old.seats[seat]
        return await self.join(
            new.match_id,
            (seat + 1) % len(old.seats),
            mine.name,
            request_id=rematch_request_id("rematch seat", match_id, token),
            entropy=entropy,
            tenant=old.tenant,
            player_key=mine.player,
        )

    async def reclaim(self, match_id: str, player_id: str, tenant: str | None = None) -> Joined:
        """The player's seat with a new token; see
        :meth:`serai.matches.seating.Seating.reclaim`."""
        return await self._seating.reclaim(match_id, player_id, tenant)

    # reading

    async def list_matches(
        self, status: Status | None = None, game: str | None = None, limit: int = 50
    ) -> list[MatchRecord]:
        """The first page of matches newest first, by status and game (any when None)."""
        return await self._reading.list_matches(status, game, limit)

    async def list_page(
        self,
        status: Status | None = None,
        game: str | None = None,
        limit: int = 50,
        page_token: str = "",
        tenant: str = "",
        player_id: str = "",
    ) -> MatchPage:
        """A page of matches; see :meth:`serai.matches.reading.Reading.list_page`."""
        return await self._reading.list_page(status, game, limit, page_token, tenant, player_id)

    async def get(self, match_id: str, token: str = "", tenant: str | None = None) -> Snapshot:
        """The match as the token's seat sees it, or as a spectator without a token.
        ``tenant``, here and below: the caller's, whose matches alone it sees (None: all)."""
        return await self._reading.get(match_id, token, tenant)

    async def legal_moves(self, match_id: str, token: str, tenant: str | None = None) -> LegalMoves:
        """The seat's legal moves now, each with an id valid at this version (empty if none)."""
        return await self._reading.legal_moves(match_id, token, tenant)

    async def seated(
        self, match_id: str, token: str, tenant: str | None = None
    ) -> tuple[Entry, Seat]:
        """The match now and the token's seat; see :meth:`.reading.Reading.seated`."""
        return await self._reading.seated(match_id, token, tenant)

    # playing

    async def submit(
        self,
        match_id: str,
        token: str,
        *,
        move_id: str = "",
        payload: PackedMove | None = None,
        expected_version: int = 0,
        request_id: str = "",
        tenant: str | None = None,
    ) -> Submitted:
        """Play a move by id or as a typed payload; see :mod:`serai.matches.moves`."""
        return await self._moves.submit(
            match_id,
            token,
            move_id=move_id,
            payload=payload,
            expected_version=expected_version,
            request_id=request_id,
            tenant=tenant,
        )

    async def resign(self, match_id: str, token: str, tenant: str | None = None) -> Snapshot:
        """The seat leaves and loses; see :meth:`serai.matches.moves.Moves.resign`."""
        return await self._moves.resign(match_id, token, tenant)

    async def inspect(self, match_id: str) -> Entry:
        """The match as stored, its state decoded, hidden parts and all: for the operator's
        console alone (every other reader goes through a seat's or a spectator's view)."""
        return await self._clocks.current(match_id)

    async def end(self, match_id: str) -> Snapshot:
        """An operator ends a running match, no one winning, or cancels an open one; see
        :meth:`.moves.Moves.end`."""
        return await self._moves.end(match_id)

    async def cancel(self, match_id: str, token: str, tenant: str | None = None) -> Snapshot:
        """A seat cancels its match before it starts; see :meth:`.moves.Moves.cancel`."""
        return await self._moves.cancel(match_id, token, tenant)

    # clocks

    async def sweep(self, limit: int = 10_000) -> int:
        """Enforce the clocks that ran out; see :meth:`serai.matches.clocks.Clocks.sweep`."""
        return await self._clocks.sweep(limit)

    async def run_sweeper(self) -> None:
        """Follow the store's clock and sweep until closing; see
        :meth:`serai.matches.clocks.Clocks.run_sweeper`."""
        await self._clocks.run_sweeper()

    async def follow_store_clock(self) -> int:
        """Take deadlines on the store's clock; see :meth:`.clocks.Clocks.follow_store_clock`."""
        return await self._clocks.follow_store_clock()

    # archiving

    async def archive_finished(self) -> int:
        """Hand one batch of finished matches to the archive; see :mod:`.archiving` (nothing
        without an archive). How many were archived."""
        return await self._archiving.drain() if self._archiving is not None else 0

    async def run_archiver(self) -> None:
        """Archive finished matches until closing (returns at once without an archive)."""
        if self._archiving is not None:
            await self._archiving.run()

    # watching

    def watch(
        self,
        match_id: str,
        token: str = "",
        after_event_id: str = "",
        *,
        peer: str = "",
        tenant: str | None = None,
        seat_required: bool = False,
    ) -> AsyncIterator[WatchBatch]:
        """Batches of events as they happen; see :meth:`serai.matches.watching.Watching.watch`."""
        return self._watching.watch(
            match_id, token, after_event_id, peer=peer, tenant=tenant, seat_required=seat_required
        )

    def between_matches(self, peer: str = "") -> contextlib.AbstractContextManager[None]:
        """A watch's place held between two matches; see
        :meth:`serai.matches.watching.Watching.waiting`."""
        return self._watching.waiting(peer)

    def opening_watch(self, peer: str = "") -> contextlib.AbstractContextManager[None]:
        """A watch's place held by a stream until it says what it watches, within the limits;
        see :meth:`serai.matches.watching.Watching.opening`."""
        return self._watching.opening(peer)

    def now_ms(self) -> int:
        """Now on the store's clock (as every replica's deadlines are taken: see .clocks)."""
        return self._clocks.now_ms()

    def follow_changes(self, follow: Callable[[MatchRecord], Awaitable[None]] | None) -> None:
        """Await ``follow(record)`` before each new match is stored and after each commit (the
        process's webhooks: :mod:`serai.webhooks.dispatch`); None: no more."""
        self._entries.follow = follow

    def use_watch_hub(self, feed: EventFeed) -> WatchHub:
        """Make new watches read through one hub on ``feed`` (the process's: see
        :class:`serai.runtime.Runtime`), which the caller closes; returns it."""
        hub = WatchHub(
            feed,
            self.store,
            self._clocks,
            block_ms=self._watch_block_ms,
            queue_batches=self._watch_queue,
        )
        self._hub = hub
        self._watching.source = hub
        return hub

    # replay

    async def transcript(
        self, match_id: str, token: str = "", tenant: str | None = None
    ) -> dict[str, Any]:
        """The match's transcript as the caller may have it; see :mod:`serai.matches.transcripts`
        (a seat's with its token; anyone's once finished; only the caller's tenant's)."""
        return await transcripts.for_caller(self._entries, match_id, token, tenant)

    async def replay_steps(
        self, match_id: str, viewer: Seat | None, tenant: str | None = None
    ) -> replay.Steps:
        """A finished match step by step from ``viewer``'s view; see :mod:`.replay`."""
        return await replay.steps_for_caller(self._entries, match_id, viewer, tenant)

    async def export(self, match_id: str, seat: Seat | None = None) -> dict[str, Any]:
        """The operator's transcript: the whole of a finished match, or what ``seat`` saw."""
        return await transcripts.for_operator(self._entries, match_id, seat)

    async def replay(self, match_id: str) -> ReplayReport:
        """Apply the stored log again from the seed and compare with the stored state."""
        return await replay.audit(self._entries, await self._clocks.current(match_id))
