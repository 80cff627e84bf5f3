"""The Play stream: one bidirectional stream per seat, made of what Watch and SubmitMove are.

The events come from :meth:`serai.matches.Matches.watch` (the process's watch source, with its
admission limits, bounded queues and resumption after an event id), each batch's last event with
the seat's snapshot and, when the seat is to act there, its legal moves (built once per match,
version and seat, however many streams share them). The moves go through
:meth:`serai.rpc.handlers.MatchHandlers.submit`, the very path of SubmitMove (its rate limits,
idempotency by request id, response cache and metrics); a resignation through
:meth:`serai.matches.Matches.resign`. A move's failure is its answer (a PlayError with the status
the unary call would end with), never the stream's end.

Order on the stream (the proto says the same): events in the match's order, each version's
snapshot at most once; answers in the order their requests were sent (a stream's moves are
played one at a time); a move's answer and the events it caused may come in either order (they
travel separate ways: the commit's reply, and the watch hub's read), so a client acts on the
legal moves of events, never on an answer's snapshot. A move in progress when the match ends
gets its answer before the stream ends. A stream opened after the match's newest event (a
client reconnecting) first gets that event restated (same id, no kind) with the seat's snapshot
and legal moves, so a seat to act is offered its moves again. With ``PlayOpen.keep_open`` the
stream outlives the match: a next ``open`` follows the next match (a session each), the requests
read by one task for the stream's life (:class:`_Inbox`), so that a session can stop reading
without closing the transport's iterator.

Example (a transport's side)::

    async for update in handlers.Play(request_messages, ctx):
        send(update)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

import structlog
from google.protobuf import any_pb2

from serai.api import match_service_pb2 as pb
from serai.logging import CLIENT_TEXT_LIMIT, clipped
from serai.matches import BadRequest
from serai.matches.reading import snapshot
from serai.matches.values import Snapshot, WatchBatch
from serai.metrics import WATCHERS
from serai.rpc.responses import answer_update, event_update, submitted_answer
from serai.rpc.status import NUMBERS, Code, RpcError, rpc_error
from serai.store import StoredEvent, event_id_after

if TYPE_CHECKING:
    from serai.matches import Matches
    from serai.matches.cache import Entry
    from serai.matches.values import Submitted
    from serai.rpc.context import CallContext
    from serai.rpc.responses import SeatLegalMoves, SubmitResponses

OPEN_SECONDS = 10.0  # how long a new stream may take to send its open
_OUT_QUEUE = 16  # updates waiting for the transport: beyond, the watch's own bounded queue fills
_FIRST = (
    "a Play stream opens with a PlayRequest.open (match_id and seat_token), first and only first"
)
_NEXT = (
    "a Play stream with keep_open takes its next PlayRequest.open once the match it follows has "
    "ended"
)


class _End:
    """What ends a stream's outgoing queue: nothing (it ends OK) or the error it ends with."""

    __slots__ = ("error",)

    def __init__(self, error: Exception | None) -> None:
        self.error = error


class PlayHandlers(Protocol):
    """What a Play stream uses of the handlers (:class:`serai.rpc.handlers.MatchHandlers`, which
    owns the streams): the matches, the response builders, and the paths of SubmitMove and of a
    key's check, so that a move is the same whichever call makes it."""

    matches: Matches
    responses: SubmitResponses
    seat_moves: SeatLegalMoves

    async def recheck(self, ctx: CallContext, method: str) -> None: ...

    async def submit(
        self,
        ctx: CallContext,
        match_id: str,
        token: str,
        *,
        move_id: str,
        payload: any_pb2.Any | None,
        expected_version: int,
        request_id: str,
    ) -> Submitted: ...


