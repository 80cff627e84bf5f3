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
import contextlib
import gc
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import grpc
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store import Commit, MatchRecord, NewEvent, SeatRecord
from serai.store.embedded import EmbeddedRedis
from serai.store.redis_store import RedisStore

NOOP = "/floor.Floor/Noop"
COMMIT = "/floor.Floor/Commit"


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


@dataclass
class Figures:
    name: str
    calls: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    server_cpu_ms: float | None = None  # per call, the server side (its process, plus Redis)
    client_cpu_ms: float | None = None
    steal: float | None = None  # the share of the machine's CPU time its hypervisor took

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    @property
    def steal_text(self) -> str:
        return "-" if self.steal is None else f"{self.steal:.0%}"

    def pct(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000 if ordered else 0.0


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) a process used so far; 0 where /proc is not there."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_ticks() -> tuple[int, int]:
    """(steal, all) CPU ticks of the whole machine so far, from /proc/stat; (0, 0) without it.

    Steal is the time a virtual machine's CPUs were ready to run but its hypervisor ran something
    else: on a shared host it comes in bursts that slow every part and lengthen the tail
    latencies, so each figure says how much there was while it was measured."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    # user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice]
    return (ticks[7] if len(ticks) > 7 else 0), sum(ticks[:8])


def steal_share(before: tuple[int, int], after: tuple[int, int]) -> float | None:
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else None


async def measure(
    name: str,
    jobs: list[list[Callable[[], Awaitable[object]]]],
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

    async def worker(index: int, calls: list[Callable[[], Awaitable[object]]]) -> None:
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
    cpu0 = [cpu_seconds(pid) for pid in server_pids]
    own0 = own_cpu()
    ticks0 = machine_ticks()
    gc.disable()
    try:
        start = time.perf_counter()
        await asyncio.gather(*(worker(i, calls) for i, calls in enumerate(jobs)))
    finally:
        gc.enable()
    cpu1 = [cpu_seconds(pid) for pid in server_pids]
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


# --- the serai part -------------------------------------------------------------------------------


@dataclass
class Played:
    seed: int
    move_ids: list[tuple[int, str]]  # (seat, move id) in order


async def record_matches(
    stubs: list[pb_grpc.MatchServiceStub], count: int, seed: int, moves: int
) -> list[Played]:
    """Play ``count`` matches with ListLegalMoves + random SubmitMove (up to ``moves`` moves
    each, 0: to the end), over every connection in turn; their seeds and move ids."""
    moves = moves or 1_000_000

    async def one(index: int) -> Played:
        stub = stubs[index % len(stubs)]
        rng = random.Random(f"{seed}:{index}")
        match_seed = seed * 100_000 + index
        match_id, tokens = await new_match(stub, match_seed)
        snapshot = await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        to_act = list(snapshot.to_act)
        played: list[tuple[int, str]] = []
        while to_act and len(played) < moves:
            seat = to_act[0]
            listed = await stub.ListLegalMoves(
                pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
            )
            choice = rng.choice(listed.moves)
            done = await stub.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=tokens[seat],
                    move_id=choice.id,
                    expected_version=listed.version,
                    request_id=f"r{index}-{len(played)}",
                )
            )
            played.append((seat, choice.id))
            to_act = list(done.snapshot.to_act)
        return Played(match_seed, played)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def new_match(stub: pb_grpc.MatchServiceStub, seed: int) -> tuple[str, list[str]]:
    created = await stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2, seed=seed))
    match_id = created.match.match_id
    tokens = []
    for seat in range(2):
        joined = await stub.JoinMatch(
            pb.JoinMatchRequest(match_id=match_id, seat=seat, player_name=f"bot{seat}")
        )
        tokens.append(joined.seat_token)
    return match_id, tokens


async def serai_jobs(
    stubs: list[pb_grpc.MatchServiceStub], played: list[Played], tag: str
) -> tuple[list[list[Callable[[], Awaitable[object]]]], list[str]]:
    """Fresh matches with the recorded seeds, joined; one worker's SubmitMove calls each."""
    jobs: list[list[Callable[[], Awaitable[object]]]] = []
    ids: list[str] = []
    for index, game in enumerate(played):
        stub = stubs[index % len(stubs)]
        match_id, tokens = await new_match(stub, game.seed)
        ids.append(match_id)
        calls: list[Callable[[], Awaitable[object]]] = []
        for n, (seat, move_id) in enumerate(game.move_ids):
            request = pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=tokens[seat],
                move_id=move_id,
                expected_version=int(move_id.partition(".")[0]),
                request_id=f"{tag}{index}-{n}",
            )
            calls.append(lambda stub=stub, request=request: stub.SubmitMove(request))
        jobs.append(calls)
    return jobs, ids


