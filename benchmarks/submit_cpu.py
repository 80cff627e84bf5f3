"""Server CPU per SubmitMove, in one process: serai's Matches and its servicer, without noise.

Wall-clock throughput on a shared 2-core box moves by 2x from one minute to the next; the CPU
time a process spends per call (``time.process_time``) moves far less. This script measures that
for the server side of SubmitMove, against a real Redis it starts itself (an embedded
redis-server, nothing kept on disk; Redis's own CPU is not counted: floor.py counts it).

First it plays --matches random Jaipur matches (ListLegalMoves, then a random SubmitMove by id;
seeded) and records each one's seed and move ids. Then, for each part and round, it creates fresh
matches with the same seeds, joins them, and submits the recorded move ids (with the expected
version and a request id, as a bot does), --concurrency matches at a time, timing only the
SubmitMoves:

  matches   ``Matches.submit`` (the lifecycle: cache, plugin, one store commit) and nothing else
  handler   the SubmitMove handler as ``build_server`` registers it (request decoding, the
            request log line, the servicer, the snapshot message), called with the request bytes
            and a stand-in context, and the response serialized: everything but gRPC's transport
  grpc      SubmitMove through a real grpc.aio server and client, both in this process (so the
            client's CPU is counted too); ``grpc-noop`` is a bare grpc.aio server answering the
            same response bytes, with the same client, so grpc - grpc-noop is serai's share

The request log goes, as JSON lines, to /dev/null (``serve`` writes them to its stdout).

Then, with --breakdown, one more run of ``matches`` and ``handler`` at concurrency 1 with the
plugin's methods and the store's wrapped in timers (CPU time each; at concurrency 1 the process
is idle while it waits for Redis, so the store's figure is redis-py's and serai's store code's
own CPU): plugin (per method), store, and the rest (serai's own code, asyncio, the timers).
The timers themselves cost about 1 us each, so the breakdown's total is above the plain run's.

Each part is run --rounds times; the best (lowest CPU per call) is shown, the rounds next to it.
Examples::

    python benchmarks/submit_cpu.py                       # every part, 3 rounds
    python benchmarks/submit_cpu.py --parts matches --breakdown
    PYTHONPATH=/tmp/before/server:/tmp/before/plugins python benchmarks/submit_cpu.py  # "before"
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from _workload import MatchesTable, Played, record_matches, submit_requests
from serai import logging as serai_logging
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import Matches
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.store import RedisStore
from serai.transports.grpc import server as grpc_server
from serai.transports.grpc.request_log import GrpcRequestLog
from serai.transports.grpc.servicer import MatchService

PARTS = ("matches", "handler", "grpc")
SUBMIT = "/serai.v1.MatchService/SubmitMove"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", "-n", type=int, default=20, help="recorded matches (20)")
    parser.add_argument(
        "--moves", type=int, default=0, help="moves per match (0: each match to its end)"
    )
    parser.add_argument(
        "--concurrency", "-c", type=int, default=10, help="matches submitted to at once (10)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="runs of each part (3)")
    parser.add_argument("--seed", type=int, default=1, help="seeds matches and bots (1)")
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated, of {', '.join(PARTS)} (all)",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="then time plugin and store calls one by one"
    )
    parser.add_argument("--redis-url", help="use this Redis instead of an embedded one")
    return parser.parse_args(argv)


# --- the parts ------------------------------------------------------------------------------------

Call = Callable[[], Awaitable[object]]


async def timed(jobs: list[list[Call]], concurrency: int) -> tuple[float, float, float, int]:
    """Run the jobs, ``concurrency`` at a time (each job's calls in order): CPU s (user and
    system), of which system s, wall s, calls."""
    queue = list(reversed(jobs))

    async def worker() -> None:
        while queue:
            for call in queue.pop():
                await call()

    before, wall = os.times(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(jobs)))))
    after, wall = os.times(), time.perf_counter() - wall
    user, system = after.user - before.user, after.system - before.system
    return user + system, system, wall, sum(map(len, jobs))


class Context:
    """Enough of grpc.aio.ServicerContext for the SubmitMove handler on the success path."""

    def peer(self) -> str:
        return "ipv4:127.0.0.1:50000"

    def code(self) -> None:
        return None

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise RuntimeError(f"{code.name}: {details}")


class _Capture:
    """Stands for a grpc.aio server while MatchService registers: keeps its method handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass  # the same handlers come again by name

    def add_registered_method_handlers(self, name: str, handlers: dict[str, Any]) -> None:
        self.handlers.update({f"/{name}/{method}": h for method, h in handlers.items()})


