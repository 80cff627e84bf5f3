"""The server CPU one match's set-up costs (CreateMatch + two JoinMatch), Redis included.

Issue 19's set-up target is 2.5 ms of server CPU per set-up (the peer harness measured 5.4 ms).
This starts an embedded Redis and one ``serai serve``, runs ``--slots`` concurrent clients that
each set matches up (create, join seat 0, join seat 1) until ``--setups`` are done, and prints
the CPU time of the server process and of redis-server per set-up, with the Redis commands each
set-up sent (INFO commandstats). ``--profile FILE`` runs the server under cProfile and writes its
stats to FILE when it stops (read them with ``python -m pstats FILE``). Example::

    python benchmarks/setup_cpu.py --setups 3000 --slots 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import grpc
import redis
from _harness import cpu_seconds, start_process
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis

RUN = os.urandom(6).hex()  # request ids unique to this run


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setups", type=int, default=3000, help="set-ups measured (3000)")
    parser.add_argument("--warmup", type=int, default=300, help="set-ups before measuring (300)")
    parser.add_argument("--slots", type=int, default=10, help="concurrent clients (10)")
    parser.add_argument("--game", default="jaipur", help="the game set up (jaipur)")
    parser.add_argument("--profile", help="run the server under cProfile, stats to this file")
    parser.add_argument(
        "--serai-path",
        help="serve the serai of this checkout (its server/ first on PYTHONPATH), for a "
        "before/after in one run's terms",
    )
    return parser.parse_args(argv)


async def set_up(stub: pb_grpc.MatchServiceStub, game: str, slot: int, count: int) -> None:
    # A client id per 50 set-ups: the matches stay open, below serve's open-match limit.
    created = await stub.CreateMatch(
        pb.CreateMatchRequest(
            game=game,
            seats=2,
            client_id=f"setup-{slot}-{count // 50}",
            request_id=f"create-{RUN}-{slot}-{count}",
        )
    )
    for seat in (0, 1):
        await stub.JoinMatch(
            pb.JoinMatchRequest(
                match_id=created.match.match_id,
                seat=seat,
                player_name=f"p{seat}",
                request_id=f"join-{RUN}-{slot}-{count}-{seat}",
            )
        )


async def run(args: argparse.Namespace, address: str, pids: tuple[int, int], url: str) -> None:
    channels = [grpc.aio.insecure_channel(address) for _ in range(args.slots)]
    stubs = [pb_grpc.MatchServiceStub(channel) for channel in channels]
    counter = iter(range(10**9))

    async def slot_loop(slot: int, until: int) -> None:
        while (count := next(counter)) < until:
            await set_up(stubs[slot], args.game, slot, count)

    await asyncio.gather(*(slot_loop(s, args.warmup) for s in range(args.slots)))
    counter = iter(range(10**9))
    client = redis.Redis.from_url(url)
    calls_before = _calls(client)
    before = [cpu_seconds(pid) or 0.0 for pid in pids]
    started = time.perf_counter()
    await asyncio.gather(*(slot_loop(s, args.setups) for s in range(args.slots)))
    wall = time.perf_counter() - started
    after = [cpu_seconds(pid) or 0.0 for pid in pids]
    calls = {name: count - calls_before.get(name, 0) for name, count in _calls(client).items()}
    client.close()
    for channel in channels:
        await channel.close()
    server_ms, redis_ms = ((a - b) * 1000 / args.setups for a, b in zip(after, before, strict=True))
    commands = ", ".join(
        f"{name} {count / args.setups:.2f}" for name, count in sorted(calls.items()) if count
    )
    print(f"set-ups             {args.setups} at {args.slots} concurrent, {args.game}")
    print(f"set-ups/s           {args.setups / wall:.0f}")
    print(
        f"CPU per set-up      {server_ms + redis_ms:.2f} ms "
        f"(server {server_ms:.2f} ms, redis {redis_ms:.2f} ms)"
    )
    print(f"Redis per set-up    {commands}")
    print(f"load average        {os.getloadavg()[0]:.2f}")


def _calls(client: redis.Redis) -> dict[str, int]:
    """Calls per Redis command so far (INFO commandstats)."""
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): value["calls"] for name, value in stats.items()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="serai-bench-") as folder:
        embedded = EmbeddedRedis(Path(folder) / "data").start()
        python = [sys.executable]
        if args.serai_path:  # env execs: the pid stays the server's
            python = ["env", f"PYTHONPATH={Path(args.serai_path).resolve() / 'server'}", *python]
        if args.profile:
            python += ["-m", "cProfile", "-o", str(Path(args.profile).resolve())]
        server, address = start_process(
            [*python, "-m", "serai.cli", "serve", "--port", "0",
             "--http-port", "off", "--redis-url", embedded.url, "--log-format", "json",
             "--max-open-per-peer", "0", "--max-open-total", "0", "--create-rate", "0"],
            Path(folder) / "serve.log",
            "serai listening",
            name="serai serve",
        )  # fmt: skip
        try:
            assert embedded.process is not None
            asyncio.run(run(args, address, (server.pid, embedded.process.pid), embedded.url))
        finally:
            # SIGINT, so that cProfile's wrapper sees the interpreter exit and writes its stats
            server.send_signal(signal.SIGINT if args.profile else signal.SIGTERM)
            server.wait(30)
            embedded.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
