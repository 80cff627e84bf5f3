"""What the sync and the asyncio clients share: requests, wrapping answers, retry timing."""

from __future__ import annotations

import os
import random
import secrets
import socket
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from grpc import aio
from serai.api import match_service_pb2 as pb

from serai_client.errors import SeraiError, error_for
from serai_client.types import (
    Decoder,
    Event,
    LegalMove,
    LegalMoves,
    PlayAnswer,
    PlayUpdate,
    QueueMatch,
    SeatHandle,
    Snapshot,
    SubmitResult,
    event_is_after,
)

DEFAULT_TARGET = "localhost:50051"

# A dropped connection shows up as one of these on a stream; the watch reconnects and resumes.
# RESOURCE_EXHAUSTED: the server has no room for another watch now, and may in a moment.
# ABORTED: the watch fell too far behind its match's events and was ended; it resumes after the
# last event it delivered.
RESUMABLE_CODES = frozenset(
    {
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)


@dataclass
class Backoff:
    """Exponential backoff with jitter, from ``first`` to ``cap`` seconds, for ``give_up`` in all.

    ``rng`` is the caller's generator (the SDK never touches the global one).
    """

    first: float = 0.05
    cap: float = 2.0
    give_up: float = 30.0
    rng: random.Random | None = None
    _next: float = field(default=0.0, init=False, repr=False)
    _spent: float = field(default=0.0, init=False, repr=False)

    def reset(self) -> None:
        self._next = 0.0
        self._spent = 0.0

    def delay(self) -> float | None:
        """The next wait in seconds, or None when the time to give up has come."""
        if self._spent >= self.give_up:
            return None
        self._next = self.first if self._next == 0.0 else min(self._next * 2, self.cap)
        jitter = (self.rng or random.Random()).uniform(0.8, 1.2)
        wait = min(self._next * jitter, self.give_up - self._spent)
        self._spent += wait
        return wait


def default_client_id(flavour: str = "python") -> str:
    """``serai-<flavour>@<host>:<pid>``: one process, one client for the server's per-client limits.

    A shared constant would put every SDK user in one quota of open matches; an application that
    wants its users counted apart passes its own ``client_id`` (a user or install id).
    """
    return f"serai-{flavour}@{socket.gethostname()}:{os.getpid()}"


class ClientCore:
    """Request building and answer wrapping, with no I/O."""

    def __init__(self, decoder: Decoder | None, client_id: str) -> None:
        self.decoder = decoder or Decoder()
        self.client_id = client_id

    # --- answers ---------------------------------------------------------------------------------

    def snapshot(self, proto: pb.MatchSnapshot) -> Snapshot:
        return Snapshot(proto, self.decoder.view(proto.match.game, proto.view))

    def event(self, proto: pb.MatchEvent) -> Event:
        has = proto.HasField("snapshot")
        return Event(proto, self.snapshot(proto.snapshot) if has else None)

    def legal_moves(self, game: str, proto: pb.ListLegalMovesResponse) -> LegalMoves:
        moves = tuple(
            LegalMove(m.id, m.label, self.decoder.move(game, m.payload), m) for m in proto.moves
        )
        return LegalMoves(proto.seat, proto.version, moves)

    def submit_result(self, proto: pb.SubmitMoveResponse, attempts: int) -> SubmitResult:
        return SubmitResult(self.snapshot(proto.snapshot), proto.label, proto.replayed, attempts)

    @staticmethod
    def get_request(match: SeatHandle | str) -> pb.GetMatchRequest:
        match_id, token = token_of(match)
        return pb.GetMatchRequest(match_id=match_id, seat_token=token)

    @staticmethod
    def read_to_the_end(proto: pb.MatchSnapshot, last: str) -> bool:
        """Whether the match is over and ``last`` is its newest event: a watch has all."""
        finished = proto.match.status == pb.MATCH_STATUS_FINISHED
        return finished and not event_is_after(proto.last_event_id, last)

    def handle(self, proto: pb.JoinMatchResponse, player_name: str) -> SeatHandle:
        return SeatHandle(
            match_id=proto.match.match_id,
            seat=proto.seat,
            token=proto.seat_token,
            game=proto.match.game,
            player_name=player_name,
        )

    # --- requests --------------------------------------------------------------------------------

    def create_request(
        self,
        game: str,
        seats: int,
        options: Mapping[str, object] | None,
        seed: int | None,
        move_seconds: int = 0,
        timeout_policy: str = "lose",
        bank_seconds: int = 0,
        spectator_delay_moves: int = 0,
    ) -> pb.CreateMatchRequest:
        policies = {
            "lose": pb.TIMEOUT_POLICY_LOSE,
            "default_move": pb.TIMEOUT_POLICY_DEFAULT_MOVE,
            "lose_or_cancel": pb.TIMEOUT_POLICY_LOSE_OR_CANCEL,
        }
        if timeout_policy not in policies:
            names = ", ".join(map(repr, policies))
            raise ValueError(f"timeout_policy is one of {names}, not {timeout_policy!r}")
        request = pb.CreateMatchRequest(
            game=game,
            seats=seats,
            options={k: _option_text(v) for k, v in (options or {}).items()},
            client_id=self.client_id,
            request_id=new_request_id(),  # kept by the retries: one match, however many tries
            move_seconds=move_seconds,
            timeout_policy=policies[timeout_policy] if move_seconds else None,
            bank_seconds=bank_seconds,
            spectator_delay_moves=spectator_delay_moves,
        )
        if seed is not None:
            request.seed = seed
        return request

    def queue_request(
        self,
        game: str,
        *,
        seats: int = 0,
        options: Mapping[str, object] | None = None,
        pool: str = "rated",
        player_token: str = "",
        player_name: str = "",
        bot: bool = False,
    ) -> pb.JoinQueueRequest:
        return pb.JoinQueueRequest(
            game=game,
            seats=seats,
            options={k: _option_text(v) for k, v in (options or {}).items()},
            pool=pool,
            player_token=player_token,
            player_name=player_name,
            bot=bot,
        )

    def queue_match(self, matched: pb.QueueMatched, player_name: str) -> QueueMatch:
        """The seat a JoinQueue stream ended with, as JoinMatch would have given it."""
        joined = pb.JoinMatchResponse(
            seat=matched.seat, seat_token=matched.seat_token, match=matched.match
        )
        return QueueMatch(self.handle(joined, player_name), matched.rated, matched.match)

    def join_request(
        self, match_id: str, seat: int | None, player_name: str, player_token: str = ""
    ) -> pb.JoinMatchRequest:
        # One request id for the call and its retries: a retry after a lost answer gets the
        # same seat and token back instead of claiming a second seat. The entropy is this seat's
        # part of a committed deal: with it, the server alone cannot choose the deal.
        request = pb.JoinMatchRequest(
            match_id=match_id,
            player_name=player_name,
            request_id=new_request_id(),
            entropy=secrets.token_bytes(16),
            player_token=player_token,
        )
        if seat is not None:
            request.seat = seat
        return request

    def rematch_request(self, seat: SeatHandle) -> pb.RematchRequest:
        """The seat's ask for a rematch of its finished match, with its part of the new deal."""
        return pb.RematchRequest(
            match_id=seat.match_id, seat_token=seat.token, entropy=secrets.token_bytes(16)
        )

    def submit_request(
        self,
        seat: SeatHandle,
        *,
        move_id: str | None,
        move: object | None,
        expected_version: int,
        request_id: str | None,
    ) -> pb.SubmitMoveRequest:
        if (move_id is None) == (move is None):
            raise ValueError("submit takes exactly one of move_id and move")
        request = pb.SubmitMoveRequest(
            match_id=seat.match_id,
            seat_token=seat.token,
            expected_version=expected_version,
            request_id=request_id or new_request_id(),
        )
        if move_id is not None:
            request.move_id = move_id
        else:
            request.payload.CopyFrom(self.pack_move(seat.game, move))
        return request

    def pack_move(self, game: str, move: object) -> any_pb2.Any:
        """A typed move as an Any: a game Move message, an Any, or the plugin's own move value."""
        if isinstance(move, any_pb2.Any):
            return move
        if not isinstance(move, Message):
            plugin = self.decoder.game(game)
            if plugin is None:
                raise ValueError(f"game {game!r} is not installed here: pass its Move message")
            move = plugin.move_to_proto(move)
        packed = any_pb2.Any()
        packed.Pack(move)
        return packed

    def chosen_id(self, choice: LegalMove | str, moves: LegalMoves) -> str:
        move_id = choice if isinstance(choice, str) else choice.id
        moves.by_id(move_id)  # a choice function must pick one of the moves it was given
        return move_id


class PlayBook:
    """What a Play session (sync or asyncio) keeps across the streams it opens: the last event
    delivered (a new stream resumes after it), the requests not yet answered (sent again on a
    new stream, with their request ids, so that none is lost or played twice), and whether the
    match's end was seen. No I/O: the sessions send what it builds and feed it what arrives.
    """

    def __init__(
        self,
        core: ClientCore,
        seat: SeatHandle,
        after_event_id: str,
        *,
        steps: bool,
        presentation: bool = False,
        keep_open: bool = False,
    ) -> None:
        self.core = core
        self.seat = seat
        self.last = after_event_id
        self.steps = steps
        self.presentation = presentation
        self.keep_open = keep_open
        self.finished = False
        self.pending: OrderedDict[str, pb.PlayRequest] = OrderedDict()
        # Requests answered UNAVAILABLE (the server's store did not answer): still pending, to be
        # sent again on the stream (the same request id: applied once); see take_resends.
        self.resends: list[pb.PlayRequest] = []

    def opening(self) -> list[pb.PlayRequest]:
        """A new stream's first requests: its ``open``, then every request still unanswered."""
        opened = pb.PlayOpen(
            match_id=self.seat.match_id,
            seat_token=self.seat.token,
            after_event_id=self.last,
            steps=self.steps,
            presentation=self.presentation,
            keep_open=self.keep_open,
        )
        return [pb.PlayRequest(open=opened), *self.pending.values()]

    @property
    def done(self) -> bool:
        """The match's last event delivered and every request answered: on a kept stream,
        nothing more of this match will come."""
        return self.finished and not self.pending

    def following(self, seat: SeatHandle, after_event_id: str = "") -> PlayBook:
        """The book of the next match a kept stream follows, once this one is :attr:`done`."""
        if not self.keep_open:
            raise ValueError("follow needs a session opened with keep_open=True")
        if not self.done:
            raise ValueError(
                "follow takes the next match once this one's iteration has ended (its last "
                "event delivered and every move answered)"
            )
        return PlayBook(
            self.core,
            seat,
            after_event_id,
            steps=self.steps,
            presentation=self.presentation,
            keep_open=True,
        )

    def move_request(
        self,
        choice: LegalMove | str | None,
        move: object | None,
        expected_version: int,
        request_id: str | None,
    ) -> pb.PlayRequest:
        """A move by id (a :class:`LegalMove` or its id) or typed (``move``), kept until its
        answer comes."""
        if (choice is None) == (move is None):
            raise ValueError("move takes exactly one of a legal move (or its id) and move=")
        request = pb.PlayRequest()
        sent = request.move
        sent.request_id = request_id or new_request_id()
        sent.expected_version = expected_version
        if choice is not None:
            sent.move_id = choice if isinstance(choice, str) else choice.id
        else:
            sent.payload.CopyFrom(self.core.pack_move(self.seat.game, move))
        self.pending[sent.request_id] = request
        return request

    def resign_request(self, request_id: str | None) -> pb.PlayRequest:
        request = pb.PlayRequest(resign=pb.PlayResign(request_id=request_id or new_request_id()))
        self.pending[request.resign.request_id] = request
        return request

    def update(self, proto: pb.PlayUpdate) -> PlayUpdate | None:
        """The update as the SDK hands it over; None for an event delivered before (a new
        stream's overlap) or the answer to a request already answered. A resumed stream's
        restatement of its last event (no kind: :attr:`Event.kind` "") is handed over, for its
        snapshot and moves, unless a request is still unanswered."""
        if proto.HasField("answer"):
            return self._answer(proto)
        event_proto = proto.event
        # A resumed stream restates the event it resumed after (same id, no kind) with the
        # snapshot and legal moves: where the match stands, for a seat that may be to act.
        # Dropped while a request is unanswered: it was sent again on this stream, and its
        # answer (with the events it causes) says what comes next.
        restated = event_proto.event_id == self.last and not event_proto.WhichOneof("kind")
        if restated and self.pending:
            return None
        if not restated and not event_is_after(event_proto.event_id, self.last):
            return None
        self.last = event_proto.event_id
        event = self.core.event(event_proto)
        self.finished = self.finished or event.kind == "finished"
        moves = None
        if proto.legal_moves:
            game = self.seat.game
            decode = self.core.decoder.move
            listed = tuple(
                LegalMove(m.id, m.label, decode(game, m.payload), m) for m in proto.legal_moves
            )
            moves = LegalMoves(self.seat.seat, event_proto.snapshot.version, listed)
        return PlayUpdate(proto, event, moves)

    def take_resends(self) -> list[pb.PlayRequest]:
        """The requests to send again (answered UNAVAILABLE), once each; the session waits a
        backoff before it sends them."""
        resends, self.resends = self.resends, []
        return resends

    def _answer(self, proto: pb.PlayUpdate) -> PlayUpdate | None:
        given = proto.answer
        request = self.pending.pop(given.request_id, None)
        if request is None and given.request_id:
            return None  # answered already, on a stream before this one
        which = given.WhichOneof("result")
        if which == "submitted":
            answer = PlayAnswer(
                given.request_id, submitted=self.core.submit_result(given.submitted, 1)
            )
        elif which == "resigned":
            answer = PlayAnswer(given.request_id, resigned=self.core.snapshot(given.resigned))
        else:
            code = _STATUS_BY_NUMBER.get(given.error.code, grpc.StatusCode.UNKNOWN)
            if code == grpc.StatusCode.UNAVAILABLE and request is not None:
                self.pending[given.request_id] = request  # not an answer: it is sent again
                self.resends.append(request)
                return None
            answer = PlayAnswer(given.request_id, error=error_for(code, given.error.message))
        return PlayUpdate(proto, answer=answer)


_STATUS_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def new_request_id() -> str:
    return uuid.uuid4().hex


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def token_of(match: SeatHandle | str) -> tuple[str, str]:
    """(match id, seat token) for a seat handle, or a match id with no token (a spectator)."""
    if isinstance(match, SeatHandle):
        return match.match_id, match.token
    return match, ""


def not_to_act(error: SeraiError, snapshot: Snapshot, seat: int) -> SeraiError:
    """The error to raise when a retry finds the seat no longer has to act."""
    version = snapshot.version
    error.details = f"{error.details} (seat {seat} no longer has to act at version {version})"
    return error


# --- API keys ---------------------------------------------------------------------------------


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: Any
    wait_for_ready: bool | None
    compression: Any


class ApiKeyInterceptor(
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
    grpc.StreamUnaryClientInterceptor,  # type: ignore[misc]
    grpc.StreamStreamClientInterceptor,  # type: ignore[misc]
):
    """Adds ``authorization: Bearer <key>`` to every call of a (sync) channel, whatever the
    method: ``grpc.intercept_channel(channel, ApiKeyInterceptor(key))``."""

    def __init__(self, api_key: str) -> None:
        self.header = ("authorization", f"Bearer {api_key}")

    def _details(self, details: Any) -> Any:
        metadata = [*(details.metadata or ()), self.header]
        return _CallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def _aio_details(header: tuple[str, str], details: aio.ClientCallDetails) -> Any:
    metadata = aio.Metadata(*(details.metadata or ()), header)
    return aio.ClientCallDetails(
        details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
    )


class _AioUnaryUnary(aio.UnaryUnaryClientInterceptor):
    def __init__(self, header: tuple[str, str]) -> None:
        self.header = header

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_aio_details(self.header, details), request)


class _AioUnaryStream(aio.UnaryStreamClientInterceptor):
    def __init__(self, header: tuple[str, str]) -> None:
        self.header = header

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_aio_details(self.header, details), request)


class _AioStreamUnary(aio.StreamUnaryClientInterceptor):
    def __init__(self, header: tuple[str, str]) -> None:
        self.header = header

    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(_aio_details(self.header, details), requests)


class _AioStreamStream(aio.StreamStreamClientInterceptor):
    def __init__(self, header: tuple[str, str]) -> None:
        self.header = header

    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(_aio_details(self.header, details), requests)


def aio_api_key_interceptors(api_key: str) -> list[aio.ClientInterceptor]:
    """The asyncio channel's interceptors that add ``authorization: Bearer <key>`` to every
    call (``aio.insecure_channel(target, interceptors=...)``: one per kind of call)."""
    header = ("authorization", f"Bearer {api_key}")
    return [
        _AioUnaryUnary(header),
        _AioUnaryStream(header),
        _AioStreamUnary(header),
        _AioStreamStream(header),
    ]
