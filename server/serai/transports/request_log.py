"""The request log every transport writes: one line per call, the same fields whatever carried it.

A transport calls :meth:`RequestLog.start` when a call's request is decoded and
:meth:`RequestLog.finish` when it ends, with the status it answered (gRPC's code names). Binds
method, match id and seat with structlog's contextvars for the call, so every line logged while
it runs carries them; the line itself is written by :data:`serai.logging.request_lines` when it
renders JSON, else by structlog. Example::

    log = RequestLog()
    log.method("GetMatch")                       # once per method
    start, alone = log.start("GetMatch", request)
    ...
    log.finish("GetMatch", start, alone, "NOT_FOUND")
"""

from __future__ import annotations

import contextvars
import time
from collections import Counter
from json.encoder import encode_basestring_ascii
from typing import Any

import structlog

from serai import logging as serai_logging
from serai.logging import CLIENT_TEXT_LIMIT, clipped
from serai.metrics import observe_call

ERROR_LIMIT = 2000  # an exception's text may quote what a client sent


def structlog_variables(*keys: str) -> tuple[list[contextvars.ContextVar[Any]], Any]:
    """The ContextVars behind structlog's ``bind_contextvars`` for ``keys``, and the value that
    marks one unbound: setting them directly costs a fraction of bind/clear_contextvars."""
    tokens = structlog.contextvars.bind_contextvars(**dict.fromkeys(keys))
    structlog.contextvars.reset_contextvars(**tokens)
    variables = [tokens[key].var for key in keys]
    return variables, contextvars.Context().run(variables[0].get)


class RequestLog:
    """Logs every call once it ends: method, match id, seat, status, latency (ms), and for a
    stream the messages sent. ``cut_short`` counts the calls that ended because the client went
    away, by status (CANCELLED: it cancelled; DEADLINE_EXCEEDED: its deadline passed)."""

    def __init__(self) -> None:
        self._log = structlog.get_logger("serai.requests")
        self._method_fields: dict[str, str] = {}  # by method: its '"method": "...", ' rendered
        (self._method, self._match_id, self._seat), self._unbound = structlog_variables(
            "method", "match_id", "seat"
        )
        self.cut_short: Counter[str] = Counter()

    def method(self, method: str) -> None:
        """Get ready to log calls of ``method`` (its short name, e.g. ``GetMatch``)."""
        self._method_fields[method] = f'"method": {encode_basestring_ascii(method)}, '

    def start(self, method: str, request: Any) -> tuple[float, bool]:
        """Binds the call's keys; returns the start time and whether the context holds nothing
        but them (each call runs in a task of its own, on an empty context, in grpc.aio)."""
        match_id = getattr(request, "match_id", "")
        if not match_id:
            match_id = self._unbound
        elif len(match_id) > CLIENT_TEXT_LIMIT:  # the client's text, bounded in every line
            match_id = clipped(match_id)
        self._method.set(method)
        self._match_id.set(match_id)
        self._seat.set(self._unbound)
        alone = len(contextvars.copy_context()) == 3
        if not alone:  # bindings from outside the call: none may leak into its lines
            structlog.contextvars.clear_contextvars()
            self._method.set(method)
            self._match_id.set(match_id)
        return time.perf_counter(), alone

    def finish(
        self,
        method: str,
        start: float,
        alone: bool,
        status: str,
        error: str | None = None,
        messages: int | None = None,
    ) -> None:
        """Write the call's line: ``status`` as gRPC names it; ``error`` (a bug's text, bounded
        by the caller) makes it an error line."""
        seconds = time.perf_counter() - start
        observe_call(method, status, seconds)  # every call counted, whether its line is written
        latency_ms = round(seconds * 1000, 3)
        lines = serai_logging.request_lines
        # Only our three keys in the context (none bound since start): the line needs no scan.
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
