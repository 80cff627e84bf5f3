"""The watch hub on a Redis Cluster and behind a Sentinel: it follows matches on every master
through two connections per node (three where it listens to pushed commits: not on a
Cluster), and delivers every event once, in order."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import redis
from serai.matches import Matches
from serai.store.redis.store import RedisStore, open_store
from serai.store.redis.streams import CLIENT_NAME

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from tiny_game import tiny_registry


async def _play(matches: Matches, match_id: str, tokens: list[str]) -> None:
    while True:
        now = await matches.get(match_id)
        if now.record.status != "running":
            return
        seat = now.to_act[0]
        listed = await matches.legal_moves(match_id, tokens[seat])
        await matches.submit(match_id, tokens[seat], move_id=listed.moves[0].id)


async def _watched_and_played(store: RedisStore, count: int, ports: list[int]) -> dict[str, Any]:
    """``count`` tiny matches, three watchers each, played out: what each watcher saw, what
    the store holds, the shards followed, and the hub's connections while they watched (its
    own count, and what CLIENT LIST shows on each of ``ports``)."""
    matches = Matches(store, tiny_registry(), watch_block_ms=500)
    feed = store.event_feed()
    hub = matches.use_watch_hub(feed)
    try:
        started = []
        for _ in range(count):
            record = await matches.create("tiny", seats=2, options={"hand": "4", "plays": "4"})
            tokens = [(await matches.join(record.match_id, s)).token for s in range(2)]
            started.append((record.match_id, tokens))

        async def watch(match_id: str, token: str) -> list[str]:
            return [e.event_id async for b in matches.watch(match_id, token) for e in b.events]

        watchers = [
            asyncio.create_task(watch(match_id, token))
            for match_id, tokens in started
            for token in (*tokens, "")
        ]
        for _ in range(3000):  # 30 s at most
            if hub.followed == count or any(w.done() for w in watchers):
                break
            await asyncio.sleep(0.01)
        connections = feed.open_connections
        per_node = [await asyncio.to_thread(_hub_clients, port) for port in ports]
        await asyncio.gather(*(_play(matches, m, t) for m, t in started))
        seen = await asyncio.wait_for(asyncio.gather(*watchers), 60)
        expected = {
            m: [e.event_id for e in await store.read_events(m, "", count=1000)] for m, _ in started
        }
        return {
            "seen": seen,
            "expected": [expected[m] for m, _ in started for _ in range(3)],
            "shards": {feed.shard_of(m) for m, _ in started},
            "connections": connections,
            "per_node": per_node,
        }
    finally:
        await hub.close()


def _hub_clients(port: int) -> int:
    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        return sum(1 for c in client.client_list() if c.get("name") == CLIENT_NAME)
    finally:
        client.close()


def test_the_hub_follows_matches_on_every_master_of_a_cluster(redis_cluster, redis_cluster_nodes):
    async def main() -> dict[str, Any]:
        store = open_store("", cluster=redis_cluster_nodes)
        try:
            # about 8 on each of the 3 masters
            return await _watched_and_played(store, 24, redis_cluster.ports)
        finally:
            await store.close()

    found = asyncio.run(main())
    assert found["seen"] == found["expected"]
    assert len(found["shards"]) == 3  # 24 random ids miss a master once in 50,000 runs
    assert found["connections"] <= 2 * 3
    assert all(1 <= count <= 2 for count in found["per_node"])


def test_the_hub_reads_the_master_a_sentinel_names(redis_server, tmp_path):
    from test_reliability_stores import running_sentinel

    async def main(url: str) -> dict[str, Any]:
        store = RedisStore.for_sentinel(url)
        try:
            return await _watched_and_played(store, 4, [redis_server.port])
        finally:
            await store.close()

    with running_sentinel(redis_server, tmp_path) as url:
        found = asyncio.run(main(url))
    assert found["seen"] == found["expected"]
    assert found["shards"] == {""} and found["connections"] <= 3  # a listener beside
    assert 1 <= found["per_node"][0] <= 3
