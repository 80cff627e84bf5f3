"""The request log: one line per call, with the fields operators read, as valid JSON whatever the
client sent; a client that stops a stream is not an error."""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import io
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import grpc
import pytest
import structlog
from hypothesis import given
from hypothesis import strategies as st
from serai import logging as serai_logging
from serai.transports.grpc.request_log import GrpcRequestLog
from structlog.testing import capture_logs


class FakeContext:
    """A servicer context whose call ended without a status set by the handler."""

    def code(self) -> None:
        return None


async def events(request: Any, context: Any) -> Any:
    for number in range(10):
        yield number


def test_a_client_closing_a_watch_is_logged_as_cancelled_not_as_an_error():
    handler = grpc.unary_stream_rpc_method_handler(events)
    wrapped = GrpcRequestLog().wrap("/serai.v1.MatchService/Watch", handler)

    async def read_one_then_hang_up() -> None:
        stream = wrapped.unary_stream(object(), FakeContext())
        assert await stream.__anext__() == 0
        await stream.aclose()  # what grpc.aio does when the client cancels

    with capture_logs() as logs:
        asyncio.run(read_one_then_hang_up())
    (line,) = [entry for entry in logs if entry["event"] == "request"]
    assert line["status"] == "CANCELLED"
    assert line["log_level"] == "info"
    assert line["messages"] == 1


def test_a_handler_that_crashes_is_logged_as_an_error():
    async def broken(request: Any, context: Any) -> Any:
        raise RuntimeError("boom")

    handler = grpc.unary_unary_rpc_method_handler(broken)
    wrapped = GrpcRequestLog().wrap("/serai.v1.MatchService/GetMatch", handler)

    async def call() -> None:
        with pytest.raises(RuntimeError, match="boom"):
            await wrapped.unary_unary(object(), FakeContext())

    with capture_logs() as logs:
        asyncio.run(call())
    (line,) = [entry for entry in logs if entry["event"] == "request"]
    assert (line["status"], line["log_level"]) == ("UNKNOWN", "error")


# --- the JSON line, as configure() sets it up ----------------------------------------------------

HOSTILE_MATCH_IDS = [
    'a"b',
    "back\\slash\\",
    "new\nline\ttab\x00nul\x1fescape\x7f",
    "caf\u00e9 \u2603 \U0001f600",
    "\ud800 lone surrogate",
    '"}, "status": "OK", "seat": 7, "x": {"',
]


class Request:
    def __init__(self, match_id: str = "") -> None:
        self.match_id = match_id


@pytest.fixture
def configured() -> Iterator[Callable[..., io.StringIO]]:
    """``configured(fmt="json", level="info", fields=None)``: serai's set-up, writing to a
    StringIO it returns; structlog's defaults come back after the test."""

    def configure(
        fmt: str = "json", level: str = "info", fields: dict[str, Any] | None = None
    ) -> io.StringIO:
        stream = io.StringIO()
        serai_logging.configure(fmt, level, stream=stream, fields=fields)
        return stream

    yield configure
    structlog.reset_defaults()


def run_calls(*calls: Callable[[], Awaitable[Any]]) -> None:
    """Awaits ``calls`` one after another in one task, on an empty context (as grpc.aio runs a
    call), so no binding of the test's own context reaches them."""

    async def in_turn() -> None:
        for call in calls:
            await call()

    contextvars.Context().run(asyncio.run, in_turn())


def unary(
    behavior: Callable[[Any, Any], Awaitable[Any]],
    request: Any,
    method: str = "SubmitMove",
    request_log: GrpcRequestLog | None = None,
) -> Callable[[], Awaitable[Any]]:
    handler = grpc.unary_unary_rpc_method_handler(behavior)
    logged = (request_log or GrpcRequestLog()).wrap(f"/serai.v1.MatchService/{method}", handler)
    return lambda: logged.unary_unary(request, FakeContext())


async def seated(request: Any, context: Any) -> str:
    structlog.contextvars.bind_contextvars(seat=1)
    return "done"


