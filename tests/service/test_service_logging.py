"""The request log: one line per call, and a client that stops a stream is not an error."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from serai.logging import RequestLogInterceptor
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
    wrapped = RequestLogInterceptor().wrap("/serai.v1.MatchService/Watch", handler)

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
    wrapped = RequestLogInterceptor().wrap("/serai.v1.MatchService/GetMatch", handler)

    async def call() -> None:
        with pytest.raises(RuntimeError, match="boom"):
            await wrapped.unary_unary(object(), FakeContext())

    with capture_logs() as logs:
        asyncio.run(call())
    (line,) = [entry for entry in logs if entry["event"] == "request"]
    assert (line["status"], line["log_level"]) == ("UNKNOWN", "error")
