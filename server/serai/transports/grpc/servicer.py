"""The gRPC servicer: each method hands its call to :class:`serai.rpc.handlers.MatchHandlers`.

A method builds the :class:`~serai.rpc.context.CallContext` from grpc's context, awaits the
handler, and, whatever it raises, answers the status :func:`serai.rpc.status.rpc_error` gives,
through :data:`GRPC_CODES`: the one place a failure becomes a gRPC status, for unary calls and
streams alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn

import grpc

from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import Matches
from serai.rpc import status
from serai.rpc.auth import Authenticator
from serai.rpc.context import CallContext
from serai.rpc.handlers import MatchHandlers
from serai.rpc.limits import RateLimiter
from serai.rpc.status import Code

GRPC_CODES: dict[Code, grpc.StatusCode] = {code: grpc.StatusCode[code.name] for code in Code}


def status_of(error: Exception) -> tuple[grpc.StatusCode, str]:
    """The gRPC status code and message for a domain error."""
    code, text = status.status_of(error)
    return GRPC_CODES[code], text


async def _context(self: MatchService, name: str, context: grpc.aio.ServicerContext) -> CallContext:
    """The call's context: its peer, and the API key its metadata carries (see rpc.auth)."""
    auth = self.handlers.auth
    if auth is None:
        return CallContext(context.peer())
    return await auth.context(name, context.peer(), context.invocation_metadata() or ())


async def _fail(context: grpc.aio.ServicerContext, error: Exception) -> NoReturn:
    """End the call with the status ``error`` answers (call it where the error is caught)."""
    failure = status.rpc_error(error)
    await context.abort(GRPC_CODES[failure.code], failure.message)
    raise AssertionError("unreachable")  # abort raises


def _unary(name: str) -> Callable[..., Awaitable[Any]]:
    """The servicer method for the unary handler ``name``."""
    handler = getattr(MatchHandlers, name)

    async def call(self: MatchService, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await handler(self.handlers, request, await _context(self, name, context))
        except Exception as error:
            await _fail(context, error)

    call.__name__ = call.__qualname__ = name
    return call


def _streaming(name: str) -> Callable[..., AsyncIterator[Any]]:
    """The servicer method for the streaming handler ``name``; the handler's stream is closed
    with the call's (a client that goes away ends it at once, not when it is collected). A
    bidirectional one (Play) is the same: its ``request`` is grpc's iterator of requests."""
    handler = getattr(MatchHandlers, name)

    async def call(
        self: MatchService, request: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        try:
            messages = handler(self.handlers, request, await _context(self, name, context))
            async with contextlib.aclosing(messages):
                async for message in messages:
                    yield message
        except Exception as error:
            await _fail(context, error)

    call.__name__ = call.__qualname__ = name
    return call


class MatchService(pb_grpc.MatchServiceServicer):
    """serai.v1.MatchService over a :class:`serai.matches.Matches`, for grpc.aio."""

    def __init__(
        self,
        matches: Matches,
        move_limiter: RateLimiter | None = None,
        list_limiter: RateLimiter | None = None,
        auth: Authenticator | None = None,
        *,
        handlers: MatchHandlers | None = None,
    ) -> None:
        self.matches = matches
        # ``handlers``: those another transport of the process shares (one set of limits and
        # response caches); else its own.
        self.handlers = handlers or MatchHandlers(matches, move_limiter, list_limiter, auth)

    ListGames = _unary("ListGames")
    CreateMatch = _unary("CreateMatch")
    JoinMatch = _unary("JoinMatch")
    ListMatches = _unary("ListMatches")
    GetMatch = _unary("GetMatch")
    ListLegalMoves = _unary("ListLegalMoves")
    SubmitMove = _unary("SubmitMove")
    Resign = _unary("Resign")
    GetTranscript = _unary("GetTranscript")
    GetReplay = _unary("GetReplay")
    Watch = _streaming("Watch")
    Play = _streaming("Play")
    ReclaimSeat = _unary("ReclaimSeat")
