"""What the Redis store writes is a stored format: the scripts' bytes (EVALSHA names a script by
its SHA-1), the byte each event kind is kept as, the bytes of a log entry and the order of event
ids never change by accident."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import fields, replace

import redis
from serai.store import Commit, LogEntry, MatchRecord, NewEvent, event_id_after
from serai.store.redis import scripts
from serai.store.redis.encoding import KIND_CODES, record_fields, record_from_fields
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore
from store_records import running_record

# The bytes written since serai first kept event kinds as one byte.
PINNED_KIND_CODES = {
    "created": b"\x01",
    "joined": b"\x02",
    "started": b"\x03",
    "move": b"\x04",
    "announcement": b"\x05",
    "resigned": b"\x06",
    "finished": b"\x07",
    "timed_out": b"\x08",
}


def test_the_scripts_are_the_bytes_every_replica_names_them_by():
    """The SHA-1s of the scripts as serai has sent them since before they were .lua files."""
    assert {
        "commit": scripts.COMMIT_SCRIPT.sha,
        "create": scripts.CREATE_SCRIPT.sha,
        "load": scripts.LOAD_SCRIPT.sha,
        "fold_read": scripts.FOLD_READ_SCRIPT.sha,
        "fold": scripts.FOLD_SCRIPT.sha,
        "claim": scripts.CLAIM_SCRIPT.sha,
    } == {
        # changed on purpose three times (issue 33: a move with time to spare sets no expiry
        # again; the start's commit lists the match itself; issue 32: a commit of a watched match
        # is published to the hubs listening); replicas of every version may run at once, each
        # loading its own by NOSCRIPT (an older replica's commits are not pushed: hubs read them)
        "commit": "2e28745e213f7bc2676652737eba03e95aaf64ce",
        # and once more (issue 33: a create lists its match in the same script on one Redis)
        "create": "1258c89c5a182827cc27aefe2211acf6e5c58667",
        "load": "0a5adb30176ed7a1e64907dd1eeee9f64d8ad592",
        "fold_read": "07f09f7864f487e842d29e92784deac54f689b90",
        "fold": "3242003514d047c1289bf000684bb627c452380a",
        "claim": "f38a5d056aec3dc6e399dedeff82211dbd558f6e",
    }


def test_every_event_kind_keeps_its_byte():
    assert KIND_CODES == PINNED_KIND_CODES


def test_the_stream_holds_each_kind_as_its_byte_and_reads_back_its_name(redis_url):
    """Kinds without a byte are kept by name."""
    match_id = secrets.token_hex(8)
    kinds = [*PINNED_KIND_CODES, "a kind of its own"]

    async def scenario() -> list[str]:
        store = RedisStore.from_url(redis_url)
        try:
            await store.create(running_record(match_id), [NewEvent(kind) for kind in kinds])
            return [event.kind for event in await store.read_events(match_id, "")]
        finally:
            await store.close()

    assert asyncio.run(scenario()) == kinds
    with redis.Redis.from_url(redis_url) as admin:
        stored = [data[b"k"] for _id, data in admin.xrange(match_keys(match_id)[2])]
    assert stored == [*PINNED_KIND_CODES.values(), b"a kind of its own"]


def test_event_ids_are_ordered_as_numbers_and_empty_comes_first():
    assert event_id_after("10-0", "9-1")
    assert event_id_after("5-10", "5-9")
    assert event_id_after("1-0", "")
    assert not event_id_after("5-9", "5-10")
    assert not event_id_after("7-3", "7-3")
    assert not event_id_after("", "")


def test_log_entries_are_kept_in_the_compact_form_older_matches_hold(redis_url):
    """A move: 0x01, varint version, varint seat, the move's bytes; an ending: 0x02, r (resigned)
    or t (timed out), varint version, varint seat. What serai has written since the compact form."""
    match_id = secrets.token_hex(8)
    log = [
        LogEntry(3, 1, b"\x08\x01"),
        LogEntry(300, 0, b""),
        LogEntry(5, 1, None, "resigned"),
        LogEntry(6, 0, None, "timed_out"),
    ]

    async def scenario() -> list[LogEntry]:
        store = RedisStore.from_url(redis_url)
        try:
            await store.create(running_record(match_id), [])
            await store.commit(match_id, 0, Commit(log=log))
            return await store.read_log(match_id)
        finally:
            await store.close()

    assert asyncio.run(scenario()) == log
    with redis.Redis.from_url(redis_url) as admin:
        stored = admin.lrange(match_keys(match_id)[1], 0, -1)
    assert stored == [
        b"\x01\x03\x01\x08\x01",
        b"\x01\xac\x02\x00",
        b"\x02r\x05\x01",
        b"\x02t\x06\x00",
    ]


def test_the_index_script_keeps_its_bytes():
    """The one-Redis index script is named by its SHA-1 too: a change is a new script."""
    assert scripts.INDEX_SCRIPT.sha == "dedb37bc4b0e769861e10b90772813389128f86a"


def test_indexing_in_one_step_leaves_the_indexes_the_pipeline_leaves(redis_url):
    """On one Redis an unfinished match is indexed by one script: the same keys as the
    command-by-command pipeline a cluster uses, for a create and then a start."""
    record = replace(running_record(secrets.token_hex(8)), client_id="c-" + secrets.token_hex(4))

    async def indexes(one_step: bool) -> dict[str, list[str]]:
        store = RedisStore.from_url(redis_url)
        client = redis.Redis.from_url(redis_url)
        try:
            if not one_step:
                store._shared = None  # the path a cluster or a Sentinel group takes
            found: dict[str, list[str]] = {}
            for previous, current in ((None, "open"), ("open", "running")):
                await store.index(replace(record, status=current), previous, current)
                found[current] = [
                    key.decode()
                    for key in sorted(client.scan_iter("serai:*", type="zset"))
                    if client.zscore(key, record.match_id) is not None
                ]
            for key in found["open"] + found["running"]:
                client.zrem(key, record.match_id)  # the next run starts from nothing
            return found
        finally:
            client.close()
            await store.close()

    assert asyncio.run(indexes(True)) == asyncio.run(indexes(False))
    assert asyncio.run(indexes(True))["running"]


def test_a_record_read_from_its_fields_is_the_record_its_constructor_makes():
    """record_from_fields sets the record's instance dict directly (the frozen dataclass's
    __init__ costs half a read): every field is set, each as MatchRecord(...) would."""
    made = replace(
        running_record("m-fields"),
        options={"rounds": 3},
        outcome={"ranks": [0, 1]},
        last_event_id="5-0",
        client_id="bot",
        move_seconds=30,
        timeout_policy="default_move",
        deadline_ms=123,
        bank_seconds=60,
        seed_chosen=True,
        server_seed=b"\x01",
        tenant="t",
        spectator_delay_moves=2,
    )
    stored = {
        name: value.encode() if isinstance(value, str) else value
        for name, value in record_fields(made).items()
    }
    stored["last_event"] = b"5-0"
    read = record_from_fields("m-fields", stored)
    assert vars(read) == vars(made)
    assert set(vars(read)) == {field.name for field in fields(MatchRecord)}
    assert read == made
