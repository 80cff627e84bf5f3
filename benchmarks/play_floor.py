"""How near serai's Play stream comes to the floor that gRPC and Redis set, on this machine, now.

The target (issue 19): with every seat on Play, the server CPU per move, Redis included, at most
1.2x that of the floor: a bidirectional stream per seat that, for each move, takes one message
in, makes the same one EVALSHA of serai's commit script, and sends two out (the mover's answer,
the other seat's "your turn"). Measured in the same run, at the same concurrency:

  serai-play   ``serai serve`` (one process): --matches concurrent two-seat Jaipur matches,
               created and joined before the clock starts; then each seat opens Play and, when
               offered its legal moves, sends a random one by id with the expected version,
               until the match ends (service_load.py's Play bot)
  floor-play   ``_floor_server.py`` (one process) Play: the same number of matches and moves per
               match, each move one message in, one commit of a real Jaipur move (state, log
               entry, event, request id) and serai's real answer and "your turn" messages out,
               captured from serai a moment before

Rounds alternate serai, floor, serai, floor; the best round of each is shown. Server CPU counts
the server's process and Redis's (one embedded Redis, append-only file as ``serai serve`` runs
it); this process is the only client. A move's latency is from its message to its answer
(serai) or to both seats' messages (floor). Example::

    python benchmarks/play_floor.py --matches 100 --rounds 2
    python benchmarks/play_floor.py --matches 100 --profile /tmp/play.prof   # serai's cProfile
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import redis
from _floor_server import PLAY, floor_matches, sample_commit, save_sample, start_floor
from _harness import cpu_seconds, pct, start_process
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store import Commit
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.store import RedisStore
from service_load import play_seat


@dataclass
class Round:
    name: str
    moves: int
    seconds: float
    cpu_seconds: float
    latencies: list[float]
    redis_cpu_seconds: float = 0.0
    commands: dict[str, tuple[int, int]] = field(default_factory=dict)  # name: (calls, usec)

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    @property
    def cpu_ms(self) -> float:
        return self.cpu_seconds * 1000 / self.moves

    @property
    def redis_ms(self) -> float:
        return self.redis_cpu_seconds * 1000 / self.moves


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", "-n", type=int, default=100, help="concurrent matches (100)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each part (2)")
    parser.add_argument("--channels", type=int, default=4, help="gRPC channels (4)")
    parser.add_argument("--seed", type=int, default=1, help="seeds matches and bots (1)")
    parser.add_argument("--profile", help="run serai under cProfile, stats to this file")
    parser.add_argument(
        "--serve-flag",
        action="append",
        default=[],
        help="a flag for the served serai, e.g. --serve-flag=--event-loop=uvloop (repeatable)",
    )
    parser.add_argument(
        "--serai-path",
        help="serve the serai of this checkout (its server/ first on PYTHONPATH), e.g. a "
        "worktree of the commit before a change, for a before/after in one run's terms",
    )
    return parser.parse_args(argv)


async def set_up(stub: pb_grpc.MatchServiceStub, seed: int) -> tuple[str, list[str]]:
    created = await stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2, seed=seed))
    match_id = created.match.match_id
    tokens = []
    for seat in range(2):
        joined = await stub.JoinMatch(
            pb.JoinMatchRequest(match_id=match_id, player_name=f"b{seat}")
        )
        tokens.append(joined.seat_token)
    return match_id, tokens


async def serai_round(
    address: str, pids: list[int], args: argparse.Namespace, round_index: int
) -> Round:
    channels = [grpc.aio.insecure_channel(address) for _ in range(args.channels)]
    stubs = [pb_grpc.MatchServiceStub(channel) for channel in channels]
    base = args.seed * 1_000_000 + round_index * 10_000
    matches = await asyncio.gather(
        *(set_up(stubs[i % len(stubs)], base + i) for i in range(args.matches))
    )
    latencies: list[float] = []
    played = await timed("serai-play", pids, args.redis_url, latencies, lambda: asyncio.gather(
        *(
            play_seat(stubs[i % len(stubs)], match_id, token, random.Random(f"{i}:{seat}"),
                      latencies)
            for i, (match_id, tokens) in enumerate(matches)
            for seat, token in enumerate(tokens)
        )
    ))  # fmt: skip
    for channel in channels:
        await channel.close()
    return played


async def timed(
    name: str,
    pids: list[int],
    redis_url: str,
    latencies: list[float],
    play: Callable[[], Awaitable[list[int]]],
) -> Round:
    """``play()`` (each match's moves) timed, with the CPU of ``pids`` (the last is Redis's)
    and Redis's commands; the collector off."""
    gc.collect()
    gc.disable()
    client = redis.Redis.from_url(redis_url)
    commands_before = command_stats(client)
    before = [cpu_seconds(pid) or 0.0 for pid in pids]
    start = time.perf_counter()
    try:
        played = await play()
    finally:
        gc.enable()
    seconds = time.perf_counter() - start
    spent = [(cpu_seconds(pid) or 0.0) - b for pid, b in zip(pids, before, strict=True)]
    commands = {
        name: (
            calls - commands_before.get(name, (0, 0))[0],
            usec - commands_before.get(name, (0, 0))[1],
        )
        for name, (calls, usec) in command_stats(client).items()
    }
    client.close()
    return Round(name, sum(played), seconds, sum(spent), latencies, spent[-1], commands)


