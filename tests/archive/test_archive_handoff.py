"""Finished matches leave Redis for the archive: written there first, expired from Redis only
after (``keep_finished_seconds``), then read back from the archive by GetMatch, transcripts,
export and replay; a drainer killed (SIGKILL) between "archived" and "expired" loses nothing and
writes nothing twice. On SQLite and on a real PostgreSQL."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import redis
from serai import registry
from serai.archive.opening import open_archive
from serai.matches import Matches, transcripts
from serai.store.redis import open_store
from serai.store.redis.keys import UNARCHIVED_KEY, index_key, match_keys

T = TypeVar("T")
GAMES = registry.load()


async def _finish(matches: Matches, moves: int = 6) -> str:
    """A Jaipur match: a few first-legal moves, then seat 1 resigns."""
    record = await matches.create("jaipur", seats=2, seed=7)
    tokens = [(await matches.join(record.match_id)).token for _ in range(2)]
    for _ in range(moves):
        snapshot = await matches.get(record.match_id)
        token = tokens[snapshot.to_act[0]]
        legal = await matches.legal_moves(record.match_id, token)
        await matches.submit(record.match_id, token, move_id=legal.moves[0].id)
    await matches.resign(record.match_id, tokens[1])
    return record.match_id


def _with_matches(
    redis_url: str, archive_url: str, work: Callable[[Matches], Awaitable[T]], **options: Any
) -> T:
    async def run() -> T:
        store = open_store(redis_url)
        archive = open_archive(archive_url, Path("unused"))
        try:
            return await work(Matches(store, GAMES, archive=archive, cache_size=0, **options))
        finally:
            await store.close()
            await archive.close()

    return asyncio.run(run())


def _wait_gone(client: redis.Redis, match_id: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while client.exists(*match_keys(match_id)):
        assert time.monotonic() < deadline, "the archived match's keys never expired"
        time.sleep(0.05)


def _read_back(redis_url: str, archive_url: str, match_id: str) -> Any:
    async def work(matches: Matches) -> Any:
        snapshot = await matches.get(match_id)
        document = await matches.transcript(match_id)
        exported = await matches.export(match_id)
        report = await matches.replay(match_id)
        listed = await matches.list_page(status="finished")
        assert [r.match_id for r in listed.matches] == [match_id]  # from the archive
        assert [r.match_id for r in (await matches.list_page()).matches] == [match_id]
        watched = [batch async for batch in matches.watch(match_id)]
        assert watched == []  # its events left with it: the watch ends at once, not waits
        return snapshot, document, exported, report

    return _with_matches(redis_url, archive_url, work)


def test_a_finished_match_leaves_redis_once_archived(redis_url: str, archive_url: str) -> None:
    """Archived, its keys get the retention as TTL; once expired, GetMatch, the transcript (which
    verifies), export and replay read the archive, and the next drain forgets its index entries."""
    client = redis.Redis.from_url(redis_url)

    async def finish_and_archive(matches: Matches) -> tuple[str, dict[str, Any], int]:
        match_id = await _finish(matches)
        before = await matches.transcript(match_id)
        return match_id, before, await matches.archive_finished()

    match_id, before, archived = _with_matches(
        redis_url, archive_url, finish_and_archive, keep_finished_seconds=2
    )
    assert archived == 1
    assert 0 < client.pttl(match_keys(match_id)[0]) <= 2000
    assert client.zscore(UNARCHIVED_KEY, match_id) is None
    _wait_gone(client, match_id)

    snapshot, document, exported, report = _read_back(redis_url, archive_url, match_id)
    assert snapshot.record.status == "finished" and snapshot.record.match_id == match_id
    assert document == before == exported
    verdict = transcripts.verify(document, GAMES.games)
    assert verdict.ok and verdict.moves == 6, verdict
    assert report.ok, report.message

    # The next pass drops what the indexes still held of it: nothing of it is left in Redis.
    _with_matches(redis_url, archive_url, lambda m: m.archive_finished())
    assert client.zscore(index_key(None, None), match_id) is None
    assert client.zscore(index_key("finished", None), match_id) is None
    assert client.zscore(index_key("finished", "jaipur"), match_id) is None


def test_without_a_drain_nothing_expires(redis_url: str, archive_url: str) -> None:
    """A finished match keeps its keys (no TTL) until the archive has it."""
    client = redis.Redis.from_url(redis_url)
    match_id = _with_matches(redis_url, archive_url, _finish)
    assert client.pttl(match_keys(match_id)[0]) == -1
    assert client.zscore(UNARCHIVED_KEY, match_id) is not None
    stats = asyncio.run(_stats(archive_url))
    assert stats.matches == 0


async def _stats(archive_url: str) -> Any:
    archive = open_archive(archive_url, Path("unused"))
    try:
        return await archive.stats()
    finally:
        await archive.close()


_KILLED_AFTER_PUT = """
import asyncio, os, signal, sys, time
from pathlib import Path
from serai.archive.opening import open_archive
from serai.matches.archiving import Archiving
from serai.store.redis import open_store

async def main(redis_url, archive_url):
    store, archive = open_store(redis_url), open_archive(archive_url, Path("unused"))
    put = archive.put
    async def put_then_die(match):
        await put(match)
        os.kill(os.getpid(), signal.SIGKILL)  # archived, not yet expired
    archive.put = put_then_die
    await Archiving(store, archive, time.time, keep_ms=2000).drain()

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def test_a_kill_between_archived_and_expired_loses_nothing(
    redis_url: str, archive_url: str, tmp_path: Path
) -> None:
    """A drainer SIGKILLed right after the archive has a match leaves it in Redis, leased; once
    the lease runs out the next drain archives it again (no second copy) and lets it expire."""
    client = redis.Redis.from_url(redis_url)
    match_id = _with_matches(redis_url, archive_url, _finish)
    script = tmp_path / "drain.py"
    script.write_text(_KILLED_AFTER_PUT)
    killed = subprocess.run(
        [sys.executable, str(script), redis_url, archive_url], capture_output=True, timeout=120
    )
    assert killed.returncode == -9, killed.stderr.decode()
    assert asyncio.run(_stats(archive_url)).matches == 1
    assert client.pttl(match_keys(match_id)[0]) == -1  # still in Redis, for good
    assert client.zscore(UNARCHIVED_KEY, match_id) is not None

    # Within the lease nobody takes it again; after it, the next drain does.
    assert _with_matches(redis_url, archive_url, lambda m: m.archive_finished()) == 0
    later = time.time() + 120
    drained = _with_matches(
        redis_url,
        archive_url,
        lambda m: m.archive_finished(),
        keep_finished_seconds=2,
        clock=lambda: later,
    )
    assert drained == 1
    assert asyncio.run(_stats(archive_url)).matches == 1  # not written twice
    assert client.zscore(UNARCHIVED_KEY, match_id) is None
    _wait_gone(client, match_id)
    _snapshot, document, _exported, report = _read_back(redis_url, archive_url, match_id)
    assert transcripts.verify(document, GAMES.games).ok
    assert report.ok
