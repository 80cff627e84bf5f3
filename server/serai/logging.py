"""structlog set-up, and the request line's fast JSON writer, for every transport.

JSON lines when stdout is not a terminal (collectors read them), colours on a terminal. Each
request line (written by a transport's request log, e.g.
:mod:`serai.transports.grpc.request_log`) carries the method, match id, seat (bound by
:mod:`serai.matches` once a token is checked), status and latency::

    {"event": "request", "status": "OK", "latency_ms": 1.8, "method": "SubmitMove",
     "match_id": "9f1c...", "seat": 0, "level": "info", "timestamp": "..."}

The request line is on every call's path, so in JSON it skips structlog's processor chain and is
written by :class:`JsonRequestLines`, with the same keys and values the chain would give it; any
other line, and the request line whenever something unusual is bound, goes through structlog.
"""

from __future__ import annotations

import datetime
import logging
import sys
import time
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring_ascii
from typing import Any, TextIO

import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
_LEVELS["error"] = logging.ERROR
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

# A client's text (a match id, a request id) is written whole up to this many characters: every
# valid one fits; a longer one is an attack or a mistake, and is cut (see clipped()).
CLIENT_TEXT_LIMIT = 128

_DIGITS = [f"{n:03d}" for n in range(1000)]  # formatting a fraction costs more than a look-up

# Set by configure() when it renders JSON; None leaves every line to structlog.
request_lines: JsonRequestLines | None = None


def configure(
    fmt: str = "auto",
    level: str = "info",
    stream: TextIO | None = None,
    fields: Mapping[str, Any] | None = None,
) -> None:
    """Set structlog up for the process: ``fmt`` is auto, json or pretty; ``fields`` go on every
    line (a worker's index, so lines of ``serve --workers`` say which process wrote them)."""
    global request_lines
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
    request_lines = (
        JsonRequestLines(processors, stream, threshold, dict(fields or {})) if as_json else None
    )


def clipped(text: str, limit: int = CLIENT_TEXT_LIMIT, tail: int = 0) -> str:
    """``text`` if at most ``limit`` characters, else ``limit`` of them and its length: a
    client's text goes into lines and messages bounded, however much of it was sent. The first
    ``limit - tail`` and the last ``tail`` are kept (the end of a message says what to do); the
    renderer escapes what is kept. Example::

        clipped("x" * 1_000_000)   # 'xxx...x... (1000000 characters)', 128 x's
    """
    if len(text) <= limit:
        return text
    head = f"{text[: limit - tail]}... ({len(text)} characters)"
    return f"{head} ...{text[-tail:]}" if tail > 0 else head


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
