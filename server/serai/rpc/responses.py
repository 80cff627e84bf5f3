"""CPU caches for the hottest answers: ListLegalMoves' and Play's legal moves, SubmitMove's
response.

Each gives, byte for byte, what the plain builders of :mod:`serai.rpc.convert` give, for a
fraction of the CPU (tests/service/test_service_responses.py and test_service_payloads.py hold
them to that).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import any_pb2

from serai.api import match_service_pb2 as pb
from serai.game import Seat
from serai.matches.cache import Entry
from serai.matches.reading import moves_of
from serai.matches.values import Snapshot, Submitted
from serai.presentation import presentation
from serai.rpc.convert import STATUS_TO_PB, fill_event, outcome, pack_view, summary
from serai.store import MatchRecord, StoredEvent


class MovePayloads:
    """Each legal move as the ``Any`` ListLegalMoves sends, kept by game and move.

    Moves are hashable values (the plugin contract), and the same moves come back from one
    listing to the next; packing one (the game's message, then the Any) costs several times more
    than finding it. The kept bytes start over when ``size`` are held.
    """

    def __init__(self, size: int = 8192) -> None:
        self._size = size
        self._packed: dict[tuple[str, Any], tuple[str, bytes]] = {}

    def payload(self, game: Any, move: Any) -> any_pb2.Any:
        key = (game.info.name, move)
        found = self._packed.get(key)
        if found is None:
            packed = any_pb2.Any()
            packed.Pack(game.move_to_proto(move), deterministic=True)
            if len(self._packed) >= self._size:
                self._packed.clear()
            self._packed[key] = (packed.type_url, packed.value)
            return packed
        return any_pb2.Any(type_url=found[0], value=found[1])


class LegalMoveBytes:
    """A seat's legal moves as the bytes of a ``repeated LegalMove`` field numbered 3 (both
    ``ListLegalMovesResponse.moves`` and ``PlayUpdate.legal_moves`` are): merged into either
    message with ``MergeFromString``, they make the message the plain builders make.

    Building a LegalMove message per move (its label, its packed payload, its steps) was a
    quarter of the server's CPU per move on Play. A move's label, payload and steps depend on the
    move alone (the plugin contract: moves are hashable values), so its LegalMove bytes less the
    id are kept by game, move and steps, and a listing is the ids joined to those bytes. When
    ``size`` are kept, the older half goes: Jaipur alone
    meets ~15,000 distinct moves in 300 random matches, and a cache that started over at 8,192
    rebuilt one move in twenty it listed. Example::

        update.MergeFromString(legal.field(game, version, moves, steps=False))
    """

    def __init__(self, payloads: MovePayloads, size: int = 32768) -> None:
        self._payloads = payloads
        self._size = size
        self._kept = 0
        # by (game, steps): each move's LegalMove bytes less the id, and their length + 2 (the
        # id's tag and length byte: an id is "<version>.<index>", far below 128 bytes)
        self._tails: dict[tuple[str, bool], dict[Any, tuple[bytes, int]]] = {}

    def field(self, game: Any, version: int, moves: Sequence[Any], *, steps: bool) -> bytes:
        """The moves (legal at ``version``, in order) as field 3's bytes, ids included."""
        tails = self._tails.get((game.info.name, steps))
        if tails is None:
            tails = self._tails[(game.info.name, steps)] = {}
        prefix = b"%d." % version
        heads = _HEADS
        parts: list[bytes] = []
        append = parts.append
        for i, move in enumerate(moves):
            kept = tails.get(move)
            if kept is None:
                kept = self._tail(game, move, steps, tails)
            ident = b"%s%d" % (prefix, i)
            tail, extra = kept
            size = len(ident) + extra
            head = heads[size] if size < _HEADS_KEPT else b"\x1a" + _varint(size)
            append(b"%s\x0a%c%s%s" % (head, len(ident), ident, tail))
        return b"".join(parts)

    def _tail(
        self, game: Any, move: Any, steps: bool, tails: dict[Any, tuple[bytes, int]]
    ) -> tuple[bytes, int]:
        message = pb.LegalMove(
            label=game.label(move),
            payload=self._payloads.payload(game, move),
            steps=game.move_steps(move) if steps else (),
        )
        tail = message.SerializeToString(deterministic=True)
        if self._kept >= self._size:
            for kept in self._tails.values():
                for old in list(itertools.islice(kept, len(kept) // 2)):  # the first kept
                    del kept[old]
            self._kept = sum(len(kept) for kept in self._tails.values())
        self._kept += 1
        tails[move] = found = (tail, len(tail) + 2)
        return found


class SeatLegalMoves:
    """A seat's legal moves at a version, as the bytes of the repeated LegalMove field (see
    :class:`LegalMoveBytes`), kept by (match, version, seat, with steps) for every ListLegalMoves
    call and Play stream of that seat (``size`` kept; then they start over: a version's moves
    are wanted only until its next move). Example::

        response.MergeFromString(seat_moves.field(entry, seat, steps=True))
    """

    def __init__(self, legal: LegalMoveBytes, size: int = 4096) -> None:
        self._legal = legal
        self._size = size
        self._kept: dict[tuple[str, int, Seat, bool], bytes] = {}

    def field(self, entry: Entry, seat: Seat, steps: bool) -> bytes:
        """The seat's legal moves at the entry's version (none if it is not to act)."""
        record = entry.record
        key = (record.match_id, record.version, seat, steps)
        found = self._kept.get(key)
        if found is None:
            moves = moves_of(entry, seat)
            found = self._legal.field(entry.game, record.version, moves, steps=steps)
            if len(self._kept) >= self._size:
                self._kept.clear()
            self._kept[key] = found
        return found


def _varint(value: int) -> bytes:
    """``value`` (>= 0) as a protobuf varint."""
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_HEADS_KEPT = 4096
_HEADS = [b"\x1a" + _varint(size) for size in range(_HEADS_KEPT)]  # field 3's tag and a length


_SNAPSHOT = "snapshot"  # Entry.wire's key for a seat's MatchSnapshot bytes


class SubmitResponses:
    """SubmitMoveResponse messages, filled in place from a summary kept per match.

    The plain builders (:func:`.convert.snapshot`, :func:`.convert.summary`) build each message from
    keyword arguments, and every nested one is copied into its parent (a serialization and a parse
    each); a SubmitMove answers a whole MatchSummary of which only the status and version change
    from move to move. Here the rest (seats, options, times, policy) is kept as bytes per match and
    parsed straight into the response, and the other fields are set where they lie: the same
    message, a fraction of the CPU. ``size`` matches are kept; then the kept parts start over.
    Example::

        responses = SubmitResponses()
        response = responses.submitted(done)   # == the plain builder's message, byte for byte
    """

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._summaries: dict[str, tuple[tuple[Any, ...], bytes]] = {}

    def submitted(self, done: Submitted) -> pb.SubmitMoveResponse:
        response = pb.SubmitMoveResponse()
        self.fill_submitted(response, done)
        return response

    def fill_submitted(self, response: pb.SubmitMoveResponse, done: Submitted) -> None:
        """``response`` (empty; e.g. a field of a PlayAnswer) made what :meth:`submitted`
        returns."""
        response.label = done.label
        response.replayed = done.replayed
        self.fill_snapshot(response.snapshot, done.snapshot)

    def fill_snapshot(
        self, message: pb.MatchSnapshot, snap: Snapshot, *, presented: bool = False
    ) -> None:
        """``message`` (empty) made what :func:`snapshot` builds for ``snap``."""
        record = snap.record
        match = message.match
        match.MergeFromString(self._summary_rest(record))
        match.status = STATUS_TO_PB[record.status]
        match.version = record.version
        if snap.viewer_seat is not None:
            message.viewer_seat = snap.viewer_seat
        message.version = record.version
        message.to_act.extend(snap.to_act)
        pack_view(message.view, snap)
        if record.outcome is not None:
            message.outcome.CopyFrom(outcome(record.outcome))
        message.last_event_id = record.last_event_id
        message.move_deadline_ms = record.deadline_ms if snap.to_act else 0
        if presented:
            message.presentation.CopyFrom(presentation(snap.game, message.view.value))

    def snapshot_bytes(self, snap: Snapshot, *, presented: bool = False) -> bytes:
        """:meth:`fill_snapshot`'s message as bytes; kept on the snapshot's entry (per seat and
        ``presented``) when it shows that entry's version as it is, so that a version's answer
        and every stream of a seat share one encoding."""
        entry = snap.entry
        seat = snap.viewer_seat
        if (
            entry is None
            or entry.record is not snap.record
            or entry.views.get(seat) is not snap.view
        ):
            message = pb.MatchSnapshot()
            self.fill_snapshot(message, snap, presented=presented)
            return message.SerializeToString()
        key = (_SNAPSHOT, seat, presented)
        found = entry.wire.get(key)
        if found is None:
            message = pb.MatchSnapshot()
            self.fill_snapshot(message, snap, presented=presented)
            found = entry.wire[key] = message.SerializeToString()
        return found

    def _summary_rest(self, record: MatchRecord) -> bytes:
        """The match's summary less its status and version, as bytes; kept while the parts it
        is made of are unchanged (only a join or a resignation changes them, the seats, and
        the end, which reveals the seed material)."""
        parts = _summary_parts(record)
        kept = self._summaries.get(record.match_id)
        if kept is not None and kept[0] == parts:
            return kept[1]
        rest = summary(record)
        rest.status = pb.MATCH_STATUS_UNSPECIFIED
        rest.version = 0
        # Bytes of the summary nested once, as in a MatchSnapshot: upb's order of a map's
        # entries (several options) depends on how often it was copied, and parsing these
        # into the response leaves them in the order the plain builders' response has.
        data = pb.MatchSnapshot(match=rest).match.SerializeToString()
        if len(self._summaries) >= self._size:
            self._summaries.clear()
        # A copy of the options: the key must not change under us if the mapping does.
        self._summaries[record.match_id] = (_summary_parts(record, dict(record.options)), data)
        return data


def _summary_parts(
    record: MatchRecord, options: Mapping[str, Any] | None = None
) -> tuple[Any, ...]:
    """What a summary is made of but the match id, status and version."""
    return (
        record.game,
        record.seats,
        record.options if options is None else options,
        record.created_ms,
        record.move_seconds,
        record.timeout_policy,
        record.bank_seconds,
        # the seed material: its commitment always, its reveal once finished
        record.server_seed,
        record.seed,
        record.status == "finished",
    )


# --- Play's updates as bytes ----------------------------------------------------------------------
# Play writes each PlayUpdate as the bytes of its message (the transport sends bytes as they are),
# made of parts encoded once: a seat's snapshot per version (SubmitResponses.snapshot_bytes) and
# its legal moves (SeatLegalMoves). Each gives what parsing it yields the message the plain
# builders make (tests/service/test_service_play_bytes.py holds them to that).


def _field(tag: bytes, value: bytes) -> bytes:
    """A length-delimited field: its tag byte, the length, the bytes."""
    return b"%s%s%s" % (tag, _varint(len(value)), value)


def event_update(
    stored: StoredEvent,
    snapshot: bytes | None = None,
    legal_moves: bytes = b"",
    answered: bytes = b"",
) -> bytes:
    """A PlayUpdate of one event: with the snapshot's bytes (MatchEvent.snapshot), the legal
    moves' field bytes (:class:`SeatLegalMoves`) and a PlayAnswer's bytes (``answered``) when
    given."""
    if stored.kind == "move":  # most events: encoded here, not through a message
        body = _move_event(stored)
    else:
        message = pb.MatchEvent()
        fill_event(message, stored)
        body = message.SerializeToString()
    if snapshot is not None:
        body += _field(b"\x52", snapshot)  # MatchEvent.snapshot, field 10
    update = _field(b"\x0a", body) + legal_moves  # PlayUpdate.event, then field 3
    if answered:
        update += _field(b"\x22", answered)  # PlayUpdate.answered, field 4
    return update


def _move_event(stored: StoredEvent) -> bytes:
    """A "move" event's MatchEvent bytes, as :func:`.convert.fill_event`'s message serializes:
    event_id (1), version (2), move (6: MovePlayed seat 1, label 2), zero values left out."""
    data = stored.data
    seat, label = data["seat"], data["label"].encode()
    played = (b"\x08%s" % _varint(seat) if seat else b"") + (
        _field(b"\x12", label) if label else b""
    )
    event_id = stored.event_id.encode()
    return b"%s%s%s" % (
        _field(b"\x0a", event_id) if event_id else b"",
        b"\x10%s" % _varint(stored.version) if stored.version else b"",
        _field(b"\x32", played),
    )


def submitted_answer(request_id: str, snapshot: bytes, label: str, replayed: bool) -> bytes:
    """A PlayAnswer (request_id, submitted) whose SubmitMoveResponse has the snapshot's bytes,
    the label and ``replayed``: what :meth:`SubmitResponses.fill_submitted` fills."""
    response = _field(b"\x0a", snapshot)  # SubmitMoveResponse.snapshot
    if label:
        response += _field(b"\x12", label.encode())
    if replayed:
        response += b"\x18\x01"
    head = _field(b"\x0a", request_id.encode()) if request_id else b""
    return head + _field(b"\x12", response)  # PlayAnswer.submitted


def answer_update(answer: bytes) -> bytes:
    """A PlayUpdate of one answer (PlayUpdate.answer, field 2) from a PlayAnswer's bytes."""
    return _field(b"\x12", answer)
