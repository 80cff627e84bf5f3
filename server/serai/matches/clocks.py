"""Turn clocks: the deadline each change stores, and who enforces it once it has passed.

A match created with ``move_seconds`` stores a deadline with every change that leaves it running.
Every seat still to act after it loses (ranked last, tied, as if it resigned) or has its first
legal move played, as ``timeout_policy`` says. Any replica may enforce it: the one that reads the
match late (every read goes through :meth:`Clocks.current`) or whose sweeper (:meth:`Clocks.sweep`,
every ``sweep_seconds``) finds it first. The enforcing commit goes through the same
compare-and-set as a move, so it happens once.

Deadlines are taken on the store's clock (Redis ``TIME``), not this replica's: each process
measures how far its own clock is from the store's (:meth:`Clocks.follow_store_clock`, when its
sweeper starts and every :data:`FOLLOW_SECONDS` after) and corrects by it, so that a replica
whose clock is a minute off neither forfeits a seat early nor lets a clock run a minute long.

A match created with ``bank_seconds`` too gives each seat a time bank, spent once a move takes
longer than ``move_seconds`` (as in correspondence chess's "days per move plus a reserve"): the
deadline of a turn is ``move_seconds`` plus the bank of the seat to act (with several seats to act,
the largest of theirs, so that none loses before its own bank is spent), and when the seat moves,
what is left of its bank is the time that was left to the deadline, at most the bank it had. The
banks are public, as a chess clock is.

``idle_seconds`` lets the store drop an unfinished match nobody changed for that long, counted
from the turn clock's deadline when there is one, so that a match never expires while a seat
still has time to move.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import structlog

from serai.game import Seat
from serai.matches import events as event
from serai.matches import planning
from serai.matches.cache import Entry
from serai.matches.entries import Change, Entries
from serai.matches.errors import MatchError
from serai.metrics import CLOCK_EXPIRIES, CLOCK_SKEW
from serai.store import Commit, MatchRecord, SeatRecord, StoreError, StoreUnavailable

log = structlog.get_logger("serai.matches")

FOLLOW_SECONDS = 30.0  # how often a process measures its clock against the store's again
SKEW_WARNING_MS = 1000  # a replica off the store's clock by more than this is said in the log


class Clocks:
    """The turn clocks of every match this process reads, and the sweeper that reads the rest."""

    def __init__(
        self,
        entries: Entries,
        clock: Callable[[], float],
        *,
        idle_seconds: int,
        sweep_seconds: float,
    ) -> None:
        self.entries = entries
        self.clock = clock
        self.sweep_seconds = sweep_seconds
        self.closing = False  # the sweeper stops when set
        self.idle_ms = idle_seconds * 1000
        self.offset_ms = 0  # the store's clock minus this one's, as last measured
        self._cursor = 0  # where the next sweep reads on (see sweep)

    def now_ms(self) -> int:
        """Now on the store's clock: this process's, corrected by the last measured offset."""
        return int(self.clock() * 1000) + self.offset_ms

    async def follow_store_clock(self) -> int:
        """Measure the store's clock against this process's (half a round trip's precision) and
        take deadlines on it from now on; the offset in ms. An offset over a second is logged,
        each time it is measured, with what to do about it."""
        before = self.clock()
        store_ms = await self.entries.store.time_ms()
        after = self.clock()
        offset = store_ms - int((before + after) * 500)
        self.offset_ms = offset
        CLOCK_SKEW.set(-offset / 1000)
        if abs(offset) > SKEW_WARNING_MS:
            log.warning(
                "this replica's clock is off the store's",
                skew_seconds=round(-offset / 1000, 3),
                fix="synchronize its clock (NTP); deadlines are taken on the store's meanwhile",
            )
        return offset

    def deadline(
        self,
        record: MatchRecord,
        running: bool,
        to_act: tuple[Seat, ...] = (),
        seats: tuple[SeatRecord, ...] | None = None,
    ) -> int | None:
        """The deadline to store with a change (None: the match has no clock): ``move_seconds``
        from now, plus the largest time bank among the seats ``to_act`` after it (their records
        in ``seats``, else the record's)."""
        if not record.move_seconds:
            return None
        if not running:
            return 0
        banks = [(seats or record.seats)[seat].bank_ms for seat in to_act]
        return self.now_ms() + record.move_seconds * 1000 + max(banks, default=0)

    def idle_ms_with(self, record: MatchRecord, deadline: int | None) -> int:
        """The keys' time to live after a change: ``idle_seconds``, counted from the deadline
        when the change sets one, so that a match never expires inside the deadline it shows."""
        if not self.idle_ms or not deadline:
            return self.idle_ms
        return max(0, deadline - self.now_ms()) + self.idle_ms

    def spent(self, record: MatchRecord, mover: Seat) -> tuple[SeatRecord, ...] | None:
        """The seats with ``mover``'s bank after its move now: the time that was left to the
        deadline, at most the bank it had (None: the match has no time bank)."""
        if not record.bank_seconds:
            return None
        seats = list(record.seats)
        left = min(seats[mover].bank_ms, record.deadline_ms - self.now_ms())
        seats[mover] = replace(seats[mover], bank_ms=max(0, left))
        return tuple(seats)

    def overdue(self, entry: Entry) -> bool:
        record = entry.record
        return (
            record.status == "running"
            and record.deadline_ms > 0
            and self.now_ms() >= record.deadline_ms
        )

    def cached_at(self, match_id: str, version: int) -> Entry | None:
        """The cached entry of the match if it is at ``version`` and its clock has not run out,
        else None: the match at that version without a round trip (a version is one record, so
        the store's at that version is this one), e.g. after a commit this process made."""
        entry = self.entries.cache.get(match_id)
        if entry is None or entry.record.version != version or self.overdue(entry):
            return None
        return entry

    async def current(self, match_id: str) -> Entry:
        """The match now: loaded, and its clock enforced first when it ran out (this read may
        write)."""
        entry = await self.entries.load(match_id)
        if self.overdue(entry):
            entry = await self.enforce(entry)
        return entry

    async def enforce(self, entry: Entry) -> Entry:
        """Apply the timeout policy to an overdue match; the entry after it (or after whoever
        enforced it first: a lost compare-and-set means another replica did).

        Every seat still to act at the deadline is late: all of them lose together, or each has
        its default move played, the clock restarting only after the last of them (until then
        each commit keeps the deadline that passed, so any replica carries on where one stopped).
        """
        return await self.entries.change(entry, _Overdue(self))

    async def sweep(self, limit: int = 10_000) -> int:
        """Enforce the clocks that ran out (of matches nobody reads) among the next ``limit``
        clocked matches; how many were enforced. Each sweep reads on from where the last one
        stopped, and starts over after the last: with more than ``limit`` clocked matches, the
        first ones (the oldest) must not be the only ones ever read."""
        now = self.now_ms()
        enforced = finished = 0
        found, cursor = await self.entries.store.deadlines(limit, self._cursor)
        for match_id, deadline in found:
            if deadline and deadline <= now:
                try:
                    entry = await self.current(match_id)  # enforces it, or finds it enforced
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
        self._cursor = max(0, cursor - finished) if cursor else 0
        return enforced

    async def run_sweeper(self) -> None:
        """Until closing: follow the store's clock (every :data:`FOLLOW_SECONDS`, and first
        thing) and sweep every ``sweep_seconds`` (jittered, so replicas spread out; 0: no sweeps,
        as in all workers of ``serve --workers`` but one)."""
        jitter = random.Random()
        loop = asyncio.get_running_loop()
        followed: float | None = None
        while not self.closing:
            if followed is None or loop.time() - followed >= FOLLOW_SECONDS:
                try:
                    await self.follow_store_clock()
                    followed = loop.time()
                except StoreError as error:  # tried again after the next wait
                    log.warning("reading the store's clock failed", error=str(error))
            if self.sweep_seconds <= 0:
                await asyncio.sleep(FOLLOW_SECONDS if followed is not None else 1.0)
                continue
            await asyncio.sleep(self.sweep_seconds * (0.5 + jitter.random()))
            try:
                await self.sweep()
            except StoreError as error:
                log.warning("clock sweep failed", error=str(error))
            except Exception:  # a plugin bug must not stop the clocks of every other match
                log.exception("clock sweep failed")


class _Overdue(Change[Entry]):
    """The clock's change: one late seat's default move, or every late seat's loss, per commit."""

    __slots__ = ("clocks", "defaulted", "late", "owed", "rest")

    def __init__(self, clocks: Clocks) -> None:
        self.clocks = clocks
        self.owed: set[Seat] | None = None  # the seats late at the deadline, not yet dealt with
        self.late: tuple[Seat, ...] = ()  # the seats the planned commit deals with
        self.rest: set[Seat] = set()  # those still owed after it
        self.defaulted = False  # the planned commit is a default move, not a loss

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        clocks = self.clocks
        if not clocks.overdue(entry):
            return None
        record, game = entry.record, entry.game
        owed = self.owed
        late = tuple(s for s in game.to_act(entry.state) if owed is None or s in owed)
        if not late:
            return None
        if owed is None:
            self.owed = owed = set(late)
        seat = late[0]
        if record.timeout_policy == "default_move" and entry.legal_for(seat):
            commit, state = planning.plan_move(
                entry, seat, f"{record.version}.0", None, 0, "", clocks
            )
            commit = replace(commit, events=[event.timed_out(seat, commit.answer), *commit.events])
            rest = owed - {seat}
            if commit.status is None and rest.intersection(game.to_act(state)):
                # more late seats: the deadline stays passed until each has its move
                commit = replace(commit, deadline_ms=record.deadline_ms, idle_ms=clocks.idle_ms)
            self.late, self.rest, self.defaulted = (seat,), rest, True
            return commit, state
        self.late, self.defaulted = late, False
        if record.timeout_policy == "lose_or_cancel" and planning.barely_begun(record):
            return planning.plan_cancel(record, late), entry.state
        return planning.plan_forfeit(record, late, timed_out=True), entry.state

    def done(self, entry: Entry, commit: Commit) -> Entry | None:
        match_id = entry.record.match_id
        CLOCK_EXPIRIES.inc(len(self.late))
        if self.defaulted:
            log.info("default move on time out", match_id=match_id, seat=self.late[0])
            self.owed = self.rest
            return None  # on to the next late seat, while the deadline stands passed
        log.info("seats lost on time", match_id=match_id, seats=self.late)
        return entry

    async def settled(self, entry: Entry) -> Entry:
        return entry

    def exhausted(self, entry: Entry) -> Entry:
        return entry  # the next read carries on
