"""The gRPC request log: the shared :class:`~serai.transports.request_log.RequestLog` around
grpc.aio's handlers.

Each method's handler is wrapped once (see :mod:`serai.transports.grpc.server`), so that no
interceptor runs on every call; the status logged is the one grpc's context holds.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import structlog

from serai.logging import clipped
from serai.transports.request_log import ERROR_LIMIT, RequestLog, structlog_variables

# How a call ends when the client goes away: a cancelled task, or (for a stream) the response
# generator closed at its yield. Routine for every Watch a client stops, so no error line.
_CLIENT_GONE = (asyncio.CancelledError, GeneratorExit)


def _gone(context: grpc.aio.ServicerContext) -> str:
    """The status of a call whose client went away: its deadline passed, or it cancelled."""
    remaining = context.time_remaining() if hasattr(context, "time_remaining") else None
    # grpc cancels the call when its deadline passes, by its own clock: allow for a little skew
    return "DEADLINE_EXCEEDED" if remaining is not None and remaining < 0.01 else "CANCELLED"


class GrpcRequestLog(RequestLog):
    """Logs every RPC once it ends (see :class:`serai.transports.request_log.RequestLog`): the
    status is the one grpc's context holds, or the client's going away."""

    def wrap(self, full_method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """``handler`` with its calls logged (for wrapping handlers once, without interceptors)."""
        method = full_method.rpartition("/")[2]
        self.method(method)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(method, handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            behavior = handler.unary_stream
            # grpc.aio streams from an async generator or from a coroutine that writes to the
            # context (grpc's own health Watch does): each is wrapped as what it is.
            logged = (
                self._stream(method, behavior)
                if inspect.isasyncgenfunction(behavior)
                else self._unary(method, behavior)
            )
            return grpc.unary_stream_rpc_method_handler(
                logged,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream is not None and inspect.isasyncgenfunction(handler.stream_stream):
            # A bidirectional stream (Play): its first message names the match, so the handler
            # binds the match id itself; the line is written when the stream ends.
            return grpc.stream_stream_rpc_method_handler(
                self._stream(method, handler.stream_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _finish(
        self,
        method: str,
        context: grpc.aio.ServicerContext,
        start: float,
        alone: bool,
        failed: BaseException | None,
        messages: int | None = None,
    ) -> None:
        code = context.code()
        if isinstance(code, grpc.StatusCode):
            status = code.name
        elif failed is None:
            status = "OK"
        else:
            status = "UNKNOWN"
            if isinstance(failed, _CLIENT_GONE):
                status = _gone(context)
                self.cut_short[status] += 1
        error = None
        if status == "UNKNOWN" and failed is not None:
            error = clipped(repr(failed), ERROR_LIMIT)
        self.finish(method, start, alone, status, error, messages)

    def _unary(
        self, method: str, behavior: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            start, alone = self.start(method, request)
            failed: BaseException | None = None
            try:
                return await behavior(request, context)
            except BaseException as error:
                failed = error
                raise
            finally:
                self._finish(method, context, start, alone, failed)

        return call

    def _stream(
        self, method: str, behavior: Callable[..., AsyncIterator[Any]]
    ) -> Callable[..., AsyncIterator[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            start, alone = self.start(method, request)
            failed: BaseException | None = None
            sent = 0
            try:
                async for response in behavior(request, context):
                    sent += 1
                    yield response
            except BaseException as error:
                failed = error
                raise
            finally:
                self._finish(method, context, start, alone, failed, messages=sent)

        return call


# grpc.aio's own debug line for a call cancelled in the server (grpc/_cython/_cygrpc/aio/
# server.pyx.pxi, _handle_exceptions); the only trace of one cancelled before any handler ran.
_GRPC_CANCELLED = "RPC cancelled for servicer method [%s]"


class QueuedCancellations:
    """Stands for grpc.aio's logger, to log the calls grpc cancels before any handler ran.

    Under saturation a call can wait in the event loop's queue past its deadline (or its client
    cancels it): grpc.aio then cancels it while it waits for its request message, and says so
    only at debug level, so it left no request line. This sees that debug call (whatever the
    logger's level) and, if the request log never started the call, writes its line: ``status``
    CANCELLED (grpc does not say whether the client or the deadline ended it), ``queued`` true.
    Every other use of the logger passes through. Installed once per process by
    :func:`trace_queued_cancellations`; ``count`` is how many it logged.
    """

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self.count = 0
        self._log = structlog.get_logger("serai.requests")
        [self._method], _unbound = structlog_variables("method")

    def debug(self, msg: object, *args: Any, **kwargs: Any) -> None:
        if msg == _GRPC_CANCELLED and args and self._method.get(None) is None:
            self.count += 1
            name = str(args[0]).rpartition("/")[2]
            self._log.info("request", status="CANCELLED", method=name, queued=True)
        self.logger.debug(msg, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.logger, name)


def trace_queued_cancellations() -> QueuedCancellations | None:
    """Put a :class:`QueuedCancellations` in front of grpc.aio's logger, once per process; it,
    or None where this grpc has no such logger (then those calls go untraced, as before)."""
    from grpc._cython import cygrpc

    current = getattr(cygrpc, "_LOGGER", None)
    if isinstance(current, QueuedCancellations):
        return current
    if not isinstance(current, logging.Logger):
        return None
    tracer = QueuedCancellations(current)
    cygrpc._LOGGER = tracer  # type: ignore[attr-defined]
    return tracer
