"""The floor that gRPC and Redis set: a server that does nothing but a no-op call or one commit.

floor.py starts it as ``python benchmarks/_floor_server.py`` (or ``python -m _floor_server`` from
benchmarks/), several processes on one port with SO_REUSEPORT as serai's workers, so that its
figures and serai's are taken on the same terms. It answers a real SubmitMove response and
commits a real Jaipur move, both captured from serai by floor.py (``save_sample``).

Its Play method is the floor of serai's Play stream (play_floor.py): a bidirectional stream per
seat; a move that comes in on one makes the same one commit, then the mover is sent serai's real
answer message and the match's other seat serai's real "your turn" message (event and legal
moves). One message in, one EVALSHA, two out: the least a move told to both seats can cost.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import pickle
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import grpc
from _harness import Servers, start_process
from serai.api import match_service_pb2 as pb
from serai.config import Settings
from serai.store import Commit, LogEntry, MatchRecord, NewEvent, SeatRecord
from serai.store.redis.store import RedisStore

NOOP = "/floor.Floor/Noop"
COMMIT = "/floor.Floor/Commit"
PLAY = "/floor.Floor/Play"
IDLE_MS = Settings().idle_seconds * 1000


async def serve(response_file: Path, commit_file: Path, redis_url: str, port: int = 0) -> None:
    """A grpc.aio server with two generic methods: Noop answers fixed bytes; Commit decodes a
    SubmitMoveRequest and makes one RedisStore.commit on a match of that id."""
    response = response_file.read_bytes()
    template = pickle.loads(commit_file.read_bytes())  # ours, written a moment ago by floor.py
    assert isinstance(template, Commit)
    store = RedisStore.from_url(redis_url)
    versions: dict[str, int] = {}
    answer_file, turn_file = (
        response_file.with_name("answer.bin"),
        response_file.with_name("turn.bin"),
    )
    answer = answer_file.read_bytes() if answer_file.exists() else b""
    turn = turn_file.read_bytes() if turn_file.exists() else b""
    streams: dict[str, dict[int, asyncio.Queue[bytes | None]]] = collections.defaultdict(dict)

    async def noop(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return response

    async def commit(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        message = pb.SubmitMoveRequest.FromString(request)
        version = versions.get(message.match_id, 0)
        change = replace(template, request_id=message.request_id)
        result = await store.commit(message.match_id, version, change)
        versions[message.match_id] = result.version  # type: ignore[union-attr]
        return response

    async def play(
        requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bytes]:
        """Opened with PlayOpen(match_id, seat_token="<seat>"); each PlayMove after it commits
        and tells both seats. The first message out says the stream is registered."""
        opened = pb.PlayRequest.FromString(await anext(requests)).open
        match_id, seat = opened.match_id, int(opened.seat_token)
        outgoing: asyncio.Queue[bytes | None] = asyncio.Queue()
        seats = streams[match_id]
        seats[seat] = outgoing

        async def read() -> None:
            try:
                async for raw in requests:
                    move = pb.PlayRequest.FromString(raw).move
                    change = replace(template, request_id=move.request_id)
                    result = await store.commit(match_id, versions.get(match_id, 0), change)
                    versions[match_id] = result.version  # type: ignore[union-attr]
                    outgoing.put_nowait(answer)
                    for other, queue in seats.items():
                        if other != seat:
                            queue.put_nowait(turn)
            finally:
                outgoing.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            yield turn
            while (message := await outgoing.get()) is not None:
                yield message
        finally:
            reader.cancel()
            seats.pop(seat, None)

    server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])  # as serai's workers
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "floor.Floor",
                {
                    "Noop": grpc.unary_unary_rpc_method_handler(noop),
                    "Commit": grpc.unary_unary_rpc_method_handler(commit),
                    "Play": grpc.stream_stream_rpc_method_handler(play),
                },
            ),
        )
    )
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"floor listening on 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


def save_sample(
    folder: Path, response: bytes, commit: Commit, answer: bytes = b"", turn: bytes = b""
) -> None:
    """Leave in ``folder`` what the floor servers answer (``response``; on Play, ``answer`` to
    the mover and ``turn`` to the others) and commit."""
    (folder / "response.bin").write_bytes(response)
    (folder / "commit.bin").write_bytes(pickle.dumps(commit))
    (folder / "answer.bin").write_bytes(answer)
    (folder / "turn.bin").write_bytes(turn)


async def sample_commit(redis_url: str, match_id: str, request_id: str) -> Commit:
    """A commit like serai's for one Jaipur move: its real state, log entry and move event."""
    store = RedisStore.from_url(redis_url)
    record = await store.load(match_id)
    entry = (await store.read_log(match_id) or [LogEntry(1, 0, b"")])[0]
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
        idle_ms=IDLE_MS,  # as serai's commits carry it (serve --idle-seconds' default)
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


def start_floor(count: int, name: str, folder: Path, redis_url: str) -> Servers:
    """``count`` floor servers (this module, each its own process) sharing one port, answering
    the sample that ``save_sample`` left in ``folder``."""
    processes: list[subprocess.Popen[bytes]] = []
    port = "0"
    address = ""
    try:
        for index in range(count):
            process, address = start_process(
                [sys.executable, __file__, "--port", port, "--response-file",
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--response-file", type=Path, required=True)
    parser.add_argument("--commit-file", type=Path, required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.response_file, args.commit_file, args.redis_url, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
