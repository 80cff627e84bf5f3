"""Match records for tests of the store alone (no service, no game rules run)."""

from __future__ import annotations

from serai.store import MatchRecord, SeatRecord


def running_record(match_id: str, state: bytes = b"state") -> MatchRecord:
    """A record of a running two-seat match of the tiny game."""
    return MatchRecord(
        match_id=match_id,
        game="tiny",
        options={},
        seed=1,
        created_ms=1,
        status="running",
        version=0,
        seats=(SeatRecord("a", True), SeatRecord("b", True)),
        state=state,
    )
