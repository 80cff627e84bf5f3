"""Replaying a match: its state rebuilt from the seed and the log, to check the stored one (an
audit), to answer a repeated request at the version it produced, or to show a finished match
step by step from a seat's view (the web client's replay viewer).

The log holds one :class:`serai.store.LogEntry` per change: the version it produced, the seat,
and the move's bytes, or how the seat lost the match there (resigned, or timed out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from serai.game import Game, GameError, Seat
from serai.matches import access, planning, transcripts
from serai.matches.cache import Entry
from serai.matches.entries import Entries
from serai.matches.errors import BadRequest, MatchNotRunning
from serai.matches.values import ReplayReport
from serai.store import LogEntry, MatchRecord


def rebuild(
    record: MatchRecord,
    game: Game[Any, Any, Any],
    log_entries: Sequence[LogEntry],
    upto_version: int | None,
) -> tuple[Any, Seat | None]:
    """The state after the logged moves up to a version (all when None), and who resigned."""
    state = game.setup(len(record.seats), record.seed, record.options)
    resigned: Seat | None = None
    for item in log_entries:
        if upto_version is not None and item.version > upto_version:
            break
        if item.ended is not None:  # resigned, or lost on time
            resigned = item.seat
            continue
        message = game.move_message()
        message.ParseFromString(item.move or b"")
        state = game.apply(state, item.seat, game.move_from_proto(message))
    return state, resigned


async def audit(entries: Entries, entry: Entry) -> ReplayReport:
    """Apply the stored log again from the seed and compare with the stored state (a finished
    match's from the archive once the store let it go)."""
    record, game = entry.record, entry.game
    match_id = record.match_id
    log_entries = await entries.read_log(record)
    try:
        state, resigned = rebuild(record, game, log_entries, None)
    except GameError as error:
        message = f"the log does not apply: {error}"
        return ReplayReport(match_id, False, len(log_entries), message, record.seed)
    moves = sum(1 for e in log_entries if e.ended is None)
    if game.encode_state(state) != record.state:
        return ReplayReport(
            match_id,
            False,
            moves,
            f"{moves} moves replayed; the state differs from the stored one",
            record.seed,
        )
    if resigned is None and record.outcome is not None:
        outcome = game.outcome(state)
        if outcome is None or planning.outcome_data(outcome) != record.outcome:
            message = f"{moves} moves replayed; the outcome differs"
            return ReplayReport(match_id, False, moves, message, record.seed)
    return ReplayReport(
        match_id,
        True,
        moves,
        f"{moves} moves replayed from the seed: the stored state (version {record.version}, "
        f"{record.status}) is reproduced",
        record.seed,
    )


@dataclass(frozen=True)
class Step:
    """One step of a finished match as a viewer saw it: the deal (version 0, no seat), then each
    logged move (``label``) or loss ("resigned", "ran out of time"), with the viewer's View
    message bytes after it."""

    version: int
    seat: Seat | None
    label: str
    view: bytes


@dataclass(frozen=True)
class Steps:
    """A finished match step by step for one viewer (None: a spectator), with what
    :func:`serai.matches.transcripts.verify` says of its transcript: the committed deal opens to
    the revealed seed and every move replays to its recorded hash."""

    record: MatchRecord
    game: Game[Any, Any, Any]
    viewer: Seat | None
    steps: tuple[Step, ...]
    check: transcripts.Verdict


_ENDED = {"resigned": "resigned", "timed_out": "ran out of time", "ended": "ended by the operator"}


def steps(
    record: MatchRecord,
    game: Game[Any, Any, Any],
    log_entries: Sequence[LogEntry],
    viewer: Seat | None,
) -> tuple[Step, ...]:
    """The views ``viewer`` had of the match, from the deal to its last logged step."""
    state = game.setup(len(record.seats), record.seed, record.options)
    made = [Step(0, None, "the deal", game.view_bytes(game.view(state, viewer)))]
    for item in log_entries:
        if item.ended is not None:
            label = _ENDED.get(item.ended, item.ended)
            if item.ended == "ended" and record.outcome:  # who ended it: the operator, or a seat
                label = str(record.outcome.get("summary") or label)
        else:
            message = game.move_message()
            message.ParseFromString(item.move or b"")
            move = game.move_from_proto(message)
            label = game.label(move)
            state = game.apply(state, item.seat, move)
        made.append(Step(item.version, item.seat, label, game.view_bytes(game.view(state, viewer))))
    return tuple(made)


async def steps_for_caller(
    entries: Entries, match_id: str, viewer: Seat | None, tenant: str | None
) -> Steps:
    """A finished match step by step, from any seat's view or a spectator's: once a match is
    over its transcript is anyone's (seed revealed), so every view is too; before, none is
    given (a seat's own views are its Watch)."""
    entry = await entries.load(match_id)
    access.check_tenant(entry, tenant)
    record, game = entry.record, entry.game
    if record.status != "finished":
        raise MatchNotRunning(
            f"match {match_id} is {record.status}: a replay is shown once the match is finished"
        )
    if viewer is not None and not 0 <= viewer < len(record.seats):
        raise BadRequest(f"match {match_id} has seats 0 to {len(record.seats) - 1}, not {viewer}")
    log_entries = await entries.read_log(record)
    document = transcripts.build(record, game, log_entries, None)
    check = transcripts.verify(document, {game.info.name: game})
    return Steps(record, game, viewer, steps(record, game, log_entries, viewer), check)
