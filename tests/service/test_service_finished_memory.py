"""A finished match is folded into two keys: its record, kept by Redis as a small listpack (long
values cut into pieces), and one compressed archive string (events, log, every remembered request
answer). Everything reads back exactly as before folding, request answers included; matches
archived in the older form (events only, log list and request hash kept) are still read, and folded
by a later index(); archives folded with each seat's latest answer only are still read."""

from __future__ import annotations

import asyncio
import secrets

import redis
from serai.store import (
    REQUEST_WINDOW,
    Commit,
    LogEntry,
    MatchRecord,
    NewEvent,
    SeatRecord,
    StoredEvent,
)
from serai.store.redis.encoding import pack_events
from serai.store.redis.folding import unfold
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore


def _record(match_id: str, seats: int) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        game="tiny",
        options={"rounds": 3, "variant": "a long option value " * 5},
        seed=11,
        created_ms=1_700_000_000_000,
        status="running",
        version=0,
        seats=tuple(
            SeatRecord(f"player number {i} " * 3, True, False, secrets.token_hex(32))
            for i in range(seats)
        ),
        state=bytes(range(256)) * 2,
        client_id="client-" + "c" * 70,
        move_seconds=30,
        timeout_policy="default_move",
        deadline_ms=1_700_000_030_000,
    )


def _key(event: StoredEvent) -> tuple[str, int, str, dict]:
    return event.event_id, event.version, event.kind, dict(event.data)


def _label(raw: bytes) -> str:
    return "L:" + raw.hex()


async def _play(store: RedisStore, match_id: str, seats: int) -> int:
    """Create and finish a match: 9 moves by alternate seats, each with a request id."""
    await store.create(_record(match_id, seats), [NewEvent("created", {"seats": seats})])
    version = 0
    for n in range(9):
        seat = n % 2
        last = n == 8
        result = await store.commit(
            match_id,
            version,
            Commit(
                state=bytes([n]) * (300 + n),
                log=[LogEntry(version + 1, seat, b"\x08\x01")],
                events=[
                    NewEvent("move", {"seat": seat, "label": _label(b"\x08\x01")}),
                    *([NewEvent("finished", {"outcome": {"scores": [1, 0]}})] if last else []),
                ],
                status="finished" if last else None,
                outcome={"scores": [1, 0], "ranks": [0, 1], "summary": "seat 0 wins " * 8}
                if last
                else None,
                request_seat=seat,
                request_id=f"request-{n}-" + "r" * 40,
                answer=f"move {n} " * 10,
                deadline_ms=0 if last else None,
            ),
        )
        version = result.version  # type: ignore[union-attr]
    return version


async def _everything(store: RedisStore, match_id: str) -> tuple:
    """What the readers give for a match: record, listing, log, events from every resume point,
    and the answer to each request id."""
    record = await store.load(match_id)
    listed = [r for r in await store.list_matches(None, None, 100) if r.match_id == match_id]
    events = await store.read_events(match_id, "", count=1000, label_of=_label)
    resumed = [
        [_key(e) for e in await store.read_events(match_id, e.event_id, label_of=_label)]
        for e in events
    ]
    answers = [
        await store.request_answer(match_id, n % 2, f"request-{n}-" + "r" * 40) for n in range(9)
    ]
    return (
        record,
        listed,
        await store.read_log(match_id),
        [_key(e) for e in events],
        resumed,
        answers,
    )


def test_a_finished_match_is_two_small_keys_that_read_back_exactly(redis_url: str) -> None:
    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        client = redis.Redis.from_url(redis_url)
        for seats in (2, 12):  # 12 long seats: more pieces than a listing reads at first
            match_id = secrets.token_hex(8)
            await _play(store, match_id, seats)
            before = await _everything(store, match_id)
            record = before[0]
            assert isinstance(record, MatchRecord) and record.status == "finished"
            assert len(before[1]) == 0  # not indexed yet
            await store.index(record, "running", "finished")
            after = await _everything(store, match_id)
            assert after[0] == before[0]
            assert after[1] == [
                MatchRecord(**{**record.__dict__, "state": b""})  # listings leave out the state
            ]
            assert after[2:5] == before[2:5]
            # Every answer the window remembered is kept: seat 0 made 5 requests (its first one
            # fell out of the window of 4), seat 1 made 4.
            assert before[5][0] is None and None not in before[5][1:]
            assert after[5] == before[5]

            meta, _log, _events, _requests, archive = match_keys(match_id)
            assert [bool(client.exists(k)) for k in match_keys(match_id)] == [
                True, False, False, False, True
            ]  # fmt: skip
            assert client.type(archive) == b"string"
            # Every value but the listing of pieces, "~", is cut to 64 bytes at most; the listing
            # is short too here (45 bytes for 12 seats), so Redis keeps a listpack either way.
            stored = client.hgetall(meta)
            assert all(len(v) <= 64 for k, v in stored.items() if k != b"~")
            assert len(stored[b"~"]) <= 64
            assert client.object("encoding", meta) in (b"ziplist", b"listpack")

            await store.index(record, "running", "finished")  # idempotent
            assert await _everything(store, match_id) == after
        client.close()
        await store.close()

    asyncio.run(scenario())