def registered_handler(matches: Matches) -> grpc.RpcMethodHandler:
    """SubmitMove's handler wrapped as build_server wraps it (decoding, request log)."""
    capture = _Capture()
    logged = GrpcRequestLog()
    wrapping = grpc_server._Wrapping(
        capture,  # type: ignore[arg-type]
        lambda method, handler: grpc_server._decoding(method, logged.wrap(method, handler)),
    )
    pb_grpc.add_MatchServiceServicer_to_server(MatchService(matches), wrapping)
    return capture.handlers[SUBMIT]


async def run_part(
    part: str, matches: Matches, played: list[Played], tag: str, concurrency: int
) -> tuple[float, float, float, int]:
    jobs = await submit_requests([MatchesTable(matches)], played, tag)
    if part == "matches":

        def direct(r: pb.SubmitMoveRequest) -> Call:
            return lambda: matches.submit(
                r.match_id,
                r.seat_token,
                move_id=r.move_id,
                expected_version=r.expected_version,
                request_id=r.request_id,
            )

        return await timed([[direct(r) for r in job] for job in jobs], concurrency)
    if part == "handler":
        handler = registered_handler(matches)
        unary, serialize = handler.unary_unary, handler.response_serializer
        context = Context()

        def handled(raw: bytes) -> Call:
            async def call() -> bytes:
                return serialize(await unary(raw, context))  # type: ignore[no-any-return]

            return call

        return await timed(
            [[handled(r.SerializeToString()) for r in job] for job in jobs], concurrency
        )
    if part in ("grpc", "grpc-noop"):
        if part == "grpc":
            server = await grpc_server.build_server(matches)
            port = await server.start("127.0.0.1", 0)
            stop: Callable[[], Awaitable[None]] = lambda: server.stop(None)  # noqa: E731
        else:
            response = await sample_response(matches, played)
            port, stop = await noop_server(response)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        call = channel.unary_unary(SUBMIT, response_deserializer=pb.SubmitMoveResponse.FromString)

        def sent(raw: bytes) -> Call:
            return lambda: call(raw)

        try:
            await channel.channel_ready()
            raws = [[r.SerializeToString() for r in job] for job in jobs]
            return await timed([[sent(raw) for raw in job] for job in raws], concurrency)
        finally:
            await channel.close()
            await stop()
    raise SystemExit(f"unknown part {part!r}")


async def sample_response(matches: Matches, played: list[Played]) -> bytes:
    """A real SubmitMove response: the first recorded move of the first match, submitted."""
    [[request, *_]] = await submit_requests([MatchesTable(matches)], played[:1], "sample-")
    handler = registered_handler(matches)
    answer = await handler.unary_unary(request.SerializeToString(), Context())
    return handler.response_serializer(answer)  # type: ignore[no-any-return]


async def noop_server(response: bytes) -> tuple[int, Callable[[], Awaitable[None]]]:
    async def noop(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return response

    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "serai.v1.MatchService", {"SubmitMove": grpc.unary_unary_rpc_method_handler(noop)}
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return port, lambda: server.stop(None)


# --- the breakdown --------------------------------------------------------------------------------


class Timers:
    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)

    def add(self, name: str, seconds: float) -> None:
        self.cpu[name] += seconds
        self.count[name] += 1


