"""What one client without a key can no longer exhaust (issue 32, items 7 and 10): Play streams
that never send ``open`` count against the watch limits from their start and end after
--play-open-seconds; CreateMatch has a rate per address (and per API key). Real ``serai serve``
processes and a real Redis."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from waiting import wait_until


def _silent_play(stub: Any, stop: threading.Event) -> Any:
    """A Play stream that sends nothing until ``stop`` is set."""

    def nothing() -> Iterator[pb.PlayRequest]:
        stop.wait()
        return
        yield

    return stub.Play(nothing())


def _code_within(call: Any, seconds: float = 60) -> grpc.StatusCode:
    """The status a streaming call ends with, waiting at most ``seconds`` (a call still open
    then fails the test)."""
    error = call.exception(timeout=seconds)
    assert error is not None, "the stream ended OK"
    return error.code()


def test_play_streams_that_never_open_are_counted(start_serve, redis_url):
    """With 3 watches allowed per client: 3 silent Play streams take them all (a 4th stream and
    a Watch are refused RESOURCE_EXHAUSTED), and their places are free once they end."""
    server = start_serve(
        "--redis-url", redis_url, "--max-watches-per-peer", "3", "--play-open-seconds", "600"
    )
    stop = threading.Event()
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        try:
            # Four at once: whichever reaches the server last is refused (the order the calls
            # were made in is not the order the server sees them), and the other three stay.
            streams = [_silent_play(stub, stop) for _ in range(4)]
            wait_until(lambda: any(call.done() for call in streams), "a Play stream refused", 60)
            (refused,) = [call for call in streams if call.done()]
            assert _code_within(refused) == grpc.StatusCode.RESOURCE_EXHAUSTED
            silent = [call for call in streams if call is not refused]
            match = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=1)).match
            events = stub.Watch(pb.WatchRequest(match_id=match.match_id), timeout=30)
            try:
                next(events)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            else:
                raise AssertionError("a Watch was served beside 3 silent Play streams")
            for call in silent:
                call.cancel()
            deadline = time.monotonic() + 60
            while True:  # the places come back as the server sees the streams go
                events = stub.Watch(pb.WatchRequest(match_id=match.match_id), timeout=30)
                try:
                    assert next(events).event_id
                    break
                except grpc.RpcError as error:
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert time.monotonic() < deadline, "the silent streams' places stayed taken"
                    time.sleep(0.05)
                finally:
                    events.cancel()
        finally:
            stop.set()


def test_a_play_stream_that_never_opens_is_ended(start_serve, redis_url):
    """A Play stream silent for --play-open-seconds ends DEADLINE_EXCEEDED, saying why (before,
    it was kept for ever)."""
    server = start_serve("--redis-url", redis_url, "--play-open-seconds", "1")
    stop = threading.Event()
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        try:
            silent = _silent_play(stub, stop)
            assert _code_within(silent) == grpc.StatusCode.DEADLINE_EXCEEDED
            assert "PlayRequest.open within 1 s" in silent.details()
        finally:
            stop.set()


def test_a_silent_play_stream_takes_a_place_at_once(start_serve, redis_url):
    """A Play stream that has not opened holds one of --max-watches from its start: with one
    allowed, a Watch is refused while it waits (before, it counted as no watch at all)."""
    server = start_serve(
        "--redis-url", redis_url, "--max-watches", "1", "--play-open-seconds", "60"
    )
    stop = threading.Event()
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        try:
            silent = _silent_play(stub, stop)
            match = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=1)).match
            deadline = time.monotonic() + 60
            while True:  # the stream reaches the server in its own time
                events = stub.Watch(pb.WatchRequest(match_id=match.match_id), timeout=30)
                try:
                    next(events)
                except grpc.RpcError as error:
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    break
                finally:
                    events.cancel()
                assert time.monotonic() < deadline, "a Watch was served beside the silent Play"
                time.sleep(0.05)
        finally:
            stop.set()
            silent.cancel()


def test_create_match_has_a_rate_per_address(start_serve, redis_url):
    """Past --create-burst creates at once, one address is refused RESOURCE_EXHAUSTED."""
    server = start_serve("--redis-url", redis_url, "--create-rate", "0.01", "--create-burst", "5")
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        for _ in range(5):
            stub.CreateMatch(pb.CreateMatchRequest(game="jaipur"))
        try:
            stub.CreateMatch(pb.CreateMatchRequest(game="jaipur"))
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "CreateMatch calls per second" in error.details()
        else:
            raise AssertionError("a sixth create at once was accepted")
