"""An archived match as one stored value: JSON (format 1) compressed with raw deflate, so that any
tool can read an archive with zlib and a JSON parser, whatever holds it (SQLite or PostgreSQL).

Not Redis's folded form (serai.store.redis.folding): that one is Redis's layout (a hash cut into
64-byte pieces, an archive string of events and request answers, rebuilt labels) and only the
Redis store reads it; the archive keeps what outlives Redis (the record and the move log) in a
form of its own, as the in-memory store would give it too. A Jaipur match of ~100 moves takes
about 1 KiB.

The document::

    {"format": 1,
     "record": {"match_id": ..., "game": ..., "options": {...}, "seed": 7, "created_ms": ...,
                "status": "finished", "version": 112, "seats": [{"name": ..., "joined": true,
                "resigned": false, "token_hash": ..., "join_id": ..., "sealed_token": ...,
                "entropy": <hex>, "player": ..., "bank_ms": 0}, ...], "state": <base64>,
                "outcome": {...}, "last_event_id": ..., "client_id": ..., "move_seconds": 0,
                "timeout_policy": "lose", "deadline_ms": 0, "bank_seconds": 0,
                "seed_chosen": false,
                "server_seed": <hex>, "tenant": ...},
     "log": [[version, seat, <base64 move> or null, "resigned" | "timed_out" | "ended" | null],
             ...]}
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import fields, replace
from typing import Any

from serai.archive import ArchivedMatch, ArchiveError
from serai.store import LogEntry, MatchRecord, SeatRecord

FORMAT = 1


def encode(match: ArchivedMatch) -> bytes:
    """The stored value of ``match``."""
    record: dict[str, Any] = {}
    for spec in fields(MatchRecord):
        value = getattr(match.record, spec.name)
        if spec.name == "state":
            value = base64.b64encode(value).decode()
        elif spec.name == "server_seed":
            value = value.hex()
        elif spec.name == "seats":
            value = [_seat(seat) for seat in value]
        elif spec.name == "options" or (spec.name == "outcome" and value is not None):
            value = dict(value)
        record[spec.name] = value
    log = [
        [
            entry.version,
            entry.seat,
            None if entry.move is None else base64.b64encode(entry.move).decode(),
            entry.ended,
        ]
        for entry in match.log
    ]
    text = json.dumps({"format": FORMAT, "record": record, "log": log}, separators=(",", ":"))
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    return deflate.compress(text.encode()) + deflate.flush()


def _seat(seat: SeatRecord) -> dict[str, Any]:
    values = {spec.name: getattr(seat, spec.name) for spec in fields(SeatRecord)}
    values["entropy"] = seat.entropy.hex()
    return values


def decode(raw: bytes, archived_ms: int, *, with_state: bool = True) -> ArchivedMatch:
    """The match whose stored value is ``raw``; without its state (and log) for listings."""
    try:
        document = json.loads(zlib.decompress(raw, -15))
        if document.get("format") != FORMAT:
            raise ArchiveError(
                f"an archived match of format {document.get('format')!r}: this serai reads "
                f"format {FORMAT}; upgrade serai"
            )
        values = dict(document["record"])
        values["state"] = base64.b64decode(values["state"]) if with_state else b""
        values["server_seed"] = bytes.fromhex(values["server_seed"])
        values["seats"] = tuple(
            SeatRecord(**{**seat, "entropy": bytes.fromhex(seat["entropy"])})
            for seat in values["seats"]
        )
        record = MatchRecord(**values)
        log: tuple[LogEntry, ...] = ()
        if with_state:
            log = tuple(
                LogEntry(version, seat, None if move is None else base64.b64decode(move), ended)
                for version, seat, move, ended in document["log"]
            )
    except ArchiveError:
        raise
    except (ValueError, KeyError, TypeError, zlib.error) as error:
        raise ArchiveError(f"an archived match that does not decode: {error}") from error
    return ArchivedMatch(record, log, archived_ms)


def listed(raw: bytes, archived_ms: int) -> MatchRecord:
    """The record of a stored value without its state, as listings give it."""
    return replace(decode(raw, archived_ms, with_state=False).record, state=b"")
