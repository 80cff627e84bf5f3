"""structlog set-up, and the server interceptor that logs one line per request.

JSON lines when stdout is not a terminal (collectors read them), colours on a terminal. Each
request line carries the method, match id, seat (bound by :mod:`serai.matches` once a token is
checked), gRPC status and latency::

    {"event": "request", "status": "OK", "latency_ms": 1.8, "method": "SubmitMove",
     "match_id": "9f1c...", "seat": 0, "level": "info", "timestamp": "..."}

The request line is on every call's path, so in JSON it skips structlog's processor chain and is
written by :class:`JsonRequestLines`, with the same keys and values the chain would give it; any
other line, and the request line whenever something unusual is bound, goes through structlog.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import inspect
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from json.encoder import encode_basestring_ascii
from typing import Any, TextIO

import grpc
import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
_LEVELS["error"] = logging.ERROR
# How a call ends when the client goes away: a cancelled task, or (for a stream) the response
# generator closed at its yield. Routine for every Watch a client stops, so no error line.
_CLIENT_GONE = (asyncio.CancelledError, GeneratorExit)
# The keys of the request line; the fast path leaves a configured field of one of these names to
# structlog, which decides which value wins.
_REQUEST_KEYS = frozenset(
    [
        "event",
        "status",
        "latency_ms",
        "error",
        "messages",
        "method",
        "match_id",
        "seat",
        "level",
        "timestamp",
    ]
)

_DIGITS = [f"{n:03d}" for n in range(1000)]  # formatting a fraction costs more than a look-up

# Set by configure() when it renders JSON; None leaves every line to structlog.
_request_lines: JsonRequestLines | None = None


def configure(
    fmt: str = "auto",
    level: str = "info",
    stream: TextIO | None = None,
    fields: Mapping[str, Any] | None = None,
) -> None:
    """Set structlog up for the process: ``fmt`` is auto, json or pretty; ``fields`` go on every
    line (a worker's index, so lines of ``serve --workers`` say which process wrote them)."""
    global _request_lines
    out = stream or sys.stdout
    as_json = fmt == "json" or (fmt == "auto" and not out.isatty())
    # Plain tracebacks: rich's, the pretty default, print every frame's locals, and those hold
    # seat tokens and hidden game state.
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback)
    )
    processors = [
        structlog.contextvars.merge_contextvars,
        *([_adding(dict(fields))] if fields else []),
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info if as_json else _identity,
        renderer,
    ]
    threshold = _LEVELS.get(level, logging.INFO)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(threshold),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=True,
    )
    _request_lines = (
        JsonRequestLines(processors, stream, threshold, dict(fields or {})) if as_json else None
    )


def _identity(logger: Any, name: str, event: Any) -> Any:
    return event


def _adding(fields: dict[str, Any]) -> Callable[[Any, str, Any], Any]:
    def add(logger: Any, name: str, event: Any) -> Any:
        for key, value in fields.items():
            event.setdefault(key, value)
        return event

    return add


