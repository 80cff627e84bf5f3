"""Helpers of the reliability tests: a Redis Cluster made from redis-server binaries, and random
bots that play whole matches with every call sent to a random replica.

Everything listens on 127.0.0.1 and is bounded in time: a helper that waits gives up with an
assertion after its ``timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import free_port, ping, redis_server_binary

# --- a three-master Redis Cluster on loopback -----------------------------------------------------


def poll(condition: Callable[[], Any], timeout: float = 30.0, pause: float = 0.1) -> Any:
    """The first true value of ``condition()``, asked every ``pause`` s; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(pause)


class RedisCluster:
    """``masters`` redis-server processes in cluster mode, their slots assigned, on loopback."""

    def __init__(self, folder: Path, masters: int = 3) -> None:
        self.folder = folder
        self.masters = masters
        self.ports: list[int] = []
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def nodes(self) -> str:
        """``127.0.0.1:P1,127.0.0.1:P2,...``, the form --redis-cluster takes."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self, timeout: float = 30) -> RedisCluster:
        import redis

        binary = redis_server_binary()
        for i in range(self.masters):
            port = _cluster_port()
            node_dir = self.folder / f"node{i}"
            node_dir.mkdir(parents=True, exist_ok=True)
            self.processes.append(
                subprocess.Popen(
                    [
                        binary,
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--dir",
                        str(node_dir),
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "2000",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--protected-mode",
                        "yes",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            self.ports.append(port)
        deadline = time.monotonic() + timeout
        for port in self.ports:
            while not ping("127.0.0.1", port):
                assert time.monotonic() < deadline, f"cluster node {port} did not start"
                time.sleep(0.05)
        clients = [redis.Redis(host="127.0.0.1", port=port) for port in self.ports]
        try:
            # The slots split in equal ranges, one per master; then every node meets the first.
            per = 16384 // self.masters
            for i, client in enumerate(clients):
                end = 16383 if i == self.masters - 1 else (i + 1) * per - 1
                client.execute_command("CLUSTER ADDSLOTS", *range(i * per, end + 1))
            for client in clients[1:]:
                client.execute_command("CLUSTER MEET", "127.0.0.1", self.ports[0])
            while not all(_ready(client, self.masters) for client in clients):
                assert time.monotonic() < deadline, "the Redis Cluster did not become ready"
                time.sleep(0.1)
        finally:
            for client in clients:
                client.close()
        return self

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _cluster_port() -> int:
    """A free port P with P + 10000 free too (a node's cluster bus), so P <= 55535."""
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
    raise RuntimeError("no free port pair for a Redis Cluster node")


def _ready(client: Any, masters: int) -> bool:
    """The node sees every slot served and knows every master."""
    info = client.cluster("INFO")
    if not isinstance(info, dict):
        info = dict(line.split(":", 1) for line in info.decode().split() if ":" in line)
    info = {str(k): str(v) for k, v in info.items()}
    return info.get("cluster_state") == "ok" and int(info.get("cluster_known_nodes", 0)) == masters


# --- random bots over several replicas ------------------------------------------------------------

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


@dataclass
class Played:
    """One match as its bots saw it: acknowledged move requests (distinct ids), retries."""

    match_id: str
    seats: int
    moves: int = 0
    retries: int = 0
    finished: bool = False
    request_ids: set[str] = field(default_factory=set)


class Replicas:
    """grpc.aio stubs on several serai addresses; ``call`` sends each call to a random one and
    retries UNAVAILABLE (a replica or Redis down) on random others until ``retry_for`` seconds."""

    def __init__(self, addresses: Sequence[str], rng: random.Random, retry_for: float = 60):
        self.channels = [
            grpc.aio.insecure_channel(a, options=[("grpc.use_local_subchannel_pool", 1)])
            for a in addresses
        ]
        self.stubs = [pb_grpc.MatchServiceStub(c) for c in self.channels]
        self.rng = rng
        self.retry_for = retry_for
        self.unavailable = 0

    async def call(self, method: str, request: Any, played: Played | None = None) -> Any:
        deadline = time.monotonic() + self.retry_for
        while True:
            stub = self.rng.choice(self.stubs)
            try:
                return await getattr(stub, method)(request, timeout=15)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE or time.monotonic() > deadline:
                    raise
                self.unavailable += 1
                if played is not None:
                    played.retries += 1
                await asyncio.sleep(0.05)

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


async def play_match(
    replicas: Replicas,
    rng: random.Random,
    *,
    game: str = "jaipur",
    seats: int = 2,
    seed: int = 1,
    on_move: Callable[[Played], Awaitable[None]] | None = None,
) -> Played:
    """Create, join and play a match to its end with random legal moves, each call through a
    random replica; a SubmitMove that fails UNAVAILABLE is sent again with the same request id."""
    created = await replicas.call(
        "CreateMatch", pb.CreateMatchRequest(game=game, seats=seats, seed=seed)
    )
    match_id = created.match.match_id
    played = Played(match_id, seats)
    tokens = []
    for seat in range(seats):
        joined = await replicas.call(
            "JoinMatch", pb.JoinMatchRequest(match_id=match_id, seat=seat), played
        )
        tokens.append(joined.seat_token)
    snapshot = await replicas.call("GetMatch", pb.GetMatchRequest(match_id=match_id), played)
    while snapshot.match.status != pb.MATCH_STATUS_FINISHED:
        seat = snapshot.to_act[0]
        listed = await replicas.call(
            "ListLegalMoves",
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat]),
            played,
        )
        if listed.version != snapshot.version or not listed.moves:
            snapshot = await replicas.call(
                "GetMatch", pb.GetMatchRequest(match_id=match_id), played
            )
            continue
        request_id = uuid.uuid4().hex
        request = pb.SubmitMoveRequest(
            match_id=match_id,
            seat_token=tokens[seat],
            move_id=rng.choice(listed.moves).id,
            request_id=request_id,
        )
        answer = await replicas.call("SubmitMove", request, played)
        played.moves += 1
        played.request_ids.add(request_id)
        snapshot = answer.snapshot
        if on_move is not None:
            await on_move(played)
    played.finished = True
    return played


async def check_replays(store: Any, registry: Any, played: Sequence[Played]) -> None:
    """Every match: its log has one entry per acknowledged move (none lost, none twice), the
    entries' versions follow the joins one by one up to the stored version, and it replays."""
    from serai.matches import Matches
    from store_records import log_items

    matches = Matches(store, registry)
    for match in played:
        record = await store.load(match.match_id)
        log = log_items(await store.read_log(match.match_id))
        assert [e["v"] for e in log] == list(range(match.seats + 1, record.version + 1)), (
            match.match_id
        )
        assert len(log) == match.moves, (match.match_id, len(log), match.moves)
        report = await matches.replay(match.match_id)
        assert report.ok, report.message


@contextlib.asynccontextmanager
async def replicas_on(addresses: Sequence[str], seed: int = 0, retry_for: float = 60) -> Any:
    replicas = Replicas(addresses, random.Random(seed), retry_for)
    try:
        yield replicas
    finally:
        await replicas.close()
