"""structlog set-up, and the server interceptor that logs one line per request.

JSON lines when stdout is not a terminal (collectors read them), colours on a terminal. Each
request line carries the method, match id, seat (bound by :mod:`serai.matches` once a token is
checked), gRPC status and latency::

    {"event": "request", "method": "SubmitMove", "match_id": "9f1c...", "seat": 0,
     "status": "OK", "latency_ms": 1.8, "level": "info", "timestamp": "..."}
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TextIO

import grpc
import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
_LEVELS["error"] = logging.ERROR
# How a call ends when the client goes away: a cancelled task, or (for a stream) the response
# generator closed at its yield. Routine for every Watch a client stops, so no error line.
_CLIENT_GONE = (asyncio.CancelledError, GeneratorExit)


def configure(
    fmt: str = "auto",
    level: str = "info",
    stream: TextIO | None = None,
    fields: Mapping[str, Any] | None = None,
) -> None:
    """Set structlog up for the process: ``fmt`` is auto, json or pretty; ``fields`` go on every
    line (a worker's index, so lines of ``serve --workers`` say which process wrote them)."""
    out = stream or sys.stdout
    as_json = fmt == "json" or (fmt == "auto" and not out.isatty())
    renderer: Any = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            *([_adding(dict(fields))] if fields else []),
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info if as_json else _identity,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=True,
    )


def _identity(logger: Any, name: str, event: Any) -> Any:
    return event


def _adding(fields: dict[str, Any]) -> Callable[[Any, str, Any], Any]:
    def add(logger: Any, name: str, event: Any) -> Any:
        for key, value in fields.items():
            event.setdefault(key, value)
        return event

    return add


class RequestLogInterceptor(grpc.aio.ServerInterceptor):
    """Logs every RPC once it ends: method, match id, seat, status, latency (ms)."""

    def __init__(self) -> None:
        self._log = structlog.get_logger("serai.requests")
        self._wrapped: dict[str, grpc.RpcMethodHandler] = {}  # by method: built once, not per call

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        wrapped = self._wrapped.get(details.method)
        if wrapped is not None:
            return wrapped
        handler = await continuation(details)
        if handler is None:
            return handler
        wrapped = self.wrap(details.method, handler)
        self._wrapped[details.method] = wrapped
        return wrapped

    def wrap(self, full_method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """``handler`` with its calls logged (for wrapping handlers once, without interceptors)."""
        method = full_method.rpartition("/")[2]
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(method, handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(method, handler.unary_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _start(self, method: str, request: Any) -> float:
        structlog.contextvars.clear_contextvars()
        match_id = getattr(request, "match_id", "")
        structlog.contextvars.bind_contextvars(
            method=method, **({"match_id": match_id} if match_id else {})
        )
        return time.perf_counter()

    def _finish(
        self,
        context: grpc.aio.ServicerContext,
        start: float,
        failed: BaseException | None,
        **extra: Any,
    ) -> None:
        code = context.code()
        if isinstance(code, grpc.StatusCode):
            status = code.name
        elif failed is None:
            status = "OK"
        else:
            status = "CANCELLED" if isinstance(failed, _CLIENT_GONE) else "UNKNOWN"
        latency_ms = round((time.perf_counter() - start) * 1000, 3)
        if status == "UNKNOWN" and failed is not None:
            self._log.error(
                "request", status=status, latency_ms=latency_ms, error=repr(failed), **extra
            )
        else:
            self._log.info("request", status=status, latency_ms=latency_ms, **extra)
        structlog.contextvars.clear_contextvars()

    def _unary(
        self, method: str, behavior: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            start = self._start(method, request)
            failed: BaseException | None = None
            try:
                return await behavior(request, context)
            except BaseException as error:
                failed = error
                raise
            finally:
                self._finish(context, start, failed)

        return call

    def _stream(
        self, method: str, behavior: Callable[..., AsyncIterator[Any]]
    ) -> Callable[..., AsyncIterator[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            start = self._start(method, request)
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
                self._finish(context, start, failed, messages=sent)

        return call
