"""SubmitMove over Connect (binary, HTTP/1.1 keep-alive) next to native gRPC, in one run on one
``serai serve``: what a web or Node client costs the server compared with a gRPC one.

The workload is floor.py's (``_workload``): Jaipur matches played once with ListLegalMoves and a
seeded random SubmitMove by id, their move ids recorded; then, for each concurrency (--matches,
default 1, 10 and 100) and each transport in turn, fresh matches with the same seeds are created
and joined, and only then the clock starts and each worker submits its match's recorded ids one
after another (with the expected version and a request id, as a bot would), timing only the
SubmitMoves. Each worker has its own connection: a grpc.aio channel natively, one HTTP/1.1
keep-alive connection for Connect (``application/proto``, the unary protocol's binary codec).

The Connect load generator is a minimal asyncio HTTP/1.1 client (a POST with Content-Length; the
answer by length or chunked) rather than connectrpc's Python client, so that the client's own
CPU, on the same cores as the server, stays about as small as grpc.aio's C core; the server side,
which is what is measured, is the real one (connectrpc on uvicorn in ``serai serve``).

Throughput counts the calls completed while every worker still has work (the window closes when
the first worker runs out, as in floor.py). Rounds alternate the transports; the best of each is
shown with the rounds next to it, then Connect's share of native's moves/s. Example::

    python benchmarks/connect_submit.py --moves 40 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
from _harness import Figures, cpu_seconds, descendants, own_cpu, start_process
from _workload import GrpcTable, Played, record_matches, submit_requests
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis

SUBMIT_PATH = "/serai.v1.MatchService/SubmitMove"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", default="1,10,100", help="concurrencies, comma-separated")
    parser.add_argument("--moves", type=int, default=40, help="moves per match (0: to the end)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="serai serve --workers")
    return parser.parse_args(argv)


class KeepAliveConnection:
    """One HTTP/1.1 connection kept open: Connect unary calls in binary, one after another."""

    def __init__(self, address: str) -> None:
        self.host, port = address.rsplit(":", 1)
        self.port = int(port)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self, path: str, body: bytes) -> bytes:
        assert self.reader and self.writer
        self.writer.write(
            (
                f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Content-Type: application/proto\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
        if length:
            answer = await self.reader.readexactly(int(length[1]))
        else:  # chunked, as uvicorn sends a body written in parts
            parts = []
            while size := int((await self.reader.readuntil(b"\r\n"))[:-2], 16):
                parts.append(await self.reader.readexactly(size + 2))
            await self.reader.readuntil(b"\r\n")  # after the last chunk (no trailers)
            answer = b"".join(part[:-2] for part in parts)
        if status != 200:
            raise RuntimeError(f"SubmitMove over Connect answered {status}: {answer!r}")
        return answer

    def close(self) -> None:
        if self.writer:
            self.writer.close()


Call = Callable[[], Awaitable[object]]


async def measure(name: str, jobs: list[list[Call]], server_pids: list[int]) -> Figures:
    """Each worker's calls one after another, all workers at once (floor.py's window)."""
    marks: list[tuple[float, float]] = []
    first_done: list[float] = []

    async def worker(calls: list[Call]) -> None:
        for call in calls:
            began = time.perf_counter()
            await call()
            end = time.perf_counter()
            marks.append((end, end - began))
        first_done.append(time.perf_counter())

    gc.collect()
    cpu0 = [cpu_seconds(pid) or 0.0 for pid in server_pids]
    own0 = own_cpu()
    gc.disable()
    try:
        start = time.perf_counter()
        await asyncio.gather(*(worker(calls) for calls in jobs))
    finally:
        gc.enable()
    cpu1 = [cpu_seconds(pid) or 0.0 for pid in server_pids]
    window = min(first_done) - start
    inside = [latency for end, latency in marks if end <= start + window]
    return Figures(
        name,
        calls=len(inside),
        seconds=window,
        latencies=inside,
        server_cpu_ms=sum(b - a for a, b in zip(cpu0, cpu1, strict=True)) * 1000 / len(marks),
        client_cpu_ms=(own_cpu() - own0) * 1000 / len(marks),
    )


async def native_round(
    table: GrpcTable, address: str, played: list[Played], tag: str, pids: list[int]
) -> Figures:
    requests = await submit_requests([table], played, tag)
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in requests
    ]
    try:
        stubs = [pb_grpc.MatchServiceStub(channel) for channel in channels]
        for stub in stubs:  # connected before the clock starts, as the HTTP connections are
            await stub.GetMatch(pb.GetMatchRequest(match_id=requests[0][0].match_id))
        jobs: list[list[Call]] = [
            [lambda s=stub, r=request: s.SubmitMove(r) for request in calls]
            for stub, calls in zip(stubs, requests, strict=True)
        ]
        return await measure("native gRPC", jobs, pids)
    finally:
        for channel in channels:
            await channel.close()


async def connect_round(
    table: GrpcTable, http_address: str, played: list[Played], tag: str, pids: list[int]
) -> Figures:
    requests = await submit_requests([table], played, tag)
    connections = [KeepAliveConnection(http_address) for _ in requests]
    try:
        for connection in connections:
            await connection.open()
        bodies = [[request.SerializeToString() for request in calls] for calls in requests]
        jobs: list[list[Call]] = [
            [lambda c=connection, b=body: c.call(SUBMIT_PATH, b) for body in calls]
            for connection, calls in zip(connections, bodies, strict=True)
        ]
        return await measure("Connect binary", jobs, pids)
    finally:
        for connection in connections:
            connection.close()


async def run(args: argparse.Namespace, folder: Path, redis_url: str) -> None:
    process, address = start_process(
        [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--http-port", "0",
         "--redis-url", redis_url, "--log-format", "json", "--move-rate", "0", "--create-rate", "0",
         "--workers", str(args.workers), "--max-open-per-peer", "0", "--max-open-total", "0",
         "--chosen-seeds", "allow"],
        folder / "serve.log",
        "serai listening",
    )  # fmt: skip
    try:
        found = re.search(
            r"serai HTTP .* listening on (\S+):(\d+)", (folder / "serve.log").read_text()
        )
        assert found, "serai serve did not say where its HTTP port is"
        http_address = f"{found[1]}:{found[2]}"
        pids = [process.pid, *descendants(process.pid)]
        concurrencies = [int(c) for c in args.matches.split(",")]
        async with grpc.aio.insecure_channel(address) as channel:
            table = GrpcTable(pb_grpc.MatchServiceStub(channel))
            print(f"recording {max(concurrencies)} matches ...", file=sys.stderr)
            recorded = await record_matches([table], max(concurrencies), args.seed, args.moves)
            results: dict[int, dict[str, list[Figures]]] = {}
            for concurrency in concurrencies:
                played = recorded[:concurrency]
                for n in range(args.rounds):
                    tag = f"c{concurrency}r{n}"
                    for fig in (
                        await native_round(table, address, played, tag + "n", pids),
                        await connect_round(table, http_address, played, tag + "c", pids),
                    ):
                        results.setdefault(concurrency, {}).setdefault(fig.name, []).append(fig)
                        print(
                            f"  {concurrency:>3} matches  {fig.name:<15} {fig.rate:>6.0f} moves/s",
                            file=sys.stderr,
                        )
    finally:
        process.terminate()
        process.wait(30)
    report(args, results)


def report(args: argparse.Namespace, results: dict[int, dict[str, list[Figures]]]) -> None:
    print(
        f"SubmitMove, serai serve --workers {args.workers}, {args.moves or 'all'} moves a match, "
        f"best of {args.rounds} rounds (the rounds in brackets)"
    )
    print(
        f"{'matches':>7}  {'transport':<15} {'moves/s':>8}  {'p50 ms':>7}  {'p99 ms':>7}  "
        f"{'server CPU ms':>13}  {'client CPU ms':>13}  rounds"
    )
    for concurrency, parts in results.items():
        best = {}
        for name, figures in parts.items():
            fig = best[name] = max(figures, key=lambda f: f.rate)
            rounds = ", ".join(f"{f.rate:.0f}" for f in figures)
            print(
                f"{concurrency:>7}  {name:<15} {fig.rate:>8.0f}  {fig.pct(0.5):>7.2f}  "
                f"{fig.pct(0.99):>7.2f}  {fig.server_cpu_ms or 0:>13.2f}  "
                f"{fig.client_cpu_ms or 0:>13.2f}  [{rounds}]"
            )
        ratio = best["Connect binary"].rate / best["native gRPC"].rate
        print(f"{concurrency:>7}  Connect / native: {ratio:.0%} of native's moves/s")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="serai-connect-bench-") as folder:
        redis = EmbeddedRedis(Path(folder) / "data").start()
        try:
            asyncio.run(run(args, Path(folder), redis.url))
        finally:
            redis.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
