"""The :class:`Matches` class: create, join, look, move, resign, watch and replay, over a Store.

The hot path is :meth:`Matches.submit`: the decoded state of each match is cached in-process by
version, the move is checked and applied in Python, and one store commit (one Redis round trip)
writes it if the version is unchanged. When another replica moved first, the commit answers with
the fresh record; the move is tried again on it, and answers StaleVersion when it is no longer
legal there (or when it was chosen by id or with an ``expected_version``, which pin a version).

Move ids are ``"<version>.<index>"``: the index in the plugin's ``legal_moves`` at that version,
so an id can never silently mean another move once the match has moved on.

A resignation ends the match at once (a game cannot in general go on with a seat missing): the
resigning seat ranks last (rank ``players - 1``) and every other seat shares first place (rank 0);
scores are all 0, since the game's own scoring applies only to a match played out.

Turn clocks: a match created with ``move_seconds`` stores a deadline with every change that leaves
it running. Every seat still to act after it loses (ranked last, tied, as if it resigned) or has
its first legal move played, as ``timeout_policy`` says. Any replica may enforce it: the one that
reads the match late (every read checks) or whose sweeper (:meth:`Matches.sweep`, every
``sweep_seconds``) finds it first. The enforcing commit goes through the same compare-and-set as
a move, so it happens once.

Limits: ``idle_seconds`` lets the store drop an unfinished match nobody changed for that long
(it answers :class:`MatchExpired` afterwards), counted from the turn clock's deadline when there
is one, so that a match never expires while a seat still has time to move;
``max_open_per_client`` bounds the unfinished matches one ``client_id`` may have created.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import random
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import structlog

from serai.game import (
    Game,
    GameError,
    GameInfo,
    NotPlayable,
    Seat,
)
from serai.matches import access, planning, requests
from serai.matches import events as event
from serai.matches.cache import Cache, Entry
from serai.matches.errors import (
    BadRequest,
    GameNotFound,
    LimitExceeded,
    MatchError,
    MatchExpired,
    MatchNotFound,
    MatchNotRunning,
    SeatTaken,
    StaleVersion,
)
from serai.matches.request_ids import created_match_id, join_id_of, seal
from serai.matches.values import (
    Joined,
    LegalMove,
    LegalMoves,
    PackedMove,
    ReplayReport,
    Snapshot,
    Submitted,
    WatchBatch,
)
from serai.registry import Registry
from serai.store import (
    UNCHANGED,
    Answer,
    Commit,
    Committed,
    Conflict,
    Duplicate,
    MatchIdTaken,
    MatchRecord,
    SeatRecord,
    Status,
    Store,
    StoreError,
    StoreUnavailable,
    TimeoutPolicy,
)

log = structlog.get_logger("serai.matches")

_WATCH_RECHECK_SECONDS = 5.0  # a quiet Watch looks at its match this often (expiry, clocks)


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
        max_open_per_client: int = 0,
        sweep_seconds: float = 1.0,
        allow_chosen_seeds: bool = True,
        max_watches: int = 0,
    ) -> None:
        self.store = store
        self.registry = registry
        self.watch_block_ms = watch_block_ms
        self.max_retries = max_retries
        self.idle_seconds = idle_seconds
        self.max_open_per_client = max_open_per_client
        self.sweep_seconds = sweep_seconds
        self.allow_chosen_seeds = allow_chosen_seeds
        self.max_watches = max_watches  # 0: no limit; see watch()
        self.watching = 0
        self.closing = False
        self._clock = clock
        self._cache = Cache(cache_size)
        self._idle_ms = idle_seconds * 1000
        self._clocks_cursor = 0  # where the next sweep reads on (see sweep)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def deadline(self, record: MatchRecord, running: bool) -> int | None:
        """The deadline to store with a change (None: the match has no clock)."""
        if not record.move_seconds:
            return None
        return self._now_ms() + record.move_seconds * 1000 if running else 0

    def idle_ms_with(self, record: MatchRecord, deadline: int | None) -> int:
        """The keys' time to live after a change: ``idle_seconds``, counted from the deadline
        when the change sets one (``move_seconds`` from now), so that a match never expires
        inside the deadline it shows."""
        if not self._idle_ms or not deadline:
            return self._idle_ms
        return record.move_seconds * 1000 + self._idle_ms

    # games

    def games(self) -> list[GameInfo]:
        """The installed games, by name."""
        return [self.registry.games[name].info for name in sorted(self.registry.games)]

    def game(self, name: str) -> Game[Any, Any, Any]:
        try:
            return self.registry.games[name]
        except KeyError:
            known = ", ".join(sorted(self.registry.games)) or "none"
            raise GameNotFound(
                f"no game called {name!r}; installed games: {known} (ListGames lists them)"
            ) from None

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
        request_id: str = "",
    ) -> MatchRecord:
        """A new open match. ``seats`` 0 means the game's smallest player count.

        ``move_seconds`` > 0 gives it a turn clock (see the module docstring); ``client_id``
        counts it against that client's limit of unfinished matches.

        With a ``request_id``, the match id is derived from it and the ``client_id``, so a
        repeated create (a client retrying after a lost answer) finds the match the first one
        made and answers it as it is now, instead of making a second one.
        """
        requests.check_client_id(client_id)
        requests.check_move_seconds(move_seconds)
        if seed is not None and not self.allow_chosen_seeds:
            raise BadRequest(
                "this server does not take chosen seeds (whoever chose one could work out the "
                "deal): leave seed unset"
            )
        requests.check_secret_request_id(request_id, "CreateMatch", "the match it made")
        match_id = created_match_id(client_id, request_id) if request_id else secrets.token_hex(8)
        if request_id:
            first = await self.store.load(match_id)
            if isinstance(first, MatchRecord):
                await self._index_again(first)
                return self._remember(first).record
        plugin = self.game(game)
        if not plugin.info.playable:
            raise NotPlayable(
                f"{plugin.info.title} is registered but not playable yet; "
                "ListGames says which games are"
            )
        players = seats or plugin.info.min_players
        plugin.check_players(players)
        resolved = plugin.resolve_options(dict(options or {}))
        seed_chosen = seed is not None
        if seed is None:
            seed = secrets.randbits(63)
        state = plugin.setup(players, seed, resolved)
        record = MatchRecord(
            match_id=match_id,
            game=game,
            options=resolved,
            seed=seed,
            created_ms=int(self._clock() * 1000),
            status="open",
            version=0,
            seats=tuple(SeatRecord() for _ in range(players)),
            state=plugin.encode_state(state),
            client_id=client_id,
            move_seconds=move_seconds,
            timeout_policy=timeout_policy,
            seed_chosen=seed_chosen,
        )
        if client_id and self.max_open_per_client > 0:
            open_now = await self.store.claim_open_slot(
                client_id, match_id, record.created_ms, self.max_open_per_client
            )
            if open_now is not None:
                raise LimitExceeded(
                    f"client {client_id!r} already has {open_now} unfinished matches, the most "
                    f"this server allows ({self.max_open_per_client}): finish or resign some first"
                )
        try:
            last = await self.store.create(
                record,
                [event.created(game, players)],
                idle_ms=self._idle_ms,
            )
        except MatchIdTaken:
            first = await self.store.load(match_id) if request_id else None
            if not isinstance(first, MatchRecord):
                raise
            return self._remember(first).record  # the same request, retried on another replica
        record = replace(record, last_event_id=last)
        self._cache.put(Entry(record, plugin, state))
        await self.store.index(record, None, "open")
        return record

    async def join(
        self,
        match_id: str,
        seat: Seat | None = None,
        player_name: str = "",
        *,
        request_id: str = "",
    ) -> Joined:
        """Claim ``seat`` (the lowest free one when None); the match starts when all are taken.

        With a ``request_id``, a repeated join (a client retrying after a lost answer) answers
        the seat and token the first one claimed, whatever its seat and name say, and changes
        nothing; without one, a retry claims another seat. The seat keeps a hash of the id and
        the token sealed with a key derived from the id, so the store never holds either."""
        requests.check_player_name(player_name)
        requests.check_secret_request_id(request_id, "JoinMatch", "the seat token")
        join_id = join_id_of(match_id, request_id) if request_id else ""
        token = secrets.token_urlsafe(24)
        entry = await self._fresh(match_id)
        for _attempt in range(self.max_retries):
            record = entry.record
            if join_id:
                first = access.joined_by(record, join_id, request_id)
                if first is not None:
                    await self._index_again(record)
                    structlog.contextvars.bind_contextvars(seat=first.seat)
                    return first
            free = [i for i, s in enumerate(record.seats) if not s.joined]
            if record.status != "open" or not free:
                raise SeatTaken(
                    f"every seat of match {match_id} is taken (it is {record.status}): "
                    "create a new match, or watch this one as a spectator"
                )
            chosen = free[0] if seat is None else seat
            if not 0 <= chosen < len(record.seats):
                raise BadRequest(
                    f"match {match_id} has seats 0 to {len(record.seats) - 1}, not {chosen}"
                )
            if record.seats[chosen].joined:
                raise SeatTaken(
                    f"seat {chosen} of match {match_id} is taken; free seats: "
                    f"{', '.join(map(str, free))} (or leave the seat unset for the lowest free one)"
                )
            seats = list(record.seats)
            name = player_name or f"seat {chosen}"
            seats[chosen] = SeatRecord(
                name=name,
                joined=True,
                token_hash=access.token_hash(token),
                join_id=join_id,
                sealed_token=seal(token, match_id, request_id) if request_id else "",
            )
            events = [event.joined(chosen, name)]
            starts = all(s.joined for s in seats)
            if starts:
                events.append(event.started())
            status: Status | None = "running" if starts else None
            deadline = self.deadline(record, starts)
            commit = Commit(
                seats=tuple(seats),
                status=status,
                events=events,
                deadline_ms=deadline,
                idle_ms=self.idle_ms_with(record, deadline),
            )
            result = await self.store.commit(match_id, record.version, commit)
            if isinstance(result, Committed):
                record = replace(
                    record,
                    seats=tuple(seats),
                    status=status or record.status,
                    version=result.version,
                    last_event_id=result.last_event_id,
                    deadline_ms=record.deadline_ms if deadline is None else deadline,
                )
                self._cache.put(Entry(record, entry.game, entry.state))
                if starts:
                    await self.store.index(record, "open", "running")
                structlog.contextvars.bind_contextvars(seat=chosen)
                return Joined(chosen, token, record)
            # Another join (perhaps this very one, retried on another replica) came first.
            entry = await self._after_conflict(match_id, result)
        raise StaleVersion(f"match {match_id} changed too often while joining; try again")

    # reading

    async def list(
        self, status: Status | None = None, game: str | None = None, limit: int = 50
    ) -> list[MatchRecord]:
        """Matches newest first, by status and game (any when None)."""
        requests.check_list_limit(limit)
        return await self.store.list_matches(status, game or None, min(limit or 50, 1000))

    async def get(self, match_id: str, token: str = "") -> Snapshot:
        """The match as the token's seat sees it, or as a spectator without a token."""
        entry = await self._fresh(match_id)
        return self._snapshot(entry, access.authenticate(entry, token))

    async def legal_moves(self, match_id: str, token: str) -> LegalMoves:
        """The seat's legal moves now, each with an id valid at this version (empty if none)."""
        entry = await self._fresh(match_id)
        seat = access.require_seat(entry, token)
        record = entry.record
        moves: Sequence[Any] = ()
        if record.status == "running" and seat in entry.game.to_act(entry.state):
            moves = entry.legal_for(seat)
        listed = tuple(
            LegalMove(f"{record.version}.{i}", entry.game.label(move), move)
            for i, move in enumerate(moves)
        )
        return LegalMoves(entry.game, seat, record.version, listed)

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
    ) -> Submitted:
        """Play a move by id or as a typed payload; see the module docstring for retries."""
        requests.check_match_id(match_id)
        requests.check_move_choice(move_id, payload)
        requests.check_request_id(request_id)
        cached = self._cache.get(match_id)
        if cached is not None and self._overdue(cached):
            cached = None  # its clock ran out: _fresh enforces that first
        entry = cached or await self._fresh(match_id)
        fresh = cached is None
        lost_race_at = 0  # the version a commit found instead of ours, once a race is lost
        for _attempt in range(self.max_retries):
            seat: Seat | None = None
            try:
                seat = access.require_seat(entry, token)
                commit, state = planning.plan_move(
                    entry, seat, move_id, payload, expected_version, request_id, self
                )
            except (MatchError, GameError) as error:
                if not fresh:  # the cache may be behind another replica: look again, once
                    entry, fresh = await self._fresh(match_id), True
                    continue
                if request_id and seat is not None:  # a retry of a move that did apply?
                    first = await self.store.request_answer(match_id, seat, request_id)
                    if first is not None:
                        return await self._replayed(entry, seat, first)
                if lost_race_at and planning.no_longer_legal(error):
                    raise StaleVersion(
                        f"another move reached match {match_id} first (it is at version "
                        f"{lost_race_at} now) and yours is no longer possible there ({error}): "
                        "fetch the match and choose again"
                    ) from error
                raise
            result = await self.store.commit(match_id, entry.record.version, commit)
            if isinstance(result, Committed):
                record = _committed(entry.record, commit, result)
                done = Entry(record, entry.game, state)
                self._cache.put(done)
                if record.status == "finished":
                    await self.store.index(record, "running", "finished")
                return Submitted(self._snapshot(done, seat), commit.answer)
            if isinstance(result, Duplicate):
                return await self._replayed(entry, seat, result.first)
            entry, fresh = await self._after_conflict(match_id, result), True
            lost_race_at = entry.record.version
        raise StaleVersion(
            f"match {match_id} changed {self.max_retries} times while this move was tried: "
            "fetch it again and resubmit"
        )

    async def resign(self, match_id: str, token: str) -> Snapshot:
        """The seat leaves and loses; the match ends (ranks in the module docstring). A seat
        that already resigned (a retry after a lost answer) gets the finished match again."""
        entry = await self._fresh(match_id)
        for _attempt in range(self.max_retries):
            seat = access.require_seat(entry, token)
            if entry.record.seats[seat].resigned:
                await self._index_again(entry.record)
                return self._snapshot(entry, seat)
            if entry.record.status != "running":
                raise MatchNotRunning(planning.not_running(entry.record))
            done = await self._forfeit(entry, (seat,), timed_out=False)
            if isinstance(done, Entry):
                return self._snapshot(done, seat)
            entry = await self._after_conflict(match_id, done)
        raise StaleVersion(f"match {match_id} changed too often while resigning; try again")

    async def _forfeit(
        self, entry: Entry, losers: tuple[Seat, ...], *, timed_out: bool
    ) -> Entry | Conflict | Duplicate:
        """End the match with ``losers`` last, tied (a resignation, or a loss on time: every
        seat still to act when time ran out); one commit.

        The entry after it, or what the store answered instead (the version moved on)."""
        record = entry.record
        commit = planning.plan_forfeit(record, losers, timed_out=timed_out)
        result = await self.store.commit(record.match_id, record.version, commit)
        if not isinstance(result, Committed):
            return result
        record = replace(
            record,
            status="finished",
            seats=commit.seats or record.seats,
            outcome=commit.outcome,
            version=result.version,
            last_event_id=result.last_event_id,
            deadline_ms=0,
        )
        done = Entry(record, entry.game, entry.state)
        self._cache.put(done)
        await self.store.index(record, "running", "finished")
        return done

    # clocks

    def _overdue(self, entry: Entry) -> bool:
        record = entry.record
        return (
            record.status == "running"
            and record.deadline_ms > 0
            and self._now_ms() >= record.deadline_ms
        )

    async def _enforce(self, entry: Entry) -> Entry:
        """Apply the timeout policy to an overdue match; the entry after it (or after whoever
        enforced it first: a lost compare-and-set means another replica did).

        Every seat still to act at the deadline is late: all of them lose together, or each has
        its default move played, the clock restarting only after the last of them (until then
        each commit keeps the deadline that passed, so any replica carries on where one stopped).
        """
        match_id = entry.record.match_id
        owed: set[Seat] | None = None  # the seats late at the deadline, not yet dealt with
        for _attempt in range(self.max_retries):
            if not self._overdue(entry):
                return entry
            record, game = entry.record, entry.game
            late = tuple(s for s in game.to_act(entry.state) if owed is None or s in owed)
            if not late:
                return entry
            owed = set(late) if owed is None else owed
            seat = late[0]
            result: Conflict | Duplicate
            if record.timeout_policy == "default_move" and entry.legal_for(seat):
                commit, state = planning.plan_move(
                    entry, seat, f"{record.version}.0", None, 0, "", self
                )
                label = commit.answer
                commit = replace(
                    commit,
                    events=[event.timed_out(seat, label), *commit.events],
                )
                rest = owed - {seat}
                if commit.status is None and rest.intersection(game.to_act(state)):
                    # more late seats: the deadline stays passed until each has its move
                    commit = replace(commit, deadline_ms=record.deadline_ms, idle_ms=self._idle_ms)
                answer = await self.store.commit(match_id, record.version, commit)
                if isinstance(answer, Committed):
                    done = Entry(
                        replace(
                            _committed(record, commit, answer), deadline_ms=commit.deadline_ms or 0
                        ),
                        game,
                        state,
                    )
                    self._cache.put(done)
                    if done.record.status == "finished":
                        await self.store.index(done.record, "running", "finished")
                    log.info("default move on time out", match_id=match_id, seat=seat)
                    entry, owed = done, rest
                    continue
                result = answer
            else:
                forfeited = await self._forfeit(entry, late, timed_out=True)
                if isinstance(forfeited, Entry):
                    log.info("seats lost on time", match_id=match_id, seats=late)
                    return forfeited
                result = forfeited
            entry = await self._after_conflict(match_id, result)
        return entry

    async def sweep(self, limit: int = 10_000) -> int:
        """Enforce the clocks that ran out (of matches nobody reads) among the next ``limit``
        clocked matches; how many were enforced. Each sweep reads on from where the last one
        stopped, and starts over after the last: with more than ``limit`` clocked matches, the
        first ones (the oldest) must not be the only ones ever read."""
        now = self._now_ms()
        enforced = finished = 0
        found, cursor = await self.store.deadlines(limit, self._clocks_cursor)
        for match_id, deadline in found:
            if deadline and deadline <= now:
                try:
                    entry = await self._fresh(match_id)  # enforces it, or finds it enforced
                except MatchError:
                    continue
                except StoreUnavailable:
                    raise  # the store is down: the next sweep tries this page again
                except Exception:  # a plugin bug or a damaged record: the other clocks go on
                    log.exception("clock sweep skipped a match", match_id=match_id)
                    continue
                enforced += 1
                if entry.record.status == "finished":
                    finished += 1
        # A finished match left the clocks index, so the matches after it moved up: without
        # this, the next page would start past as many of them as this sweep finished.
        self._clocks_cursor = max(0, cursor - finished) if cursor else 0
        return enforced

    async def run_sweeper(self) -> None:
        """Sweep every ``sweep_seconds`` (jittered, so replicas spread out) until closing."""
        jitter = random.Random()
        while not self.closing and self.sweep_seconds > 0:
            await asyncio.sleep(self.sweep_seconds * (0.5 + jitter.random()))
            try:
                await self.sweep()
            except StoreError as error:
                log.warning("clock sweep failed", error=str(error))
            except Exception:  # a plugin bug must not stop the clocks of every other match
                log.exception("clock sweep failed")

    # watching

    async def watch(
        self, match_id: str, token: str = "", after_event_id: str = ""
    ) -> AsyncIterator[WatchBatch]:
        """Batches of events after ``after_event_id`` ("": from the start), as they happen.

        Each batch carries the match as the watcher may see it. Ends once the match is finished
        and its last event delivered, or when the process is closing.

        A waiting watch holds a store connection: beyond ``max_watches`` at once, a new one is
        refused (:class:`LimitExceeded`), so that moves and reads still find connections.
        """
        requests.check_event_id(after_event_id)
        if self.max_watches and self.watching >= self.max_watches:
            raise LimitExceeded(
                f"this server already serves {self.watching} watches, the most it allows: "
                "retry in a moment (another replica may have room), or poll GetMatch"
            )
        self.watching += 1
        try:
            async with contextlib.aclosing(self._watch(match_id, token, after_event_id)) as batches:
                async for batch in batches:
                    yield batch
        finally:
            self.watching -= 1

    async def _watch(
        self, match_id: str, token: str, after_event_id: str
    ) -> AsyncGenerator[WatchBatch, None]:
        entry = await self._fresh(match_id)
        seat = access.authenticate(entry, token)
        after = after_event_id
        looked = self._clock()
        while not self.closing:
            record = entry.record
            if record.status == "finished" and after and not _newer(record.last_event_id, after):
                return
            finished = record.status == "finished"  # nothing more will come: do not wait
            events = await self.store.read_events(
                match_id,
                after,
                block_ms=0 if finished else self.watch_block_ms,
                count=100,
                label_of=label_of(entry.game),
            )
            if not events:
                if finished:
                    return
                # Quiet: now and then make sure the match still exists and its clock is kept.
                if self._overdue(entry) or self._clock() - looked >= _WATCH_RECHECK_SECONDS:
                    entry, looked = await self._fresh(match_id), self._clock()
                continue
            entry, looked = await self._fresh(match_id), self._clock()
            yield WatchBatch(tuple(events), self._snapshot(entry, seat))
            after = events[-1].event_id

    # replay

    async def replay(self, match_id: str) -> ReplayReport:
        """Apply the stored log again from the seed and compare with the stored state."""
        entry = await self._fresh(match_id)
        record, game = entry.record, entry.game
        log_entries = [json.loads(raw) for raw in await self.store.read_log(match_id)]
        try:
            state, resigned = self._rebuild(record, game, log_entries, None)
        except GameError as error:
            return ReplayReport(
                match_id, False, len(log_entries), f"the log does not apply: {error}"
            )
        moves = sum(1 for e in log_entries if "m" in e)
        if game.encode_state(state) != record.state:
            return ReplayReport(
                match_id,
                False,
                moves,
                f"{moves} moves replayed; the state differs from the stored one",
            )
        if resigned is None and record.outcome is not None:
            outcome = game.outcome(state)
            if outcome is None or planning.outcome_data(outcome) != record.outcome:
                return ReplayReport(
                    match_id, False, moves, f"{moves} moves replayed; the outcome differs"
                )
        return ReplayReport(
            match_id,
            True,
            moves,
            f"{moves} moves replayed from seed {record.seed}: the stored state (version "
            f"{record.version}, {record.status}) is reproduced",
        )

    # internals

    async def _fresh(self, match_id: str) -> Entry:
        """The current entry: one round trip, and no decoding when the cached version is current."""
        requests.check_match_id(match_id)
        cached = self._cache.get(match_id)
        record = await self.store.load(match_id, cached.record.version if cached else None)
        if record is None:
            await self._gone(match_id)
        if record is UNCHANGED and cached is not None:
            entry = cached
        else:
            assert isinstance(record, MatchRecord)
            entry = self._remember(record)
        if self._overdue(entry):
            entry = await self._enforce(entry)
        return entry

    async def _gone(self, match_id: str) -> None:
        """Raise MatchExpired or MatchNotFound for a match the store does not have."""
        self._cache.drop(match_id)
        if await self.store.existed(match_id):
            idle = f"{self.idle_seconds} " if self.idle_seconds else ""
            raise MatchExpired(
                f"match {match_id} expired after {idle}idle seconds (nobody moved): it is gone; "
                "create a new match"
            )
        raise MatchNotFound(
            f"no match {match_id!r}: check the id (CreateMatch and ListMatches give them)"
        )

    def _remember(self, record: MatchRecord) -> Entry:
        game = self.game(record.game)
        entry = Entry(record, game, game.decode_state(record.state))
        self._cache.put(entry)
        return entry

    async def _index_again(self, record: MatchRecord) -> None:
        """Index (and, finished, fold) the match as its status says, for a retried request: the
        first call wrote the match, then may have failed before its indexes. Idempotent."""
        await self.store.index(record, None, record.status)

    async def _after_conflict(self, match_id: str, result: Conflict | Duplicate) -> Entry:
        if isinstance(result, Duplicate):
            raise MatchNotFound(f"match {match_id!r} disappeared from the store")
        if result.current is None:
            await self._gone(match_id)
            raise AssertionError("unreachable")  # _gone always raises
        return self._remember(result.current)

    def _snapshot(self, entry: Entry, seat: Seat | None) -> Snapshot:
        running = entry.record.status == "running"
        to_act = tuple(entry.game.to_act(entry.state)) if running else ()
        return Snapshot(entry.record, entry.game, seat, entry.game.view(entry.state, seat), to_act)

    async def _replayed(self, entry: Entry, seat: Seat, first: Answer) -> Submitted:
        """The first answer to a repeated request id, rebuilt at the version it produced."""
        entry = await self._fresh(entry.record.match_id)
        await self._index_again(entry.record)
        if entry.record.version != first.version:
            log_entries = [json.loads(r) for r in await self.store.read_log(entry.record.match_id)]
            state, _ = self._rebuild(entry.record, entry.game, log_entries, first.version)
            outcome = entry.game.outcome(state)
            record = replace(
                entry.record,
                version=first.version,
                last_event_id=first.last_event_id,
                status="finished" if outcome else "running",
                outcome=planning.outcome_data(outcome) if outcome else None,
                # A resignation ends a match, so none had come by a move's version.
                seats=tuple(replace(seat, resigned=False) for seat in entry.record.seats),
            )
            entry = Entry(record, entry.game, state)
        return Submitted(self._snapshot(entry, seat), first.answer, replayed=True)

    def _rebuild(
        self,
        record: MatchRecord,
        game: Game[Any, Any, Any],
        log_entries: Sequence[Mapping[str, Any]],
        upto_version: int | None,
    ) -> tuple[Any, Seat | None]:
        """The state after the logged moves up to a version (all when None), and who resigned."""
        state = game.setup(len(record.seats), record.seed, record.options)
        resigned: Seat | None = None
        for item in log_entries:
            if upto_version is not None and item["v"] > upto_version:
                break
            if item.get("r") or item.get("t"):  # resigned, or lost on time
                resigned = item["s"]
                continue
            message = game.move_message()
            message.ParseFromString(base64.b64decode(item["m"]))
            state = game.apply(state, item["s"], game.move_from_proto(message))
        return state, resigned


