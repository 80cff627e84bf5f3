"""The Connect service: each method hands its call to :class:`serai.rpc.handlers.MatchHandlers`.

The generated ``MatchServiceASGIApplication`` (serai.api.match_service_connect) decodes requests
and speaks the protocols; each method here builds the :class:`~serai.rpc.context.CallContext`,
awaits the handler, logs the call and, whatever the handler raises, answers the status
:func:`serai.rpc.status.rpc_error` gives, through :data:`CONNECT_CODES`: the one place a failure
becomes a Connect error. gRPC-Web clients read the same code by its gRPC number. Example::

    app = MatchServiceASGIApplication(ConnectMatchService(handlers), read_max_bytes=4 << 20)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from connectrpc.code import Code as ConnectCode
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import ConnectASGIApplication, Endpoint
from grpc_health.v1 import health_pb2

from serai.rpc.context import CallContext
from serai.rpc.handlers import MatchHandlers
from serai.rpc.status import Code, rpc_error
from serai.transports.request_log import RequestLog

CONNECT_CODES: dict[Code, ConnectCode] = {code: ConnectCode(code.value) for code in Code}

# How a call ends when the client goes away: connectrpc cancels the handler's task, or closes
# a stream's generator at its yield. Routine for every Watch a client stops.
_CLIENT_GONE = (asyncio.CancelledError, GeneratorExit)


async def _context(handlers: MatchHandlers, name: str, ctx: Any) -> CallContext:
    """The call's context: its peer, and the API key its headers carry (see rpc.auth)."""
    # "ipv4:"/"ipv6:" as gRPC writes it is not known here: the connection's address:port is
    # what per-connection limits need.
    peer = f"http:{ctx.client_address or ''}"
    auth = handlers.auth
    if auth is None:
        return CallContext(peer)
    return await auth.context(name, peer, ctx.request_headers.items())


def _failure(error: Exception) -> tuple[str, ConnectError]:
    failure = rpc_error(error)
    return failure.code.name, ConnectError(CONNECT_CODES[failure.code], failure.message)


def _unary(name: str) -> Callable[..., Awaitable[Any]]:
    """The Connect method for the unary handler ``name``."""
    handler = getattr(MatchHandlers, name)

    async def call(self: ConnectMatchService, request: Any, ctx: Any) -> Any:
        log = self.log
        start, alone = log.start(name, request)
        status = "OK"
        try:
            handlers = self.handlers
            return await handler(handlers, request, await _context(handlers, name, ctx))
        except Exception as error:
            status, answer = _failure(error)
            raise answer from None
        except _CLIENT_GONE:
            status = "CANCELLED"
            log.cut_short[status] += 1
            raise
        finally:
            log.finish(name, start, alone, status)

    call.__name__ = call.__qualname__ = name
    return call


def _streaming(name: str) -> Callable[..., AsyncIterator[Any]]:
    """The Connect method for the streaming handler ``name``; the handler's stream is closed
    with the call's (a client that goes away ends it at once, not when it is collected)."""
    handler = getattr(MatchHandlers, name)

    async def call(self: ConnectMatchService, request: Any, ctx: Any) -> AsyncIterator[Any]:
        log = self.log
        start, alone = log.start(name, request)
        status = "OK"
        sent = 0
        try:
            handlers = self.handlers
            messages = handler(handlers, request, await _context(handlers, name, ctx))
            async with contextlib.aclosing(messages):
                async for message in messages:
                    sent += 1
                    yield message
        except Exception as error:
            status, answer = _failure(error)
            raise answer from None
        except _CLIENT_GONE:
            status = "CANCELLED"
            log.cut_short[status] += 1
            raise
        finally:
            log.finish(name, start, alone, status, messages=sent)

    call.__name__ = call.__qualname__ = name
    return call


class ConnectMatchService:
    """serai.v1.MatchService for the generated Connect application (its methods are the
    generated protocol's snake_case names), over shared :class:`MatchHandlers`."""

    def __init__(self, handlers: MatchHandlers, log: RequestLog | None = None) -> None:
        self.handlers = handlers
        self.log = log or RequestLog()
        for method in METHODS.values():
            self.log.method(method)

    list_games = _unary("ListGames")
    create_match = _unary("CreateMatch")
    join_match = _unary("JoinMatch")
    list_matches = _unary("ListMatches")
    get_match = _unary("GetMatch")
    list_legal_moves = _unary("ListLegalMoves")
    submit_move = _unary("SubmitMove")
    resign = _unary("Resign")
    get_transcript = _unary("GetTranscript")
    get_replay = _unary("GetReplay")
    watch = _streaming("Watch")
    reclaim_seat = _unary("ReclaimSeat")

    async def play(self, requests: AsyncIterator[Any], ctx: Any) -> AsyncIterator[Any]:
        """Play is a bidirectional stream, which needs HTTP/2 end to end; this port serves
        HTTP/1.1 (browsers), where Watch + SubmitMove are the path."""
        raise ConnectError(
            ConnectCode.UNIMPLEMENTED,
            "Play needs HTTP/2: use the gRPC port, or Watch and SubmitMove here",
        )
        yield  # an async generator, as the generated application expects


METHODS = {
    "list_games": "ListGames",
    "create_match": "CreateMatch",
    "join_match": "JoinMatch",
    "list_matches": "ListMatches",
    "get_match": "GetMatch",
    "list_legal_moves": "ListLegalMoves",
    "submit_move": "SubmitMove",
    "resign": "Resign",
    "get_transcript": "GetTranscript",
    "get_replay": "GetReplay",
    "watch": "Watch",
    "reclaim_seat": "ReclaimSeat",
    "play": "Play",
}

HEALTH_SERVICE = "grpc.health.v1.Health"


class HealthApplication(ConnectASGIApplication[Any]):
    """grpc.health.v1.Health/Check over Connect: SERVING for "" and the services named while
    ``serving()`` says so (not while the store does not answer, nor once the process drains);
    NOT_FOUND for any other service, as
    grpc's own health servicer answers."""

    def __init__(self, services: frozenset[str], serving: Callable[[], bool]) -> None:
        self._services = services
        self._serving = serving
        check = Endpoint.unary(
            method=MethodInfo(
                name="Check",
                service_name=HEALTH_SERVICE,
                input=health_pb2.HealthCheckRequest,
                output=health_pb2.HealthCheckResponse,
                idempotency_level=IdempotencyLevel.NO_SIDE_EFFECTS,
                stream_type=StreamType.UNARY,
            ),
            function=self.check,
        )
        super().__init__(
            service=self,
            endpoints=lambda _: {f"/{HEALTH_SERVICE}/Check": check},
            codecs=google_protobuf_codecs(),
        )

    @property
    def path(self) -> str:
        return f"/{HEALTH_SERVICE}"

    async def check(
        self, request: health_pb2.HealthCheckRequest, ctx: Any
    ) -> health_pb2.HealthCheckResponse:
        if request.service and request.service not in self._services:
            raise ConnectError(ConnectCode.NOT_FOUND, "unknown service")
        status = health_pb2.HealthCheckResponse
        return status(status=status.SERVING if self._serving() else status.NOT_SERVING)
