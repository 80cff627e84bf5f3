"""A finished match is folded into two keys: its record, kept by Redis as a small listpack (long
values cut into pieces), and one compressed archive string (events, log, each seat's latest request
answer). Everything reads back exactly as before folding, and matches archived in the older form
(events only, log list and request hash kept) are still read, and folded by a later index()."""

from __future__ import annotations

import asyncio
import secrets

import redis
from serai.store import Commit, MatchRecord, NewEvent, SeatRecord, StoredEvent
from serai.store.encoding import pack_events
from serai.store.redis_store import RedisStore, match_keys


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
                log=[f'{{"v":{version + 1},"s":{seat},"m":"CAE="}}'.encode()],
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
            # Each seat's latest answer is kept, as before folding.
            assert after[5] == [None] * 7 + before[5][7:]

            meta, _log, _events, _requests, archive = match_keys(match_id)
            assert [bool(client.exists(k)) for k in match_keys(match_id)] == [
                True, False, False, False, True
            ]  # fmt: skip
            assert client.type(archive) == b"string"
            if seats == 2:  # the 12 seats' listing of pieces is longer than a listpack value
                assert client.object("encoding", meta) in (b"ziplist", b"listpack")
            assert all(len(v) <= 64 for v in client.hgetall(meta).values()) or seats == 12

            await store.index(record, "running", "finished")  # idempotent
            assert await _everything(store, match_id) == after
        client.close()
        await store.close()

    asyncio.run(scenario())


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
        assert after[5] == [None] * 7 + before[5][7:]
        client.close()
        await store.close()

    asyncio.run(scenario())
