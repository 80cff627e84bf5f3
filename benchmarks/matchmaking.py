"""Matchmaking and ratings (issue 35): the time from a compatible pair enqueued to both told
(their match made and both seats joined), p50/p99, with ``--waiting`` players already in the
queue, the pair entering through two "replicas" (two Matches and Communities with their own
store connections, in this one process); the Redis CPU of the queue's scripts per pair; and the
cost of a rating update (openskill's maths alone, then with the store's one script).

The waiting players never pair (their ratings are far apart and the window does not widen
here), so each pairing pass reads all of them: the pass's cost is the figure that grows with
the queue. On an embedded Redis in a temporary folder with its append-only file, as ``serai
serve`` runs it. Example::

    python benchmarks/matchmaking.py --waiting 10000 --pairs 200
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from _harness import own_cpu, pct
from serai import registry
from serai.community import Community, Matched, Seeker
from serai.matches import Matches
from serai.store.community import PairingPolicy, QueueEntry, RatedMatch, RatedSeat, RatingBoard
from serai.store.embedded import EmbeddedRedis
from serai.store.redis import open_store

# No widening, and no one goes stale during the run: the background stays waiting.
POLICY = PairingPolicy(window=3.0, widen_per_second=0.0, stale_ms=10**9)


async def told(community: Community, queue: Any, seeker: Seeker) -> Matched:
    updates = community.matchmaking.wait(queue, seeker)
    async with contextlib.aclosing(updates):  # type: ignore[type-var]
        async for update in updates:
            if isinstance(update, Matched):
                return update
    raise RuntimeError("the stream ended unmatched")


async def fill(store: Any, queue: Any, waiting: int) -> None:
    """``waiting`` players whose ratings are 10 apart, from 1000 up: none can pair."""
    now = int(time.time() * 1000)
    for start in range(0, waiting, 500):
        await asyncio.gather(
            *(
                store.queue_enter(
                    queue, QueueEntry(f"bg-{i}", json.dumps(_entry(i)), 1000.0 + 10 * i), now
                )
                for i in range(start, min(waiting, start + 500))
            )
        )


def _entry(i: int) -> dict[str, Any]:
    return {"p": f"bg-{i}", "n": f"bg{i}", "b": False, "g": False}


async def script_usec(client: Any) -> tuple[int, int]:
    """(calls, microseconds) of every script Redis ran so far."""
    stats = await client.info("commandstats")
    calls = usec = 0
    for name in ("cmdstat_evalsha", "cmdstat_eval"):
        calls += stats.get(name, {}).get("calls", 0)
        usec += stats.get(name, {}).get("usec", 0)
    return calls, usec


async def pairs_told(replicas: list[Community], queue: Any, pairs: int) -> list[float]:
    seconds = []
    for n in range(pairs):
        start = time.perf_counter()
        await asyncio.gather(
            told(replicas[0], queue, Seeker(f"a-{n}", "a")),
            told(replicas[1], queue, Seeker(f"b-{n}", "b")),
        )
        seconds.append(time.perf_counter() - start)
    return seconds


async def rating_costs(community: Community, matches: int) -> tuple[list[float], list[float]]:
    """(the maths alone, maths + store) per rated 2-seat match among 200 players."""
    ratings, rng = community.ratings, random.Random(1)
    board = RatingBoard("bench", "jaipur", "rated")
    maths, whole = [], []
    for n in range(matches):
        a, b = rng.sample(range(200), 2)
        rated = RatedMatch(f"m{n}", board, (RatedSeat(f"p{a}", "a"), RatedSeat(f"p{b}", "b")))
        ranks = rng.choice(([0, 1], [1, 0], [0, 0]))
        start = time.perf_counter()
        ratings.updates(rated, ranks, {}, 0)
        maths.append(time.perf_counter() - start)
        start = time.perf_counter()
        await ratings.rate(rated, ranks, 0)
        whole.append(time.perf_counter() - start)
    return maths, whole


def report(
    waiting: int, pairs: int, seconds: list[float], cpu_ms: float, scripts: tuple[int, int]
) -> None:
    calls, usec = scripts
    print(f"{waiting} waiting, {pairs} pairs, one after the other, two replicas")
    told = f"p50 {pct(seconds, 0.5):.0f} ms, p99 {pct(seconds, 0.99):.0f} ms"
    print(f"enqueue -> both told: {told}")
    print(f"server CPU per pair (both replicas, this process): {cpu_ms:.1f} ms")
    print(f"Redis scripts per pair: {calls / pairs:.1f} calls, {usec / pairs / 1000:.2f} ms")


async def run(waiting: int, pairs: int, rated: int) -> None:
    with tempfile.TemporaryDirectory(prefix="serai-bench-queue-") as folder:
        embedded = EmbeddedRedis(Path(folder)).start()
        games = registry.load()
        stores = [open_store(embedded.url) for _ in range(2)]
        replicas = [Community(Matches(s, games), policy=POLICY) for s in stores]
        client: Any = aioredis.Redis.from_url(embedded.url)
        queue = replicas[0].matchmaking.queue("bench", "jaipur", {}, 2, "rated")
        try:
            await fill(stores[0], queue, waiting)
            calls0, usec0 = await script_usec(client)
            cpu0 = own_cpu()
            seconds = await pairs_told(replicas, queue, pairs)
            cpu = (own_cpu() - cpu0) / pairs * 1000
            calls, usec = await script_usec(client)
            report(waiting, pairs, seconds, cpu, (calls - calls0, usec - usec0))
            maths, whole = await rating_costs(replicas[0], rated)
            print(
                f"rating update ({rated} matches): openskill p50 {pct(maths, 0.5):.2f} ms; "
                f"with the store p50 {pct(whole, 0.5):.2f} ms, p99 {pct(whole, 0.99):.2f} ms"
            )
        finally:
            await client.aclose()
            for store in stores:
                await store.close()
            embedded.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--waiting", type=int, default=10_000, help="players already waiting (10000)"
    )
    parser.add_argument(
        "--pairs", type=int, default=200, help="pairs measured, one after the other (200)"
    )
    parser.add_argument("--rated", type=int, default=500, help="rating updates measured (500)")
    args = parser.parse_args()
    asyncio.run(run(args.waiting, args.pairs, args.rated))


if __name__ == "__main__":
    main()
