"""Replaying a match: its state rebuilt from the seed and the log, to check the stored one (an
audit) or to answer a repeated request at the version it produced.

The log holds one :class:`serai.store.LogEntry` per change: the version it produced, the seat,
and the move's bytes, or how the seat lost the match there (resigned, or timed out).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from serai.game import Game, GameError, Seat
from serai.matches import planning
from serai.matches.cache import Entry
from serai.matches.entries import Entries
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