def _committed(record: MatchRecord, commit: Commit, result: Committed) -> MatchRecord:
    """The record after a move's ``commit`` (from :meth:`Matches._plan_move`) was written."""
    return _evolved(
        record,
        state=commit.state or b"",
        status=commit.status or record.status,
        outcome=commit.outcome,
        deadline_ms=record.deadline_ms if commit.deadline_ms is None else commit.deadline_ms,
        version=result.version,
        last_event_id=result.last_event_id,
    )


def _evolved(record: MatchRecord, **changes: Any) -> MatchRecord:
    """``dataclasses.replace(record, **changes)`` for the path of every move, at a quarter of the
    CPU: the frozen record's fields are copied as its instance dict (``replace`` goes through
    ``fields()`` and ``__init__``, which sets each of the 15 through ``object.__setattr__``).
    MatchRecord has no ``__post_init__`` to skip; ``changes`` must name its fields."""
    evolved = object.__new__(MatchRecord)
    values = vars(evolved)
    values.update(vars(record))
    values.update(changes)
    return evolved


def _newer(event_id: str, than: str) -> bool:
    def key(text: str) -> tuple[int, int]:
        ms, _, seq = text.partition("-")
        return int(ms or 0), int(seq or 0)

    return key(event_id) > key(than)


def label_of(game: Game[Any, Any, Any]) -> Callable[[bytes], str]:
    """A logged move's label from its bytes (what its move event says): for
    :meth:`serai.store.Store.read_events`, which may rebuild a finished match's move labels."""

    def label(raw: bytes) -> str:
        message = game.move_message()
        message.ParseFromString(raw)
        return game.label(game.move_from_proto(message))

    return label