# --- the floor servers (this script again, in its own process) ------------------------------------


async def serve_floor(args: argparse.Namespace) -> None:
    """A grpc.aio server with two generic methods: Noop answers fixed bytes; Commit decodes a
    SubmitMoveRequest and makes one RedisStore.commit on a match of that id."""
    response = Path(args.response_file).read_bytes()
    template = _load_commit(Path(args.commit_file).read_bytes())
    store = RedisStore.from_url(args.redis_url)
    versions: dict[str, int] = {}

    async def noop(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return response

    async def commit(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        message = pb.SubmitMoveRequest.FromString(request)
        version = versions.get(message.match_id, 0)
        change = replace(template, request_id=message.request_id)
        result = await store.commit(message.match_id, version, change)
        versions[message.match_id] = result.version  # type: ignore[union-attr]
        return response

    server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])  # as serai's workers
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "floor.Floor",
                {
                    "Noop": grpc.unary_unary_rpc_method_handler(noop),
                    "Commit": grpc.unary_unary_rpc_method_handler(commit),
                },
            ),
        )
    )
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    await server.start()
    print(f"floor listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


def _dump_commit(commit: Commit) -> bytes:
    import pickle

    return pickle.dumps(commit)


def _load_commit(raw: bytes) -> Commit:
    import pickle

    commit = pickle.loads(raw)  # our own file, written a moment ago by the parent process
    assert isinstance(commit, Commit)
    return commit


async def sample_commit(redis_url: str, match_id: str, request_id: str) -> Commit:
    """A commit like serai's for one Jaipur move: its real state, log entry and move event."""
    store = RedisStore.from_url(redis_url)
    record = await store.load(match_id)
    entry = (await store.read_log(match_id) or [b""])[0]
    moves = [e for e in await store.read_events(match_id, "") if e.kind == "move"]
    await store.close()
    assert isinstance(record, MatchRecord)
    data = dict(moves[0].data) if moves else {"seat": 0, "label": "take 1 leather"}
    return Commit(
        state=record.state,
        log=[entry],
        events=[NewEvent("move", data)],
        request_seat=0,
        request_id=request_id,
        answer=str(data.get("label", "")),
        deadline_ms=None,
    )


async def floor_matches(store: RedisStore, count: int, commit: Commit, tag: str) -> list[str]:
    ids = []
    for index in range(count):
        match_id = f"floor{tag}{index}"
        record = MatchRecord(
            match_id=match_id,
            game="jaipur",
            options={},
            seed=index,
            created_ms=0,
            status="running",
            version=0,
            seats=(SeatRecord("a", True), SeatRecord("b", True)),
            state=commit.state or b"",
        )
        await store.create(record, [NewEvent("created", {"game": "jaipur", "seats": 2})])
        ids.append(match_id)
    return ids


def _commit_call(
    store: RedisStore, match_id: str, version: int, commit: Commit
) -> Callable[[], Awaitable[object]]:
    return lambda: store.commit(match_id, version, commit)


# --- the run --------------------------------------------------------------------------------------


def start_process(command: list[str], log_path: Path, pattern: str) -> tuple[subprocess.Popen, str]:
    log = log_path.open("w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(pattern + r" on (\S+):(\d+)", log_path.read_text())
        if found:
            return process, f"{found[1]}:{found[2]}"
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise SystemExit(f"{command[:3]} did not start:\n{log_path.read_text()}")


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, theirs, ...), from /proc; none where it is not."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        below = parents.get(todo.pop(), [])
        found += below
        todo += below
    return found


def connections(pids: list[int], port: int) -> list[int]:
    """How many established TCP connections to ``port`` each process holds: how evenly the
    kernel spread the client's connections over a server's processes (SO_REUSEPORT)."""
    held: list[set[str]] = []
    for pid in pids:
        inodes = set()
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        held.append(inodes)
    established = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if int(fields[1].rpartition(":")[2], 16) == port and fields[3] == "01":
                    established.add(fields[9])
    return [len(inodes & established) for inodes in held]


@dataclass
class Servers:
    """One server's processes on one address (several share the port with SO_REUSEPORT)."""

    name: str
    processes: list[subprocess.Popen]
    address: str
    pids: list[int]  # whose CPU counts: every process of the server
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.address.rpartition(":")[2])

    def connect(self, count: int) -> None:
        # a local subchannel pool: each channel its own TCP connection (they share one otherwise)
        options = [("grpc.use_local_subchannel_pool", 1)]
        self.channels = [
            grpc.aio.insecure_channel(self.address, options=options) for _ in range(count)
        ]

    def spread(self) -> str:
        """Connections per serving process, e.g. "51+49"."""
        serving = [pid for pid in self.pids if pid not in (p.pid for p in self.processes)]
        counts = connections(serving or self.pids, self.port)
        return "+".join(str(c) for c in counts)

    def stop(self, signum: int = signal.SIGTERM) -> None:
        for process in self.processes:
            process.send_signal(signum)
        for process in self.processes:
            process.wait(30)


