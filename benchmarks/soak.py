"""Soak: many concurrent random-bot matches across several serai replicas for a bounded time.

Starts its own Redis (embedded, append-only file in a temporary folder) and ``--replicas`` ``serai
serve`` processes on loopback, unless --redis-url / --redis-cluster name a running one. Keeps
``--matches`` matches in play at once: each bot plays a match to its end (every call to a random
replica), then starts another, until ``--seconds`` have passed. Prints a progress line every
``--every`` seconds, then moves per second, the error count, SubmitMove latency (p50, p99) and
checks that every match played (finished, or left unfinished when time ran out) replays from its
log to its stored state (exit status 1 if one does not, or if any call failed). Example::

    python benchmarks/soak.py --matches 1000 --seconds 120
    python benchmarks/soak.py --matches 50 --seconds 20 --games jaipur,sobek,nile
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from _harness import pct, start_process
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import Matches
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.store import open_store

GAME_SEATS = {"jaipur": 2, "sobek": 2, "nile": 3}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", "-n", type=int, default=1000, help="matches in play (1000)")
    parser.add_argument("--seconds", type=float, default=120, help="how long to play (120)")
    parser.add_argument("--replicas", type=int, default=3, help="serai serve processes (3)")
    parser.add_argument(
        "--games",
        default="jaipur,sobek,nile",
        help="comma-separated games, used in turn (jaipur,sobek,nile)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seeds matches and bots (1)")
    parser.add_argument("--every", type=float, default=10, help="seconds between progress lines")
    parser.add_argument("--redis-url", help="a running Redis (default: start one)")
    parser.add_argument("--redis-cluster", help="a running Redis Cluster: host:port,...")
    parser.add_argument(
        "--channels", type=int, default=2, help="client connections per replica (2)"
    )
    return parser.parse_args(argv)


@dataclass
class Stats:
    moves: int = 0
    started: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    retried: int = 0
    latencies: list[float] = field(default_factory=list)


class Bots:
    """Stubs on every replica; each call goes to a random one, UNAVAILABLE is retried briefly."""

    def __init__(self, addresses: list[str], channels: int, stats: Stats) -> None:
        options = [("grpc.use_local_subchannel_pool", 1)]  # really separate connections
        self.channels = [
            grpc.aio.insecure_channel(address, options=options)
            for address in addresses
            for _ in range(channels)
        ]
        self.stubs = [pb_grpc.MatchServiceStub(channel) for channel in self.channels]
        self.stats = stats

    async def call(self, rng: random.Random, method: str, request: object) -> object:
        for attempt in range(20):
            try:
                return await getattr(rng.choice(self.stubs), method)(request, timeout=30)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == 19:
                    self.stats.errors[f"{method} {error.code().name}"] += 1
                    raise
                self.stats.retried += 1
                await asyncio.sleep(0.1)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


async def bot(bots: Bots, index: int, games: list[str], seed: int, until: float) -> None:
    """Play matches one after another until ``until`` (a match under way is left unfinished)."""
    rng = random.Random(f"{seed}:{index}")
    stats = bots.stats
    round_ = 0
    while time.monotonic() < until:
        game = games[(index + round_) % len(games)]
        round_ += 1
        seats = GAME_SEATS.get(game, 2)
        try:
            created = await bots.call(
                rng,
                "CreateMatch",
                pb.CreateMatchRequest(game=game, seats=seats, seed=rng.getrandbits(32)),
            )
            match_id = created.match.match_id  # type: ignore[attr-defined]
            stats.started.append(match_id)
            tokens = []
            for seat in range(seats):
                joined = await bots.call(
                    rng, "JoinMatch", pb.JoinMatchRequest(match_id=match_id, seat=seat)
                )
                tokens.append(joined.seat_token)  # type: ignore[attr-defined]
            snapshot = await bots.call(rng, "GetMatch", pb.GetMatchRequest(match_id=match_id))
            to_act = list(snapshot.to_act)  # type: ignore[attr-defined]
            while to_act and time.monotonic() < until:
                token = tokens[to_act[0]]
                listed = await bots.call(
                    rng,
                    "ListLegalMoves",
                    pb.ListLegalMovesRequest(match_id=match_id, seat_token=token),
                )
                request = pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=token,
                    move_id=rng.choice(listed.moves).id,  # type: ignore[attr-defined]
                    expected_version=listed.version,  # type: ignore[attr-defined]
                    request_id=uuid.uuid4().hex,
                )
                start = time.perf_counter()
                done = await bots.call(rng, "SubmitMove", request)
                stats.latencies.append(time.perf_counter() - start)
                stats.moves += 1
                to_act = list(done.snapshot.to_act)  # type: ignore[attr-defined]
            if not to_act:
                stats.finished.append(match_id)
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.5)  # counted in stats.errors; start a new match


async def progress(stats: Stats, start: float, until: float, every: float) -> None:
    while time.monotonic() < until:
        await asyncio.sleep(min(every, max(0.0, until - time.monotonic())))
        elapsed = time.monotonic() - start
        print(
            f"[{elapsed:6.1f} s] moves {stats.moves:7d}  ({stats.moves / elapsed:6.0f}/s)  "
            f"finished {len(stats.finished):5d}  errors {sum(stats.errors.values())}  "
            f"retried {stats.retried}",
            flush=True,
        )


async def soak(args: argparse.Namespace, addresses: list[str], url: str) -> int:
    stats = Stats()
    bots = Bots(addresses, args.channels, stats)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    # A soak runs for as long as it is told, so the bots keep their garbage collector; freezing
    # what exists now (modules, descriptors, channels) keeps each full collection short.
    gc.collect()
    gc.freeze()
    start = time.monotonic()
    until = start + args.seconds
    print(
        f"soak: {args.matches} concurrent matches of {', '.join(games)} on {len(addresses)} "
        f"replicas for {args.seconds:g} s",
        flush=True,
    )
    await asyncio.gather(
        progress(stats, start, until, args.every),
        *(bot(bots, i, games, args.seed, until) for i in range(args.matches)),
    )
    elapsed = time.monotonic() - start
    await bots.close()

    print(f"checking that all {len(stats.started)} matches replay ...", flush=True)
    store = open_store(url, cluster=args.redis_cluster)
    matches = Matches(store, registry.load())
    failed = []
    checked = time.monotonic()
    for match_id in stats.started:
        report = await matches.replay(match_id)
        if not report.ok:
            failed.append(f"{match_id}: {report.message}")
    await store.close()

    errors = sum(stats.errors.values())
    print()
    print(f"elapsed             {elapsed:.1f} s, {len(addresses)} replicas")
    print(f"moves               {stats.moves}")
    print(f"moves per second    {stats.moves / elapsed:.0f}")
    p50, p99 = pct(stats.latencies, 0.50), pct(stats.latencies, 0.99)
    print(f"SubmitMove latency  p50 {p50:.1f} ms   p99 {p99:.1f} ms")
    print(f"errors              {errors} {dict(stats.errors) if errors else ''}".rstrip())
    print(f"UNAVAILABLE retried {stats.retried}")
    print(f"matches             {len(stats.started)} played, {len(stats.finished)} to the end")
    print(
        f"replayed            {len(stats.started) - len(failed)} of {len(stats.started)} "
        f"reproduce their stored state ({time.monotonic() - checked:.1f} s)"
    )
    for line in failed[:20]:
        print(f"  REPLAY FAILED {line}")
    return 1 if failed or errors else 0


def _start_replica(
    folder: Path, index: int, target: list[str]
) -> tuple[subprocess.Popen[bytes], str]:
    return start_process(
        [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--http-port", "off",
         "--log-format", "json",
         "--log-level", "warning", "--move-rate", "0", "--create-rate", "0",
         "--max-open-matches", "0",
         "--max-open-per-peer", "0", "--max-open-total", "0",
         "--chosen-seeds", "allow", *target],
        folder / f"serve-{index}.log",
        "serai listening",
        name="serai serve",
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="serai-soak-") as folder:
        embedded = None
        replicas: list[subprocess.Popen[bytes]] = []
        try:
            url = args.redis_url or ""
            if args.redis_cluster:
                target = ["--redis-cluster", args.redis_cluster]
            else:
                if not url:
                    embedded = EmbeddedRedis(Path(folder) / "redis").start()
                    url = embedded.url
                target = ["--redis-url", url]
            addresses = []
            for i in range(args.replicas):
                process, address = _start_replica(Path(folder), i, target)
                replicas.append(process)
                addresses.append(address)
            return asyncio.run(soak(args, addresses, url))
        finally:
            for process in replicas:
                process.terminate()
            for process in replicas:
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
            if embedded is not None:
                embedded.stop()


if __name__ == "__main__":
    sys.exit(main())
