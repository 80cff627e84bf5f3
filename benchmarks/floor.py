"""How close serai's SubmitMove is to the floor that gRPC and Redis set, on this machine, now.

Measures, at the same concurrency (--matches workers, each making one call after another) and in
the same run:

  grpc-noop   a no-op unary call on a grpc.aio server (generic handler, raw bytes in, fixed bytes
              out) whose request and response are real SubmitMove messages, captured from serai
  evalsha     one EVALSHA of serai's real commit script (RedisStore.commit, the code serai runs)
              with a real Jaipur state, log entry and events, against the same embedded Redis
  grpc+commit a grpc.aio generic handler that decodes the request and does that one EVALSHA: a
              serai with no game, no cache and no logging (shown for orientation)
  serai       SubmitMove on ``serai serve``: --matches concurrent Jaipur matches of random bots
              choosing by move id; only SubmitMove calls are made and timed

The serai figures come from replaying move ids: first the matches are played once with
ListLegalMoves + SubmitMove (random choices, seeded; the first --moves moves of each), recording
the ids; then fresh matches with the same seeds are created and joined, and only then the clock
starts and each worker submits its match's recorded ids, each with a request id and the expected
version, as a bot would. The server computes the legal moves itself, as for any SubmitMove by id.

Server processes: serai runs as ``serai serve --workers N`` (--workers, default one per CPU
core: what a deployment on this machine would run), N processes sharing one port with
SO_REUSEPORT. The no-op server runs the same way, N processes on one port ("grpc-noop xN", also
grpc+commit), and, when N > 1, also as one process ("grpc-noop x1"), so both are shown.

After the rounds, serai and grpc-noop are measured once more paced (--paced): the same workers
start a fixed number of calls per second in all, half of serai's best by default, so that the
latency is that of a server with headroom rather than of a queue (at saturation, 100 workers that
always have a call in flight wait 100 / throughput on average, whatever the server does). Then a
latency sweep (--p99-ms): short paced runs at rates rising in steps of --sweep-step find the
highest rate at which the p99 stays under --p99-ms, for serai and for grpc-noop xN.

The floor is the slower (lower throughput) of evalsha and the faster of grpc-noop x1 and
grpc-noop xN (the stricter floor); the report names the part it used. The ratio is serai's
throughput over the floor's. Since a move costs a gRPC call *and* an EVALSHA on the same cores, the
report also gives the floor with both costs added (1 / (1/noop + 1/evalsha) calls/s) and serai's
share of it. Throughput counts the calls completed while every worker still has
work (a match ends when it ends, so the window closes when the first worker runs out); latencies
are those calls'.

Processes: Redis, the no-op servers and serai each run in their own processes; this process is
the only client (grpc.aio, --channels channels, each its own connection, by default one per
match), so the load generator never shares a server's process. On a 2-core machine the client
still costs CPU next to the server: the table shows the CPU milliseconds per call of the server
side (all its processes) and of the client, so the floor and serai can be compared on the same
terms. Example::

    python benchmarks/floor.py                 # 100 concurrent matches, 3 rounds, best shown
    python benchmarks/floor.py --matches 10 --rounds 1 --workers 1
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import grpc
from _floor_server import (
    COMMIT,
    NOOP,
    floor_matches,
    sample_commit,
    save_sample,
    serve,
    start_floor,
)
from _harness import (
    Figures,
    Servers,
    cpu_seconds,
    descendants,
    machine_ticks,
    own_cpu,
    start_process,
    steal_share,
)
from _workload import GrpcTable, Played, record_matches, submit_requests
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store import Commit
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.store import RedisStore

Call = Callable[[], Awaitable[object]]
Jobs = list[list[Call]]  # each worker's calls, made one after another


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--matches", "-n", type=int, default=100, help="concurrent workers / matches (100)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="measure each part this often (3)")
    parser.add_argument("--seed", type=int, default=1, help="seeds matches and bots (1)")
    parser.add_argument(
        "--channels",
        type=int,
        default=0,
        help="gRPC channels (TCP connections) of the client, used in turn by the workers "
        "(0: one per match, as separate clients would; with --workers N the kernel spreads "
        "connections over the N processes, so a few connections would load them unevenly)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="server processes for serai (serai serve --workers) and for the no-op floor "
        f"(default: one per CPU core, here {os.cpu_count()})",
    )
    parser.add_argument(
        "--moves",
        type=int,
        default=100,
        help="moves per match (100; the shortest random Jaipur match has about 130; 0: play "
        "to the end, when the window closes with the shortest match)",
    )
    parser.add_argument(
        "--calls", type=int, default=0, help="calls per worker for the floors (0: a match's moves)"
    )
    parser.add_argument(
        "--paced",
        type=float,
        default=0.5,
        help="then pace serai and grpc-noop at this fraction of serai's best throughput, for "
        "latency below saturation (0.5; 0: skip)",
    )
    parser.add_argument(
        "--p99-ms",
        type=float,
        default=10.0,
        help="latency sweep: the highest paced rate whose p99 stays under this, for serai and "
        "grpc-noop (10; 0: skip)",
    )
    parser.add_argument(
        "--sweep-step",
        type=float,
        default=1.25,
        help="latency sweep: each rate this much above the last (1.25)",
    )
    parser.add_argument(
        "--sweep-seconds",
        type=float,
        default=2.0,
        help="latency sweep: about how long each rate runs (2; a match gives at most its moves)",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run serai under py-spy (on PATH) and write its folded stacks to FILE",
    )
    parser.add_argument("--skip-commit", action="store_true", help="leave out grpc+commit")
    parser.add_argument("--serve", choices=["floor"], help=argparse.SUPPRESS)
    parser.add_argument("--response-file", help=argparse.SUPPRESS)
    parser.add_argument("--commit-file", help=argparse.SUPPRESS)
    parser.add_argument("--redis-url", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# --- measuring ------------------------------------------------------------------------------------


async def measure(
    name: str,
    jobs: Jobs,
    server_pids: Sequence[int | None],
    rate: float = 0.0,
) -> Figures:
    """Run each worker's calls one after another, all workers at once; time the full window.

    ``rate`` > 0 paces the calls: all workers together start ``rate`` calls per second, evenly
    spread (a worker whose previous call is late starts the next one at once).

    This process's garbage collector is off inside the window: the load generator's heap (every
    prepared call) made full collections of 30-60 ms that held up every call in flight and were
    counted as server latency. Its grpc.aio client leaves no reference cycles per call (the
    server's side leaves five), so nothing piles up meanwhile."""
    marks: list[tuple[float, float]] = []  # (end, latency) of every call
    first_done: list[float] = []
    interval = len(jobs) / rate if rate > 0 else 0.0

    async def worker(index: int, calls: list[Call]) -> None:
        due = start + interval * index / len(jobs)
        for call in calls:
            if interval:
                wait = due - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                due += interval
            began = time.perf_counter()
            await call()
            end = time.perf_counter()
            marks.append((end, end - began))
        first_done.append(time.perf_counter())

    gc.collect()  # before the window, not in it
    cpu0 = [cpu_seconds(pid) or 0.0 for pid in server_pids]
    own0 = own_cpu()
    ticks0 = machine_ticks()
    gc.disable()
    try:
        start = time.perf_counter()
        await asyncio.gather(*(worker(i, calls) for i, calls in enumerate(jobs)))
    finally:
        gc.enable()
    cpu1 = [cpu_seconds(pid) or 0.0 for pid in server_pids]
    own1 = own_cpu()
    ticks1 = machine_ticks()
    window = min(first_done) - start
    inside = [latency for end, latency in marks if end <= start + window]
    total = len(marks)
    return Figures(
        name,
        calls=len(inside),
        seconds=window,
        latencies=inside,
        server_cpu_ms=sum(b - a for a, b in zip(cpu0, cpu1, strict=True)) * 1000 / total,
        client_cpu_ms=(own1 - own0) * 1000 / total,
        steal=steal_share(ticks0, ticks1),
    )


# --- the latency sweep ----------------------------------------------------------------------------


async def sweep(
    name: str,
    jobs_for: Callable[[int], Awaitable[Jobs]],
    pids: Sequence[int | None],
    saturated: float,
    most_calls: int,
    args: argparse.Namespace,
) -> list[tuple[float, Figures, bool]]:
    """Short paced runs: from a quarter of ``saturated`` calls/s, up by --sweep-step while the
    p99 stays under --p99-ms (and the rate asked for is reached), down while it does not; each
    (rate asked, figures, passed), in the order run."""
    runs: list[tuple[float, Figures, bool]] = []
    rate = saturated / 4
    passed = failed = False
    while len(runs) < 20:
        calls = max(3, min(most_calls, round(rate * args.sweep_seconds / args.matches)))
        fig = await measure(name, await jobs_for(calls), pids, rate)
        ok = fig.pct(0.99) < args.p99_ms and fig.rate >= 0.85 * rate
        runs.append((rate, fig, ok))
        print(
            f"  {name:<14} paced {rate:>6.0f}/s: {fig.rate:>6.0f} calls/s  p50 {fig.pct(0.5):.2f} "
            f"ms  p99 {fig.pct(0.99):.2f} ms  steal {fig.steal_text} {'ok' if ok else 'over'}",
            file=sys.stderr,
        )
        if ok:
            passed = True
            if failed or rate > 2 * saturated:
                break
            rate *= args.sweep_step
        else:
            failed = True
            if passed or rate < saturated / 100:
                break
            rate /= args.sweep_step
    return runs


# --- what a run measures against ------------------------------------------------------------------


@dataclass
class Sample:
    """A real SubmitMove of serai's, for the floor to answer and commit: its request, its
    response and a commit like the one serai made for it."""

    request: bytes
    response: bytes
    commit: Commit


@dataclass
class Bench:
    """Everything the steps of a run share: the servers, their connections and the workload."""

    args: argparse.Namespace
    serai: Servers
    floors: list[Servers]  # the no-op server with as many processes as serai, then with one
    stubs: list[pb_grpc.MatchServiceStub]  # on serai, one per connection
    store: RedisStore
    redis_pid: int | None
    played: list[Played]
    sample: Sample

    @property
    def wide(self) -> Servers:
        """The no-op server with as many processes as serai."""
        return self.floors[0]

    @property
    def moves(self) -> list[int]:
        return [len(p.move_ids) for p in self.played]

    @property
    def per_worker(self) -> int:
        """Calls per worker for the floors: --calls, or a match's moves."""
        return self.args.calls or round(sum(self.moves) / len(self.moves))

    @property
    def serai_pids(self) -> list[int | None]:
        return [*self.serai.pids, self.redis_pid]

    def grpc_jobs(self, method: str, tag: str, servers: Servers, calls: int = 0) -> Jobs:
        """Each worker's calls of the floor ``method``: the sample request, on a match of its
        own, with a request id each."""
        out = []
        for w in range(self.args.matches):
            call = servers.channels[w % len(servers.channels)].unary_unary(
                method, response_deserializer=pb.SubmitMoveResponse.FromString
            )
            body = pb.SubmitMoveRequest.FromString(self.sample.request)
            body.match_id = f"floor{tag}{w}"
            jobs: list[Call] = []
            for k in range(calls or self.per_worker):
                body.request_id = f"{tag}{w}-{k}"
                jobs.append(_raw_call(call, body.SerializeToString()))
            out.append(jobs)
        return out

    async def serai_jobs(self, tag: str, calls: int = 0) -> Jobs:
        """Fresh matches with the recorded seeds, joined; each worker's SubmitMove calls (its
        match's first ``calls`` moves, 0: all), on the connection its match was created on."""
        played = [Played(p.seed, p.move_ids[:calls]) for p in self.played] if calls else self.played
        stubs = self.stubs
        requests = await submit_requests([GrpcTable(stub) for stub in stubs], played, tag)
        return [
            [_submit_call(stubs[index % len(stubs)], request) for request in job]
            for index, job in enumerate(requests)
        ]

    async def evalsha_jobs(self, tag: str) -> Jobs:
        """Each worker's commits straight to Redis, on fresh floor matches."""
        ids = await floor_matches(self.store, self.args.matches, self.sample.commit, tag)
        commit = self.sample.commit
        return [
            [
                _commit_call(self.store, i, v, replace(commit, request_id=f"{i}-{v}"))
                for v in range(self.per_worker)
            ]
            for i in ids
        ]


def _raw_call(call: grpc.aio.UnaryUnaryMultiCallable, raw: bytes) -> Call:
    return lambda: call(raw)


def _submit_call(stub: pb_grpc.MatchServiceStub, request: pb.SubmitMoveRequest) -> Call:
    return lambda: stub.SubmitMove(request)


def _commit_call(store: RedisStore, match_id: str, version: int, commit: Commit) -> Call:
    return lambda: store.commit(match_id, version, commit)


# --- the run, step by step ------------------------------------------------------------------------


def start_serai(args: argparse.Namespace, folder: Path, redis_url: str) -> Servers:
    """``serai serve --workers N`` (under py-spy with --profile), and its worker processes."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    profile = [spy, "record", "-r", "250", "-f", "raw", "-o", args.profile]
    profile += ["--subprocesses", "--"] if args.workers > 1 else ["--"]
    process, address = start_process(
        [*(profile if args.profile else []),
         sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--redis-url", redis_url,
         "--log-format", "json", "--move-rate", "0", "--create-rate", "0",
         "--workers", str(args.workers),
         "--max-open-per-peer", "0", "--max-open-total", "0",
         "--chosen-seeds", "allow"],
        folder / "serve.log",
        "serai listening",
    )  # fmt: skip
    return Servers(
        f"serai x{args.workers}", [process], address, [process.pid, *descendants(process.pid)]
    )


async def capture_sample(table: GrpcTable, played: Played, redis_url: str) -> Sample:
    """The first recorded move, submitted to serai on a fresh match: the real messages and
    commit the floor stands in with."""
    match_id, tokens = await table.new_match(played.seed)
    seat, move_id = played.move_ids[0]
    request = pb.SubmitMoveRequest(
        match_id=match_id,
        seat_token=tokens[seat],
        move_id=move_id,
        expected_version=int(move_id.partition(".")[0]),
        request_id="sample-0",
    )
    response = await table.stub.SubmitMove(request)
    commit = await sample_commit(redis_url, match_id, "sample-0")
    return Sample(request.SerializeToString(), response.SerializeToString(), commit)


async def rounds(bench: Bench) -> dict[str, list[Figures]]:
    """Every part at saturation, --rounds times; each part's figures, round by round."""
    out: dict[str, list[Figures]] = {}
    for n in range(bench.args.rounds):
        print(f"round {n + 1} of {bench.args.rounds} ...", file=sys.stderr)
        for fig in await one_round(bench, n):
            out.setdefault(fig.name, []).append(fig)
            print(
                f"  {fig.name:<14} {fig.rate:>6.0f} calls/s  p50 {fig.pct(0.5):.2f} ms  "
                f"p99 {fig.pct(0.99):.2f} ms  steal {fig.steal_text}",
                file=sys.stderr,
            )
        await bench.store.client.flushdb()  # every part starts from an empty Redis next round
    return out


async def one_round(bench: Bench, n: int) -> list[Figures]:
    """The no-op floors, evalsha, grpc+commit and serai, once each, in that order."""
    figures = []
    for floor in bench.floors:
        # warm every connection before timing
        await measure("warm", [j[:3] for j in bench.grpc_jobs(NOOP, "w", floor)], [])
        figures.append(await measure(floor.name, bench.grpc_jobs(NOOP, "x", floor), floor.pids))
    figures.append(await measure("evalsha", await bench.evalsha_jobs(f"e{n}-"), [bench.redis_pid]))
    if not bench.args.skip_commit:
        tag = f"c{n}-"
        await floor_matches(bench.store, bench.args.matches, bench.sample.commit, tag)
        wide = bench.wide
        figures.append(
            await measure(
                f"grpc+commit x{bench.args.workers}",
                bench.grpc_jobs(COMMIT, tag, wide),
                [*wide.pids, bench.redis_pid],
            )
        )
    jobs = await bench.serai_jobs(f"m{n}-")
    figures.append(await measure(bench.serai.name, jobs, bench.serai_pids))
    return figures


async def paced(bench: Bench, best_serai: float) -> dict[str, Figures]:
    """grpc-noop and serai once more, started at --paced times serai's best rate (none at 0)."""
    pace = bench.args.paced * best_serai
    if pace <= 0:
        return {}
    print(f"paced at {pace:.0f} calls/s ...", file=sys.stderr)
    wide = bench.wide
    out = {wide.name: await measure(wide.name, bench.grpc_jobs(NOOP, "p", wide), wide.pids, pace)}
    jobs = await bench.serai_jobs("p-")
    out[bench.serai.name] = await measure(bench.serai.name, jobs, bench.serai_pids, pace)
    return out


async def sweeps(
    bench: Bench, best_serai: float, best_noop: float
) -> dict[str, list[tuple[float, Figures, bool]]]:
    """The latency sweep (--p99-ms) of serai, then of grpc-noop xN (none at 0)."""
    args = bench.args
    if args.p99_ms <= 0:
        return {}
    print(f"latency sweep: highest paced rate with p99 < {args.p99_ms:g} ms ...", file=sys.stderr)
    step = iter(range(1_000_000))  # a fresh tag, so fresh matches, for every run of the sweep
    wide = bench.wide

    async def serai_calls(calls: int) -> Jobs:
        return await bench.serai_jobs(f"s{next(step)}-", calls)

    async def noop_calls(calls: int) -> Jobs:
        return bench.grpc_jobs(NOOP, f"s{next(step)}-", wide, calls)

    most = min(bench.moves)
    return {
        bench.serai.name: await sweep(
            bench.serai.name, serai_calls, bench.serai_pids, best_serai, most, args
        ),
        wide.name: await sweep(wide.name, noop_calls, wide.pids, best_noop, most, args),
    }


async def run(args: argparse.Namespace, folder: Path, redis: EmbeddedRedis) -> None:
    """Start serai, record its workload, start the floors; measure, then report."""
    count = args.workers
    channel_count = args.channels or args.matches
    serai = start_serai(args, folder, redis.url)
    floors: list[Servers] = []
    try:
        serai.connect(channel_count)
        stubs = [pb_grpc.MatchServiceStub(c) for c in serai.channels]
        print(f"recording {args.matches} random Jaipur matches ...", file=sys.stderr)
        tables = [GrpcTable(stub) for stub in stubs]
        played = await record_matches(tables, args.matches, args.seed, args.moves)
        sample = await capture_sample(tables[0], played[0], redis.url)
        save_sample(folder, sample.response, sample.commit)
        floors.append(start_floor(count, f"grpc-noop x{count}", folder, redis.url))
        if count > 1:
            floors.append(start_floor(1, "grpc-noop x1", folder, redis.url))
        for floor in floors:
            floor.connect(channel_count)
        bench = Bench(
            args,
            serai,
            floors,
            stubs,
            RedisStore.from_url(redis.url, max_connections=args.matches + 10),
            redis.process.pid if redis.process else None,
            played,
            sample,
        )
        saturated = await rounds(bench)
        spread = {s.name: s.spread() for s in [*floors, serai] if len(s.pids) > 1}
        best_serai = max(f.rate for f in saturated[serai.name])
        below = await paced(bench, best_serai)
        best_noop = max(f.rate for f in saturated[bench.wide.name])
        swept = await sweeps(bench, best_serai, best_noop)
        await bench.store.close()
        for servers in [serai, *floors]:
            for channel in servers.channels:
                await channel.close()
        report(
            args,
            saturated,
            below,
            swept,
            spread,
            Roles(serai.name, [f.name for f in floors], f"grpc+commit x{count}"),
            bench.moves,
            len(sample.request),
            len(sample.response),
            len(sample.commit.state or b""),
        )
    finally:
        # SIGINT: serai stops on it, and py-spy (when profiling) writes its file first
        serai.stop(signal.SIGINT)
        for floor in floors:
            floor.stop()


# --- the report -----------------------------------------------------------------------------------


@dataclass
class Roles:
    """The names of the parts in the tables."""

    serai: str
    noops: list[str]  # the no-op server with as many processes as serai, then with one
    commit: str


def report(
    args: argparse.Namespace,
    rounds: dict[str, list[Figures]],
    paced: dict[str, Figures],
    sweeps: dict[str, list[tuple[float, Figures, bool]]],
    spread: dict[str, str],
    roles: Roles,
    moves: list[int],
    request_size: int,
    response_size: int,
    state_size: int,
) -> None:
    best = {name: max(figs, key=lambda f: f.rate) for name, figs in rounds.items()}
    fastest_noop = max((best[name] for name in roles.noops), key=lambda f: f.rate)
    floor = min((fastest_noop, best["evalsha"]), key=lambda f: f.rate)
    serai = best[roles.serai]
    print(
        f"concurrency {args.matches} workers over {args.channels or args.matches} connections; "
        f"{args.workers} server process{'es' if args.workers != 1 else ''} for serai and the "
        "no-op floor; "
        f"{min(moves)}-{max(moves)} SubmitMoves per Jaipur match (mean "
        f"{sum(moves) / len(moves):.0f}); SubmitMove request {request_size} B, response "
        f"{response_size} B, state {state_size} B; best of {args.rounds} rounds"
    )
    if spread:
        print(
            "connections per server process: "
            + ", ".join(f"{name} {counts}" for name, counts in spread.items())
        )
    print(
        f"{'part':<14} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'server CPU':>11} "
        f"{'client CPU':>11} {'steal':>6}   rounds (calls/s)"
    )
    for name, fig in best.items():
        every = " ".join(f"{f.rate:.0f}" for f in rounds[name])
        print(
            f"{name:<14} {fig.rate:>8.0f} {fig.pct(0.50):>8.2f} {fig.pct(0.99):>8.2f} "
            f"{fig.server_cpu_ms or 0:>8.3f} ms {fig.client_cpu_ms or 0:>8.3f} ms "
            f"{fig.steal_text:>6}   {every}"
        )
    print(
        f"floor = the slower of evalsha and the faster grpc-noop ({fastest_noop.name}); here "
        f"{floor.name}: {floor.rate:.0f} calls/s"
    )
    print(
        f"{roles.serai} / floor = {serai.rate / floor.rate:.0%} of the floor's throughput "
        f"(target >= 60%); serai p99 {serai.pct(0.99):.2f} ms at saturation"
    )
    # The other reading of "the floor": each move pays for a no-op call and an EVALSHA on the
    # same cores, so their CPU adds up (calls/s combine as resistors in series).
    added = 1 / (1 / fastest_noop.rate + 1 / best["evalsha"].rate)
    print(
        f"floor with the two costs added (a {fastest_noop.name} call and an evalsha each): "
        f"{added:.0f} calls/s; {roles.serai} = {serai.rate / added:.0%} of it"
    )
    if roles.commit in best:
        both = best[roles.commit]
        print(f"{roles.serai} / {roles.commit} = {serai.rate / both.rate:.0%}")
    if paced:
        print(
            f"paced: {args.matches} workers starting {paced[roles.serai].rate:.0f} calls/s in all "
            f"({args.paced:.0%} of serai's best throughput above), not as fast as they can"
        )
        for name, fig in paced.items():
            print(
                f"{name:<14} {fig.rate:>8.0f} {fig.pct(0.50):>8.2f} {fig.pct(0.99):>8.2f} "
                f"{fig.server_cpu_ms or 0:>8.3f} ms {fig.client_cpu_ms or 0:>8.3f} ms "
                f"{fig.steal_text:>6}"
            )
    if sweeps:
        print(
            f"latency sweep: the highest paced rate (calls/s in all, {args.matches} workers, "
            f"steps of x{args.sweep_step:g}) at which p99 < {args.p99_ms:g} ms"
        )
        for name, runs in sweeps.items():
            good = [(rate, fig) for rate, fig, ok in runs if ok]
            bad = [(rate, fig) for rate, fig, ok in runs if not ok]
            line = f"{name:<14} "
            if good:
                rate, fig = max(good, key=lambda run: run[0])
                line += f"{rate:>8.0f} calls/s (p99 {fig.pct(0.99):.2f} ms)"
            else:
                line += f"{'none':>8} (every rate tried was over)"
            above = [run for run in bad if not good or run[0] > max(g[0] for g in good)]
            if above:
                rate, fig = min(above, key=lambda run: run[0])
                line += f"; at {rate:.0f}/s: {fig.rate:.0f} calls/s, p99 {fig.pct(0.99):.2f} ms"
            print(line)
    print(
        "server CPU: per call, the server's processes plus Redis where it takes part; "
        "client CPU: this process (the load generator) per call; steal: the share of the "
        "machine's CPU time its hypervisor gave to others (a shared virtual machine: bursts "
        "of it slow every part and lengthen the tail)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve == "floor":
        asyncio.run(
            serve(Path(args.response_file), Path(args.commit_file), args.redis_url, args.port)
        )
        return 0
    with tempfile.TemporaryDirectory(prefix="serai-floor-") as folder:
        # each round empties it: FLUSHDB stays (the only admin command a benchmark needs)
        redis = EmbeddedRedis(Path(folder) / "data", keep_commands=("FLUSHDB",)).start()
        try:
            asyncio.run(run(args, Path(folder), redis))
        finally:
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
