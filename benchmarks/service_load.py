"""Load on one serai server: N concurrent matches of random bots, played to the end.

Prints moves per second over the whole run, SubmitMove latency (p50, p99) as the bots see it, and
the Redis memory a finished match takes (MEMORY USAGE summed over the match's keys). The bots run
with their garbage collector off, so that its pauses are not counted as the server's latency.

By default it starts its own Redis (embedded, append-only file in a temporary folder, as
``serai serve`` does) and its own ``serai serve`` process; give --server and --redis-url to
measure a running deployment instead. ``--mode`` says how the bots learn and move:
``submit`` (the default): each move is two calls, as a generic bot makes them: ListLegalMoves,
then SubmitMove of a random id with the expected version, the next seat known from the answer;
``watch``: every seat also Watches its match and moves (ListLegalMoves + SubmitMove) when a
snapshot names it, so both seats are told of every move; ``play``: every seat on one Play stream,
moving on the legal moves it is offered (told of every move, no ListLegalMoves). Example::

    python benchmarks/service_load.py --matches 10
    python benchmarks/service_load.py --matches 10 --mode play
    python benchmarks/service_load.py --matches 10 --redis-fsync always   # the cost of fsync
    python benchmarks/service_load.py --matches 100 --server 127.0.0.1:50051 \\
        --redis-url redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio as aioredis
from _harness import cpu_seconds, pct, start_process
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.keys import match_keys


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", "-n", type=int, default=10, help="concurrent matches (10)")
    parser.add_argument("--game", default="jaipur", help="the game to play (jaipur)")
    parser.add_argument("--seats", type=int, default=2, help="seats per match (2)")
    parser.add_argument("--seed", type=int, default=1, help="seeds matches and bots (1)")
    parser.add_argument("--server", help="HOST:PORT of a running serai server (default: start one)")
    parser.add_argument(
        "--redis-url",
        help="the Redis that server uses, for the memory figure (default: start one)",
    )
    parser.add_argument("--channels", type=int, default=4, help="gRPC channels the bots share (4)")
    parser.add_argument(
        "--mode",
        choices=("submit", "watch", "play"),
        default="submit",
        help="how bots learn of moves: submit only, Watch + SubmitMove, or Play (submit)",
    )
    parser.add_argument(
        "--redis-fsync",
        choices=("everysec", "always"),
        default="everysec",
        help="appendfsync of the Redis it starts, as serve --redis-fsync (everysec)",
    )
    return parser.parse_args(argv)


async def play_match(
    stub: pb_grpc.MatchServiceStub, args: argparse.Namespace, index: int, latencies: list[float]
) -> tuple[str, int]:
    """Create, join and play one match to its end with random moves; (match id, moves)."""
    rng = random.Random(f"{args.seed}:{index}")
    created = await stub.CreateMatch(
        pb.CreateMatchRequest(game=args.game, seats=args.seats, seed=args.seed * 1000 + index)
    )
    match_id = created.match.match_id
    tokens = []
    for seat in range(args.seats):
        joined = await stub.JoinMatch(
            pb.JoinMatchRequest(match_id=match_id, player_name=f"bot{seat}")
        )
        tokens.append(joined.seat_token)
    if args.mode != "submit":
        seat_play = play_seat if args.mode == "play" else watch_seat
        played = await asyncio.gather(
            *(
                seat_play(stub, match_id, token, random.Random(f"{args.seed}:{index}:{seat}"),
                          latencies)
                for seat, token in enumerate(tokens)
            )
        )  # fmt: skip
        return match_id, sum(played)
    snapshot = await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    to_act = list(snapshot.to_act)
    moves = 0
    while to_act:
        token = tokens[to_act[0]]
        listed = await stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        )
        choice = rng.choice(listed.moves)
        start = time.perf_counter()
        done = await stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=token,
                move_id=choice.id,
                expected_version=listed.version,
                request_id=f"{index}-{moves}",
            )
        )
        latencies.append(time.perf_counter() - start)
        moves += 1
        to_act = list(done.snapshot.to_act)
    return match_id, moves


async def watch_seat(
    stub: pb_grpc.MatchServiceStub,
    match_id: str,
    token: str,
    rng: random.Random,
    latencies: list[float],
) -> int:
    """One seat told by Watch, moving by ListLegalMoves + SubmitMove; its moves."""
    moves = 0
    watch = stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=token))
    async for event in watch:
        snapshot = event.snapshot
        if not event.HasField("snapshot") or snapshot.viewer_seat not in snapshot.to_act:
            continue
        listed = await stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        )
        if listed.version != snapshot.version or not listed.moves:
            continue
        start = time.perf_counter()
        try:
            await stub.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=token,
                    move_id=rng.choice(listed.moves).id,
                    expected_version=listed.version,
                    request_id=f"{snapshot.viewer_seat}-{listed.version}",
                )
            )
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.ABORTED:
                raise
            continue
        latencies.append(time.perf_counter() - start)
        moves += 1
    return moves


async def play_seat(
    stub: pb_grpc.MatchServiceStub,
    match_id: str,
    token: str,
    rng: random.Random,
    latencies: list[float],
) -> int:
    """One seat on a Play stream, moving on the legal moves it is offered; its moves."""
    outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    opened = pb.PlayOpen(match_id=match_id, seat_token=token, answer_with_event=True)
    outgoing.put_nowait(pb.PlayRequest(open=opened))

    async def requests() -> Any:
        while (request := await outgoing.get()) is not None:
            yield request

    moves = 0
    sent: dict[str, float] = {}
    call = stub.Play(requests())
    async for update in call:
        alone = update.HasField("answer")
        if alone or update.HasField("answered"):  # alone, or with the event it caused
            answer = update.answer if alone else update.answered
            if answer.HasField("submitted"):
                latencies.append(time.perf_counter() - sent.pop(answer.request_id))
                moves += 1
            elif answer.error.code != grpc.StatusCode.ABORTED.value[0]:
                raise RuntimeError(f"move refused: {answer.error.message}")
            if alone:
                continue
        if update.legal_moves:
            version = update.event.snapshot.version
            request_id = f"{update.event.snapshot.viewer_seat}-{version}"
            sent[request_id] = time.perf_counter()
            move = pb.PlayMove(
                request_id=request_id,
                expected_version=version,
                move_id=rng.choice(update.legal_moves).id,
            )
            outgoing.put_nowait(pb.PlayRequest(move=move))
    outgoing.put_nowait(None)
    return moves


async def run_load(
    args: argparse.Namespace,
    address: str,
    redis_url: str,
    server_pid: int | None = None,
    redis_pid: int | None = None,
) -> None:
    channels = [grpc.aio.insecure_channel(address) for _ in range(max(1, args.channels))]
    stubs = [pb_grpc.MatchServiceStub(channel) for channel in channels]
    latencies: list[float] = []
    gc.collect()  # the bots' own collections would pause their clocks: none while timing
    gc.disable()
    cpu_before = [cpu_seconds(server_pid), cpu_seconds(redis_pid)]
    try:
        start = time.perf_counter()
        results = await asyncio.gather(
            *(play_match(stubs[i % len(stubs)], args, i, latencies) for i in range(args.matches))
        )
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    cpu_after = [cpu_seconds(server_pid), cpu_seconds(redis_pid)]
    for channel in channels:
        await channel.close()

    client = aioredis.Redis.from_url(redis_url)
    sizes = []
    parts = [0, 0, 0, 0, 0]  # record, log, events, requests, archive
    part_max = [0, 0, 0, 0, 0]
    encodings: list[Counter[str]] = [Counter() for _ in parts]
    for match_id, _moves in results:
        total = 0
        for i, key in enumerate(match_keys(match_id)):
            used = int(await client.memory_usage(key, samples=0) or 0)
            parts[i] += used
            part_max[i] = max(part_max[i], used)
            total += used
            if used:
                encodings[i][(await client.object("encoding", key)).decode()] += 1
        sizes.append(total)
    await client.aclose()

    moves = sum(m for _id, m in results)
    print(
        f"matches             {args.matches} x {args.game}, {args.seats} seats, played to the end"
    )
    print(f"moves               {moves} in {elapsed:.2f} s ({moves / args.matches:.0f} per match)")
    print(f"moves per second    {moves / elapsed:.0f}")
    p50, p99 = pct(latencies, 0.50), pct(latencies, 0.99)
    print(f"mode                {args.mode}")
    print(f"SubmitMove latency  p50 {p50:.2f} ms   p99 {p99:.2f} ms")
    cpu_ms = [
        (after - before) * 1000 / moves if before is not None and after is not None else None
        for before, after in zip(cpu_before, cpu_after, strict=True)
    ]
    if cpu_ms[0] is not None and cpu_ms[1] is not None:
        print(
            f"CPU per move        serai {cpu_ms[0]:.2f} ms, redis {cpu_ms[1]:.2f} ms "
            f"(all calls of a move: {CALLS[args.mode]})"
        )
    print(
        f"Redis per match     {statistics.mean(sizes) / 1024:.1f} KiB mean, "
        f"{max(sizes) / 1024:.1f} KiB max (finished matches: all their keys)"
    )
    by_size = sorted(sizes)
    print(
        f"  bytes             p50 {by_size[len(by_size) // 2]}, "
        f"p90 {by_size[min(len(by_size) - 1, len(by_size) * 9 // 10)]}, max {by_size[-1]}"
    )
    names = ("record", "log", "events", "requests", "archive")
    print(
        "  of which (mean)   "
        + ", ".join(f"{n} {p / len(sizes) / 1024:.1f}" for n, p in zip(names, parts, strict=True))
        + " KiB"
    )
    print(
        "  of which (max)    "
        + ", ".join(f"{n} {p / 1024:.1f}" for n, p in zip(names, part_max, strict=True))
        + " KiB"
    )
    print(
        "  encodings         "
        + "; ".join(
            f"{n} " + ", ".join(f"{e} x{c}" for e, c in sorted(found.items()))
            for n, found in zip(names, encodings, strict=True)
            if found
        )
    )


CALLS = {
    "submit": "ListLegalMoves + SubmitMove",
    "watch": "every seat's Watch, ListLegalMoves + SubmitMove",
    "play": "every seat's Play stream",
}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.server and not args.redis_url:
        print("--server needs --redis-url too (for the memory figure)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="serai-bench-") as folder:
        embedded = None
        server = None
        redis_url = args.redis_url
        try:
            if redis_url is None:
                embedded = EmbeddedRedis(
                    Path(folder) / "data", appendfsync=args.redis_fsync
                ).start()
                redis_url = embedded.url
            address = args.server
            if address is None:
                server, address = start_process(
                    [sys.executable, "-m", "serai.cli", "serve", "--port", "0",
                     "--http-port", "off", "--redis-url", redis_url, "--log-format", "json",
                     "--max-open-per-peer", "0", "--max-open-total", "0",
                     "--chosen-seeds", "allow", "--move-rate", "0", "--create-rate", "0"],
                    Path(folder) / "serve.log",
                    "serai listening",
                    name="serai serve",
                )  # fmt: skip
            asyncio.run(
                run_load(
                    args,
                    address,
                    redis_url,
                    server.pid if server else None,
                    embedded.process.pid if embedded and embedded.process else None,
                )
            )
        finally:
            if server is not None:
                server.terminate()
                server.wait(30)
            if embedded is not None:
                embedded.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