def start_floor(count: int, name: str, folder: Path, redis_url: str) -> Servers:
    """``count`` no-op/commit servers (this script, --serve floor) sharing one port."""
    processes: list[subprocess.Popen] = []
    port = "0"
    address = ""
    try:
        for index in range(count):
            process, address = start_process(
                [sys.executable, __file__, "--serve", "floor", "--port", port, "--response-file",
                 str(folder / "response.bin"), "--commit-file", str(folder / "commit.bin"),
                 "--redis-url", redis_url],
                folder / f"floor-{count}-{index}.log",
                "floor listening",
            )  # fmt: skip
            processes.append(process)
            port = address.rpartition(":")[2]
    except BaseException:
        Servers(name, processes, address, []).stop()
        raise
    return Servers(name, processes, address, [p.pid for p in processes])


Jobs = list[list[Callable[[], Awaitable[object]]]]


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


async def run(args: argparse.Namespace, folder: Path, redis: EmbeddedRedis) -> None:
    redis_pid = redis.process.pid if redis.process else None
    count = args.workers
    channel_count = args.channels or args.matches
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    profile = [spy, "record", "-r", "250", "-f", "raw", "-o", args.profile]
    profile += ["--subprocesses", "--"] if count > 1 else ["--"]
    serai_process, serai_address = start_process(
        [*(profile if args.profile else []),
         sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--redis-url", redis.url,
         "--log-format", "json", "--move-rate", "0", "--workers", str(count),
         "--chosen-seeds", "allow"],
        folder / "serve.log",
        "serai listening",
    )  # fmt: skip
    serai = Servers(
        f"serai x{count}",
        [serai_process],
        serai_address,
        [serai_process.pid, *descendants(serai_process.pid)],
    )
    floors: list[Servers] = []
    try:
        serai.connect(channel_count)
        stubs = [pb_grpc.MatchServiceStub(c) for c in serai.channels]
        print(f"recording {args.matches} random Jaipur matches ...", file=sys.stderr)
        played = await record_matches(stubs, args.matches, args.seed, args.moves)
        moves = [len(p.move_ids) for p in played]
        # Real messages for the floor: a SubmitMove request and its response, from a fresh match.
        match_id, tokens = await new_match(stubs[0], played[0].seed)
        seat, move_id = played[0].move_ids[0]
        request = pb.SubmitMoveRequest(
            match_id=match_id,
            seat_token=tokens[seat],
            move_id=move_id,
            expected_version=int(move_id.partition(".")[0]),
            request_id="sample-0",
        )
        response_bytes = (await stubs[0].SubmitMove(request)).SerializeToString()
        request_bytes = request.SerializeToString()
        ids = [match_id]
        commit = await sample_commit(redis.url, ids[0], "sample-0")
        (folder / "response.bin").write_bytes(response_bytes)
        (folder / "commit.bin").write_bytes(_dump_commit(commit))
        floors.append(start_floor(count, f"grpc-noop x{count}", folder, redis.url))
        if count > 1:
            floors.append(start_floor(1, "grpc-noop x1", folder, redis.url))
        for floor in floors:
            floor.connect(channel_count)
        wide = floors[0]  # as many processes as serai
        store = RedisStore.from_url(redis.url, max_connections=args.matches + 10)
        per_worker = args.calls or round(sum(moves) / len(moves))

        def grpc_jobs(method: str, tag: str, servers: Servers, calls: int = per_worker) -> Jobs:
            out = []
            for w in range(args.matches):
                call = servers.channels[w % len(servers.channels)].unary_unary(
                    method, response_deserializer=pb.SubmitMoveResponse.FromString
                )
                body = pb.SubmitMoveRequest.FromString(request_bytes)
                body.match_id = f"floor{tag}{w}"
                jobs: list[Callable[[], Awaitable[object]]] = []
                for k in range(calls):
                    body.request_id = f"{tag}{w}-{k}"
                    raw = body.SerializeToString()
                    jobs.append(lambda call=call, raw=raw: call(raw))
                out.append(jobs)
            return out

        rounds: dict[str, list[Figures]] = {}
        for n in range(args.rounds):
            print(f"round {n + 1} of {args.rounds} ...", file=sys.stderr)
            figures = []
            for floor in floors:
                # warm every connection before timing
                await measure("warm", [j[:3] for j in grpc_jobs(NOOP, "w", floor)], [])
                figures.append(await measure(floor.name, grpc_jobs(NOOP, "x", floor), floor.pids))
            tag = f"e{n}-"
            floor_ids = await floor_matches(store, args.matches, commit, tag)
            evalsha = [
                [
                    _commit_call(store, i, v, replace(commit, request_id=f"{i}-{v}"))
                    for v in range(per_worker)
                ]
                for i in floor_ids
            ]
            figures.append(await measure("evalsha", evalsha, [redis_pid]))
            if not args.skip_commit:
                tag = f"c{n}-"
                await floor_matches(store, args.matches, commit, tag)
                figures.append(
                    await measure(
                        f"grpc+commit x{count}",
                        grpc_jobs(COMMIT, tag, wide),
                        [*wide.pids, redis_pid],
                    )
                )
            jobs, _ids = await serai_jobs(stubs, played, f"m{n}-")
            figures.append(await measure(serai.name, jobs, [*serai.pids, redis_pid]))
            for fig in figures:
                rounds.setdefault(fig.name, []).append(fig)
                print(
                    f"  {fig.name:<14} {fig.rate:>6.0f} calls/s  p50 {fig.pct(0.5):.2f} ms  "
                    f"p99 {fig.pct(0.99):.2f} ms  steal {fig.steal_text}",
                    file=sys.stderr,
                )
            await store.client.flushdb()  # every part starts from an empty Redis next round
        spread = {s.name: s.spread() for s in [*floors, serai] if len(s.pids) > 1}
        best_serai = max(f.rate for f in rounds[serai.name])
        paced: dict[str, Figures] = {}
        pace = args.paced * best_serai
        if pace > 0:
            print(f"paced at {pace:.0f} calls/s ...", file=sys.stderr)
            paced[wide.name] = await measure(wide.name, grpc_jobs(NOOP, "p", wide), wide.pids, pace)
            jobs, _ids = await serai_jobs(stubs, played, "p-")
            paced[serai.name] = await measure(serai.name, jobs, [*serai.pids, redis_pid], pace)
        sweeps: dict[str, list[tuple[float, Figures, bool]]] = {}
        if args.p99_ms > 0:
            print(f"latency sweep: highest paced rate with p99 < {args.p99_ms:g} ms ...",
                  file=sys.stderr)  # fmt: skip
            step = iter(range(1_000_000))

            async def serai_calls(calls: int) -> Jobs:
                short = [Played(p.seed, p.move_ids[:calls]) for p in played]
                return (await serai_jobs(stubs, short, f"s{next(step)}-"))[0]

            async def noop_calls(calls: int) -> Jobs:
                return grpc_jobs(NOOP, f"s{next(step)}-", wide, calls)

            sweeps[serai.name] = await sweep(
                serai.name, serai_calls, [*serai.pids, redis_pid], best_serai, min(moves), args
            )
            best_noop = max(f.rate for f in rounds[wide.name])
            sweeps[wide.name] = await sweep(
                wide.name, noop_calls, wide.pids, best_noop, min(moves), args
            )
        await store.close()
        for servers in [serai, *floors]:
            for channel in servers.channels:
                await channel.close()
        report(
            args,
            rounds,
            paced,
            sweeps,
            spread,
            Roles(serai.name, [f.name for f in floors], f"grpc+commit x{count}"),
            moves,
            len(request_bytes),
            len(response_bytes),
            len(commit.state or b""),
        )
    finally:
        # SIGINT: serai stops on it, and py-spy (when profiling) writes its file first
        serai.stop(signal.SIGINT)
        for floor in floors:
            floor.stop()


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
        asyncio.run(serve_floor(args))
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
