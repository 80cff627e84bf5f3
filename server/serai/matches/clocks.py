"""Turn clocks: the deadline each change stores, and who enforces it once it has passed.

A match created with ``move_seconds`` stores a deadline with every change that leaves it running.
Every seat still to act after it loses (ranked last, tied, as if it resigned) or has its first
legal move played, as ``timeout_policy`` says. Any replica may enforce it: the one that reads the
match late (every read goes through :meth:`Clocks.current`) or whose sweeper (:meth:`Clocks.sweep`,
every ``sweep_seconds``) finds it first. The enforcing commit goes through the same
compare-and-set as a move, so it happens once.

``idle_seconds`` lets the store drop an unfinished match nobody changed for that long, counted
from the turn clock's deadline when there is one, so that a match never expires while a seat
still has time to move.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import replace

import structlog

from serai.game import Seat
from serai.matches import events as event
from serai.matches import planning
from serai.matches.cache import Entry
from serai.matches.entries import Entries, record_after
from serai.matches.errors import MatchError
from serai.store import Committed, Conflict, Duplicate, MatchRecord, StoreError, StoreUnavailable

log = structlog.get_logger("serai.matches")


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
        self._idle_ms = idle_seconds * 1000
        self._cursor = 0  # where the next sweep reads on (see sweep)

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def deadline(self, record: MatchRecord, running: bool) -> int | None:
        """The deadline to store with a change (None: the match has no clock)."""
        if not record.move_seconds:
            return None
        return self.now_ms() + record.move_seconds * 1000 if running else 0

    def idle_ms_with(self, record: MatchRecord, deadline: int | None) -> int:
        """The keys' time to live after a change: ``idle_seconds``, counted from the deadline
        when the change sets one (``move_seconds`` from now), so that a match never expires
        inside the deadline it shows."""
        if not self._idle_ms or not deadline:
            return self._idle_ms
        return record.move_seconds * 1000 + self._idle_ms

    def overdue(self, entry: Entry) -> bool:
        record = entry.record
        return (
            record.status == "running"
            and record.deadline_ms > 0
            and self.now_ms() >= record.deadline_ms
        )

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
        entries = self.entries
        match_id = entry.record.match_id
        owed: set[Seat] | None = None  # the seats late at the deadline, not yet dealt with
        for _attempt in range(entries.max_retries):
            if not self.overdue(entry):
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
                commit = replace(commit, events=[event.timed_out(seat, label), *commit.events])
                rest = owed - {seat}
                if commit.status is None and rest.intersection(game.to_act(state)):
                    # more late seats: the deadline stays passed until each has its move
                    commit = replace(commit, deadline_ms=record.deadline_ms, idle_ms=self._idle_ms)
                answer = await entries.store.commit(match_id, record.version, commit)
                if isinstance(answer, Committed):
                    done = Entry(record_after(record, commit, answer), game, state)
                    entries.cache.put(done)
                    if done.record.status == "finished":
                        await entries.store.index(done.record, "running", "finished")
                    log.info("default move on time out", match_id=match_id, seat=seat)
                    entry, owed = done, rest
                    continue
                result = answer
            else:
                forfeited = await entries.forfeit(entry, late, timed_out=True)
                if isinstance(forfeited, Entry):
                    log.info("seats lost on time", match_id=match_id, seats=late)
                    return forfeited
                result = forfeited
            entry = await entries.after_conflict(match_id, result)
        return entry

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