class TimedGame:
    """A plugin whose methods are timed (CPU); everything else passes through."""

    def __init__(self, game: Any, timers: Timers) -> None:
        self._game = game
        self._timers = timers

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._game, name)
        if not callable(value) or isinstance(value, type) or name.startswith("_"):
            return value
        timers = self._timers

        def timed_call(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return value(*args, **kwargs)
            finally:
                timers.add(f"plugin {name}", time.process_time() - start)

        return timed_call


def time_store(store: RedisStore, timers: Timers) -> None:
    for name in ("load", "commit", "create", "index", "request_answer"):
        inner = getattr(store, name)

        def make(inner: Any, name: str) -> Any:
            async def timed_call(*args: Any, **kwargs: Any) -> Any:
                start = time.process_time()
                try:
                    return await inner(*args, **kwargs)
                finally:
                    timers.add(f"store {name}", time.process_time() - start)

            return timed_call

        setattr(store, name, make(inner, name))


async def breakdown(
    part: str, store: RedisStore, games: registry.Registry, played: list[Played]
) -> None:
    timers = Timers()
    timed_games = registry.Registry(
        games={name: TimedGame(game, timers) for name, game in games.games.items()}  # type: ignore[misc]
    )
    matches = Matches(store, timed_games)
    jobs = await submit_requests([MatchesTable(matches)], played, f"b{part}-")
    timers.cpu.clear()
    timers.count.clear()
    time_store(store, timers)
    try:
        handler = registered_handler(matches)
        context = Context()
        calls = 0
        total = 0.0
        for job in jobs:
            for r in job:
                raw = r.SerializeToString()
                start = time.process_time()
                if part == "matches":
                    await matches.submit(
                        r.match_id,
                        r.seat_token,
                        move_id=r.move_id,
                        expected_version=r.expected_version,
                        request_id=r.request_id,
                    )
                else:
                    handler.response_serializer(await handler.unary_unary(raw, context))
                total += time.process_time() - start
                calls += 1
    finally:
        for name in ("load", "commit", "create", "index", "request_answer"):
            vars(store).pop(name, None)
    print(f"\nbreakdown of {part}, concurrency 1 ({calls} calls), CPU us per SubmitMove:")
    print(f"  {'total':<28} {total / calls * 1e6:7.1f}")
    known = 0.0
    for name in sorted(timers.cpu, key=lambda n: -timers.cpu[n]):
        known += timers.cpu[name]
        print(
            f"  {name:<28} {timers.cpu[name] / calls * 1e6:7.1f}"
            f"   ({timers.count[name] / calls:.2f} calls each)"
        )
    print(f"  {'rest (serai, asyncio)':<28} {(total - known) / calls * 1e6:7.1f}")


# --- the run --------------------------------------------------------------------------------------


async def main_async(args: argparse.Namespace, url: str) -> None:
    games = registry.load()
    store = RedisStore.from_url(url)
    matches = Matches(store, games)
    print(f"recording {args.matches} random Jaipur matches ...", file=sys.stderr)
    played = await record_matches([MatchesTable(matches)], args.matches, args.seed, args.moves)
    total_moves = sum(len(p.move_ids) for p in played)
    print(f"{total_moves} moves recorded", file=sys.stderr)
    parts = [p for p in args.parts.split(",") if p]
    if "grpc" in parts:
        parts.insert(parts.index("grpc"), "grpc-noop")
    results: dict[str, list[tuple[float, float, float, int]]] = defaultdict(list)
    for n in range(args.rounds):
        for part in parts:
            await store.client.flushdb()
            fresh = Matches(store, games)  # a fresh cache, as a freshly started server has
            results[part].append(
                await run_part(part, fresh, played, f"{part}{n}-", args.concurrency)
            )
            cpu, system, wall, calls = results[part][-1]
            print(
                f"  round {n + 1} {part:<9} {cpu / calls * 1e6:7.1f} us CPU/call "
                f"({system / calls * 1e6:.0f} system)  "
                f"{calls / wall:6.0f} calls/s",
                file=sys.stderr,
            )
    print(
        f"\nCPU per SubmitMove (us; best of {args.rounds}, rounds in brackets), "
        f"{len(played)} matches, {total_moves} moves, concurrency {args.concurrency}:"
    )
    best: dict[str, float] = {}
    for part in parts:
        per_call = [cpu / calls * 1e6 for cpu, _sys, _wall, calls in results[part]]
        user = [(cpu - system) / calls * 1e6 for cpu, system, _wall, calls in results[part]]
        best[part] = min(per_call)
        rounds = " ".join(f"{x:.0f}" for x in per_call)
        users = " ".join(f"{x:.0f}" for x in user)
        print(f"  {part:<10} {best[part]:7.1f}   ({rounds})   user only: {min(user):.1f} ({users})")
    if "grpc" in best and "grpc-noop" in best:
        print(f"  {'grpc - grpc-noop':<10} {best['grpc'] - best['grpc-noop']:7.1f}")
    if args.breakdown:
        await store.client.flushdb()
        for part in ("matches", "handler"):
            await breakdown(part, store, games, played)
    await store.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    devnull = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    serai_logging.configure("json", "info", stream=devnull)
    if args.redis_url:
        asyncio.run(main_async(args, args.redis_url))
        return 0
    with (
        tempfile.TemporaryDirectory() as folder,
        EmbeddedRedis(Path(folder), persistent=False, keep_commands=("FLUSHDB",)) as redis,
    ):
        asyncio.run(main_async(args, redis.url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
