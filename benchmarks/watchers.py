"""Watchers per process: N Watch streams on one ``serai serve``, the Redis connections it holds
for them, its memory per stream, and how fast moves reach watchers while M matches play.

Starts its own Redis (open, in a temporary folder) and one ``serai serve`` on it; this process
is the client. It opens N Watch streams over ``--channels`` connections (N - 2M spectators of
idle running matches, plus both seats of M matches), waits until each has its first message,
then reads the server's RSS and Redis's CLIENT LIST, and plays the M matches with random legal
moves for ``--seconds``. Delivery latency: from just before a SubmitMove is sent to the move's
arrival at each watcher of that match (an upper bound of commit-to-watcher). Example::

    python benchmarks/watchers.py --streams 2000 --playing 20 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

import grpc
import redis
from _harness import pct, start_process
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.streams import CLIENT_NAME


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=2000, help="Watch streams in all (N)")
    parser.add_argument("--playing", type=int, default=20, help="matches that play (M)")
    parser.add_argument("--per-match", type=int, default=10, help="spectators per idle match")
    parser.add_argument("--channels", type=int, default=20, help="client connections")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the M play")
    return parser.parse_args()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def redis_clients(url: str) -> tuple[int, int]:
    client = redis.Redis.from_url(url)
    try:
        listed = client.client_list()
    finally:
        client.close()
    return sum(1 for c in listed if c.get("name") == CLIENT_NAME), len(listed)


async def started_match(stub: pb_grpc.MatchServiceStub, seed: int) -> tuple[str, list[str]]:
    created = await stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2, seed=seed))
    match_id = created.match.match_id
    tokens = []
    for seat in range(2):
        joined = await stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=seat))
        tokens.append(joined.seat_token)
    return match_id, tokens


async def main() -> int:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="serai-watchers-") as folder:
        redis_server = EmbeddedRedis(folder, persistent=False, private=False).start()
        try:
            return await measure(args, redis_server.url, Path(folder))
        finally:
            redis_server.stop()


async def measure(args: argparse.Namespace, url: str, folder: Path) -> int:
    n = args.streams
    command = [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--http-port", "off"]
    command += ["--redis-url", url, "--move-rate", "0", "--create-rate", "0"]
    command += ["--chosen-seeds", "allow"]
    command += ["--max-watches", str(n), "--max-watches-per-peer", str(n)]
    command += ["--max-watches-per-match", str(n), "--log-level", "warning"]
    # This one address sets up every idle match: no per-address limit of unfinished ones.
    command += ["--max-open-per-peer", "0"]
    server, address = start_process(command, folder / "serve.log", "serai listening")
    try:
        options = [("grpc.use_local_subchannel_pool", 1)]
        channels = [
            grpc.aio.insecure_channel(address, options=options) for _ in range(args.channels)
        ]
        stubs = [pb_grpc.MatchServiceStub(c) for c in channels]
        playing = [await started_match(stubs[0], i) for i in range(args.playing)]
        spectators = n - 2 * args.playing
        idle = [
            await started_match(stubs[0], 10_000 + i)
            for i in range(max(1, -(-spectators // args.per_match)))
        ]
        rss_before = rss_kb(server.pid)
        sent: dict[tuple[str, int], float] = {}
        latencies: list[float] = []
        first = asyncio.Semaphore(0)

        async def watch(index: int, match_id: str, token: str) -> None:
            stub = stubs[index % len(stubs)]
            call = stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=token))
            told = False
            try:
                async for message in call:
                    if not told:
                        told = True
                        first.release()
                    if message.WhichOneof("kind") == "move":
                        began = sent.get((match_id, message.version))
                        if began is not None:
                            latencies.append(time.perf_counter() - began)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.CANCELLED:
                    print(f"watch ended: {error.code().name} {error.details()}", file=sys.stderr)
                if not told:
                    first.release()

        tasks = []
        for match_id, tokens in playing:
            tasks += [asyncio.create_task(watch(len(tasks), match_id, t)) for t in tokens]
        for i in range(spectators):
            match_id, _ = idle[i // args.per_match]
            tasks.append(asyncio.create_task(watch(len(tasks), match_id, "")))
        began = time.perf_counter()
        for _ in tasks:
            await first.acquire()
        opened_s = time.perf_counter() - began
        await asyncio.sleep(1.0)
        rss_open = rss_kb(server.pid)
        hub, every = await asyncio.to_thread(redis_clients, url)

        rng = random.Random(1)
        moves = 0
        deadline = time.monotonic() + args.seconds

        async def play(match_id: str, tokens: list[str]) -> None:
            nonlocal moves
            stub = stubs[0]
            while time.monotonic() < deadline:
                now = await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
                if now.match.status != pb.MATCH_STATUS_RUNNING:
                    return
                seat = now.to_act[0]
                listed = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
                )
                move = rng.choice(listed.moves)
                sent[(match_id, listed.version + 1)] = time.perf_counter()
                await stub.SubmitMove(
                    pb.SubmitMoveRequest(
                        match_id=match_id, seat_token=tokens[seat], move_id=move.id
                    )
                )
                moves += 1

        await asyncio.gather(*(play(m, t) for m, t in playing))
        await asyncio.sleep(0.5)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
        per_stream = (rss_open - rss_before) * 1024 / n
        print(f"streams            {n} ({spectators} spectators of {len(idle)} idle matches)")
        print(f"opened in          {opened_s:.1f} s")
        print(f"redis connections  {every} in all, {hub} of them the watch hub's")
        print(f"server RSS         {rss_before / 1024:.0f} MiB -> {rss_open / 1024:.0f} MiB: ")
        print(f"                   {per_stream / 1024:.1f} KiB per stream")
        print(f"moves              {moves} in {args.seconds:g} s over {args.playing} matches")
        if latencies:
            print(
                f"delivery           p50 {pct(latencies, 0.50):.1f} ms, "
                f"p99 {pct(latencies, 0.99):.1f} ms ({len(latencies)} arrivals)"
            )
        return 0
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