class JsonRequestLines:
    """Renders and writes the request line as configure()'s JSON chain would, without the chain.

    ``processors`` is the list configure() gave structlog: while it still ends in its JSON
    renderer (``structlog.testing.capture_logs`` swaps its contents) and structlog is configured
    (``structlog.reset_defaults`` undoes that), :meth:`line` renders; otherwise it says None, and
    the caller logs through structlog. A later ``structlog.configure`` goes unnoticed (checking
    ``get_config()`` costs a tenth of the line): change the set-up with :func:`configure`. Lines
    go to ``stream`` (None: ``sys.stdout`` at the time), a write and a flush each, as structlog's
    do. ``clock`` gives nanoseconds since the epoch. Example::

        lines.line('"method": "GetMatch", ', "ab12", 0, "OK", 1.25)
        # '{"event": "request", "status": "OK", "latency_ms": 1.25, "method": "GetMatch",
        #   "match_id": "ab12", "seat": 0, "level": "info", "timestamp": "2026-...Z"}\\n'
    """

    def __init__(
        self,
        processors: list[Any],
        stream: TextIO | None,
        threshold: int,
        fields: dict[str, Any],
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self._processors = processors
        self._renderer = processors[-1]
        self._stream = stream
        self.info_enabled = threshold <= logging.INFO
        self.error_enabled = threshold <= logging.ERROR
        self._fields: str | None = ""
        if fields.keys() & _REQUEST_KEYS:
            self._fields = None  # structlog decides which value wins
        elif fields:
            self._fields = self._renderer(None, "info", fields)[1:-1] + ", "
        self._clock = clock
        self._second: tuple[int, str] = (-1, "")  # one tuple: threads never see half of it

    def line(
        self,
        method: str,
        match_id: Any,
        seat: Any,
        status: str,
        latency_ms: float,
        error: str | None = None,
        messages: int | None = None,
    ) -> str | None:
        """The line with its newline, or None where structlog must render it: not in effect, or
        a value of a kind only its renderer handles. ``method`` is a rendered
        ``"method": "...", `` fragment; ``match_id`` and ``seat`` are None when not bound."""
        fields = self._fields
        processors = self._processors
        if fields is None or processors[-1] is not self._renderer:
            return None
        if not structlog.is_configured():  # reset_defaults() since
            return None
        if match_id is None:
            match_part = ""
        elif type(match_id) is str:
            match_part = f'"match_id": {encode_basestring_ascii(match_id)}, '
        else:
            return None
        if seat is None:
            seat_part = ""
        elif type(seat) is int:
            seat_part = f'"seat": {seat}, '
        else:
            return None
        extra = ""
        level = "info"
        if error is not None:
            extra = f'"error": {encode_basestring_ascii(error)}, '
            level = "error"
        if messages is not None:
            extra += f'"messages": {messages}, '
        return (
            f'{{"event": "request", "status": "{status}", "latency_ms": {latency_ms!r}, {extra}'
            f'{method}{match_part}{seat_part}{fields}"level": "{level}", '
            f'"timestamp": "{self.timestamp()}"}}\n'
        )

    def write(self, line: str) -> None:
        # A write and a flush per line: lines of serve --workers share one pipe, and a write of
        # at most PIPE_BUF bytes is never interleaved with another's (a buffer's 8 KiB could be).
        stream = self._stream or sys.stdout
        stream.write(line)
        stream.flush()

    def timestamp(self) -> str:
        """Now as TimeStamper(fmt="iso", utc=True) writes it (no fraction on a whole second)."""
        second, fraction = divmod(self._clock() // 1000, 1_000_000)
        cached, text = self._second
        if second != cached:
            text = datetime.datetime.fromtimestamp(second, datetime.UTC).isoformat()[:19]
            self._second = (second, text)
        if fraction:
            milli, micro = divmod(fraction, 1000)
            return f"{text}.{_DIGITS[milli]}{_DIGITS[micro]}Z"
        return f"{text}Z"


def _structlog_variables(*keys: str) -> tuple[list[contextvars.ContextVar[Any]], Any]:
    """The ContextVars behind structlog's ``bind_contextvars`` for ``keys``, and the value that
    marks one unbound: setting them directly costs a fraction of bind/clear_contextvars."""
    tokens = structlog.contextvars.bind_contextvars(**dict.fromkeys(keys))
    structlog.contextvars.reset_contextvars(**tokens)
    variables = [tokens[key].var for key in keys]
    return variables, contextvars.Context().run(variables[0].get)


class RequestLogInterceptor(grpc.aio.ServerInterceptor):
    """Logs every RPC once it ends: method, match id, seat, status, latency (ms).

    Binds method and match_id with structlog's contextvars for the call, so every line logged
    while it runs (``bind_contextvars(seat=...)`` adds the seat) carries them; none outlives it.
    """

    def __init__(self) -> None:
        self._log = structlog.get_logger("serai.requests")
        self._wrapped: dict[str, grpc.RpcMethodHandler] = {}  # by method: built once, not per call
        self._method_fields: dict[str, str] = {}  # by method: its '"method": "...", ' rendered
        (self._method, self._match_id, self._seat), self._unbound = _structlog_variables(
            "method", "match_id", "seat"
        )

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
        self._method_fields[method] = f'"method": {encode_basestring_ascii(method)}, '
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
        return handler

    def _start(self, method: str, request: Any) -> tuple[float, bool]:
        """Binds the call's keys; returns the start time and whether the context holds nothing
        but them (grpc.aio runs each call in a task of its own, on an empty context)."""
        match_id = getattr(request, "match_id", "") or self._unbound
        self._method.set(method)
        self._match_id.set(match_id)
        self._seat.set(self._unbound)
        alone = len(contextvars.copy_context()) == 3
        if not alone:  # bindings from outside the call: none may leak into its lines
            structlog.contextvars.clear_contextvars()
            self._method.set(method)
            self._match_id.set(match_id)
        return time.perf_counter(), alone

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
            status = "CANCELLED" if isinstance(failed, _CLIENT_GONE) else "UNKNOWN"
        latency_ms = round((time.perf_counter() - start) * 1000, 3)
        error = repr(failed) if status == "UNKNOWN" and failed is not None else None
        lines = _request_lines
        # Only our three keys in the context (none bound since _start): the line needs no scan.
        if lines is not None and alone and len(contextvars.copy_context()) == 3:
            if not (lines.info_enabled if error is None else lines.error_enabled):
                self._unbind()
                return
            unbound = self._unbound
            match_id = self._match_id.get()
            seat = self._seat.get()
            line = (
                lines.line(
                    self._method_fields[method],
                    None if match_id is unbound else match_id,
                    None if seat is unbound else seat,
                    status,
                    latency_ms,
                    error,
                    messages,
                )
                if self._method.get() is method  # else rebound by the handler: structlog's job
                else None
            )
            if line is not None:
                lines.write(line)
                self._unbind()
                return
        extra: dict[str, Any] = {} if messages is None else {"messages": messages}
        if error is not None:
            self._log.error("request", status=status, latency_ms=latency_ms, error=error, **extra)
        else:
            self._log.info("request", status=status, latency_ms=latency_ms, **extra)
        structlog.contextvars.clear_contextvars()

    def _unbind(self) -> None:
        unbound = self._unbound
        self._method.set(unbound)
        self._match_id.set(unbound)
        self._seat.set(unbound)

    def _unary(
        self, method: str, behavior: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            start, alone = self._start(method, request)
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
            start, alone = self._start(method, request)
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
