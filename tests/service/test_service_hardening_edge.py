"""At the transport edge: what a client sends is logged bounded, and a call that ends because
the client went away or its deadline passed still leaves its line."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
import structlog
from serai import logging as serai_logging
from serai.api import match_service_pb2 as pb
from serai.registry import Registry
from service_helpers import create, status_of
from tiny_game import TinyGame

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

Code = grpc.StatusCode


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """serai's JSON log set-up, writing to a StringIO; structlog's defaults come back after."""
    stream = io.StringIO()
    serai_logging.configure("json", stream=stream)
    yield stream
    structlog.reset_defaults()


def request_lines(stream: io.StringIO) -> list[tuple[str, dict[str, Any]]]:
    """Each request line written so far: its text and its fields."""
    texts = [text for text in stream.getvalue().splitlines() if '"request"' in text]
    return [(text, json.loads(text)) for text in texts]


def line_for(
    stream: io.StringIO, found: Callable[[dict[str, Any]], bool]
) -> tuple[str, dict[str, Any]]:
    """The first request line ``found`` accepts, waiting for the server to write it."""
    for _ in range(200):
        for text, line in request_lines(stream):
            if found(line):
                return text, line
        time.sleep(0.05)
    raise AssertionError(f"no such request line in {request_lines(stream)}")


def test_a_megabyte_match_id_is_logged_as_a_short_prefix_and_its_length(start_service, log_stream):
    """A 1 MB match id fails NOT_FOUND with a short message, and its request line holds the
    id's first characters and its length, not the megabyte."""
    stub = start_service(max_message_bytes=4 * 1024 * 1024).stub()
    huge = '"\n' + "A" * 1_000_000  # quotes and newlines too: escaped, never a second line

    code, details = status_of(lambda: stub.GetMatch(pb.GetMatchRequest(match_id=huge)))

    assert code in (Code.NOT_FOUND, Code.INVALID_ARGUMENT)
    assert len(details) < 2000
    text, line = line_for(stream=log_stream, found=lambda line: line["method"] == "GetMatch")
    assert len(text) < 1000
    assert line["status"] == code.name
    assert line["match_id"].startswith('"\nAAAA')
    assert str(len(huge)) in line["match_id"]


def test_a_long_request_id_and_player_name_stay_out_of_the_line(start_service, log_stream):
    """A JoinMatch whose request id and name run to 300,000 characters is refused with a short
    message, and its line holds neither."""
    registry = Registry({"tiny": TinyGame()})
    stub = start_service(registry=registry, max_message_bytes=4 * 1024 * 1024).stub()
    match_id = create(stub)
    request = pb.JoinMatchRequest(
        match_id=match_id, player_name="N" * 300_000, request_id="R" * 300_000
    )
    code, details = status_of(lambda: stub.JoinMatch(request))
    assert code == Code.INVALID_ARGUMENT and len(details) < 2000
    text, line = line_for(log_stream, lambda line: line["method"] == "JoinMatch")
    assert len(text) < 1000 and line["match_id"] == match_id


def test_a_watch_past_its_deadline_is_logged_deadline_exceeded(start_service, log_stream):
    """A Watch whose deadline passes while it waits for events says so on its line."""
    registry = Registry({"tiny": TinyGame()})
    service = start_service(registry=registry)
    stub = service.stub()
    match_id = create(stub)
    watch = stub.Watch(pb.WatchRequest(match_id=match_id), timeout=0.5)
    code, _ = status_of(lambda: list(watch))
    assert code == Code.DEADLINE_EXCEEDED
    _, line = line_for(log_stream, lambda line: line["method"] == "Watch")
    assert line["status"] == "DEADLINE_EXCEEDED" and line["match_id"] == match_id
    assert service.server.request_log.cut_short["DEADLINE_EXCEEDED"] == 1


def test_a_watch_the_client_cancels_is_logged_cancelled(start_service, log_stream):
    """A Watch the client cancels mid-stream has its line: CANCELLED, with what it sent."""
    registry = Registry({"tiny": TinyGame()})
    service = start_service(registry=registry)
    stub = service.stub()
    match_id = create(stub)
    watch = stub.Watch(pb.WatchRequest(match_id=match_id), timeout=30)
    assert next(watch).HasField("created")
    watch.cancel()
    _, line = line_for(log_stream, lambda line: line["method"] == "Watch")
    assert (line["status"], line["messages"]) == ("CANCELLED", 1)
    assert service.server.request_log.cut_short["CANCELLED"] == 1


def test_a_call_queued_past_its_deadline_still_has_its_line(start_service, log_stream):
    """A call that waits behind a busy event loop until its deadline passes (grpc cancels it,
    maybe before any handler ran) leaves a request line all the same."""
    registry = Registry({"tiny": TinyGame()})
    service = start_service(registry=registry)
    stub = service.stub()
    match_id = create(stub)
    busy = asyncio.run_coroutine_threadsafe(_hold_the_loop(1.0), service.loop)
    code, _ = status_of(lambda: stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=0.2))
    busy.result(10)
    assert code == Code.DEADLINE_EXCEEDED
    _, line = line_for(
        log_stream, lambda line: line["method"] == "GetMatch" and line["status"] != "OK"
    )
    assert line["status"] in ("CANCELLED", "DEADLINE_EXCEEDED")


async def _hold_the_loop(seconds: float) -> None:
    time.sleep(seconds)  # blocks the server's event loop: every call queues behind this
