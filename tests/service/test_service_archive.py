"""A finished match's events are archived (one compact string instead of the stream, with its log
and remembered request answers) and read back exactly as before: same ids, versions, kinds and data;
resuming after any event id gives exactly the rest. Replay and the first answer to a retried
request still work after archiving."""

from __future__ import annotations

import asyncio
import random
import secrets

import redis
from serai import registry
from serai.matches import Matches
from serai.store import Commit, LogEntry, MatchRecord, NewEvent, StoredEvent
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore
from store_records import running_record


def _label(raw: bytes) -> str:
    return "L:" + raw.hex()


def _key(event: StoredEvent) -> tuple[str, int, str, dict]:
    return event.event_id, event.version, event.kind, dict(event.data)


def test_the_archive_gives_back_every_event_and_every_resume_point_exactly(redis_url: str) -> None:
    match_id = secrets.token_hex(8)
    commits = [
        [NewEvent("move", {"seat": 1, "label": "exchange camel + diamond for 2 silver"})],
        [NewEvent("move", {"seat": 0, "label": "L:0801"}), NewEvent("started")],
        [NewEvent("move", {"seat": 0, "label": "kept"})],
        [NewEvent("a kind of its own", {"seat": True, "label": 3}) for _ in range(150)],
        [NewEvent("move", {"seat": 300, "label": "x" * 200}), NewEvent("timed_out", {"seat": 0})],
    ]

    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        await store.create(running_record(match_id), [NewEvent("created", {"seats": 2})])
        version = 0
        for i, events in enumerate(commits):
            if i == 3:
                await asyncio.sleep(0.02)  # ids some milliseconds apart too
            last = i == len(commits) - 1
            logged = {1: LogEntry(2, 0, b"\x08\x01"), 2: LogEntry(3, 1, b"\x08\x01")}
            result = await store.commit(
                match_id,
                version,
                Commit(
                    log=[logged[i]] if i in logged else [],
                    events=events,
                    status="finished" if last else None,
                    outcome={"scores": [1, 0]} if last else None,
                ),
            )
            version = result.version  # type: ignore[union-attr]
        live = await store.read_events(match_id, "", count=10_000)
        record = await store.load(match_id)
        assert isinstance(record, MatchRecord)
        await store.index(record, "running", "finished")

        client = redis.Redis.from_url(redis_url)
        _meta, _log, stream, _requests, archive = match_keys(match_id)
        assert not client.exists(stream) and client.exists(archive)
        client.close()

        # The label of a move logged at its version by its seat is left out and rebuilt.
        archived = await store.read_events(match_id, "", count=10_000, label_of=_label)
        assert [_key(e) for e in archived] == [_key(e) for e in live]
        unlabeled = await store.read_events(match_id, "", count=10_000)
        assert [e.data for e in unlabeled if e.kind == "move"] == [
            {"seat": 1, "label": "exchange camel + diamond for 2 silver"},  # nothing logged
            {"seat": 0, "label": ""},  # rebuilt, but no label_of given
            {"seat": 0, "label": "kept"},  # the log's move at its version is another seat's
            {"seat": 300, "label": "x" * 200},
        ]
        assert len(live) == 1 + 1 + 2 + 1 + 150 + 2
        for i, event in enumerate(live):
            rest = await store.read_events(match_id, event.event_id, count=10_000, label_of=_label)
            assert [_key(e) for e in rest] == [_key(e) for e in live[i + 1 :]]
        assert [
            _key(e) for e in await store.read_events(match_id, "", count=7, label_of=_label)
        ] == [_key(e) for e in live[:7]]
        await store.index(record, "running", "finished")  # idempotent
        again = await store.read_events(match_id, "0-0", count=10_000, label_of=_label)
        assert [_key(e) for e in again] == [_key(e) for e in live]
        await store.close()

    asyncio.run(scenario())


def test_a_finished_jaipur_match_is_watched_replayed_and_retried_the_same_after_archiving(
    redis_url: str,
) -> None:
    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        matches = Matches(store, registry.load(), watch_block_ms=200)
        record = await matches.create("jaipur", seats=2, seed=7)
        match_id = record.match_id
        tokens = [(await matches.join(match_id)).token for _ in range(2)]

        seen: list[StoredEvent] = []

        async def watch() -> None:
            async for batch in matches.watch(match_id):
                seen.extend(batch.events)

        watcher = asyncio.create_task(watch())
        rng = random.Random(7)
        answers: dict[int, tuple[str, str, int]] = {}  # seat -> (request id, label, version)
        n = 0
        while True:
            snapshot = await matches.get(match_id)
            if not snapshot.to_act:
                break
            seat = snapshot.to_act[0]
            listed = await matches.legal_moves(match_id, tokens[seat])
            request_id = f"r{n}"
            n += 1
            done = await matches.submit(
                match_id,
                tokens[seat],
                move_id=rng.choice(listed.moves).id,
                request_id=request_id,
            )
            answers[seat] = (request_id, done.label, done.snapshot.record.version)
        await asyncio.wait_for(watcher, 30)
        finished = await matches.get(match_id)
        assert finished.record.status == "finished"
        assert seen and seen[-1].kind == "finished"

        client = redis.Redis.from_url(redis_url)
        _meta, log, stream, requests, archive = match_keys(match_id)
        assert not client.exists(stream) and client.exists(archive)
        # The log and the remembered request answers are folded into the archive too.
        assert not client.exists(log) and not client.exists(requests)
        client.close()

        # Every resume point of the finished match gives exactly what the live watcher saw after it.
        for i in [-1, *range(len(seen))]:
            after = "" if i < 0 else seen[i].event_id
            rest = [e async for batch in matches.watch(match_id, after_event_id=after)
                    for e in batch.events]  # fmt: skip
            assert [_key(e) for e in rest] == [_key(e) for e in seen[i + 1 :]], after

        assert (await matches.replay(match_id)).ok

        # A fresh replica (no cache) retrying each seat's last move gets its first answer.
        again = Matches(store, registry.load())
        for seat, (request_id, label, version) in answers.items():
            listed_id = f"{version - 1}.0"
            retried = await again.submit(
                match_id, tokens[seat], move_id=listed_id, request_id=request_id
            )
            assert retried.replayed and retried.label == label
            assert retried.snapshot.record.version == version
        await store.close()

    asyncio.run(scenario())
