"""Streams opened with an API key stop once the key is revoked (issue 32, item 12): a Play
stream's next move and a Watch's next batch are refused UNAUTHENTICATED as soon as a unary call
with the key is, instead of working on for the stream's life. Real ``serai serve``, real
Redis, keys made and revoked with ``serai keys``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from test_api_keys import Keyed, keys, new_key, started

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from service_helpers import PlayStream


class KeyedStreams:
    """A stub whose streaming calls carry ``key``."""

    def __init__(self, channel: grpc.Channel, key: str) -> None:
        self._stub = pb_grpc.MatchServiceStub(channel)
        self._metadata = (("authorization", f"Bearer {key}"),)

    def Play(self, requests: Any, **options: Any) -> Any:
        return self._stub.Play(requests, metadata=self._metadata, **options)

    def Watch(self, request: Any, **options: Any) -> Any:
        return self._stub.Watch(request, metadata=self._metadata, **options)


def _revoke_and_wait(redis_url: str, app: Keyed, match_id: str) -> None:
    """Revoke the key, then wait until a unary call with it is refused."""
    assert keys(redis_url, "revoke", "acme").returncode == 0
    deadline = time.monotonic() + 30
    while True:
        try:
            app.GetMatch(pb.GetMatchRequest(match_id=match_id))
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            return
        assert time.monotonic() < deadline, "the revoked key still works for unary calls"
        time.sleep(0.05)


def _first_offer(stream: PlayStream) -> pb.PlayUpdate:
    while True:
        update = stream.next()
        assert update is not None
        if update.legal_moves:
            return update


def test_a_play_stream_stops_once_its_key_is_revoked(start_serve, redis_url):
    """Seat 0's Play stream moves, the key is revoked, and its next move ends the stream
    UNAUTHENTICATED (before: moves went on being accepted)."""
    key = new_key(redis_url, "acme")
    server = start_serve("--redis-url", redis_url)
    with grpc.insecure_channel(server.address) as channel:
        app = Keyed(channel, key)
        match_id, tokens = started(app)
        snapshot = app.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
        first = snapshot.to_act[0]
        stream = PlayStream(KeyedStreams(channel, key), match_id, tokens[first])
        try:
            offer = _first_offer(stream)
            stream.move("before", offer.legal_moves[0].id, offer.event.snapshot.version)
            assert not stream.answer().HasField("error")
            _revoke_and_wait(redis_url, app, match_id)
            stream.move("after", "whatever", 0)
            with pytest.raises(grpc.RpcError) as ended:
                while stream.next() is not None:
                    pass
            assert ended.value.code() == grpc.StatusCode.UNAUTHENTICATED
        finally:
            stream.close()


def test_a_watch_stops_once_its_key_is_revoked(start_serve, redis_url):
    """A Watch opened with a key gets no batch made after the key was revoked: the stream ends
    UNAUTHENTICATED at the next one (a one-second turn clock playing default moves keeps the
    match changing with nobody calling; before, the Watch went on to the match's end)."""
    key = new_key(redis_url, "acme")
    server = start_serve("--redis-url", redis_url, "--sweep-seconds", "0.2")
    with grpc.insecure_channel(server.address) as channel:
        app = Keyed(channel, key)
        created = pb.CreateMatchRequest(
            game="jaipur", seed=3, move_seconds=1, timeout_policy=pb.TIMEOUT_POLICY_DEFAULT_MOVE
        )
        match_id = app.CreateMatch(created).match.match_id
        for _ in range(2):
            app.JoinMatch(pb.JoinMatchRequest(match_id=match_id))
        events = KeyedStreams(channel, key).Watch(pb.WatchRequest(match_id=match_id), timeout=90)
        assert next(events).event_id
        _revoke_and_wait(redis_url, app, match_id)
        with pytest.raises(grpc.RpcError) as ended:
            for _ in events:
                pass
        assert ended.value.code() == grpc.StatusCode.UNAUTHENTICATED