def test_a_finished_match_with_a_large_state_folds_whole(redis_url: str) -> None:
    """A 300 KB state is about 4,700 pieces: more values than one Lua unpack() takes."""

    async def scenario() -> tuple[MatchRecord | None, MatchRecord | None]:
        store = RedisStore.from_url(redis_url)
        try:
            match_id = secrets.token_hex(8)
            await store.create(_record(match_id, 2), [])
            state = secrets.token_bytes(300_000)
            commit = Commit(state=state, status="finished", outcome={"summary": "over"})
            await store.commit(match_id, 0, commit)
            before = await store.load(match_id)
            assert isinstance(before, MatchRecord) and before.state == state
            await store.index(before, "running", "finished")
            return before, await store.load(match_id)
        finally:
            await store.close()

    before, after = asyncio.run(scenario())
    assert after == before


def test_a_match_archived_in_the_older_form_is_read_and_folded_later(redis_url: str) -> None:
    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        client = redis.Redis.from_url(redis_url)
        match_id = secrets.token_hex(8)
        await _play(store, match_id, 2)
        before = await _everything(store, match_id)

        # The older archive: events only (0x02), the stream deleted, log and requests kept.
        _meta, log, stream, requests, archive = match_keys(match_id)
        events = [
            (i.decode(), int(f[b"v"]), f[b"k"], f[b"d"]) for i, f in client.xrange(stream, "-", "+")
        ]
        client.set(archive, b"\x02" + pack_events(events))
        client.delete(stream)
        assert await _everything(store, match_id) == before

        record = before[0]
        assert isinstance(record, MatchRecord)
        await store.index(record, "running", "finished")  # folds it
        assert not client.exists(log) and not client.exists(requests)
        assert client.get(archive)[:1] == b"\x03"  # type: ignore[index]
        after = await _everything(store, match_id)
        assert after[:5] == (before[0], [MatchRecord(**{**record.__dict__, "state": b""})],
                             *before[2:5])  # fmt: skip
        assert after[5] == before[5]
        client.close()
        await store.close()

    asyncio.run(scenario())


def test_an_archive_folded_with_the_latest_answers_only_is_still_read(redis_url: str) -> None:
    """Archives folded before every remembered answer was kept hold each seat's latest one only,
    in the same form: those still answer a retry of the latest request of each seat."""

    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        client = redis.Redis.from_url(redis_url)
        match_id = secrets.token_hex(8)
        await _play(store, match_id, 2)
        before = await _everything(store, match_id)

        # What the earlier fold kept: the slot each seat's counter names as its latest.
        _meta, _log, _stream, requests, archive = match_keys(match_id)
        stored = {k.decode(): v for k, v in client.hgetall(requests).items()}
        latest = {
            f"{name[:-2]}:{(int(count) - 1) % REQUEST_WINDOW}"
            for name, count in stored.items()
            if name.endswith(":n")
        }
        older = [name for name in stored if not name.endswith(":n") and name not in latest]
        assert len(older) == 6
        client.hdel(requests, *older)

        record = before[0]
        assert isinstance(record, MatchRecord)
        await store.index(record, "running", "finished")
        folded = client.get(archive)
        assert folded is not None and folded[:1] == b"\x03"
        assert [seat for seat, _ in unfold(folded).answers] == [0, 1]
        after = await _everything(store, match_id)
        assert after[0] == before[0] and after[2:5] == before[2:5]
        assert after[5] == [None] * 7 + before[5][7:]
        client.close()
        await store.close()

    asyncio.run(scenario())
