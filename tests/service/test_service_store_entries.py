"""The Redis store keeps log entries and events compactly and gives back exactly what it was given,
including entries written in the older JSON form."""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
import redis
from serai.store import Commit, LogEntry, NewEvent, StoreError
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore
from store_records import running_record

LOG = [
    LogEntry(3, 1, b'"\x04\x08\x06\x10\x01'),
    LogEntry(4, 0, b"\x12\x02\x08\x04"),
    LogEntry(300, 0, b""),
    LogEntry(5, 1, None, "resigned"),
    LogEntry(6, 0, None, "timed_out"),
    LogEntry(7, 0, b'"\x04\x08\x06\x10'),
]
# LOG as serai kept it before the compact form: one JSON line per entry, moves in base64.
OLDER_LOG = [
    b'{"v":3,"s":1,"m":"IgQIBhAB"}',
    b'{"v":4,"s":0,"m":"EgIIBA=="}',
    b'{"v":300,"s":0,"m":""}',
    b'{"v":5,"s":1,"r":1}',
    b'{"v":6,"s":0,"t":1}',
    b'{"v":7,"s":0,"m":"IgQIBhA="}',  # base64 whose padding bits are not zero
]
EVENTS = [
    NewEvent("move", {"seat": 1, "label": "exchange camel + diamond for 2 silver"}),
    NewEvent("announcement", {"text": "round 1: seat 0 wins"}),
    NewEvent("joined", {"seat": 0, "name": "bob"}),
    NewEvent("finished", {"outcome": {"scores": [2, 1], "ranks": [0, 1], "summary": "x"}}),
    NewEvent("started"),
    NewEvent("a kind of its own", {"seat": True, "label": 3}),
]


def test_log_entries_and_events_read_back_exactly_as_written(redis_url: str) -> None:
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        await store.create(running_record(match_id), [])
        result = await store.commit(match_id, 0, Commit(log=LOG, events=EVENTS))
        assert result.version == 1  # type: ignore[union-attr]
        assert await store.read_log(match_id) == LOG
        events = await store.read_events(match_id, "")
        assert [(e.kind, dict(e.data)) for e in events] == [(e.kind, e.data) for e in EVENTS]
        await store.close()

    asyncio.run(scenario())


def test_entries_written_in_the_older_json_form_are_still_read(redis_url: str) -> None:
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        await store.create(running_record(match_id), [])
        await store.close()

    asyncio.run(scenario())
    client = redis.Redis.from_url(redis_url)
    _meta, log, events, _requests, _archive = match_keys(match_id)
    client.rpush(log, *OLDER_LOG)
    client.xadd(events, {"v": 1, "k": "move", "d": json.dumps({"seat": 0, "label": "sell 1 gold"})})

    async def read() -> None:
        store = RedisStore.from_url(redis_url)
        assert await store.read_log(match_id) == LOG
        [event] = await store.read_events(match_id, "")
        assert (event.kind, dict(event.data)) == ("move", {"seat": 0, "label": "sell 1 gold"})
        await store.close()

    asyncio.run(read())
    client.close()


def test_a_log_entry_in_no_known_form_is_a_store_error(redis_url: str) -> None:
    """Not a move nor an ending serai wrote: reading the log says so instead of guessing."""
    match_id = secrets.token_hex(8)
    client = redis.Redis.from_url(redis_url)
    client.rpush(match_keys(match_id)[1], b'{"v":8,"s":0,"x":"something else"}')

    async def read() -> None:
        store = RedisStore.from_url(redis_url)
        try:
            with pytest.raises(StoreError, match="unknown format"):
                await store.read_log(match_id)
        finally:
            await store.close()

    asyncio.run(read())
    client.close()
