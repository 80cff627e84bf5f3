"""The running phase of a match: moves, resignations, and the answer to a repeated move.

The hot path is :meth:`Moves.submit`: the decoded state of each match is cached in-process by
version, the move is checked and applied in Python, and one store commit (one Redis round trip)
writes it if the version is unchanged. When another replica moved first, the commit answers with
the fresh record; the move is tried again on it, and answers StaleVersion when it is no longer
legal there (or when it was chosen by id or with an ``expected_version``, which pin a version).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from serai.game import GameError, Seat
from serai.matches import access, planning, replay, requests
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.entries import Change, Entries
from serai.matches.errors import MatchError, MatchNotRunning, StaleVersion
from serai.matches.reading import snapshot
from serai.matches.values import PackedMove, Snapshot, Submitted
from serai.store import Answer, Commit, Committed, StoredEvent


class Moves:
    """SubmitMove, Resign, and the ends from outside the moves (an operator's, a seat's cancel)."""

    def __init__(self, entries: Entries, clocks: Clocks) -> None:
        self.entries = entries
        self.clocks = clocks
        self._current = clocks.current  # bound once: submit passes it on every move

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
        """Play a move by id or as a typed payload; see the module docstring for retries.
        ``tenant``: the caller's (see :func:`.access.check_tenant`; fixed for a match's life,
        so the cached entry tells it)."""
        requests.check_match_id(match_id)
        requests.check_move_choice(move_id, payload)
        requests.check_request_id(request_id)
        entries, clocks = self.entries, self.clocks
        move = _Move(self, token, move_id, payload, expected_version, request_id)
        cached = entries.cache.get(match_id)
        if cached is None or clocks.overdue(cached):  # current() enforces a clock that ran out
            entry = await clocks.current(match_id)
            if tenant is not None:
                access.check_tenant(entry, tenant)
            return await entries.change(entry, move)
        if tenant is not None:
            access.check_tenant(cached, tenant)
        return await entries.change(cached, move, self._current)

    async def resign(self, match_id: str, token: str, tenant: str | None = None) -> Snapshot:
        """The seat leaves and loses; the match ends (ranks in :mod:`.planning`). A seat that
        already resigned (a retry after a lost answer) gets the finished match again."""
        entry = await self.clocks.current(match_id)
        access.check_tenant(entry, tenant)
        return await self.entries.change(entry, _Resign(self, token))

    async def end(self, match_id: str) -> Snapshot:
        """An operator ends a running match, or cancels an open one (not yet started); see
        :func:`.planning.plan_end`."""
        entry = await self.clocks.current(match_id)
        return await self.entries.change(entry, _End(self))

    async def cancel(self, match_id: str, token: str, tenant: str | None = None) -> Snapshot:
        """A seat of an open match cancels it before it starts, as the operator's :meth:`end`
        does (no one wins, no rating); a retry after a lost answer gets the cancelled match
        again. A match that has started is FAILED_PRECONDITION (its seats resign instead)."""
        requests.check_match_id(match_id)
        entry = await self.clocks.current(match_id)
        access.check_tenant(entry, tenant)
        return await self.entries.change(entry, _Cancel(token))

    async def replayed(self, entry: Entry, seat: Seat, first: Answer) -> Submitted:
        """The first answer to a repeated request id, rebuilt at the version it produced."""
        entries = self.entries
        entry = await self.clocks.current(entry.record.match_id)
        await entries.index_again(entry.record)
        if entry.record.version != first.version:
            log_entries = await entries.read_log(entry.record)
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


class _Move(Change[Submitted]):
    """A SubmitMove through the compare-and-set loop."""

    __slots__ = (
        "after_event_id",
        "event_ids",
        "expected_version",
        "move_id",
        "moves",
        "payload",
        "request_id",
        "seat",
        "token",
    )

    def __init__(
        self,
        moves: Moves,
        token: str,
        move_id: str,
        payload: PackedMove | None,
        expected_version: int,
        request_id: str,
    ) -> None:
        self.moves = moves
        self.token = token
        self.move_id = move_id
        self.payload = payload
        self.expected_version = expected_version
        self.request_id = request_id
        self.seat: Seat | None = None  # the token's seat, once this attempt has found it
        self.after_event_id = ""  # the newest event of the version this attempt planned on
        self.event_ids: tuple[str, ...] = ()  # those its commit wrote

    def plan(self, entry: Entry) -> tuple[Commit, Any]:
        self.seat = None
        self.after_event_id = entry.record.last_event_id
        seat = self.seat = access.require_seat(entry, self.token)
        return planning.plan_move(
            entry,
            seat,
            self.move_id,
            self.payload,
            self.expected_version,
            self.request_id,
            self.moves.clocks,
        )

    def written(self, result: Committed) -> None:
        self.event_ids = result.event_ids

    def done(self, entry: Entry, commit: Commit) -> Submitted:
        ids, version = self.event_ids, entry.record.version
        events = (
            tuple(
                StoredEvent(event_id, version, new.kind, new.data)
                for event_id, new in zip(ids, commit.events, strict=True)
            )
            if len(ids) == len(commit.events)
            else ()
        )
        return Submitted(
            snapshot(entry, self.seat),
            commit.answer,
            events=events,
            after_event_id=self.after_event_id,
        )

    async def refused(
        self, entry: Entry, error: MatchError | GameError, lost_race_at: int
    ) -> Submitted:
        seat, request_id = self.seat, self.request_id
        match_id = entry.record.match_id
        if request_id and seat is not None:  # a retry of a move that did apply?
            first = await self.moves.entries.store.request_answer(match_id, seat, request_id)
            if first is not None:
                return await self.moves.replayed(entry, seat, first)
        if lost_race_at and planning.no_longer_legal(error):
            raise StaleVersion(
                f"another move reached match {match_id} first (it is at version "
                f"{lost_race_at} now) and yours is no longer possible there ({error}): "
                "fetch the match and choose again"
            ) from error
        raise error

    async def repeated(self, entry: Entry, first: Answer) -> Submitted:
        assert self.seat is not None  # the commit was planned for it
        return await self.moves.replayed(entry, self.seat, first)

    def exhausted(self, entry: Entry) -> Submitted:
        raise StaleVersion(
            f"match {entry.record.match_id} changed {self.moves.entries.max_retries} times while "
            "this move was tried: fetch it again and resubmit"
        )


class _Resign(Change[Snapshot]):
    """A Resign through the compare-and-set loop."""

    __slots__ = ("moves", "seat", "token")

    def __init__(self, moves: Moves, token: str) -> None:
        self.moves = moves
        self.token = token
        self.seat: Seat = 0

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        record = entry.record
        seat = self.seat = access.require_seat(entry, self.token)
        if record.seats[seat].resigned:
            return None  # a retry after a lost answer
        if record.status != "running":
            raise MatchNotRunning(planning.not_running(record))
        return planning.plan_forfeit(record, (seat,), timed_out=False), entry.state

    def done(self, entry: Entry, commit: Commit) -> Snapshot:
        return snapshot(entry, self.seat)

    async def settled(self, entry: Entry) -> Snapshot:
        await self.moves.entries.index_again(entry.record)
        return snapshot(entry, self.seat)

    def exhausted(self, entry: Entry) -> Snapshot:
        raise StaleVersion(
            f"match {entry.record.match_id} changed too often while resigning; try again"
        )


class _End(Change[Snapshot]):
    """An operator's end of a running (or open) match through the compare-and-set loop."""

    __slots__ = ("moves",)

    def __init__(self, moves: Moves) -> None:
        self.moves = moves

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        record = entry.record
        if record.status == "finished":
            raise MatchNotRunning(planning.not_running(record))
        return planning.plan_end(record), entry.state

    def done(self, entry: Entry, commit: Commit) -> Snapshot:
        return snapshot(entry, None)

    async def settled(self, entry: Entry) -> Snapshot:
        return snapshot(entry, None)

    def exhausted(self, entry: Entry) -> Snapshot:
        raise StaleVersion(f"match {entry.record.match_id} changed too often while ending it")


class _Cancel(Change[Snapshot]):
    """A seat's cancel of its open match through the compare-and-set loop."""

    __slots__ = ("seat", "token")

    def __init__(self, token: str) -> None:
        self.token = token
        self.seat: Seat = 0

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        record = entry.record
        seat = self.seat = access.require_seat(entry, self.token)
        if record.status == "open":
            return planning.plan_end(record, by=seat), entry.state
        if record.status == "finished" and (record.outcome or {}).get("cancelled"):
            return None  # a retry after a lost answer (or the operator cancelled it first)
        raise MatchNotRunning(
            f"match {record.match_id} has started: only a match waiting for its players can be "
            "cancelled (resign instead)"
            if record.status == "running"
            else planning.not_running(record)
        )

    def done(self, entry: Entry, commit: Commit) -> Snapshot:
        return snapshot(entry, self.seat)

    async def settled(self, entry: Entry) -> Snapshot:
        return snapshot(entry, self.seat)

    def exhausted(self, entry: Entry) -> Snapshot:
        raise StaleVersion(f"match {entry.record.match_id} changed too often while cancelling it")
