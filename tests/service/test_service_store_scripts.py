"""The store's scripts keep what the lifecycle counts on, each shown alone against a real Redis:
every remembered request id answers a retry, a taken match id is never overwritten, and keys
live while a match moves and for ever once it is finished."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis
from serai.api import match_service_pb2 as pb
from serai.store import (
    REQUEST_WINDOW,
    Commit,
    Committed,
    Duplicate,
    LogEntry,
    MatchIdTaken,
    NewEvent,
)
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore
from store_records import running_record


def _run(redis_url: str, scenario: Callable[[RedisStore, str], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        store = RedisStore.from_url(redis_url)
        try:
            return await scenario(store, secrets.token_hex(8))
        finally:
            await store.close()

    return asyncio.run(main())


def _lives(redis_url: str, match_id: str) -> list[int]:
    """PTTL of the match's keys that exist (-1: no expiry)."""
    with redis.Redis.from_url(redis_url) as admin:
        return [admin.pttl(key) for key in match_keys(match_id) if admin.exists(key)]


def test_every_request_id_in_the_window_answers_its_retry(redis_url):
    async def scenario(store: RedisStore, match_id: str) -> None:
        await store.create(running_record(match_id), [])
        ids = [f"request-{n}" for n in range(REQUEST_WINDOW)]
        for version, request_id in enumerate(ids):
            first = Commit(state=b"s", request_seat=0, request_id=request_id, answer=request_id)
            assert isinstance(await store.commit(match_id, version, first), Committed)
        for request_id in ids:  # the oldest too, and at the current version
            again = Commit(state=b"t", request_seat=0, request_id=request_id, answer="again")
            retried = await store.commit(match_id, REQUEST_WINDOW, again)
            assert isinstance(retried, Duplicate), request_id
            assert retried.first.answer == request_id

    _run(redis_url, scenario)


def test_creating_a_match_whose_id_is_taken_changes_nothing(redis_url):
    async def scenario(store: RedisStore, match_id: str) -> None:
        await store.create(running_record(match_id, state=b"first"), [NewEvent("created")])
        with pytest.raises(MatchIdTaken):
            await store.create(running_record(match_id, state=b"second"), [NewEvent("created")])
        loaded = await store.load(match_id)
        assert loaded is not None and loaded.state == b"first"  # type: ignore[union-attr]
        assert [e.kind for e in await store.read_events(match_id, "", count=10)] == ["created"]

    _run(redis_url, scenario)


def test_every_key_of_a_new_match_expires_when_nobody_moves(redis_url):
    async def scenario(store: RedisStore, match_id: str) -> str:
        await store.create(running_record(match_id), [NewEvent("created")], idle_ms=60_000)
        return match_id

    match_id = _run(redis_url, scenario)
    lives = _lives(redis_url, match_id)
    assert len(lives) >= 2 and all(0 < life <= 60_000 for life in lives), lives


def test_a_move_restarts_the_idle_time_of_every_key(redis_url):
    async def scenario(store: RedisStore, match_id: str) -> str:
        await store.create(running_record(match_id), [NewEvent("created")], idle_ms=60_000)
        with redis.Redis.from_url(redis_url) as admin:
            for key in match_keys(match_id):
                admin.pexpire(key, 5_000)  # as if 55 s had passed
        moved = Commit(
            state=b"s", log=[LogEntry(1, 0, b"x")], events=[NewEvent("move")], idle_ms=60_000
        )
        assert isinstance(await store.commit(match_id, 0, moved), Committed)
        return match_id

    match_id = _run(redis_url, scenario)
    lives = _lives(redis_url, match_id)
    assert len(lives) >= 3 and all(life > 30_000 for life in lives), lives


def test_a_move_with_time_to_spare_leaves_the_times_but_gives_keys_it_makes_theirs(redis_url):
    """A commit with more than the idle time left sets no expiry again (a PTTL, not four
    PEXPIREs, on the hot path); the log and requests keys it creates get the others' time, so
    no key of the match is left to live for ever."""

    async def scenario(store: RedisStore, match_id: str) -> str:
        await store.create(running_record(match_id), [NewEvent("created")], idle_ms=60_000)
        with redis.Redis.from_url(redis_url) as admin:
            for key in match_keys(match_id):
                admin.pexpire(key, 120_000)  # more than the idle time left
        moved = Commit(
            state=b"s",
            log=[LogEntry(1, 0, b"x")],
            events=[NewEvent("move")],
            request_id="r1",
            idle_ms=60_000,
        )
        assert isinstance(await store.commit(match_id, 0, moved), Committed)
        return match_id

    match_id = _run(redis_url, scenario)
    lives = _lives(redis_url, match_id)
    assert len(lives) == 4 and all(60_000 < life <= 120_000 for life in lives), lives


def test_the_move_that_finishes_a_match_keeps_its_keys_for_ever(redis_url):
    """Even before the fold (which may fail, and is retried later) rewrites them."""

    async def scenario(store: RedisStore, match_id: str) -> str:
        await store.create(running_record(match_id), [NewEvent("created")], idle_ms=60_000)
        last = Commit(
            state=b"s",
            status="finished",
            log=[LogEntry(2, 0, b"x")],
            events=[NewEvent("finished")],
        )
        assert isinstance(await store.commit(match_id, 0, last), Committed)
        return match_id

    match_id = _run(redis_url, scenario)
    lives = _lives(redis_url, match_id)
    assert len(lives) >= 3 and all(life == -1 for life in lives), lives


def test_no_moves_are_listed_once_a_seat_resigned(stub):
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id
    tokens = [stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat_token for _ in "ab"]
    stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))
    for token in tokens:
        listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        assert list(listed.moves) == []