def command_stats(client: redis.Redis) -> dict[str, tuple[int, int]]:
    """Calls and microseconds per Redis command so far (INFO commandstats)."""
    stats = client.info("commandstats")
    return {
        name.removeprefix("cmdstat_"): (value["calls"], value["usec"])
        for name, value in stats.items()
    }


async def capture(address: str, redis_url: str) -> tuple[bytes, bytes, Commit]:
    """Serai's real "your turn" and answer messages of one Play move, and its commit."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        match_id, tokens = await set_up(stub, 7)
        snapshot = await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        token = tokens[snapshot.to_act[0]]
        outgoing.put_nowait(pb.PlayRequest(open=pb.PlayOpen(match_id=match_id, seat_token=token)))

        async def requests() -> AsyncIterator[pb.PlayRequest]:
            while (request := await outgoing.get()) is not None:
                yield request

        turn = answer = b""
        async for update in stub.Play(requests()):
            if update.legal_moves and not turn:
                turn = update.SerializeToString()
                move = pb.PlayMove(
                    request_id="sample-0",
                    expected_version=update.event.snapshot.version,
                    move_id=update.legal_moves[0].id,
                )
                outgoing.put_nowait(pb.PlayRequest(move=move))
            elif update.HasField("answer"):
                answer = update.SerializeToString()
                outgoing.put_nowait(None)
                break
    return turn, answer, await sample_commit(redis_url, match_id, "sample-0")


async def floor_match(
    channel: grpc.aio.Channel, match_id: str, moves: int, latencies: list[float]
) -> int:
    """Both seats of a floor match on their own streams, moving in turn, ``moves`` moves."""
    calls = [channel.stream_stream(PLAY)() for _ in range(2)]
    for seat, call in enumerate(calls):
        opened = pb.PlayOpen(match_id=match_id, seat_token=str(seat))
        await call.write(pb.PlayRequest(open=opened).SerializeToString())
    for call in calls:
        await call.read()  # registered
    for index in range(moves):
        mover, other = calls[index % 2], calls[1 - index % 2]
        move = pb.PlayMove(request_id=f"m{index}", expected_version=index, move_id="m")
        start = time.perf_counter()
        await mover.write(pb.PlayRequest(move=move).SerializeToString())
        await mover.read()
        await other.read()
        latencies.append(time.perf_counter() - start)
    for call in calls:
        await call.done_writing()
        while await call.read() is not grpc.aio.EOF:
            pass
    return moves


async def floor_round(
    address: str,
    pids: list[int],
    store: RedisStore,
    commit: Commit,
    per_match: list[int],
    tag: str,
    args: argparse.Namespace,
) -> Round:
    ids = await floor_matches(store, len(per_match), commit, tag)
    channels = [grpc.aio.insecure_channel(address) for _ in range(args.channels)]
    latencies: list[float] = []
    played = await timed("floor-play", pids, args.redis_url, latencies, lambda: asyncio.gather(
        *(
            floor_match(channels[i % len(channels)], match_id, moves, latencies)
            for i, (match_id, moves) in enumerate(zip(ids, per_match, strict=True))
        )
    ))  # fmt: skip
    for channel in channels:
        await channel.close()
    return played


async def measure(args: argparse.Namespace, folder: Path, embedded: EmbeddedRedis) -> list[Round]:
    args.redis_url = embedded.url
    python = [sys.executable]
    if args.serai_path:  # another checkout's server code (env execs: the pid stays the server's)
        python = ["env", f"PYTHONPATH={Path(args.serai_path).resolve() / 'server'}", *python]
    if args.profile:
        python += ["-m", "cProfile", "-o", str(Path(args.profile).resolve())]
    serve, address = start_process(
        [*python, "-m", "serai.cli", "serve", "--port", "0", "--http-port", "off",
         "--redis-url", embedded.url, "--log-format", "json", "--max-open-per-peer", "0",
         "--max-open-total", "0", "--chosen-seeds", "allow", "--house-bots", "0",
         "--move-rate", "0", "--create-rate", "0", *args.serve_flag],
        folder / "serve.log",
        "serai listening",
        name="serai serve",
    )  # fmt: skip
    assert embedded.process is not None
    redis_pid = embedded.process.pid
    floor = None
    store = RedisStore.from_url(embedded.url)
    rounds: list[Round] = []
    try:
        turn, answer, commit = await capture(address, embedded.url)
        save_sample(folder, b"", commit, answer=answer, turn=turn)
        floor = start_floor(1, "floor-play", folder, embedded.url)
        for index in range(args.rounds):
            served = await serai_round(address, [serve.pid, redis_pid], args, index)
            rounds.append(served)
            mean = served.moves // args.matches
            per_match = [mean + (1 if i < served.moves % args.matches else 0)
                         for i in range(args.matches)]  # fmt: skip
            rounds.append(
                await floor_round(
                    floor.address, [*floor.pids, redis_pid], store, commit, per_match,
                    f"p{index}-", args,
                )
            )  # fmt: skip
    finally:
        await store.close()
        # SIGINT, so that cProfile's wrapper sees the interpreter exit and writes its stats
        serve.send_signal(signal.SIGINT if args.profile else signal.SIGTERM)
        serve.wait(30)
        if floor is not None:
            floor.stop()
    return rounds


def report(args: argparse.Namespace, rounds: list[Round]) -> None:
    best = {
        name: min((r for r in rounds if r.name == name), key=lambda r: r.cpu_ms)
        for name in ("serai-play", "floor-play")
    }
    print(f"{args.matches} concurrent Jaipur matches, 2 seats each on Play; {args.rounds} rounds")
    print(
        f"{'part':<12} {'moves':>6} {'moves/s':>8} {'server CPU/move':>16} {'(Redis)':>9} "
        f"{'move p50':>15} {'p99':>8}"
    )
    for r in rounds:
        print(
            f"{r.name:<12} {r.moves:>6} {r.rate:>8.0f} {r.cpu_ms:>13.3f} ms {r.redis_ms:>6.3f} ms "
            f"{pct(r.latencies, 0.5):>12.2f} ms {pct(r.latencies, 0.99):>5.2f} ms"
        )
    for r in rounds:
        busiest = sorted(r.commands.items(), key=lambda item: -item[1][1])[:5]
        print(
            f"  {r.name} Redis commands per move (calls, us): "
            + ", ".join(
                f"{name} {calls / r.moves:.2f} {usec / r.moves:.1f}"
                for name, (calls, usec) in busiest
                if calls
            )
        )
    serai, floor = best["serai-play"], best["floor-play"]
    print(
        f"serai-play / floor-play (best rounds): CPU per move {serai.cpu_ms / floor.cpu_ms:.2f}x "
        f"(targets: issue 19 <= 1.2x, issue 33 <= 1.5x), moves/s {serai.rate / floor.rate:.2f}x"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="serai-play-floor-") as name:
        folder = Path(name)
        embedded = EmbeddedRedis(folder / "data").start()
        try:
            rounds = asyncio.run(measure(args, folder, embedded))
        finally:
            embedded.stop()
    report(args, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
