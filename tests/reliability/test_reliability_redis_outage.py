"""Redis goes away mid-load: requests answer UNAVAILABLE at once (none hangs), nothing is half
written, and when the same Redis comes back from its append-only file, play resumes with every
committed move kept."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
from reliability_helpers import check_replays, play_match, replicas_on
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.store import open_store
from waiting import eventually


def test_redis_killed_mid_load_answers_unavailable_then_play_resumes_with_every_move(
    start_replicas, tmp_path
):
    data = tmp_path / "redis"
    redis = EmbeddedRedis(
        data, persistent=True, private=False
    ).start()  # append-only file, fsync every second
    port = redis.port
    servers = start_replicas(2, "--redis-url", redis.url)
    addresses = [s.address for s in servers]
    outage = {"moves": 0, "probes": []}
    restarted: list[EmbeddedRedis] = []
    bots: list[Any] = []  # the Replicas the bots call through, once they play

    async def probe(address, match_id):
        async with grpc.aio.insecure_channel(address) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            try:
                await stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=10)
            except grpc.aio.AioRpcError as error:
                return error.code(), error.details()
            return grpc.StatusCode.OK, ""

    async def on_move(played):
        outage["moves"] += 1
        if outage["moves"] != 80:
            return
        redis.process.kill()  # SIGKILL: no goodbye, only what the append-only file holds
        redis.stop()
        # a hung request would end DEADLINE_EXCEEDED (10 s); a refused connection is UNAVAILABLE
        outage["probes"] = [await probe(a, played.match_id) for a in addresses]
        # the bots meanwhile get UNAVAILABLE and retry: Redis comes back once they have
        refused = bots[0].unavailable
        await eventually(lambda: bots[0].unavailable > refused, "a bot got UNAVAILABLE")
        restarted.append(EmbeddedRedis(data, persistent=True, private=False, port=port).start())

    async def scenario():
        async with replicas_on(addresses, seed=5, retry_for=60) as replicas:
            bots.append(replicas)
            jobs = [
                play_match(replicas, random.Random(i), game="sobek", seed=i, on_move=on_move)
                for i in range(4)
            ]
            return await asyncio.wait_for(asyncio.gather(*jobs), 150), replicas.unavailable

    try:
        played, unavailable = asyncio.run(scenario())
        assert restarted, "the outage never happened"
        for code, details in outage["probes"]:
            assert code == grpc.StatusCode.UNAVAILABLE, (code, details)
            assert "Redis cannot be reached" in details and "retry" in details
        assert unavailable > 0
        assert all(p.finished for p in played)

        async def check():
            store = open_store(restarted[0].url)
            try:
                # one log entry per acknowledged move: none lost in the restart, none doubled
                await check_replays(store, registry.load(), played)
            finally:
                await store.close()

        asyncio.run(check())
    finally:
        for server in restarted:
            server.stop()
        redis.stop()
