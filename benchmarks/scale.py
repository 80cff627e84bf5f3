"""How serai's kept-stream Play scales with worker processes, on one Redis and on a Redis Cluster.

Issue 33's scaling table: for each W in --workers (1, 2, 4, 8), ``serai serve --workers W`` on
W cores of its own (taskset), Redis on cores of its own (one embedded redis-server with its
append-only file, or with --cluster a local Redis Cluster of --masters masters, a core each), and
--load-processes load generators on the remaining cores. Each load generator keeps --matches /
processes two-seat Jaipur matches going: every seat holds one Play stream for the whole run
(PlayOpen.keep_open; a new ``open`` on it for each next match), moves at random on the legal
moves it is offered, and the slot sets up the next match when one ends. After --warmup seconds,
the moves answered in the next --seconds count; CPU is read from /proc for the serve processes
(supervisor and workers) and for Redis over the same window.

Printed per row: moves/s, the speed-up over the first row of the same Redis, the server's CPU
per move (Redis's after the plus), Redis's share of its core(s), and the move latency (a move
sent -> its answer) p50 and p99. Example (a 16-core machine)::

    python benchmarks/scale.py --workers 1,2,4,8 --matches 224 --seconds 20
    python benchmarks/scale.py --workers 1,2,4,8 --matches 224 --seconds 20 --cluster

Cores: Redis takes the first (one per master with --cluster), the server the next W, the load
generators the rest (at least one each). Where the machine has too few cores for that, nothing
is pinned and the table says so (its figures then measure a shared machine: a dry run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from _harness import cpu_seconds, descendants, pct, start_process
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis, free_port, ping, redis_server_binary

HERE = Path(__file__).resolve().parent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--workers", default="1,2,4,8", help="worker counts, comma-separated (1,2,4,8)"
    )
    parser.add_argument("--matches", type=int, default=224, help="concurrent matches (224)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window (20)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before it (5)")
    parser.add_argument(
        "--load-processes",
        type=int,
        default=0,
        help="load generator processes (0: one per core left after Redis and the server)",
    )
    parser.add_argument(
        "--cluster", action="store_true", help="also run each W on a local Redis Cluster"
    )
    parser.add_argument("--masters", type=int, default=3, help="the Cluster's masters (3)")
    parser.add_argument(
        "--no-pin", action="store_true", help="pin nothing, even where the cores would allow it"
    )
    parser.add_argument("--game", default="jaipur", help="the game played (jaipur)")
    parser.add_argument("--load", help=argparse.SUPPRESS)  # a load generator's job (JSON)
    return parser.parse_args(argv)


# --- cores ----------------------------------------------------------------------------------------


@dataclass
class Cores:
    redis: list[list[int]]  # a core list per Redis process
    server: list[int]
    load: list[list[int]]  # a core list per load generator
    pinned: bool


def plan_cores(workers: int, redis_processes: int, loaders: int, no_pin: bool) -> Cores:
    """Redis first, then the server's W cores, then one or more per load generator; unpinned
    (every list empty) when the usable cores are too few or --no-pin."""
    usable = sorted(os.sched_getaffinity(0))
    need = redis_processes + workers + max(1, loaders)
    if no_pin or len(usable) < need:
        return Cores([[] for _ in range(redis_processes)], [], [[]] * max(1, loaders), False)
    redis = [[usable[i]] for i in range(redis_processes)]
    server = usable[redis_processes : redis_processes + workers]
    rest = usable[redis_processes + workers :]
    count = loaders or len(rest)
    load = [rest[i::count] for i in range(count)]
    return Cores(redis, server, load, True)


def pin(pid: int, cores: list[int]) -> None:
    """Every thread of ``pid`` (and of processes it starts later) on ``cores``."""
    if cores:
        subprocess.run(
            ["taskset", "-a", "-p", "-c", ",".join(map(str, cores)), str(pid)],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def taskset(cores: list[int]) -> list[str]:
    return ["taskset", "-c", ",".join(map(str, cores))] if cores else []


# --- Redis ----------------------------------------------------------------------------------------


class Cluster:
    """``masters`` redis-server processes in cluster mode on loopback, slots split evenly."""

    def __init__(self, folder: Path, masters: int) -> None:
        self.folder, self.masters = folder, masters
        self.ports: list[int] = []
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def nodes(self) -> str:
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self) -> Cluster:
        import redis

        for i in range(self.masters):
            port = _port_pair()
            folder = self.folder / f"node{i}"
            folder.mkdir(parents=True)
            self.processes.append(
                subprocess.Popen(
                    [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(port),
                     "--dir", str(folder), "--cluster-enabled", "yes", "--cluster-config-file",
                     "nodes.conf", "--save", "", "--appendonly", "yes",
                     "--appendfsync", "everysec"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip
            self.ports.append(port)
        deadline = time.monotonic() + 30
        for port in self.ports:
            while not ping("127.0.0.1", port):
                if time.monotonic() > deadline:
                    raise SystemExit(f"cluster node {port} did not start")
                time.sleep(0.05)
        clients = [redis.Redis(host="127.0.0.1", port=port) for port in self.ports]
        per = 16384 // self.masters
        for i, client in enumerate(clients):
            end = 16383 if i == self.masters - 1 else (i + 1) * per - 1
            client.execute_command("CLUSTER ADDSLOTS", *range(i * per, end + 1))
        for client in clients[1:]:
            client.execute_command("CLUSTER MEET", "127.0.0.1", self.ports[0])
        while not all(_cluster_ready(client, self.masters) for client in clients):
            if time.monotonic() > deadline:
                raise SystemExit("the Redis Cluster did not become ready")
            time.sleep(0.1)
        for client in clients:
            client.close()
        return self

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(30)


def _port_pair() -> int:
    """A free port P with P + 10000 free too (a cluster node's bus)."""
    import socket

    for _attempt in range(100):
        port = free_port()
        if port > 55535:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise SystemExit("no free port pair for a Redis Cluster node")


def _cluster_ready(client: Any, masters: int) -> bool:
    info = client.cluster("INFO")
    if not isinstance(info, dict):
        info = dict(line.split(":", 1) for line in info.decode().split() if ":" in line)
    info = {str(k): str(v) for k, v in info.items()}
    return info.get("cluster_state") == "ok" and int(info.get("cluster_known_nodes", 0)) == masters


# --- a load generator (a process of its own) ---------------------------------------------------


async def _seat(
    stub: pb_grpc.MatchServiceStub,
    opens: asyncio.Queue[tuple[str, str] | None],
    finished: asyncio.Queue[None],
    rng: random.Random,
    window: tuple[float, float],
    latencies: list[float],
) -> None:
    """One seat's kept Play stream: each (match, token) from ``opens`` is a new ``open`` on it;
    moves at random on the legal moves offered; says when its match has finished and its last
    move was answered."""
    outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()

    async def requests() -> Any:
        while (request := await outgoing.get()) is not None:
            yield request

    sent: dict[str, float] = {}
    over = True
    call = stub.Play(requests())

    async def next_open() -> bool:
        got = await opens.get()
        if got is None:
            outgoing.put_nowait(None)
            return False
        match_id, token = got
        opened = pb.PlayOpen(
            match_id=match_id, seat_token=token, keep_open=True, answer_with_event=True
        )
        outgoing.put_nowait(pb.PlayRequest(open=opened))
        return True

    if not await next_open():
        return
    over = False
    async for update in call:
        alone = update.HasField("answer")
        if alone or update.HasField("answered"):
            answer = update.answer if alone else update.answered
            began = sent.pop(answer.request_id, None)
            now = time.time()
            if began is not None and answer.HasField("submitted") and window[0] <= now < window[1]:
                latencies.append(now - began)
        if not alone and update.event.HasField("snapshot"):
            snap = update.event.snapshot
            if snap.match.status == pb.MATCH_STATUS_FINISHED:
                over = True
            elif update.legal_moves:
                request_id = f"{snap.match.match_id}:{snap.version}"
                sent[request_id] = time.time()
                move = pb.PlayMove(
                    request_id=request_id,
                    expected_version=snap.version,
                    move_id=rng.choice(update.legal_moves).id,
                )
                outgoing.put_nowait(pb.PlayRequest(move=move))
        if over and not sent:
            finished.put_nowait(None)
            over = False
            if not await next_open():
                break


async def _slot(
    stub: pb_grpc.MatchServiceStub,
    game: str,
    index: int,
    stop_at: float,
    window: tuple[float, float],
    latencies: list[float],
) -> None:
    """Two seats on kept streams playing match after match until ``stop_at``."""
    opens: list[asyncio.Queue[tuple[str, str] | None]] = [asyncio.Queue(), asyncio.Queue()]
    finished: asyncio.Queue[None] = asyncio.Queue()
    rng = random.Random(index)
    seats = [
        asyncio.create_task(_seat(stub, opens[s], finished, rng, window, latencies)) for s in (0, 1)
    ]
    try:
        while time.time() < stop_at:
            created = await stub.CreateMatch(pb.CreateMatchRequest(game=game, seats=2))
            match_id = created.match.match_id
            for seat in (0, 1):
                joined = await stub.JoinMatch(
                    pb.JoinMatchRequest(match_id=match_id, seat=seat, player_name=f"p{seat}")
                )
                opens[seat].put_nowait((match_id, joined.seat_token))
            for _ in (0, 1):
                await finished.get()
    finally:
        for queue in opens:
            queue.put_nowait(None)
        await asyncio.wait(seats, timeout=10)
        for task in seats:
            task.cancel()


async def _load(job: dict[str, Any]) -> dict[str, Any]:
    window = (job["start"], job["end"])
    channels = [grpc.aio.insecure_channel(job["address"]) for _ in range(job["channels"])]
    stubs = [pb_grpc.MatchServiceStub(channel) for channel in channels]
    latencies: list[float] = []
    slots = [
        asyncio.create_task(
            _slot(stubs[i % len(stubs)], job["game"], job["first"] + i, job["end"], window,
                  latencies)
        )
        for i in range(job["matches"])
    ]  # fmt: skip
    await asyncio.wait(slots, timeout=job["end"] - time.time() + 60)
    for task in slots:
        task.cancel()
    for channel in channels:
        await channel.close()
    return {"moves": len(latencies), "latencies": latencies}


def load_main(job_text: str) -> int:
    result = asyncio.run(_load(json.loads(job_text)))
    print(json.dumps(result), flush=True)
    return 0


# --- a row ----------------------------------------------------------------------------------------


@dataclass
class Row:
    redis: str
    workers: int
    moves: int
    seconds: float
    server_cpu: float
    redis_cpu: float
    redis_cores: int
    latencies: list[float]
    pinned: bool

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def cpu_ms(self, seconds: float) -> float:
        return seconds * 1000 / self.moves if self.moves else 0.0


def _tree_cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) or 0.0 for pid in pids)