class PlayStreams:
    """The Play streams of one :class:`~serai.rpc.handlers.MatchHandlers`."""

    def __init__(self, handlers: PlayHandlers, *, open_seconds: float = OPEN_SECONDS) -> None:
        self.handlers = handlers
        self.open_seconds = open_seconds  # 0: no deadline

    async def play(
        self, requests: AsyncIterator[pb.PlayRequest], ctx: CallContext
    ) -> AsyncIterator[bytes]:
        """The stream, each PlayUpdate as its message's bytes: its first request opens it
        (else BadRequest; none within ``open_seconds``: DEADLINE_EXCEEDED), then see the
        module. From its start it holds a watch's place (refused beyond the process's or the
        client's watches: RESOURCE_EXHAUSTED), so that streams that never open cannot pile
        up."""
        incoming = aiter(requests)
        # A watch place: until the open, then a kept stream's between matches (taken as its
        # match ends, before the match's watch gives its own back); each given back as the next
        # match's watch starts.
        between = contextlib.ExitStack()
        between.enter_context(self.handlers.matches.opening_watch(ctx.peer))
        inbox: _Inbox | _Direct | None = None
        WATCHERS.inc()
        try:
            first = await self._first(incoming)
            opened: pb.PlayOpen | None = first.open
            # A kept stream's requests outlive each session (a task reads them); a stream of
            # one match, the common case, is read by its session's reader itself: a task and a
            # queue hop fewer per request.
            inbox = _Inbox(incoming) if first.open.keep_open else _Direct(incoming)
            while opened is not None:
                between.close()
                match_id = opened.match_id
                # The request log's line names the match (of a kept stream: the last one).
                structlog.contextvars.bind_contextvars(
                    match_id=clipped(match_id) if len(match_id) > CLIENT_TEXT_LIMIT else match_id
                )
                session = _Session(self, opened, ctx, between)
                async for update in session.run(inbox):
                    yield update
                if not opened.keep_open:
                    return
                opened = session.next_open
                while opened is None:  # between matches: the client's next open, or its end
                    request = await inbox.get()
                    if request is None:
                        return
                    if isinstance(request, BadRequest):
                        raise request
                    kind = request.WhichOneof("kind")
                    if kind == "open":
                        opened = request.open
                    elif kind == "move":  # answered as on the match just ended (a retry too)
                        yield await session.answer_move(request.move)
                    elif kind == "resign":
                        yield await session.answer_resign(request.resign)
                    else:
                        raise BadRequest(_FIRST)
        finally:
            WATCHERS.dec()
            between.close()
            if inbox is not None:
                inbox.close()

    async def _first(self, incoming: AsyncIterator[pb.PlayRequest]) -> pb.PlayRequest:
        """The stream's ``open``, within ``open_seconds``."""
        seconds = self.open_seconds
        try:
            async with asyncio.timeout(seconds if seconds > 0 else None):
                first = await anext(incoming)
        except StopAsyncIteration:
            raise BadRequest(_FIRST) from None
        except TimeoutError:
            raise RpcError(
                Code.DEADLINE_EXCEEDED,
                f"a Play stream sends its PlayRequest.open within {seconds:g} s of opening: "
                "open the stream when you know the match and seat token, and send open first",
            ) from None
        if first.WhichOneof("kind") != "open":
            raise BadRequest(_FIRST)
        return first


class _Direct:
    """The requests after a stream's first, read from the transport's iterator by the one session
    of a stream that is not kept (cancelling a read there closes the iterator, which ends only
    what ends anyway). What :class:`_Inbox` gives: a request; a BadRequest (a request that is not
    a PlayRequest) once, then None; None once the client has closed its side or the call is
    gone."""

    def __init__(self, incoming: AsyncIterator[pb.PlayRequest]) -> None:
        self._incoming = incoming
        self._ended = False

    async def get(self) -> pb.PlayRequest | BadRequest | None:
        if self._ended:
            return None
        try:
            return await anext(self._incoming)
        except asyncio.CancelledError:
            raise
        except BadRequest as error:  # the transport's: bytes that are not a PlayRequest
            self._ended = True
            return error
        except Exception:  # StopAsyncIteration (the client's side closed), or the call is gone
            self._ended = True
            return None

    def close(self) -> None:
        pass


