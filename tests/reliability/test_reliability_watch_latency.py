"""Watchers keep up when Redis is far away: with a delaying proxy between the replicas and a real
redis-server, every watcher gets every event, none waits many round trips for one, and new
watchers arriving (catch-ups, rechecks) do not hold up the others' deliveries."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

from delaying_proxy import DelayingProxy
from serai.matches import Matches
from serai.matches import hub as hub_module
from serai.matches import watching as watching_module
from serai.store.redis import RedisStore
from serai.store.redis.scripts import LOAD_SCRIPT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from tiny_game import tiny_registry

DELAY = 0.1  # seconds each way: a round trip costs 0.2 s more
MATCHES = 8
# The hub's stalls were a recheck long (5 s) and more, and its lag grew without bound once matches
# moved faster than it read them. The test makes a recheck a minute long, so that a delivery left
# to one would stand out by far, and allows a loaded 2-core machine's pauses (a delivery takes
# one or two round trips, 0.2-0.4 s; how few is what test_a_delivery_needs_no_load... counts).
RECHECK_SECONDS = 60.0
MOST_LAG = 15.0


async def _play(matches: Matches, match_id: str, tokens: list[str], sent: dict[Any, float]) -> None:
    rng = random.Random(match_id)
    while True:
        now = await matches.get(match_id)
        if now.record.status != "running":
            return
        seat = now.to_act[0]
        listed = await matches.legal_moves(match_id, tokens[seat])
        sent[(match_id, listed.version + 1)] = time.perf_counter()
        await matches.submit(match_id, tokens[seat], move_id=rng.choice(listed.moves).id)


async def _watch(
    matches: Matches, match_id: str, token: str, sent: dict[Any, float], lags: list[float]
) -> list[str]:
    opened = time.perf_counter()
    seen = []
    async for batch in matches.watch(match_id, token):
        arrived = time.perf_counter()
        for event in batch.events:
            seen.append(event.event_id)
            began = sent.get((match_id, event.version))
            if event.kind == "move" and began is not None and began >= opened:
                lags.append(arrived - began)
    return seen


async def _slow_redis_run(redis_port: int) -> dict[str, Any]:
    async with DelayingProxy("127.0.0.1", redis_port, delay=DELAY) as proxy:
        url = f"redis://127.0.0.1:{proxy.port}/0"
        # Two replicas: one plays, the other serves the watchers (none of its own commits cached).
        play_store, watch_store = RedisStore.from_url(url), RedisStore.from_url(url)
        players = Matches(play_store, tiny_registry())
        watchers = Matches(watch_store, tiny_registry(), watch_block_ms=1000)
        hub = watchers.use_watch_hub(watch_store.event_feed())
        sent: dict[Any, float] = {}
        lags: list[float] = []
        try:
            started = []
            for _ in range(MATCHES):
                record = await players.create("tiny", seats=2, options={"hand": 4, "plays": 4})
                tokens = [(await players.join(record.match_id, s)).token for s in range(2)]
                started.append((record.match_id, tokens))
            watches = [
                asyncio.create_task(_watch(watchers, match_id, token, sent, lags))
                for match_id, tokens in started
                for token in (*tokens, "")
            ]
            playing = asyncio.gather(*(_play(players, m, t, sent) for m, t in started))
            arriving: list[tuple[str, asyncio.Task[list[str]]]] = []
            rng = random.Random(3)
            while not playing.done():  # a new spectator every 100 ms, reading from the start
                match_id = rng.choice(started)[0]
                watch = _watch(watchers, match_id, "", sent, lags)
                arriving.append((match_id, asyncio.create_task(watch)))
                await asyncio.wait([playing], timeout=0.1)
            await playing
            every_watch = [*watches, *(task for _, task in arriving)]
            seen = await asyncio.wait_for(asyncio.gather(*every_watch), 60)
            events = {
                m: [e.event_id for e in await play_store.read_events(m, "", count=1000)]
                for m, _ in started
            }
            expected = [events[m] for m, _ in started for _ in range(3)]
            expected += [events[m] for m, _ in arriving]
            return {"seen": seen, "expected": expected, "lags": lags, "arrived": len(arriving)}
        finally:
            await hub.close()
            await play_store.close()
            await watch_store.close()


def test_watchers_keep_up_with_a_slow_redis(redis_server, redis_url, monkeypatch):
    """At +100 ms each way, while new spectators keep arriving: every watcher gets every event
    once, in order, and no move waits for a recheck to reach its watchers."""
    monkeypatch.setattr(hub_module, "_RECHECK_SECONDS", RECHECK_SECONDS)
    monkeypatch.setattr(watching_module, "_RECHECK_SECONDS", RECHECK_SECONDS)
    found = asyncio.run(_slow_redis_run(redis_server.port))
    assert found["arrived"] >= 10
    assert found["seen"] == found["expected"]
    lags = sorted(found["lags"])
    assert len(lags) >= MATCHES * 8 * 3
    assert lags[-1] < MOST_LAG, f"slowest deliveries: {[round(x, 2) for x in lags[-5:]]}"


async def _commands_per_delivery(redis_port: int) -> dict[str, int]:
    """Watchers of a few matches on a replica behind a recording proxy, every watcher caught up,
    then the matches played out through another replica (a move every few round trips): how
    many moves were delivered and what the watching replica sent Redis meanwhile."""
    async with (
        DelayingProxy("127.0.0.1", redis_port, delay=0.02, record=True) as proxy,
        DelayingProxy("127.0.0.1", redis_port, delay=0.02) as play_proxy,
    ):
        play_store = RedisStore.from_url(f"redis://127.0.0.1:{play_proxy.port}/0")
        watch_store = RedisStore.from_url(f"redis://127.0.0.1:{proxy.port}/0")
        players = Matches(play_store, tiny_registry())
        watchers = Matches(watch_store, tiny_registry(), watch_block_ms=1000)
        hub = watchers.use_watch_hub(watch_store.event_feed())
        sent: dict[Any, float] = {}
        try:
            started = []
            for _ in range(4):
                record = await players.create("tiny", seats=2, options={"hand": 4, "plays": 4})
                tokens = [(await players.join(record.match_id, s)).token for s in range(2)]
                started.append((record.match_id, tokens))
            caught_up = asyncio.Semaphore(0)

            async def watch(match_id: str, token: str) -> int:
                moves, first = 0, True
                async for batch in watchers.watch(match_id, token):
                    if first:
                        caught_up.release()
                        first = False
                    moves += sum(e.kind == "move" for e in batch.events)
                return moves

            watches = [
                asyncio.create_task(watch(match_id, token))
                for match_id, tokens in started
                for token in (*tokens, "")
            ]
            for _ in watches:
                await asyncio.wait_for(caught_up.acquire(), 60)
            loads = proxy.count_sent(LOAD_SCRIPT.sha.encode())
            direct_reads = proxy.count_sent(b":archive")  # a direct read asks for the archive too
            await asyncio.gather(*(_play(players, m, t, sent) for m, t in started))
            delivered = sum(await asyncio.wait_for(asyncio.gather(*watches), 60))
            return {
                "moves": len(sent),
                "delivered": delivered,
                "loads": proxy.count_sent(LOAD_SCRIPT.sha.encode()) - loads,
                "direct reads": proxy.count_sent(b":archive") - direct_reads,
            }
        finally:
            await hub.close()
            await play_store.close()
            await watch_store.close()


def test_a_delivery_needs_no_load_and_no_read_of_its_own(redis_server):
    """The hub's shared read brings each moved match's record with its new events (one script,
    right behind the blocking XREAD): a delivery costs that round trip alone, no load of the
    match and no direct read of its events, so a slow link to Redis costs each move one round
    trip between commit and watcher (the commit's and the shared read's halves)."""
    found = asyncio.run(_commands_per_delivery(redis_server.port))
    assert found["moves"] >= 4 * 8 and found["delivered"] == 3 * found["moves"]
    # Before: a load for each batch of each match (and a direct read when it had moved on);
    # now a direct read for a match whose last events were archived before the shared read
    # came (the Redis store folds a finished match), at most.
    assert found["loads"] == 0 and found["direct reads"] <= 4, found
