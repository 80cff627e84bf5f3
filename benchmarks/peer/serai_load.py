"""Load on one serai server: N concurrent tic-tac-toe matches, one grpc.aio channel per seat.

Each of the N slots plays match after match until the window closes: CreateMatch, JoinMatch for
seat 0 and seat 1 (each on its seat's own channel), then moves until the match is over. A seat
moves as soon as it is its turn, a uniformly random empty cell (seeded per slot). Modes:

  list    ListLegalMoves, then SubmitMove by the chosen move id (a client that knows no game)
  submit  SubmitMove only, the cell as the game's typed payload (google.protobuf.Int32Value
          packed in Any); the board is read from the previous SubmitMove's view
  setup   CreateMatch and the two JoinMatch only, no moves: the set-up's cost alone
  watch   like submit, but each seat also Watches the match and moves when its Watch stream
          says it is its turn (the other seat's move reaches it by the server's push, as in
          boardgame.io); the mover's latency is still SubmitMove's
  play    each seat holds one Play stream (serai.v1.MatchService/Play): the server pushes every
          event, and with the snapshot in which the seat is to act its legal moves; the seat
          sends its move (the cell as the typed payload) on the same stream and reads its answer
          there. The mover's latency: the move sent -> its answer on the stream
  playkept  like play, but each seat's Play stream is kept from match to match
          (PlayOpen.keep_open): a new match is a new open on it, as boardgame.io's raw client
          sends a new 'sync' on the socket it keeps

Every SubmitMove carries expected_version and a request_id, as serai's SDK sends them.

Timing: --warmup seconds of play first (not counted), then a --duration window. Counted: moves
whose SubmitMove answer came inside the window; latency = that SubmitMove's send -> answer. CPU
of the server processes (--pids, from /proc/<pid>/stat utime+stime) and of this process are
read at the window's two ends; RSS (VmRSS) of each server process at its end. Prints one JSON
object.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sys
import time
from pathlib import Path

import grpc
from google.protobuf import any_pb2, wrappers_pb2
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc

TICK = os.sysconf("SC_CLK_TCK")
RUN = os.urandom(6).hex()  # request ids unique to this run (CreateMatch derives the match id)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_jiffies() -> tuple[int, int]:
    """(busy, steal) of the whole machine so far, in clock ticks (/proc/stat)."""
    first = Path("/proc/stat").read_text().partition("\n")[0]
    fields = [int(f) for f in first.split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return user + nice + system + irq + softirq, steal


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Window:
    """The measurement window and what fell in it."""

    def __init__(self, warmup: float, duration: float) -> None:
        now = time.perf_counter()
        self.start = now + warmup
        self.end = self.start + duration
        self.latencies: list[float] = []
        self.moves = 0
        self.matches = 0
        self.errors: dict[str, int] = {}

    def move(self, sent: float, answered: float) -> None:
        if self.start <= answered <= self.end:
            self.moves += 1
            self.latencies.append(answered - sent)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def match_done(self, at: float) -> None:
        if self.start <= at <= self.end:
            self.matches += 1

    def over(self) -> bool:
        return time.perf_counter() >= self.end


def pack_cell(cell: int) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(wrappers_pb2.Int32Value(value=cell))
    return packed


PACKED = [pack_cell(cell) for cell in range(9)]


def board_of(snapshot: pb.MatchSnapshot) -> str:
    view = wrappers_pb2.StringValue()
    snapshot.view.Unpack(view)
    return view.value


async def new_match(
    stubs: tuple[pb_grpc.MatchServiceStub, pb_grpc.MatchServiceStub],
    slot: int,
    count: int,
    client_id: str,
) -> tuple[str, list[str], int]:
    created = await stubs[0].CreateMatch(
        pb.CreateMatchRequest(
            game="ttt", seats=2, client_id=client_id, request_id=f"create-{RUN}-{slot}-{count:08d}"
        )
    )
    match_id = created.match.match_id
    tokens = []
    version = 0
    for seat in (0, 1):
        joined = await stubs[seat].JoinMatch(
            pb.JoinMatchRequest(
                match_id=match_id,
                seat=seat,
                player_name=f"p{seat}",
                request_id=f"join-{RUN}-{slot}-{count:08d}-{seat}",
            )
        )
        tokens.append(joined.seat_token)
        version = max(version, joined.match.version)
    return match_id, tokens, version


async def play_slot(
    stubs: tuple[pb_grpc.MatchServiceStub, pb_grpc.MatchServiceStub],
    slot: int,
    mode: str,
    window: Window,
    seed: int,
) -> None:
    rng = random.Random(f"{seed}:{slot}")
    kept = KeptStreams(stubs) if mode == "playkept" else None
    try:
        await _play_slot(stubs, slot, mode, window, rng, kept)
    finally:
        if kept is not None:
            kept.close()


async def _play_slot(
    stubs: tuple[pb_grpc.MatchServiceStub, pb_grpc.MatchServiceStub],
    slot: int,
    mode: str,
    window: Window,
    rng: random.Random,
    kept: KeptStreams | None,
) -> None:
    count = 0
    while not window.over():
        # A client_id per slot; set-up only leaves every match unfinished, so there the id turns
        # over every 50 matches, below serve's --max-open-matches (100 unfinished per client_id).
        client_id = f"bench-{slot}" if mode != "setup" else f"bench-{slot}-{count // 50}"
        match_id, tokens, version = await new_match(stubs, slot, count, client_id)
        count += 1
        if mode == "setup":  # match set-up only: CreateMatch and both JoinMatch, no moves
            window.match_done(time.perf_counter())
            continue
        to_act = [0]
        board = "." * 9
        moves = 0
        if kept is not None:
            if await play_kept(kept, match_id, tokens, rng, window, slot, count):
                window.match_done(time.perf_counter())
            continue
        if mode in ("watch", "play"):
            follow = play_watched if mode == "watch" else play_streamed
            over = await follow(stubs, match_id, tokens, rng, window, slot, count)
            if over:
                window.match_done(time.perf_counter())
            continue
        while to_act and not window.over():
            seat = to_act[0]
            stub = stubs[seat]
            request_id = f"m-{slot}-{count}-{moves}"
            if mode == "list":
                listed = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
                )
                choice = rng.choice(listed.moves)
                request = pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=tokens[seat],
                    move_id=choice.id,
                    expected_version=listed.version,
                    request_id=request_id,
                )
            else:
                cell = rng.choice([i for i, c in enumerate(board) if c == "."])
                request = pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=tokens[seat],
                    payload=PACKED[cell],
                    expected_version=version,
                    request_id=request_id,
                )
            sent = time.perf_counter()
            done = await stub.SubmitMove(request)
            window.move(sent, time.perf_counter())
            moves += 1
            snapshot = done.snapshot
            version = snapshot.version
            to_act = list(snapshot.to_act)
            if mode == "submit":
                board = board_of(snapshot)
        if not to_act:
            window.match_done(time.perf_counter())


async def play_watched(
    stubs: tuple[pb_grpc.MatchServiceStub, pb_grpc.MatchServiceStub],
    match_id: str,
    tokens: list[str],
    rng: random.Random,
    window: Window,
    slot: int,
    count: int,
) -> bool:
    """Both seats watch; each moves when its stream shows it is its turn. True once over."""
    finished = asyncio.Event()

    async def seat_loop(seat: int) -> None:
        stub = stubs[seat]
        stream = stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=tokens[seat]))
        moved = 0
        seen = 0  # the newest version this seat's stream has shown
        try:
            while not finished.is_set():
                left = window.end - time.perf_counter()
                if left <= 0:
                    return
                try:
                    event = await asyncio.wait_for(stream.read(), timeout=left + 0.5)
                except TimeoutError:
                    return
                if event is grpc.aio.EOF:
                    return
                if not event.HasField("snapshot"):
                    continue
                snapshot = event.snapshot
                if snapshot.match.status == pb.MATCH_STATUS_FINISHED:
                    finished.set()
                    return
                # A batch's snapshot is the match when the batch was built, which can be ahead of
                # the batch's events: the next batch (with the event already reflected) may then
                # carry a snapshot of that same version, or one older than this seat's own
                # SubmitMove answer. Act on each version once, and never behind one's own move.
                if snapshot.version <= seen:
                    if list(snapshot.to_act) == [seat] and not window.over():
                        window.error(
                            "watch: 'your turn' again at a version already played (skipped)"
                        )
                    continue
                seen = snapshot.version
                if list(snapshot.to_act) != [seat] or window.over():
                    continue
                board = board_of(snapshot)
                cell = rng.choice([i for i, c in enumerate(board) if c == "."])
                sent = time.perf_counter()
                try:
                    answer = await stub.SubmitMove(
                        pb.SubmitMoveRequest(
                            match_id=match_id,
                            seat_token=tokens[seat],
                            payload=PACKED[cell],
                            expected_version=snapshot.version,
                            request_id=f"w-{slot}-{count}-{seat}-{moved}",
                        )
                    )
                    seen = max(seen, answer.snapshot.version)
                except grpc.aio.AioRpcError as error:
                    if error.code() != grpc.StatusCode.ABORTED:
                        raise
                    # the snapshot was behind the match: wait for the stream's next one
                    window.error("watch: SubmitMove ABORTED (the snapshot was stale)")
                    continue
                window.move(sent, time.perf_counter())
                moved += 1
        finally:
            stream.cancel()

    await asyncio.gather(seat_loop(0), seat_loop(1))
    return finished.is_set()


async def play_streamed(
    stubs: tuple[pb_grpc.MatchServiceStub, pb_grpc.MatchServiceStub],
    match_id: str,
    tokens: list[str],
    rng: random.Random,
    window: Window,
    slot: int,
    count: int,
) -> bool:
    """Both seats on Play; each moves on the stream when a pushed snapshot says it is its turn.
    True once over."""
    finished = asyncio.Event()

    async def seat_loop(seat: int) -> None:
        stream = stubs[seat].Play()
        await stream.write(
            pb.PlayRequest(
                open=pb.PlayOpen(match_id=match_id, seat_token=tokens[seat], answer_with_event=True)
            )
        )
        moved = 0
        sent = 0.0
        try:
            while not finished.is_set():
                left = window.end - time.perf_counter()
                if left <= 0:
                    return
                try:
                    update = await asyncio.wait_for(stream.read(), timeout=left + 0.5)
                except TimeoutError:
                    return
                if update is grpc.aio.EOF:
                    return
                alone = update.HasField("answer")
                if alone or update.HasField("answered"):  # alone, or with its move's event
                    answer = update.answer if alone else update.answered
                    if answer.HasField("error"):
                        window.error(f"play: move answered {answer.error.code}")
                    else:
                        window.move(sent, time.perf_counter())
                    if alone:
                        continue
                event = update.event
                if not event.HasField("snapshot"):
                    continue
                snapshot = event.snapshot
                if snapshot.match.status == pb.MATCH_STATUS_FINISHED:
                    finished.set()
                    return
                if list(snapshot.to_act) != [seat] or window.over():
                    continue
                board = board_of(snapshot)
                cell = rng.choice([i for i, c in enumerate(board) if c == "."])
                sent = time.perf_counter()
                await stream.write(
                    pb.PlayRequest(
                        move=pb.PlayMove(
                            payload=PACKED[cell],
                            expected_version=snapshot.version,
                            request_id=f"p-{slot}-{count}-{seat}-{moved}",
                        )
                    )
                )
                moved += 1
        finally:
            stream.cancel()

    await asyncio.gather(seat_loop(0), seat_loop(1))
    return finished.is_set()


class KeptStreams:
    """A slot's two Play streams, one per seat, kept from match to match, and the send time of
    each move not answered yet (an answer can come after the match's last event, so in the
    next match's reading)."""

    def __init__(self, stubs: tuple[pb_grpc.MatchServiceStub, pb_grpc.MatchServiceStub]) -> None:
        self.streams = [stubs[0].Play(), stubs[1].Play()]
        self.sent: dict[str, float] = {}

    def close(self) -> None:
        for stream in self.streams:
            stream.cancel()


async def play_kept(
    kept: KeptStreams,
    match_id: str,
    tokens: list[str],
    rng: random.Random,
    window: Window,
    slot: int,
    count: int,
) -> bool:
    """As play_streamed, on the slot's kept streams: each seat opens the match on its stream
    (keep_open) and reads it up to the match's finished snapshot. True once over."""

    async def seat_loop(seat: int) -> bool:
        stream = kept.streams[seat]
        opened = pb.PlayOpen(
            match_id=match_id, seat_token=tokens[seat], keep_open=True, answer_with_event=True
        )
        await stream.write(pb.PlayRequest(open=opened))
        moved = 0
        waiting = ""  # the request id of this seat's move not answered yet
        over = False
        while not over or waiting:  # the last move's answer may follow the match's end
            left = window.end - time.perf_counter()
            if left <= 0:
                return False
            try:
                update = await asyncio.wait_for(stream.read(), timeout=left + 0.5)
            except TimeoutError:
                return False
            if update is grpc.aio.EOF:
                return False
            alone = update.HasField("answer")
            if alone or update.HasField("answered"):  # alone, or with its move's event
                answer = update.answer if alone else update.answered
                if answer.request_id == waiting:
                    waiting = ""
                sent = kept.sent.pop(answer.request_id, None)
                if answer.HasField("error"):
                    window.error(f"playkept: move answered {answer.error.code}")
                elif sent is not None:
                    window.move(sent, time.perf_counter())
                if alone:
                    continue
            event = update.event
            if not event.HasField("snapshot"):
                continue
            snapshot = event.snapshot
            if snapshot.match.status == pb.MATCH_STATUS_FINISHED:
                over = True
                continue
            if list(snapshot.to_act) != [seat] or window.over():
                continue
            board = board_of(snapshot)
            cell = rng.choice([i for i, c in enumerate(board) if c == "."])
            request_id = waiting = f"k-{slot}-{count}-{seat}-{moved}"
            kept.sent[request_id] = time.perf_counter()
            await stream.write(
                pb.PlayRequest(
                    move=pb.PlayMove(
                        payload=PACKED[cell],
                        expected_version=snapshot.version,
                        request_id=request_id,
                    )
                )
            )
            moved += 1
        return True

    return all(await asyncio.gather(seat_loop(0), seat_loop(1)))


def percentile(ordered: list[float], p: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000


async def main_async(args: argparse.Namespace) -> dict:
    pids = [int(p) for p in args.pids.split(",") if p]
    channels = [
        (grpc.aio.insecure_channel(args.address), grpc.aio.insecure_channel(args.address))
        for _ in range(args.matches)
    ]
    stubs = [(pb_grpc.MatchServiceStub(a), pb_grpc.MatchServiceStub(b)) for a, b in channels]
    for a, b in channels:
        await asyncio.wait_for(a.channel_ready(), 20)
        await asyncio.wait_for(b.channel_ready(), 20)
    window = Window(args.warmup, args.duration)
    gc.collect()
    gc.freeze()
    tasks = [
        asyncio.create_task(play_slot(stubs[i], i, args.mode, window, args.seed))
        for i in range(args.matches)
    ]
    await asyncio.sleep(max(0.0, window.start - time.perf_counter()))
    gc.collect()
    gc.disable()  # the load generator's own collections would pause its clocks
    server_before = [cpu_seconds(p) for p in pids]
    self_before = sum(os.times()[:2])
    machine_before = machine_jiffies()
    wall_before = time.perf_counter()
    await asyncio.sleep(max(0.0, window.end - time.perf_counter()))
    wall_after = time.perf_counter()
    server_after = [cpu_seconds(p) for p in pids]
    self_after = sum(os.times()[:2])
    machine_after = machine_jiffies()
    rss = [rss_kib(p) for p in pids]
    gc.enable()
    done, pending = await asyncio.wait(tasks, timeout=15)
    for task in pending:
        task.cancel()
    errors: dict[str, int] = {}
    for task in done:
        if task.exception() is not None:
            name = type(task.exception()).__name__ + ": " + str(task.exception())[:200]
            errors[name] = errors.get(name, 0) + 1
    for a, b in channels:
        await a.close()
        await b.close()
    elapsed = wall_after - wall_before
    ordered = sorted(window.latencies)
    server_cpu = [after - before for before, after in zip(server_before, server_after, strict=True)]
    moves = max(1, window.moves)
    busy = (machine_after[0] - machine_before[0]) / TICK / elapsed
    steal = (machine_after[1] - machine_before[1]) / TICK / elapsed
    ours = (sum(server_cpu) + self_after - self_before) / elapsed
    return {
        "server": "serai",
        "mode": args.mode,
        "matches": args.matches,
        "window_s": elapsed,
        "moves": window.moves,
        "finished_matches": window.matches,
        "moves_per_s": window.moves / elapsed,
        "matches_per_s": window.matches / elapsed,
        "p50_ms": percentile(ordered, 0.50),
        "p99_ms": percentile(ordered, 0.99),
        "server_cpu_ms_per_move_each": [c * 1000 / moves for c in server_cpu],
        "server_cpu_ms_per_move": sum(server_cpu) * 1000 / moves,
        "server_cpu_ms_per_match": sum(server_cpu) * 1000 / max(1, window.matches),
        "client_cpu_ms_per_move": (self_after - self_before) * 1000 / moves,
        "server_rss_mib_each": [r / 1024 for r in rss],
        "server_rss_mib": sum(rss) / 1024,
        "machine_busy_cores": busy,
        "steal_cores": steal,
        "other_cores": busy - ours,
        "window_errors": window.errors,
        "slot_errors": errors,
        "slots_unfinished": len(pending),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--address", required=True, help="HOST:PORT of serai serve")
    parser.add_argument("--pids", default="", help="server pids (serai, redis), comma-separated")
    parser.add_argument("--matches", "-n", type=int, default=10)
    parser.add_argument(
        "--mode",
        choices=("list", "submit", "watch", "play", "playkept", "setup"),
        default="list",
    )
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
