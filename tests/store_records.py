"""Match records for tests of the store alone (no service, no game rules run)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from serai.store import LogEntry, MatchRecord, SeatRecord


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


def log_items(entries: Sequence[LogEntry]) -> list[dict[str, Any]]:
    """Log entries as the JSON lines serai once kept them in: ``{"v": version, "s": seat}`` with
    ``"m"`` (the move's bytes, base64), ``"r": 1`` (resigned) or ``"t": 1`` (timed out)."""
    items: list[dict[str, Any]] = []
    for e in entries:
        item: dict[str, Any] = {"v": e.version, "s": e.seat}
        if e.ended is None:
            item["m"] = base64.b64encode(e.move or b"").decode()
        else:
            item["r" if e.ended == "resigned" else "t"] = 1
        items.append(item)
    return items