def lines_of(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_the_request_line_carries_every_field_operators_read(configured):
    stream = configured(fields={"worker": 2})
    run_calls(unary(seated, Request("9f1c")))

    (line,) = lines_of(stream)
    timestamp = line.pop("timestamp")
    assert isinstance(line.pop("latency_ms"), float)
    assert line == {
        "event": "request",
        "method": "SubmitMove",
        "match_id": "9f1c",
        "seat": 1,
        "status": "OK",
        "level": "info",
        "worker": 2,
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z", timestamp)


def test_the_request_line_is_the_line_structlog_would_have_written(configured):
    stream = configured(fields={"worker": 2})
    run_calls(unary(seated, Request("9f1c")))
    (fast,) = lines_of(stream)

    async def through_structlog() -> None:
        structlog.contextvars.bind_contextvars(method="SubmitMove", match_id="9f1c", seat=1)
        structlog.get_logger("test").info("request", status="OK", latency_ms=fast["latency_ms"])

    run_calls(through_structlog)
    (_, chain) = lines_of(stream)
    assert set(fast) == set(chain)
    assert {**fast, "timestamp": None} == {**chain, "timestamp": None}


def test_a_request_without_a_match_id_or_seat_has_neither_key(configured):
    stream = configured()

    async def anonymous(request: Any, context: Any) -> str:
        return "games"

    run_calls(unary(anonymous, Request(), method="ListGames"))
    (line,) = lines_of(stream)
    assert line["method"] == "ListGames" and "match_id" not in line and "seat" not in line


@pytest.mark.parametrize("match_id", HOSTILE_MATCH_IDS)
def test_a_hostile_match_id_comes_back_intact_from_valid_json(configured, match_id):
    stream = configured()
    run_calls(unary(seated, Request(match_id)))
    (line,) = lines_of(stream)
    assert line["match_id"] == match_id and line["seat"] == 1 and line["status"] == "OK"


@given(match_id=st.text(min_size=1, max_size=serai_logging.CLIENT_TEXT_LIMIT))
def test_any_match_id_comes_back_intact_from_valid_json(match_id):
    """Any text up to the limit a client's text is written whole to (longer is clipped: a
    test of its own)."""
    stream = io.StringIO()
    serai_logging.configure("json", stream=stream)
    try:
        run_calls(unary(seated, Request(match_id)))
    finally:
        structlog.reset_defaults()
    (line,) = lines_of(stream)
    assert line["match_id"] == match_id


def test_a_match_id_past_the_limit_is_written_clipped_with_its_length():
    stream = io.StringIO()
    serai_logging.configure("json", stream=stream)
    sent = "x" * 10_000
    try:
        run_calls(unary(seated, Request(sent)))
    finally:
        structlog.reset_defaults()
    (line,) = lines_of(stream)
    limit = serai_logging.CLIENT_TEXT_LIMIT
    assert line["match_id"] == "x" * limit + "... (10000 characters)"


def test_a_crash_is_an_error_line_with_the_exception_even_at_level_warning(configured):
    stream = configured(level="warning")

    async def broken(request: Any, context: Any) -> Any:
        raise RuntimeError('boom "quoted"\n')

    async def crash() -> None:
        with pytest.raises(RuntimeError):
            await unary(broken, Request("m1"))()

    run_calls(crash)
    (line,) = lines_of(stream)
    assert (line["status"], line["level"]) == ("UNKNOWN", "error")
    assert line["error"] == repr(RuntimeError('boom "quoted"\n'))
    assert line["match_id"] == "m1"


def test_at_level_warning_a_request_that_went_well_writes_nothing(configured):
    stream = configured(level="warning")
    run_calls(unary(seated, Request("m1")), unary(seated, Request("m2"), method="GetMatch"))
    assert stream.getvalue() == ""


def test_at_level_error_a_call_the_client_cancelled_writes_nothing(configured):
    stream = configured(level="error")
    handler = grpc.unary_stream_rpc_method_handler(events)
    wrapped = GrpcRequestLog().wrap("/serai.v1.MatchService/Watch", handler)

    async def hang_up() -> None:
        stream = wrapped.unary_stream(Request("m1"), FakeContext())
        await stream.__anext__()
        await stream.aclose()

    run_calls(hang_up)
    assert stream.getvalue() == ""


def test_a_watch_line_counts_the_messages_sent(configured):
    stream = configured()
    handler = grpc.unary_stream_rpc_method_handler(events)
    wrapped = GrpcRequestLog().wrap("/serai.v1.MatchService/Watch", handler)

    async def read_all() -> None:
        assert [event async for event in wrapped.unary_stream(Request("m1"), FakeContext())] == (
            list(range(10))
        )

    run_calls(read_all)
    (line,) = lines_of(stream)
    assert (line["method"], line["messages"], line["status"]) == ("Watch", 10, "OK")


def test_lines_logged_during_a_call_carry_its_method_match_and_seat_and_none_after(configured):
    stream = configured()
    log = structlog.get_logger("test")

    async def logs_inside(request: Any, context: Any) -> str:
        structlog.contextvars.bind_contextvars(seat=0)
        log.warning("internal error")
        return "done"

    async def then_outside() -> None:
        log.warning("between calls")

    run_calls(unary(logs_inside, Request("m1")), then_outside, unary(seated, Request("m2")))
    inside, first, between, second = lines_of(stream)
    assert (inside["event"], inside["method"], inside["match_id"], inside["seat"]) == (
        "internal error",
        "SubmitMove",
        "m1",
        0,
    )
    assert (first["event"], first["seat"]) == ("request", 0)
    assert between["event"] == "between calls"
    assert not {"method", "match_id", "seat"} & set(between)
    assert (second["match_id"], second["seat"]) == ("m2", 1)


def test_a_key_a_handler_binds_is_on_its_request_line_and_not_on_the_next(configured):
    stream = configured()

    async def binds_game(request: Any, context: Any) -> str:
        structlog.contextvars.bind_contextvars(game="jaipur", seat=1)
        return "done"

    async def binds_nothing(request: Any, context: Any) -> str:
        return "done"

    run_calls(unary(binds_game, Request("m1")), unary(binds_nothing, Request("m2")))
    first, second = lines_of(stream)
    assert (first["game"], first["seat"], first["method"], first["match_id"]) == (
        "jaipur",
        1,
        "SubmitMove",
        "m1",
    )
    assert "game" not in second and "seat" not in second and second["match_id"] == "m2"


@pytest.mark.parametrize("outside", [{"seat": 5}, {"seat": 5, "stale": "yes"}])
def test_bindings_made_before_a_call_stay_off_its_line(configured, outside):
    stream = configured()

    async def anonymous(request: Any, context: Any) -> str:
        return "done"

    async def bound_outside() -> None:
        structlog.contextvars.bind_contextvars(**outside)
        await unary(anonymous, Request("m1"), method="GetMatch")()

    run_calls(bound_outside)
    (line,) = lines_of(stream)
    assert not {"seat", "stale"} & set(line) and line["match_id"] == "m1"


def test_capture_logs_still_sees_the_request_line_and_the_stream_gets_none(configured):
    stream = configured()
    with capture_logs() as logs:
        run_calls(unary(seated, Request("m1")))
    (line,) = [entry for entry in logs if entry["event"] == "request"]
    assert (line["status"], line["log_level"]) == ("OK", "info")
    assert stream.getvalue() == ""


def test_the_pretty_format_writes_the_request_line_too(configured):
    stream = configured(fmt="pretty")
    run_calls(unary(seated, Request("m1")))
    text = stream.getvalue()
    assert "request" in text and "SubmitMove" in text and "m1" in text


def test_health_probes_write_no_request_lines_and_other_calls_do(configured, start_service):
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from serai.api import match_service_pb2 as pb
    from serai.api import match_service_pb2_grpc as pb_grpc

    stream = configured()
    channel = start_service().channel()
    for _ in range(3):
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""))
    pb_grpc.MatchServiceStub(channel).ListGames(pb.ListGamesRequest())
    methods = [line.get("method") for line in lines_of(stream) if line["event"] == "request"]
    assert methods == ["ListGames"]


def test_the_pretty_format_shows_a_crash_without_the_secrets_in_its_frames(configured):
    stream = configured(fmt="pretty")

    def crashing() -> None:
        seat_token = "tok-3f9a-never-logged"  # a local of the failing frame, as in the servicer
        raise RuntimeError(f"boom after {len(seat_token)} characters")

    try:
        crashing()
    except RuntimeError:
        structlog.get_logger("serai.service").exception("internal error")  # as the service does
    text = stream.getvalue()
    assert "RuntimeError: boom after 21 characters" in text
    assert "tok-3f9a" not in text


@pytest.mark.parametrize("micros", [123_456, 0, 5, 999_999])
def test_the_timestamp_is_written_as_structlogs_iso_utc_stamper_writes_it(micros):
    second = 1_764_700_000
    lines = serai_logging.JsonRequestLines(
        [structlog.processors.JSONRenderer()],
        None,
        logging.INFO,
        {},
        clock=lambda: (second * 1_000_000 + micros) * 1000,
    )
    moment = datetime.datetime.fromtimestamp(second, datetime.UTC).replace(microsecond=micros)
    assert lines.timestamp() == moment.isoformat().replace("+00:00", "Z")
