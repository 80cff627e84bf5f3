"""The gRPC servicer: protobuf in, :class:`serai.matches.Matches` calls, protobuf out.

Nothing here decides anything about a match: it converts messages, packs the game's own views and
moves into ``google.protobuf.Any``, and maps each domain error to the status code the proto's
header promises. :func:`build_server` adds grpc.health.v1 and server reflection. Example::

    server = build_server(Matches(store, registry.load()))
    port = server.add_insecure_port("127.0.0.1:50051")
    await server.start()
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import grpc
import structlog
from google.protobuf import any_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from serai import matches as m
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.game import GameInfo, OptionSpec
from serai.logging import RequestLogInterceptor
from serai.store import MatchRecord, Status, StoredEvent, StoreFull

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchService"].full_name

_STATUS_TO_PB: dict[Status, pb.MatchStatus] = {
    "open": pb.MATCH_STATUS_OPEN,
    "running": pb.MATCH_STATUS_RUNNING,
    "finished": pb.MATCH_STATUS_FINISHED,
}
_PB_TO_STATUS: dict[pb.MatchStatus, Status] = {value: key for key, value in _STATUS_TO_PB.items()}

# Order matters: MalformedMove is an IllegalMove, and answers INVALID_ARGUMENT.
_ERRORS: tuple[tuple[type[Exception], grpc.StatusCode, str], ...] = (
    (m.MalformedMove, grpc.StatusCode.INVALID_ARGUMENT, "malformed move: {}"),
    (
        m.IllegalMove,
        grpc.StatusCode.FAILED_PRECONDITION,
        "illegal move: {}; ListLegalMoves lists the moves you can play now",
    ),
    (
        m.InvalidOptions,
        grpc.StatusCode.INVALID_ARGUMENT,
        "{}; ListGames shows what each game takes",
    ),
    (m.NotPlayable, grpc.StatusCode.FAILED_PRECONDITION, "{}"),
    (m.BadRequest, grpc.StatusCode.INVALID_ARGUMENT, "{}"),
    (m.GameNotFound, grpc.StatusCode.NOT_FOUND, "{}"),
    (m.MatchNotFound, grpc.StatusCode.NOT_FOUND, "{}"),
    (m.MoveNotFound, grpc.StatusCode.NOT_FOUND, "{}"),
    (m.Unauthenticated, grpc.StatusCode.UNAUTHENTICATED, "{}"),
    (m.WrongToken, grpc.StatusCode.PERMISSION_DENIED, "{}"),
    (m.SeatTaken, grpc.StatusCode.FAILED_PRECONDITION, "{}"),
    (m.NotYourTurn, grpc.StatusCode.FAILED_PRECONDITION, "{}"),
    (m.MatchNotRunning, grpc.StatusCode.FAILED_PRECONDITION, "{}"),
    (m.StaleVersion, grpc.StatusCode.ABORTED, "{}"),
    (m.LimitExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED, "{}"),
    (StoreFull, grpc.StatusCode.RESOURCE_EXHAUSTED, "{}; the server is out of room, try later"),
    (m.StoreUnavailable, grpc.StatusCode.UNAVAILABLE, "{}; retry in a moment"),
)
_log = structlog.get_logger("serai.service")
_DOMAIN = tuple(kind for kind, _code, _text in _ERRORS)
_POLICY_FROM_PB = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: "lose",
    pb.TIMEOUT_POLICY_LOSE: "lose",
    pb.TIMEOUT_POLICY_DEFAULT_MOVE: "default_move",
}
_POLICY_TO_PB = {"lose": pb.TIMEOUT_POLICY_LOSE, "default_move": pb.TIMEOUT_POLICY_DEFAULT_MOVE}


class RateLimiter:
    """A token bucket per key (the peer: one per client connection): ``rate`` per second on
    average, bursts of up to ``burst``. ``rate`` 0 allows everything. Keeps at most ``keys``
    buckets (least recently used dropped: a dropped one starts full again). Example::

        limiter = RateLimiter(rate=50, burst=100)
        if not limiter.allow(context.peer()): ...   # RESOURCE_EXHAUSTED
    """

    def __init__(
        self,
        rate: float,
        burst: float,
        *,
        keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = max(burst, 1.0)
        self._keys = keys
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        if self.rate <= 0:
            return True
        now = self._clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        if len(self._buckets) > self._keys:
            self._buckets.popitem(last=False)
        return allowed


def status_of(error: Exception) -> tuple[grpc.StatusCode, str]:
    """The status code and message for a domain error."""
    for kind, code, text in _ERRORS:
        if isinstance(error, kind):
            return code, text.format(error)
    return grpc.StatusCode.INTERNAL, f"internal error: {type(error).__name__}"


Method = TypeVar("Method", bound=Callable[..., Awaitable[Any]])


def _unary(method: Method) -> Method:
    @functools.wraps(method)
    async def call(self: MatchService, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except _DOMAIN as error:
            code, text = status_of(error)
            await context.abort(code, text)
        except Exception:
            await context.abort(*_internal())

    return call  # type: ignore[return-value]


def _internal() -> tuple[grpc.StatusCode, str]:
    """Log a bug (a plugin's or ours) with its traceback; tell the client nothing of its text.

    gRPC would otherwise put the exception's repr in the details, which may name hidden cards.
    """
    _log.exception("internal error")
    return grpc.StatusCode.INTERNAL, "internal error: the server logged it; please report it"


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


class SubmitResponses:
    """SubmitMoveResponse messages, filled in place from a summary kept per match.

    The plain builders (:func:`snapshot`, :func:`summary`) build each message from keyword
    arguments, and every nested one is copied into its parent (a serialization and a parse
    each); a SubmitMove answers a whole MatchSummary of which only the status and version change
    from move to move. Here the rest (seats, options, times, policy) is kept as bytes per match
    and parsed straight into the response, and the other fields are set where they lie: the
    same message, a fraction of the CPU. ``size`` matches are kept; then the kept parts start
    over. Example::

        responses = SubmitResponses()
        response = responses.submitted(done)   # == the plain builder's message, byte for byte
    """

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._summaries: dict[str, tuple[tuple[Any, ...], bytes]] = {}

    def submitted(self, done: m.Submitted) -> pb.SubmitMoveResponse:
        response = pb.SubmitMoveResponse(label=done.label, replayed=done.replayed)
        self._fill_snapshot(response.snapshot, done.snapshot)
        return response

    def _fill_snapshot(self, message: pb.MatchSnapshot, snap: m.Snapshot) -> None:
        """``message`` (empty) made what :func:`snapshot` builds for ``snap``."""
        record = snap.record
        match = message.match
        match.MergeFromString(self._summary_rest(record))
        match.status = _STATUS_TO_PB[record.status]
        match.version = record.version
        if snap.viewer_seat is not None:
            message.viewer_seat = snap.viewer_seat
        message.version = record.version
        message.to_act.extend(snap.to_act)
        _pack_view(message.view, snap)
        if record.outcome is not None:
            message.outcome.CopyFrom(outcome(record.outcome))
        message.last_event_id = record.last_event_id
        message.move_deadline_ms = record.deadline_ms if snap.to_act else 0

    def _summary_rest(self, record: MatchRecord) -> bytes:
        """The match's summary less its status and version, as bytes; kept while the parts it
        is made of are unchanged (only a join or a resignation changes them, the seats)."""
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


_TYPE_URL_PREFIX = "type.googleapis.com/"  # Any.Pack's default


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
    )


class DecodeInterceptor(grpc.aio.ServerInterceptor):
    """Requests whose bytes are not the method's message answer INVALID_ARGUMENT.

    grpc.aio decodes a request before any handler runs and answers UNKNOWN (logging a traceback)
    when that fails; here each handler gets the raw bytes and decodes them itself. Each method's
    handler is wrapped once.
    """

    def __init__(self) -> None:
        self._handlers: dict[str, grpc.RpcMethodHandler] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        method = details.method
        handler = self._handlers.get(method)
        if handler is None:
            handler = _decoding(method, await continuation(details))
            if handler is not None:  # unknown methods (UNIMPLEMENTED) are not remembered
                self._handlers[method] = handler
        return handler  # type: ignore[return-value]


def _decoding(method: str, handler: Any) -> Any:
    decode = getattr(handler, "request_deserializer", None)
    if handler is None or decode is None or handler.request_streaming:
        return handler
    name = method.rpartition("/")[2]

    async def refuse(context: grpc.aio.ServicerContext, error: Exception) -> None:
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request is not a valid {name} request message ({error}): send the "
            "message the proto declares for this method",
        )

    if handler.response_streaming:
        stream = handler.unary_stream

        async def streaming(raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            try:
                request = decode(raw)
            except Exception as error:
                await refuse(context, error)
            async for response in stream(request, context):
                yield response

        async def writing(raw: bytes, context: grpc.aio.ServicerContext) -> None:
            try:
                request = decode(raw)
            except Exception as error:
                await refuse(context, error)
            await stream(request, context)  # it sends with context.write (grpc's health Watch)

        return grpc.unary_stream_rpc_method_handler(
            streaming if inspect.isasyncgenfunction(stream) else writing,
            response_serializer=handler.response_serializer,
        )
    unary = handler.unary_unary

    async def single(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
        # Decoded here, not in a coroutine of its own: one coroutine less on every call.
        try:
            request = decode(raw)
        except Exception as error:
            await refuse(context, error)
        return await unary(request, context)

    return grpc.unary_unary_rpc_method_handler(
        single, response_serializer=handler.response_serializer
    )


class MatchService(pb_grpc.MatchServiceServicer):
    """serai.v1.MatchService over a :class:`serai.matches.Matches`."""

    def __init__(self, matches: m.Matches, move_limiter: RateLimiter | None = None) -> None:
        self.matches = matches
        self.move_limiter = move_limiter or RateLimiter(0, 0)
        self.payloads = MovePayloads()
        self.responses = SubmitResponses()

    @_unary
    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        return pb.ListGamesResponse(games=[game_info(info) for info in self.matches.games()])

    @_unary
    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: Any
    ) -> pb.CreateMatchResponse:
        if not request.game:
            raise m.BadRequest("game is empty: name one of the games ListGames lists")
        policy = _POLICY_FROM_PB.get(request.timeout_policy)
        if policy is None:
            raise m.BadRequest(
                f"unknown timeout_policy {request.timeout_policy}; use LOSE or DEFAULT_MOVE"
            )
        record = await self.matches.create(
            request.game,
            seats=request.seats,
            options=dict(request.options),
            seed=request.seed if request.HasField("seed") else None,
            client_id=request.client_id,
            move_seconds=request.move_seconds,
            timeout_policy=policy,  # type: ignore[arg-type]
            request_id=request.request_id,
        )
        return pb.CreateMatchResponse(match=summary(record))

    @_unary
    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        joined = await self.matches.join(
            request.match_id,
            seat=request.seat if request.HasField("seat") else None,
            player_name=request.player_name,
            request_id=request.request_id,
        )
        return pb.JoinMatchResponse(
            seat=joined.seat,
            seat_token=joined.token,
            match=summary(joined.record),
            replayed=joined.replayed,
        )

    @_unary
    async def ListMatches(
        self, request: pb.ListMatchesRequest, context: Any
    ) -> pb.ListMatchesResponse:
        if request.status and request.status not in _PB_TO_STATUS:
            raise m.BadRequest(f"unknown status {request.status}; use OPEN, RUNNING or FINISHED")
        records = await self.matches.list(
            status=_PB_TO_STATUS.get(request.status),
            game=request.game or None,
            limit=request.limit,
        )
        return pb.ListMatchesResponse(matches=[summary(r) for r in records])

    @_unary
    async def GetMatch(self, request: pb.GetMatchRequest, context: Any) -> pb.MatchSnapshot:
        return snapshot(await self.matches.get(request.match_id, request.seat_token))

    @_unary
    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, context: Any
    ) -> pb.ListLegalMovesResponse:
        listed = await self.matches.legal_moves(request.match_id, request.seat_token)
        payload = self.payloads.payload
        moves = [
            pb.LegalMove(id=move.id, label=move.label, payload=payload(listed.game, move.move))
            for move in listed.moves
        ]
        return pb.ListLegalMovesResponse(seat=listed.seat, version=listed.version, moves=moves)

    @_unary
    async def SubmitMove(
        self, request: pb.SubmitMoveRequest, context: Any
    ) -> pb.SubmitMoveResponse:
        limiter = self.move_limiter
        if limiter.rate > 0 and not limiter.allow(context.peer()):  # no peer() when unlimited
            raise m.LimitExceeded(
                f"more than {limiter.rate:g} moves per second (bursts of {limiter.burst:g}) on "
                "this connection: slow down, and retry this move in a moment"
            )
        which = request.WhichOneof("move")
        payload = None
        if which == "payload":
            payload = m.PackedMove(request.payload.type_url, request.payload.value)
        done = await self.matches.submit(
            request.match_id,
            request.seat_token,
            move_id=request.move_id if which == "move_id" else "",
            payload=payload,
            expected_version=request.expected_version,
            request_id=request.request_id,
        )
        return self.responses.submitted(done)

    @_unary
    async def Resign(self, request: pb.ResignRequest, context: Any) -> pb.MatchSnapshot:
        return snapshot(await self.matches.resign(request.match_id, request.seat_token))

    async def Watch(
        self, request: pb.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.MatchEvent]:
        try:
            batches = self.matches.watch(
                request.match_id, request.seat_token, request.after_event_id
            )
            async for batch in batches:
                for i, stored in enumerate(batch.events):
                    message = event(stored)
                    if i == len(batch.events) - 1:
                        message.snapshot.CopyFrom(snapshot(batch.snapshot))
                    yield message
        except _DOMAIN as error:
            code, text = status_of(error)
            await context.abort(code, text)
        except Exception:
            await context.abort(*_internal())


# --- conversions ----------------------------------------------------------------------------------


def _option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def game_info(info: GameInfo) -> pb.GameInfo:
    return pb.GameInfo(
        name=info.name,
        title=info.title,
        min_players=info.min_players,
        max_players=info.max_players,
        version=info.version,
        summary=info.summary,
        playable=info.playable,
        options=[_game_option(spec) for spec in info.options],
    )


def _game_option(spec: OptionSpec) -> pb.GameOption:
    option = pb.GameOption(
        name=spec.name,
        description=spec.description,
        default_value=_option_text(spec.default),
        choices=[_option_text(choice) for choice in spec.choices],
    )
    if spec.bounds:
        option.minimum, option.maximum = spec.bounds
    return option


def summary(record: MatchRecord) -> pb.MatchSummary:
    return pb.MatchSummary(
        match_id=record.match_id,
        game=record.game,
        status=_STATUS_TO_PB[record.status],
        seats=[
            pb.SeatInfo(seat=i, player_name=s.name, joined=s.joined, resigned=s.resigned)
            for i, s in enumerate(record.seats)
        ],
        version=record.version,
        options={name: _option_text(value) for name, value in record.options.items()},
        created_at_ms=record.created_ms,
        move_seconds=record.move_seconds,
        timeout_policy=(
            _POLICY_TO_PB[record.timeout_policy]
            if record.move_seconds
            else pb.TIMEOUT_POLICY_UNSPECIFIED
        ),
        seed_chosen=record.seed_chosen,
    )


def outcome(data: Mapping[str, Any]) -> pb.Outcome:
    ranks = list(data["ranks"])
    return pb.Outcome(
        scores=list(data["scores"]),
        ranks=ranks,
        winners=[seat for seat, rank in enumerate(ranks) if rank == 0],
        summary=data.get("summary", ""),
    )


def _pack_view(target: any_pb2.Any, snap: m.Snapshot) -> None:
    """Set ``target`` as ``Any.Pack(view_to_proto(view), deterministic=True)`` would, from
    Game.view_bytes (which a game may give without building the message, as Jaipur does)."""
    game = snap.game
    target.type_url = _TYPE_URL_PREFIX + game.view_message.DESCRIPTOR.full_name
    target.value = game.view_bytes(snap.view)


def snapshot(snap: m.Snapshot) -> pb.MatchSnapshot:
    view = any_pb2.Any()
    _pack_view(view, snap)
    message = pb.MatchSnapshot(
        match=summary(snap.record),
        version=snap.version,
        to_act=list(snap.to_act),
        view=view,
        last_event_id=snap.record.last_event_id,
        move_deadline_ms=snap.record.deadline_ms if snap.to_act else 0,
    )
    if snap.viewer_seat is not None:
        message.viewer_seat = snap.viewer_seat
    if snap.outcome is not None:
        message.outcome.CopyFrom(outcome(snap.outcome))
    return message


def event(stored: StoredEvent) -> pb.MatchEvent:
    message = pb.MatchEvent(event_id=stored.event_id, version=stored.version)
    data = stored.data
    kind = stored.kind
    if kind == "created":
        message.created.CopyFrom(pb.MatchCreated(game=data["game"], seats=data["seats"]))
    elif kind == "joined":
        message.joined.CopyFrom(pb.SeatJoined(seat=data["seat"], player_name=data["name"]))
    elif kind == "started":
        message.started.CopyFrom(pb.MatchStarted())
    elif kind == "move":
        message.move.CopyFrom(pb.MovePlayed(seat=data["seat"], label=data["label"]))
    elif kind == "announcement":
        message.announcement.CopyFrom(pb.Announcement(text=data["text"]))
    elif kind == "resigned":
        message.resigned.CopyFrom(pb.SeatResigned(seat=data["seat"]))
    elif kind == "finished":
        message.finished.CopyFrom(pb.MatchFinished(outcome=outcome(data["outcome"])))
    elif kind == "timed_out":
        message.timed_out.CopyFrom(
            pb.SeatTimedOut(seat=data["seat"], default_move=data.get("move", ""))
        )
    return message


# --- the server -----------------------------------------------------------------------------------


class SeraiServer:
    """A grpc.aio server with MatchService, grpc.health.v1 (SERVING) and server reflection.

    Example::

        server = await build_server(matches)
        port = await server.start("127.0.0.1", 0)   # 0: any free port
        ...
        await server.stop(grace=10)                  # in-flight requests finish first
    """

    def __init__(self, matches: m.Matches, server: grpc.aio.Server, checker: Any) -> None:
        self.matches = matches
        self.grpc = server
        self.health = checker
        self.port = 0
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen on host:port (an IPv6 host may be bracketed) and return the bound port."""
        self.port = self.grpc.add_insecure_port(f"{host}:{port}")
        if not self.port:
            raise OSError(f"cannot listen on {host}:{port}")
        await self.grpc.start()
        self._sweeper = asyncio.get_running_loop().create_task(self.matches.run_sweeper())
        return self.port

    async def stop(self, grace: float | None = 5.0) -> None:
        """Stop taking requests, let in-flight ones finish (up to ``grace`` s), end watches."""
        self.matches.closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.health.enter_graceful_shutdown()
        await self.grpc.stop(grace)

    async def wait(self) -> None:
        await self.grpc.wait_for_termination()


async def build_server(
    matches: m.Matches,
    *,
    max_message_bytes: int = 4 * 1024 * 1024,
    move_rate: float = 0,
    move_burst: float = 0,
    reuse_port: bool = False,
) -> SeraiServer:
    """The server for ``matches``, not yet listening; see :class:`SeraiServer`.

    ``move_rate`` > 0 limits SubmitMove per client connection (a token bucket of ``move_burst``).
    ``reuse_port`` lets several processes listen on one port (SO_REUSEPORT: the kernel spreads
    connections over them); off by default, so a second server on a taken port fails loudly.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
            ("grpc.so_reuseport", int(reuse_port)),
        ],
    )
    limiter = RateLimiter(move_rate, move_burst or 2 * move_rate)
    logged = RequestLogInterceptor()

    def wrap(method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        # Probes call Check every few seconds: a line each would bury the requests that matter.
        return _decoding(method, handler if method in _UNLOGGED else logged.wrap(method, handler))

    wrapping = _Wrapping(server, wrap)
    pb_grpc.add_MatchServiceServicer_to_server(MatchService(matches, limiter), wrapping)
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, wrapping)
    for name in ("", SERVICE_NAME):
        await checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), wrapping
    )
    return SeraiServer(matches, server, checker)


_Wrap = Callable[[str, grpc.RpcMethodHandler], grpc.RpcMethodHandler]
_UNLOGGED = frozenset({"/grpc.health.v1.Health/Check"})


class _Wrapping:
    """Stands for the grpc.aio server while the services register: each method's handler is
    wrapped once, there (the request decoding of :class:`DecodeInterceptor` around the request
    log of :class:`RequestLogInterceptor`), so that no interceptor runs on every call: grpc.aio
    interceptors cost about 0.05 ms of CPU a call, a tenth of a SubmitMove."""

    def __init__(self, server: grpc.aio.Server, wrap: _Wrap) -> None:
        self._server = server
        self._wrap = wrap

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(
            tuple(_WrappedGeneric(handler, self._wrap) for handler in handlers)
        )

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler]
    ) -> None:
        self._server.add_registered_method_handlers(
            service,
            {name: self._wrap(f"/{service}/{name}", h) for name, h in handlers.items()},
        )


class _WrappedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose answers are wrapped; each known method once (unknown method names,
    which answer UNIMPLEMENTED, are not remembered)."""

    def __init__(self, inner: grpc.GenericRpcHandler, wrap: _Wrap) -> None:
        self._inner = inner
        self._wrap = wrap
        self._handlers: dict[str, grpc.RpcMethodHandler] = {}

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method: str = details.method  # type: ignore[attr-defined]
        handler = self._handlers.get(method)
        if handler is None:
            found = self._inner.service(details)
            if found is None:
                return None
            handler = self._handlers[method] = self._wrap(method, found)
        return handler
