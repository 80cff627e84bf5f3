"""The compact forms in which the Redis store keeps what it is given: log entries, event data and
kinds, archives of events, request answers and match records (and the records read back).

A finished Jaipur match has about 200 log entries and 200 events, so their bytes are most of its
memory. The store keeps the common shapes in a compact binary form and gives back exactly what it
was given; anything else (and every event written before) is kept, and read, as it was. A compact
value starts with a byte below 0x20, which no JSON text starts with.

Log entries are always compact (:func:`pack_log`); entries of older matches may be JSON lines
(``{"v": 12, "s": 0, "m": <move, base64>}``, or ``"r": 1`` / ``"t": 1``), read all the same.

>>> pack_log(LogEntry(12, 0, ended="resigned"))
b'\\x02r\\x0c\\x00'
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from serai.store import (
    STATUSES,
    TIMEOUT_POLICIES,
    Answer,
    Ended,
    LogEntry,
    MatchRecord,
    NewEvent,
    SeatRecord,
    StoredEvent,
    StoreError,
    TimeoutPolicy,
    event_id_key,
)


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def pairs(flat: Sequence[bytes]) -> dict[str, bytes]:
    return {text(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


def stored_event(
    event_id: str,
    version: bytes | int,
    kind: bytes,
    data: bytes,
    labels: Mapping[int, str] | None = None,
) -> StoredEvent:
    if data[:1] == DATA_SEAT_FROM_LOG:
        seat, _ = read_varint(data, 1)
        unpacked = {"seat": seat, "label": (labels or {}).get(int(version), "")}
    else:
        unpacked = _unpack_data(data)
    return StoredEvent(
        event_id=event_id,
        version=int(version),
        kind=_KIND_NAMES.get(kind) or text(kind),
        data=unpacked,
    )


ArchivedEvent = tuple[str, int, bytes, bytes]  # event id, version, stored kind, stored data


def unpack_archive(raw: bytes) -> list[ArchivedEvent]:
    """Each event of an archive of events only (written by serai before folded archives: see
    serai.store.redis.folding.unfold): 0x02 (0x01: no data of the 0x03 form), then the events as
    pack_events writes them.
    """
    if raw[:1] not in (b"\x01", b"\x02"):
        raise StoreError("an event archive in an unknown format")
    return unpack_events(raw, 1, len(raw))


def pack_events(events: Sequence[ArchivedEvent]) -> bytes:
    """Per event: varint ms (minus the previous event's), varint sequence number, varint version
    change (zigzag), varint length + the stored kind, varint length + the stored data. The data
    of a move whose move the log holds at the same version, by the same seat, is 0x03, varint
    seat: its label is rebuilt from the log."""
    out = bytearray()
    previous_ms = previous_version = 0
    for event_id, version, kind, data in events:
        ms, seq = event_id_key(event_id)
        change = version - previous_version
        out += varint(ms - previous_ms) + varint(seq)
        out += varint(change * 2 if change >= 0 else -change * 2 - 1)
        out += varint(len(kind)) + kind + varint(len(data)) + data
        previous_ms, previous_version = ms, version
    return bytes(out)


def unpack_events(raw: bytes, at: int, end: int) -> list[ArchivedEvent]:
    events: list[ArchivedEvent] = []
    ms = version = 0
    while at < end:
        delta, at = read_varint(raw, at)
        seq, at = read_varint(raw, at)
        change, at = read_varint(raw, at)
        ms += delta
        version += -((change + 1) >> 1) if change & 1 else change >> 1
        size, at = read_varint(raw, at)
        kind, at = raw[at : at + size], at + size
        size, at = read_varint(raw, at)
        data, at = raw[at : at + size], at + size
        events.append((f"{ms}-{seq}", version, kind, data))
    return events


def answer(raw: bytes) -> Answer:
    version, last_event, answer = raw.split(b"\n", 2)
    return Answer(int(version), text(last_event), text(answer))


def event_args(events: Sequence[NewEvent]) -> list[bytes | str]:
    args: list[bytes | str] = []
    for event in events:
        args += [KIND_CODES.get(event.kind, event.kind), _pack_data(event.data)]
    return args


PACKED_MOVE, _PACKED_FLAG = b"\x01", b"\x02"
# How a log entry's ``ended`` is kept (the keys of the older JSON form), and back.
_ENDED_CODES: dict[str, bytes] = {"resigned": b"r", "timed_out": b"t", "ended": b"e"}
_ENDED_NAMES: dict[bytes, Ended] = {b"r": "resigned", b"t": "timed_out", b"e": "ended"}
DATA_SEAT_LABEL, _DATA_TEXT, DATA_SEAT_FROM_LOG = b"\x01", b"\x02", b"\x03"
# The byte each event kind serai writes is kept as, in streams and archives (other kinds are kept
# by name). A stored format: a byte is never changed nor given to another kind; a new kind takes
# the next free one.
KIND_CODES: dict[str, bytes] = {
    "created": b"\x01",
    "joined": b"\x02",
    "started": b"\x03",
    "move": b"\x04",
    "announcement": b"\x05",
    "resigned": b"\x06",
    "finished": b"\x07",
    "timed_out": b"\x08",
}
_KIND_NAMES = {code: kind for kind, code in KIND_CODES.items()}


_SMALL_VARINTS = [bytes([n]) for n in range(0x80)]


def varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return _SMALL_VARINTS[value]
    if value < 0x4000:  # two bytes: a match's versions past 127 (a third of the cost of the loop)
        return bytes(((value & 0x7F) | 0x80, value >> 7))
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(raw: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = raw[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def pack_log(entry: LogEntry) -> bytes:
    """A move as 0x01, varint version, varint seat, the move's bytes; an ending as 0x02, ``r``
    (resigned), ``t`` (timed out) or ``e`` (ended by an operator), varint version, varint seat."""
    move, ended = entry.move, entry.ended
    if move is not None and ended is None:
        return b"".join((PACKED_MOVE, varint(entry.version), varint(entry.seat), move))
    if move is None and ended is not None:
        code = _ENDED_CODES[ended]
        return b"".join((_PACKED_FLAG, code, varint(entry.version), varint(entry.seat)))
    raise ValueError(
        f"a log entry holds a move or how the seat lost, not both nor neither: {entry}"
    )


def unpack_log(raw: bytes) -> LogEntry:
    """The entry :func:`pack_log` wrote, or one of the older JSON form (see the module's notes)."""
    if raw[:1] == PACKED_MOVE:
        version, at = read_varint(raw, 1)
        seat, at = read_varint(raw, at)
        return LogEntry(version, seat, raw[at:])
    if raw[:1] == _PACKED_FLAG and raw[1:2] in _ENDED_NAMES:
        version, at = read_varint(raw, 2)
        seat, at = read_varint(raw, at)
        return LogEntry(version, seat, None, _ENDED_NAMES[raw[1:2]])
    try:
        item = json.loads(raw)
        version, seat = item["v"], item["s"]
        if type(version) is not int or type(seat) is not int:
            raise TypeError
        if "m" in item:
            return LogEntry(version, seat, base64.b64decode(item["m"]))
        ended = next(name for key, name in _ENDED_NAMES.items() if item.get(key.decode()))
    except (ValueError, TypeError, KeyError, StopIteration, UnicodeDecodeError):
        raise StoreError(f"a log entry in an unknown format: {raw[:40]!r}") from None
    return LogEntry(version, seat, None, ended)


def _pack_data(data: Mapping[str, Any]) -> bytes | str:
    """Event data ``{"seat": n, "label": text}`` as 0x01, varint n, text; ``{"text": text}`` as
    0x02, text; anything else as JSON."""
    if len(data) == 2:
        seat, label = data.get("seat"), data.get("label")
        if type(seat) is int and seat >= 0 and type(label) is str:
            return DATA_SEAT_LABEL + varint(seat) + label.encode()
    elif len(data) == 1:
        text = data.get("text")
        if type(text) is str:
            return _DATA_TEXT + text.encode()
    return json.dumps(dict(data), separators=(",", ":"))


def _unpack_data(raw: bytes) -> dict[str, Any]:
    if raw[:1] == DATA_SEAT_LABEL:
        seat, at = read_varint(raw, 1)
        return {"seat": seat, "label": raw[at:].decode()}
    if raw[:1] == _DATA_TEXT:
        return {"text": raw[1:].decode()}
    result: dict[str, Any] = json.loads(raw)
    return result


def dump_seats(seats: Sequence[SeatRecord]) -> str:
    rows = []
    for s in seats:
        row = {"n": s.name, "j": int(s.joined), "r": int(s.resigned), "t": s.token_hash}
        if s.join_id:  # only seats joined with a request id (records before them have none)
            row |= {"q": s.join_id, "k": s.sealed_token}
        if s.entropy:  # only seats that added entropy to a committed deal
            row["e"] = s.entropy.hex()
        if s.player:  # only seats joined with a player token
            row["p"] = s.player
        if s.replaced_token:  # only seats taken back with ReclaimSeat
            row["x"] = s.replaced_token
        if s.bank_ms:  # only seats of a match with a time bank, while some is left
            row["b"] = s.bank_ms
        rows.append(row)
    return json.dumps(rows, separators=(",", ":"))


# The seats change only at a join, a resignation, a reclaim or a clock's draw, and every read of
# a match (the watch hub's of each commit, a load) parses them: the recent ones are kept (the
# records are frozen, so one tuple may serve every reader).
@functools.lru_cache(maxsize=4096)
def load_seats(raw: bytes) -> tuple[SeatRecord, ...]:
    return tuple(
        SeatRecord(
            name=row["n"],
            joined=bool(row["j"]),
            resigned=bool(row["r"]),
            token_hash=row["t"],
            join_id=row.get("q", ""),
            sealed_token=row.get("k", ""),
            entropy=bytes.fromhex(row.get("e", "")),
            player=row.get("p", ""),
            replaced_token=row.get("x", ""),
            bank_ms=row.get("b", 0),
        )
        for row in json.loads(raw)
    )


# The fields of a record that ListMatches shows.
SUMMARY_FIELDS = (
    "game",
    "options",
    "seed",
    "created",
    "status",
    "version",
    "seats",
    "outcome",
    "last_event",
    "client",
    "move_s",
    "policy",
    "bank_s",
    "deadline",
    "chosen",
    "server",
    "tenant",
    "spec_delay",
)


def record_fields(record: MatchRecord) -> dict[str, bytes | str]:
    fields: dict[str, bytes | str] = {
        "game": record.game,
        "options": json.dumps(dict(record.options), separators=(",", ":")),
        "seed": str(record.seed),
        "created": str(record.created_ms),
        "status": record.status,
        "version": str(record.version),
        "seats": dump_seats(record.seats),
        "state": record.state,
    }
    if record.outcome is not None:
        fields["outcome"] = json.dumps(dict(record.outcome), separators=(",", ":"))
    if record.client_id:
        fields["client"] = record.client_id
    if record.move_seconds:
        fields["move_s"] = str(record.move_seconds)
        fields["policy"] = record.timeout_policy
        fields["deadline"] = str(record.deadline_ms)
    if record.bank_seconds:
        fields["bank_s"] = str(record.bank_seconds)
    if record.seed_chosen:
        fields["chosen"] = "1"
    if record.server_seed:  # a committed deal (records before them have none)
        fields["server"] = record.server_seed.hex()
    if record.tenant:
        fields["tenant"] = record.tenant
    if record.spectator_delay_moves:
        fields["spec_delay"] = str(record.spectator_delay_moves)
    return fields


def record_from_fields(match_id: str, fields: Mapping[str, bytes | None]) -> MatchRecord:
    """The record of ``match_id`` from the fields of its hash (whole: a folded record's pieces
    joined first, see folding.joined); the inverse of :func:`record_fields`."""

    def get(name: str) -> bytes:
        value = fields.get(name)
        if value is None:
            raise StoreError(f"match {match_id} has no {name!r} field: the record is damaged")
        return value

    outcome = fields.get("outcome")
    status = text(get("status"))
    if status not in STATUSES:
        raise StoreError(f"match {match_id} has an unknown status {status!r}")
    # Made as MatchRecord(...) would, but set as its instance dict: the frozen dataclass's
    # __init__ sets each of its 20 fields through object.__setattr__, half the cost of a read
    # (every read of a match parses one: the watch hub's of each commit, a load, a conflict).
    record = object.__new__(MatchRecord)
    vars(record).update(
        match_id=match_id,
        game=text(get("game")),
        options=json.loads(get("options")),
        seed=int(get("seed")),
        created_ms=int(get("created")),
        status=status,
        version=int(get("version")),
        seats=load_seats(get("seats")),
        state=fields.get("state") or b"",
        outcome=json.loads(outcome) if outcome else None,
        last_event_id=text(fields.get("last_event") or b""),
        client_id=text(fields.get("client") or b""),
        move_seconds=int(fields.get("move_s") or 0),
        timeout_policy=_policy(fields.get("policy")),
        deadline_ms=int(fields.get("deadline") or 0),
        bank_seconds=int(fields.get("bank_s") or 0),
        seed_chosen=fields.get("chosen") == b"1",
        server_seed=bytes.fromhex(text(fields.get("server") or b"")),
        tenant=text(fields.get("tenant") or b""),
        spectator_delay_moves=int(fields.get("spec_delay") or 0),
    )
    return record


def _policy(raw: bytes | None) -> TimeoutPolicy:
    """The stored timeout policy; "lose" for none (records made before policies) or one unknown."""
    return _POLICIES.get(text(raw or b""), "lose")


_POLICIES: dict[str, TimeoutPolicy] = {policy: policy for policy in TIMEOUT_POLICIES}
