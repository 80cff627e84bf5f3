"""Redis memory while finished matches leave for the archive: one client finishes Jaipur matches
in a loop (random legal moves to the end) for a while, with the archiver draining them and
``keep_finished`` a few seconds; prints Redis's used_memory every few seconds (it should stay
flat once the first matches expire), the archive's write cost per match (the time of each put)
and its size per match.

In one process (no gRPC), on an embedded Redis in a temporary folder with its append-only file
(as ``serai serve`` runs it), and the SQLite archive in that folder, or ``--archive-url`` (e.g. a
PostgreSQL). Example::

    python benchmarks/archive_memory.py --seconds 90
    python benchmarks/archive_memory.py --seconds 90 --archive-url postgresql://u@/db?host=/tmp/pg
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from serai import registry
from serai.archive import ArchivedMatch
from serai.archive.opening import open_archive
from serai.matches import Matches
from serai.store.embedded import EmbeddedRedis
from serai.store.redis import open_store


async def _finish_one(matches: Matches, rng: random.Random) -> int:
    """A Jaipur match of random legal moves, played to its end; its moves."""
    record = await matches.create("jaipur", seats=2, seed=rng.randrange(2**31))
    tokens = [(await matches.join(record.match_id)).token for _ in range(2)]
    moves = 0
    to_act = (await matches.get(record.match_id)).to_act
    while to_act:
        token = tokens[to_act[0]]
        legal = await matches.legal_moves(record.match_id, token)
        done = await matches.submit(record.match_id, token, move_id=rng.choice(legal.moves).id)
        moves += 1
        to_act = () if done.snapshot.record.status == "finished" else done.snapshot.to_act
    return moves


async def run(seconds: float, keep: float, sample: float, archive_url: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="serai-bench-archive-") as folder:
        embedded = EmbeddedRedis(Path(folder)).start()
        store = open_store(embedded.url)
        archive = open_archive(archive_url, Path(folder))
        put_seconds: list[float] = []
        put = archive.put

        async def timed_put(match: ArchivedMatch) -> bool:
            start = time.perf_counter()
            try:
                return await put(match)
            finally:
                put_seconds.append(time.perf_counter() - start)

        archive.put = timed_put  # type: ignore[method-assign]
        matches = Matches(
            store, registry.load(), archive=archive, keep_finished_seconds=keep, cache_size=64
        )
        archiver = asyncio.create_task(matches.run_archiver())
        client: Any = aioredis.Redis.from_url(embedded.url)
        rng = random.Random(1)
        finished = moves = 0
        start = time.monotonic()
        next_sample = start
        print(f"keep_finished {keep:g} s, archive {archive_url or 'SQLite in the data folder'}")
        print("seconds  finished  archived  redis used_memory  redis keys")
        try:
            while time.monotonic() - start < seconds:
                moves += await _finish_one(matches, rng)
                finished += 1
                if time.monotonic() >= next_sample:
                    info = await client.info("memory")
                    keys = await client.dbsize()
                    elapsed = time.monotonic() - start
                    print(
                        f"{elapsed:7.0f}  {finished:8d}  {len(put_seconds):8d}  "
                        f"{info['used_memory']:17,d}  {keys:10d}",
                        flush=True,
                    )
                    next_sample += sample
            await matches.archive_finished()
            stats = await archive.stats()
        finally:
            matches.closing = True
            archiver.cancel()
            await client.aclose()
            await archive.close()
            await store.close()
            embedded.stop()
    elapsed = time.monotonic() - start
    print(f"{finished} matches ({moves} moves) finished in {elapsed:.0f} s")
    if put_seconds:
        ordered = sorted(put_seconds)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(
            f"archive put: mean {statistics.mean(put_seconds) * 1000:.2f} ms, "
            f"p99 {p99 * 1000:.2f} ms ({len(put_seconds)} puts)"
        )
    if stats.matches:
        print(
            f"archive size: {stats.body_bytes / stats.matches:,.0f} bytes of body per match, "
            f"{stats.total_bytes / stats.matches:,.0f} bytes per match with tables and indexes "
            f"({stats.matches} matches)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=90, help="how long to finish matches")
    parser.add_argument(
        "--keep-finished", type=float, default=2, help="seconds a match stays once archived"
    )
    parser.add_argument("--sample", type=float, default=5, help="seconds between memory samples")
    parser.add_argument(
        "--archive-url", help="the archive (default: SQLite in the temporary data folder)"
    )
    args = parser.parse_args()
    asyncio.run(run(args.seconds, args.keep_finished, args.sample, args.archive_url))


if __name__ == "__main__":
    main()