def run_row(args: argparse.Namespace, workers: int, cluster: bool, folder: Path) -> Row:
    redis_count = args.masters if cluster else 1
    cores = plan_cores(workers, redis_count, args.load_processes, args.no_pin)
    folder.mkdir(parents=True)
    embedded: EmbeddedRedis | None = None
    nodes: Cluster | None = None
    if cluster:
        nodes = Cluster(folder / "cluster", args.masters).start()
        redis_pids = [p.pid for p in nodes.processes]
        where = ["--redis-cluster", nodes.nodes]
    else:
        embedded = EmbeddedRedis(folder / "data").start()
        assert embedded.process is not None
        redis_pids = [embedded.process.pid]
        where = ["--redis-url", embedded.url]
    for pid, own in zip(redis_pids, cores.redis, strict=True):
        pin(pid, own)
    serve = None
    loaders: list[subprocess.Popen[bytes]] = []
    try:
        serve, address = start_process(
            [*taskset(cores.server), sys.executable, "-m", "serai.cli", "serve", "--port", "0",
             "--http-port", "off", *where, "--workers", str(workers), "--log-format", "json",
             "--log-level", "warning", "--max-open-per-peer", "0", "--max-open-total", "0",
             "--house-bots", "0", "--move-rate", "0", "--create-rate", "0",
             "--max-watches-per-peer", str(4 * args.matches + 100)],
            folder / "serve.log",
            "serai listening",
            name="serai serve",
        )  # fmt: skip
        server_pids = [serve.pid, *descendants(serve.pid)]
        start = time.time() + args.warmup + 1.0
        end = start + args.seconds
        per, extra = divmod(args.matches, len(cores.load))
        first = 0
        for index, own in enumerate(cores.load):
            count = per + (1 if index < extra else 0)
            job = {"address": address, "game": args.game, "matches": count, "first": first,
                   "start": start, "end": end, "channels": max(1, min(8, count // 8))}  # fmt: skip
            first += count
            loaders.append(
                subprocess.Popen(
                    [*taskset(own), sys.executable, str(HERE / "scale.py"), "--load",
                     json.dumps(job)],
                    stdout=subprocess.PIPE,
                )
            )  # fmt: skip
        time.sleep(max(0.0, start - time.time()))
        server_before, redis_before = _tree_cpu(server_pids), _tree_cpu(redis_pids)
        time.sleep(max(0.0, end - time.time()))
        server_cpu = _tree_cpu(server_pids) - server_before
        redis_cpu = _tree_cpu(redis_pids) - redis_before
        moves, latencies = 0, []
        for loader in loaders:
            out, _ = loader.communicate(timeout=args.seconds + 120)
            result = json.loads(out.decode().strip().splitlines()[-1])
            moves += result["moves"]
            latencies += result["latencies"]
    finally:
        for loader in loaders:
            if loader.poll() is None:
                loader.kill()
        if serve is not None:
            serve.send_signal(signal.SIGTERM)
            serve.wait(60)
        if nodes is not None:
            nodes.stop()
        if embedded is not None:
            embedded.stop()
    name = f"cluster x{args.masters}" if cluster else "one Redis"
    return Row(name, workers, moves, args.seconds, server_cpu, redis_cpu, redis_count, latencies,
               cores.pinned)  # fmt: skip


def report(rows: list[Row]) -> None:
    print(
        f"{'Redis':<12} {'W':>2} {'moves/s':>8} {'x W=first':>9} {'server CPU ms/move':>19} "
        f"{'Redis busy':>10} {'p50 ms':>7} {'p99 ms':>7}  pinned"
    )
    first: dict[str, float] = {}
    for row in rows:
        base = first.setdefault(row.redis, row.rate)
        busy = row.redis_cpu / row.seconds / row.redis_cores
        print(
            f"{row.redis:<12} {row.workers:>2} {row.rate:>8.0f} {row.rate / base:>8.2f}x "
            f"{row.cpu_ms(row.server_cpu):>9.3f} + {row.cpu_ms(row.redis_cpu):.3f} "
            f"{busy:>9.0%} {pct(row.latencies, 0.5):>7.2f} {pct(row.latencies, 0.99):>7.2f}  "
            f"{'yes' if row.pinned else 'no (too few cores)'}"
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.load:
        return load_main(args.load)
    counts = [int(w) for w in args.workers.split(",") if w.strip()]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="serai-scale-") as name:
        for cluster in (False, True) if args.cluster else (False,):
            for workers in counts:
                folder = Path(name) / f"{'cluster' if cluster else 'one'}-{workers}"
                rows.append(run_row(args, workers, cluster, folder))
                print(f"  done: {rows[-1].redis}, W = {workers}", file=sys.stderr, flush=True)
    print(
        f"{args.game}, {args.matches} concurrent matches on kept Play streams, "
        f"{args.seconds:g} s measured after {args.warmup:g} s; load average "
        f"{os.getloadavg()[0]:.1f}, {len(os.sched_getaffinity(0))} usable cores"
    )
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
