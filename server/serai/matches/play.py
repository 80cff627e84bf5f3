"""The running phase of a match: moves, resignations, and the answer to a repeated move.

The hot path is :meth:`Play.submit`: the decoded state of each match is cached in-process by
version, the move is checked and applied in Python, and one store commit (one Redis round trip)
writes it if the version is unchanged. When another replica moved first, the commit answers with
the fresh record; the move is tried again on it, and answers StaleVersion when it is no longer
legal there (or when it was chosen by id or with an ``expected_version``, which pin a version).
"""

from __future__ import annotations

from dataclasses import replace

from serai.game import GameError, Seat
from serai.matches import access, planning, replay, requests
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.entries import Entries, record_after
from serai.matches.errors import MatchError, MatchNotRunning, StaleVersion
from serai.matches.reading import snapshot
from serai.matches.values import PackedMove, Snapshot, Submitted
from serai.store import Answer, Committed, Duplicate


class Play:
    """SubmitMove and Resign."""

    def __init__(self, entries: Entries, clocks: Clocks) -> None:
        self.entries = entries
        self.clocks = clocks

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
        entries, clocks = self.entries, self.clocks
        cached = entries.cache.get(match_id)
        if cached is not None and clocks.overdue(cached):
            cached = None  # its clock ran out: current() enforces that first
        entry = cached or await clocks.current(match_id)
        fresh = cached is None
        lost_race_at = 0  # the version a commit found instead of ours, once a race is lost
        for _attempt in range(entries.max_retries):
            seat: Seat | None = None
            try:
                seat = access.require_seat(entry, token)
                commit, state = planning.plan_move(
                    entry, seat, move_id, payload, expected_version, request_id, clocks
                )
            except (MatchError, GameError) as error:
                if not fresh:  # the cache may be behind another replica: look again, once
                    entry, fresh = await clocks.current(match_id), True
                    continue
                if request_id and seat is not None:  # a retry of a move that did apply?
                    first = await entries.store.request_answer(match_id, seat, request_id)
                    if first is not None:
                        return await self.replayed(entry, seat, first)
                if lost_race_at and planning.no_longer_legal(error):
                    raise StaleVersion(
                        f"another move reached match {match_id} first (it is at version "
                        f"{lost_race_at} now) and yours is no longer possible there ({error}): "
                        "fetch the match and choose again"
                    ) from error
                raise
            result = await entries.store.commit(match_id, entry.record.version, commit)
            if isinstance(result, Committed):
                record = record_after(entry.record, commit, result)
                done = Entry(record, entry.game, state)
                entries.cache.put(done)
                if record.status == "finished":
                    await entries.store.index(record, "running", "finished")
                return Submitted(snapshot(done, seat), commit.answer)
            if isinstance(result, Duplicate):
                return await self.replayed(entry, seat, result.first)
            entry, fresh = await entries.after_conflict(match_id, result), True
            lost_race_at = entry.record.version
        raise StaleVersion(
            f"match {match_id} changed {entries.max_retries} times while this move was tried: "
            "fetch it again and resubmit"
        )

    async def resign(self, match_id: str, token: str) -> Snapshot:
        """The seat leaves and loses; the match ends (ranks in :mod:`.planning`). A seat that
        already resigned (a retry after a lost answer) gets the finished match again."""
        entries = self.entries
        entry = await self.clocks.current(match_id)
        for _attempt in range(entries.max_retries):
            seat = access.require_seat(entry, token)
            if entry.record.seats[seat].resigned:
                await entries.index_again(entry.record)
                return snapshot(entry, seat)
            if entry.record.status != "running":
                raise MatchNotRunning(planning.not_running(entry.record))
            done = await entries.forfeit(entry, (seat,), timed_out=False)
            if isinstance(done, Entry):
                return snapshot(done, seat)
            entry = await entries.after_conflict(match_id, done)
        raise StaleVersion(f"match {match_id} changed too often while resigning; try again")

    async def replayed(self, entry: Entry, seat: Seat, first: Answer) -> Submitted:
        """The first answer to a repeated request id, rebuilt at the version it produced."""
        entries = self.entries
        entry = await self.clocks.current(entry.record.match_id)
        await entries.index_again(entry.record)
        if entry.record.version != first.version:
            log_entries = await replay.read_log(entries.store, entry.record.match_id)
            state, _ = replay.rebuild(entry.record, entry.game, log_entries, first.version)
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
        return Submitted(snapshot(entry, seat), first.answer, replayed=True)
