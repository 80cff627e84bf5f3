"""Folding a finished match into two keys, its record and one archive string: a Jaipur match of
200 moves then takes about 3 KiB instead of about 7 KiB.

A finished match is folded once its last events are committed (indexes.py, with FOLD_READ_SCRIPT
and FOLD_SCRIPT of scripts.py; one more round trip for the finishing move, once per match). Its
record stays a hash, but each value longer than _PIECE bytes is cut into pieces, "<name>~0",
"<name>~1", ..., listed in the field "~" ("<name> <pieces> ..."), so that Redis keeps the hash as
a listpack (a hash with one value over hash-max-listpack-value, 64 bytes by default, is a hash
table, about twice the size). Its events (same ids; move labels rebuilt from the log when read),
log and remembered request answers (each seat's REQUEST_WINDOW latest, as a running match keeps
them: a retry of any of them still gets its first answer) go into the archive string (unfold),
and its log, stream and requests keys are deleted.

Older forms are still read: an archive folded when only each seat's latest answer was kept; a
finished match archived by earlier versions of serai (an archive of events only, starting 0x01
or 0x02, with its log list and requests hash kept) or never archived (its stream kept); indexing
such a match as finished again folds it. Replicas of a version before folding do not read a
folded match: its record has no ``seats`` field, which they report as a damaged record (an
error, never a wrong answer); run one version.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from serai.store import REQUEST_WINDOW, StoreError
from serai.store.redis.encoding import (
    DATA_SEAT_FROM_LOG,
    DATA_SEAT_LABEL,
    KIND_CODES,
    PACKED_MOVE,
    SUMMARY_FIELDS,
    ArchivedEvent,
    pack_events,
    pairs,
    read_varint,
    text,
    unpack_archive,
    unpack_events,
    varint,
)

FOLDED = b"\x03"
_PIECE = 64
_PIECES_FIELD = "~"


class _Folded(NamedTuple):
    events: list[ArchivedEvent]
    log: list[bytes]  # the stored (compact) entries
    answers: list[tuple[int, bytes]]  # (seat, "request_id\nversion\nlast_event_id\nanswer")


def _cut_record(fields: Mapping[str, bytes]) -> list[bytes | str]:
    """HSET arguments for ``fields``, each value longer than _PIECE bytes cut into pieces."""
    args: list[bytes | str] = []
    cut: list[str] = []
    for name, value in fields.items():
        if len(value) <= _PIECE or name == _PIECES_FIELD:
            args += [name, value]
            continue
        pieces = range(0, len(value), _PIECE)
        cut += [name, str(len(pieces))]
        for i, at in enumerate(pieces):
            args += [f"{name}~{i}", value[at : at + _PIECE]]
    if cut:
        args += [_PIECES_FIELD, " ".join(cut)]
    return args


def _pieces(stored: Mapping[str, bytes | None]) -> list[tuple[str, list[str]]]:
    """(name, its piece fields) of each value cut into pieces and not also stored whole."""
    marker = stored.get(_PIECES_FIELD)
    if not marker:
        return []
    words = text(marker).split()
    return [
        (name, [f"{name}~{i}" for i in range(int(count))])
        for name, count in zip(words[::2], words[1::2], strict=True)
        if stored.get(name) is None
    ]


def joined(stored: Mapping[str, bytes | None]) -> Mapping[str, bytes | None]:
    """``stored`` with each value whose pieces it holds put together again."""
    cut = _pieces(stored)
    if not cut:
        return stored
    fields = dict(stored)
    for name, names in cut:
        pieces = [stored.get(piece) for piece in names]
        if all(piece is not None for piece in pieces):
            fields[name] = b"".join(pieces)  # type: ignore[arg-type]
    return fields


def missing_pieces(stored: Mapping[str, bytes | None]) -> list[str]:
    """The piece fields of ``stored``'s summary values that it does not hold yet."""
    return [
        piece
        for name, names in _pieces(stored)
        if name in SUMMARY_FIELDS
        for piece in names
        if stored.get(piece) is None
    ]


def fold(reply: Sequence[Any]) -> tuple[bytes, list[bytes | str]]:
    """(the record's version, the rest of FOLD_SCRIPT's arguments) from FOLD_READ_SCRIPT's reply."""
    flat, log, stream, requests, old = reply
    record = pairs(flat)
    if stream:
        events: list[ArchivedEvent] = []
        for event_id, flat_event in stream:
            stored = pairs(flat_event)
            events.append((text(event_id), int(stored["v"]), stored["k"], stored["d"]))
    else:
        events = unpack_archive(old) if old else []
    mover: dict[int, int] = {}  # version -> the seat whose move the log holds at it
    for entry in log:
        if entry[:1] == PACKED_MOVE:
            version, at = read_varint(entry, 1)
            mover[version], _ = read_varint(entry, at)
    move = KIND_CODES["move"]
    for i, (event_id, version, kind, data) in enumerate(events):
        if kind == move and data[:1] == DATA_SEAT_LABEL:
            seat, _ = read_varint(data, 1)
            if mover.get(version) == seat:  # its label is rebuilt from the log
                events[i] = (event_id, version, kind, DATA_SEAT_FROM_LOG + varint(seat))
    answers = _window_answers(pairs(requests))
    packed_events = pack_events(events)
    body = bytearray(varint(len(packed_events)) + packed_events)
    body += varint(len(log))
    for entry in log:
        body += varint(len(entry)) + entry
    body += varint(len(answers))
    for seat, answer in answers:
        body += varint(seat) + varint(len(answer)) + answer
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    archive = FOLDED + deflate.compress(bytes(body)) + deflate.flush()
    return record["version"], [archive, *_cut_record(record)]


def _window_answers(requests: Mapping[str, bytes]) -> list[tuple[int, bytes]]:
    """(seat, answer) of every answer the requests hash remembers ("<seat>:<slot>", slots 0 to
    REQUEST_WINDOW - 1, the ones a running match's request_answer reads), by seat then slot, so
    that a retry of any of them gets its first answer after folding as before."""
    answers = []
    for name, raw in requests.items():
        seat, _, slot = name.partition(":")
        if seat.isdigit() and slot.isdigit() and int(slot) < REQUEST_WINDOW:
            answers.append((int(seat), int(slot), raw))
    return [(seat, raw) for seat, _slot, raw in sorted(answers)]


def unfold(raw: bytes) -> _Folded:
    """A folded archive: 0x03, then raw deflate of: varint size + the events (pack_events);
    varint count + each log entry (varint size + the stored entry); varint count + each
    remembered request answer (varint seat, varint size + the stored answer), a seat's in the
    order of its slots. Archives folded when only each seat's latest answer was kept have the
    same form (one answer a seat), so they read the same way."""
    try:
        body = zlib.decompress(raw[1:], -15)
    except zlib.error as error:
        raise StoreError(f"a folded archive that does not decompress: {error}") from error
    size, at = read_varint(body, 0)
    events = unpack_events(body, at, at + size)
    at += size
    count, at = read_varint(body, at)
    log = []
    for _ in range(count):
        size, at = read_varint(body, at)
        log.append(body[at : at + size])
        at += size
    count, at = read_varint(body, at)
    answers = []
    for _ in range(count):
        seat, at = read_varint(body, at)
        size, at = read_varint(body, at)
        answers.append((seat, body[at : at + size]))
        at += size
    return _Folded(events, log, answers)