class _Inbox:
    """A stream's requests after its first, read by one task for the stream's life: a session
    that stops reading (its match over) cancels a wait on this queue, never the transport's
    iterator, which a cancelled read would close. None once the client has closed its side or
    the call is gone; a BadRequest (a request that is not a PlayRequest) once, then None."""

    def __init__(self, incoming: AsyncIterator[pb.PlayRequest]) -> None:
        self._queue: asyncio.Queue[pb.PlayRequest | BadRequest | None] = asyncio.Queue(1)
        self._ended = False
        self._task = asyncio.get_running_loop().create_task(self._read(incoming))

    async def _read(self, incoming: AsyncIterator[pb.PlayRequest]) -> None:
        end: BadRequest | None = None
        try:
            async for request in incoming:
                await self._queue.put(request)
        except asyncio.CancelledError:
            raise
        except BadRequest as error:  # the transport's: bytes that are not a PlayRequest
            end = error
        except Exception:
            pass  # the call is gone
        await self._queue.put(end)

    async def get(self) -> pb.PlayRequest | BadRequest | None:
        if self._ended:
            return None
        request = await self._queue.get()
        if not isinstance(request, pb.PlayRequest):
            self._ended = True
        return request

    def close(self) -> None:
        self._task.cancel()


class _Session:
    """One open Play stream: a task pumping the watch's batches and a task playing the
    requests, both into one bounded queue of updates (as bytes) the transport reads.

    With ``answer_with_event`` a move's answer rides in the update of the last event its commit
    wrote, when the stream has queued every event before them and none is on its way
    (``delivered``, ``pumping``); the watch's batch of those events then finds them sent and
    sends none of them again."""

    def __init__(
        self,
        streams: PlayStreams,
        opened: pb.PlayOpen,
        ctx: CallContext,
        between: contextlib.ExitStack,
    ) -> None:
        self.streams = streams
        self.between = between
        self.handlers = streams.handlers
        self.opened = opened
        self.ctx = ctx
        self.out: asyncio.Queue[bytes | _End] = asyncio.Queue(_OUT_QUEUE)
        self.idle = asyncio.Event()  # no move in progress
        self.idle.set()
        self.ended = False  # the finished match's snapshot is queued: a next open may come
        self.next_open: pb.PlayOpen | None = None
        self.delivered = opened.after_event_id  # the newest event queued for the client
        self.pumping = False  # a batch's updates are being queued
        self.viewer_seat: int | None = None  # the seat, once a snapshot has named it

    async def run(self, inbox: _Inbox | _Direct) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        reader = loop.create_task(self._read(inbox))
        pump = loop.create_task(self._pump(reader))
        out = self.out
        bound = False
        try:
            while True:
                item = await out.get()
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                await self.handlers.recheck(self.ctx, "Play")  # a revoked key ends the stream
                if not bound and self.viewer_seat is not None:
                    bound = True
                    structlog.contextvars.bind_contextvars(seat=self.viewer_seat)
                yield item
        finally:
            pump.cancel()
            reader.cancel()
            for task in (pump, reader):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _pump(self, reader: asyncio.Task[None]) -> None:
        """The watch's batches as updates; then the end (once no move is in progress, and the
        reader stopped)."""
        opened, ctx, out = self.opened, self.ctx, self.out
        try:
            if opened.after_event_id:
                await self._restate()
            batches = self.handlers.matches.watch(
                opened.match_id,
                opened.seat_token,
                opened.after_event_id,
                peer=ctx.peer,
                tenant=ctx.tenant,
                seat_required=True,
            )
            async with contextlib.aclosing(batches):  # type: ignore[type-var]
                async for batch in batches:
                    if not self.ended and batch.snapshot.record.status == "finished":
                        self._ending()
                    events = batch.events
                    delivered = self.delivered
                    if delivered and not event_id_after(events[0].event_id, delivered):
                        # some already queued, in the answer to a move of this stream's
                        events = tuple(e for e in events if event_id_after(e.event_id, delivered))
                        if not events:
                            continue
                    self.delivered = events[-1].event_id
                    self.pumping = True
                    for update in self._updates(batch, events):
                        await out.put(update)
                    self.pumping = False
            # The reader stops taking requests before the end is queued: one it took after
            # would be answered behind the end, where nobody reads (a kept stream's next
            # request stays in the inbox, answered between matches).
            while not self.idle.is_set():  # a request taken as the last one was answered
                await self.idle.wait()
            reader.cancel()
            await out.put(_End(None))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            await out.put(_End(error))

    def _ending(self) -> None:
        """The finished match's last events are being queued: before the client can see them,
        a next open may come (a kept stream keeps a watch's place till then)."""
        if self.ended:
            return
        self.ended = True
        if self.opened.keep_open:
            matches = self.handlers.matches
            self.between.enter_context(matches.between_matches(self.ctx.peer))

    async def _restate(self) -> None:
        """A stream resumed after the match's newest event gets nothing from its watch until
        the next one: a client that reconnected while it was to act would wait for ever. So it
        is told where the match stands first: an update restating that event (its id and
        version, no kind) with the seat's snapshot, and its legal moves when it is to act. A
        stream resumed further back needs none: the events it missed end with all that."""
        opened = self.opened
        matches = self.handlers.matches
        entry, seat = await matches.seated(opened.match_id, opened.seat_token, self.ctx.tenant)
        if entry.record.last_event_id != opened.after_event_id:
            return
        update = pb.PlayUpdate()
        message = update.event
        message.event_id = opened.after_event_id
        message.version = entry.record.version
        snap = snapshot(entry, seat)
        self.handlers.responses.fill_snapshot(message.snapshot, snap, presented=opened.presentation)
        if seat in snap.to_act:
            update.MergeFromString(self.handlers.seat_moves.field(entry, seat, opened.steps))
        self.viewer_seat = seat
        await self.out.put(update.SerializeToString())

    def _updates(self, batch: WatchBatch, events: tuple[StoredEvent, ...]) -> list[bytes]:
        """One update per event; the last with the batch's snapshot, and the legal moves when
        the seat is to act in it."""
        updates = [event_update(stored) for stored in events[:-1]]
        updates.append(self._last_update(events[-1], batch.snapshot, batch.entry))
        return updates

    def _last_update(
        self, stored: StoredEvent, snap: Snapshot, entry: Entry | None, answered: bytes = b""
    ) -> bytes:
        """The update of a batch's last event: with the snapshot after it, the seat's legal
        moves when it is to act there, and a move's answer when given."""
        handlers, opened = self.handlers, self.opened
        seat = snap.viewer_seat
        legal = b""
        if seat is not None:
            self.viewer_seat = seat
            if seat in snap.to_act and entry is not None:
                legal = handlers.seat_moves.field(entry, seat, opened.steps)
        snapshot_bytes = handlers.responses.snapshot_bytes(snap, presented=opened.presentation)
        return event_update(stored, snapshot_bytes, legal, answered)

    async def _read(self, inbox: _Inbox | _Direct) -> None:
        """Play each request in turn and queue its answer; a second ``open`` (or an empty
        request) ends the stream, but for a kept stream's next ``open`` once the match has
        ended, which ends this session. A client that stops sending still receives the events."""
        out, idle = self.out, self.idle
        try:
            while (request := await inbox.get()) is not None:
                if isinstance(request, BadRequest):
                    await out.put(_End(request))
                    return
                kind = request.WhichOneof("kind")
                if kind == "open" and self.opened.keep_open:
                    if not self.ended:
                        await out.put(_End(BadRequest(_NEXT)))
                        return
                    self.next_open = request.open
                    return
                if kind not in ("move", "resign"):
                    await out.put(_End(BadRequest(_FIRST)))
                    return
                try:
                    await self.handlers.recheck(self.ctx, "Play")
                except RpcError as revoked:  # no move with a key revoked since the stream opened
                    await out.put(_End(revoked))
                    return
                idle.clear()
                try:
                    if kind == "move":
                        move = request.move
                        done = await self._move(move)
                        if isinstance(done, bytes):
                            await out.put(answer_update(done))
                        elif not self._answer_with_events(move.request_id, done):
                            await out.put(answer_update(self._submitted(move.request_id, done)))
                    else:
                        await out.put(await self.answer_resign(request.resign))
                finally:
                    idle.set()
        except asyncio.CancelledError:
            raise
        except Exception:
            return  # the call is gone (grpc cancels the stream as well)

    async def answer_move(self, move: pb.PlayMove) -> bytes:
        """The move's answer update (its own message: between matches, nothing rides with it)."""
        done = await self._move(move)
        if isinstance(done, bytes):
            return answer_update(done)
        return answer_update(self._submitted(move.request_id, done))

    def _submitted(self, request_id: str, done: Submitted) -> bytes:
        """The PlayAnswer of a move played (or replayed)."""
        snapshot_bytes = self.handlers.responses.snapshot_bytes(done.snapshot)
        return submitted_answer(request_id, snapshot_bytes, done.label, done.replayed)

    def _answer_with_events(self, request_id: str, done: Submitted) -> bool:
        """Queue the answer in the update of the last event the move's commit wrote, with the
        events before it, if the stream asked for that and may send them now (every event
        before them queued, none on its way, room for them all); whether it did."""
        events = done.events
        out = self.out
        if not (
            self.opened.answer_with_event
            and events
            and not self.pumping
            and self.delivered == done.after_event_id
            and out.qsize() + len(events) <= _OUT_QUEUE
        ):
            return False
        snap = done.snapshot
        if snap.record.status == "finished":
            self._ending()
        answer = self._submitted(request_id, done)
        self.delivered = events[-1].event_id
        for stored in events[:-1]:
            out.put_nowait(event_update(stored))
        out.put_nowait(self._last_update(events[-1], snap, snap.entry, answer))
        return True

    async def _move(self, move: pb.PlayMove) -> Submitted | bytes:
        """The move played, or the PlayAnswer (bytes) that says why it was not."""
        try:
            if not move.request_id:
                raise BadRequest(
                    "PlayMove.request_id is empty: give each move an id (a UUID will do), "
                    "which names its answer and makes a retry safe"
                )
            which = move.WhichOneof("move")
            return await self.handlers.submit(
                self.ctx,
                self.opened.match_id,
                self.opened.seat_token,
                move_id=move.move_id if which == "move_id" else "",
                payload=move.payload if which == "payload" else None,
                expected_version=move.expected_version,
                request_id=move.request_id,
            )
        except Exception as error:
            answer = pb.PlayAnswer(request_id=move.request_id)
            _fail(answer, error)
            return answer.SerializeToString()

    async def answer_resign(self, resign: pb.PlayResign) -> bytes:
        update = pb.PlayUpdate()
        answer = update.answer
        answer.request_id = resign.request_id
        try:
            snap = await self.handlers.matches.resign(
                self.opened.match_id, self.opened.seat_token, self.ctx.tenant
            )
            self.handlers.responses.fill_snapshot(answer.resigned, snap)
        except Exception as error:
            _fail(answer, error)
        return update.SerializeToString()


def _fail(answer: pb.PlayAnswer, error: Exception) -> None:
    """The answer says what the unary call's status would (code and message)."""
    failure = rpc_error(error)
    answer.error.code = NUMBERS[failure.code]
    answer.error.message = failure.message
