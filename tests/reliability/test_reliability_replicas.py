"""Three stateless replicas on one Redis (or a three-master Redis Cluster): matches played with
every call through a random replica all finish and replay; a replica killed mid-match loses no
move and applies none twice."""

from __future__ import annotations

import asyncio
import random
import signal

import pytest
from reliability_helpers import check_replays, play_match, replicas_on
from serai import registry
from serai.store.redis.store import open_store

MATCHES = 6


def _play_all(addresses, *, seed, on_move=None, retry_for=60):
    async def scenario():
        async with replicas_on(addresses, seed=seed, retry_for=retry_for) as replicas:
            rng = random.Random(seed)
            games = [("jaipur", 2), ("sobek", 2), ("nile", 3)]
            jobs = []
            for i in range(MATCHES):
                game, seats = games[i % len(games)]
                jobs.append(
                    play_match(
                        replicas,
                        random.Random(rng.random()),
                        game=game,
                        seats=seats,
                        seed=seed * 100 + i,
                        on_move=on_move,
                    )
                )
            return await asyncio.wait_for(asyncio.gather(*jobs), 150), replicas.unavailable

    return asyncio.run(scenario())


def _check(played, url="", cluster=None):
    async def scenario():
        store = open_store(url, cluster=cluster)
        try:
            await check_replays(store, registry.load(), played)
        finally:
            await store.close()

    asyncio.run(scenario())


def test_three_replicas_on_one_redis_play_every_match_to_a_replayable_end(
    start_replicas, redis_url
):
    servers = start_replicas(3, "--redis-url", redis_url)
    played, _ = _play_all([s.address for s in servers], seed=1)
    assert all(p.finished for p in played)
    _check(played, redis_url)


@pytest.mark.slow
def test_three_replicas_on_a_three_master_redis_cluster(start_replicas, redis_cluster_nodes):
    servers = start_replicas(3, "--redis-cluster", redis_cluster_nodes)
    played, _ = _play_all([s.address for s in servers], seed=2)
    assert all(p.finished for p in played)
    _check(played, cluster=redis_cluster_nodes)
    # the matches really are spread over the masters: every node holds some of them
    import redis

    holders = 0
    for node in redis_cluster_nodes.split(","):
        host, port = node.split(":")
        client = redis.Redis(host=host, port=int(port))
        holders += bool(client.keys("serai:{*}:match"))
        client.close()
    assert holders >= 2


@pytest.mark.slow
def test_a_replica_killed_mid_match_loses_no_move_and_applies_none_twice(start_replicas, redis_url):
    servers = start_replicas(3, "--redis-url", redis_url)
    victim = servers[0]
    total = {"moves": 0}

    async def on_move(played):
        total["moves"] += 1
        if total["moves"] == 150:  # the matches are well under way
            victim.process.send_signal(signal.SIGKILL)

    played, unavailable = _play_all([s.address for s in servers], seed=3, on_move=on_move)
    assert victim.process.wait(10) == -signal.SIGKILL
    assert all(p.finished for p in played)
    assert unavailable > 0  # calls did reach the dead replica, and were sent elsewhere
    _check(played, redis_url)  # one log entry per acknowledged move, in order, and it replays
