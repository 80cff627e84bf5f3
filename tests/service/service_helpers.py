"""Service test helpers: join seats, expect status codes, record what a client receives."""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from serai.api import match_service_pb2 as pb

T = TypeVar("T")


def create(stub: Any, game: str = "tiny", seats: int = 2, seed: int = 7, **options: str) -> str:
    request = pb.CreateMatchRequest(game=game, seats=seats, seed=seed, options=options)
    return str(stub.CreateMatch(request).match.match_id)


def join_all(stub: Any, match_id: str, seats: int) -> list[str]:
    """Join every seat in order; the tokens by seat."""
    tokens = []
    for seat in range(seats):
        joined = stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, player_name=f"p{seat}"))
        assert joined.seat == seat
        tokens.append(joined.seat_token)
    return tokens


def at_once(calls: list[Callable[[], T]]) -> list[T]:
    """Each call in its own thread, all released at the same moment: their answers, in the
    order they came back (a race between replicas, left to the scheduler)."""
    barrier = threading.Barrier(len(calls))
    answers: list[T] = []

    def run(call: Callable[[], T]) -> None:
        barrier.wait()
        answers.append(call())

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers


def status_of(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    """The status code and details of a call that must fail."""
    with pytest.raises(grpc.RpcError) as failure:
        call()
    return failure.value.code(), failure.value.details()


class RecordingStub:
    """A MatchService stub that keeps the bytes of every message and error detail it receives."""

    def __init__(self, stub: Any) -> None:
        self._stub = stub
        self.received: list[bytes] = []
        self.messages: list[Any] = []
        self._lock = threading.Lock()

    def _keep(self, data: bytes, message: Any = None) -> None:
        with self._lock:
            self.received.append(data)
            if message is not None:
                self.messages.append(message)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._stub, name)

        def call(request: Any, **kwargs: Any) -> Any:
            try:
                answer = method(request, **kwargs)
            except grpc.RpcError as error:
                self._keep(str(error.details()).encode())
                raise
            if name == "Watch":
                return self._stream(answer)
            self._keep(answer.SerializeToString(), answer)
            return answer

        return call

    def _stream(self, answers: Iterator[Any]) -> Iterator[Any]:
        try:
            for answer in answers:
                self._keep(answer.SerializeToString(), answer)
                yield answer
        except grpc.RpcError as error:
            self._keep(str(error.details()).encode())
            raise

    def everything(self) -> bytes:
        with self._lock:
            return b"\n".join(self.received)


class Watcher(threading.Thread):
    """Reads a Watch stream to its end in the background; ``events`` holds what arrived."""

    def __init__(self, stub: Any, match_id: str, token: str = "", after: str = "") -> None:
        super().__init__(daemon=True)
        self.stub, self.match_id, self.token, self.after = stub, match_id, token, after
        self.events: list[pb.MatchEvent] = []
        self.error: Exception | None = None
        self.stream: Any = None

    def run(self) -> None:
        request = pb.WatchRequest(
            match_id=self.match_id, seat_token=self.token, after_event_id=self.after
        )
        try:
            self.stream = self.stub.Watch(request)
            for event in self.stream:
                self.events.append(event)
        except Exception as error:
            self.error = error

    def finish(self, timeout: float = 30) -> list[pb.MatchEvent]:
        self.join(timeout)
        assert not self.is_alive(), "the Watch stream did not end after the match finished"
        assert self.error is None, self.error
        return self.events


def watch_all(stub: Any, match_id: str, token: str = "", after: str = "") -> list[pb.MatchEvent]:
    """Every event of a finished match after ``after``, read until the stream ends."""
    watcher = Watcher(stub, match_id, token, after)
    watcher.start()
    return watcher.finish()


# A stand-in redis-server that loads its data for a while: it answers PING with -LOADING until
# then (INFO, which Redis answers while loading, says whose it is), then +PONG. It listens on its
# --unixsocket if given (a private embedded Redis), else on --bind:--port, and says OK to the rest
# (AUTH too). It leaves a file "loading" in its --dir once it listens.
_SLOW_LOADER = """#!{python}
import os, socket, sys, threading, time
args = sys.argv[1:]
began = time.monotonic()
info = b"# Server\\r\\nprocess_id:%d\\r\\n" % os.getpid()

def command(stream):
    line = stream.readline().strip()
    if not line.startswith(b"*"):
        return line.split()  # an inline command
    words = []
    for _ in range(int(line[1:])):
        size = int(stream.readline().strip()[1:])
        words.append(stream.read(size + 2)[:-2])
    return words

def serve(conn):
    with conn, conn.makefile("rb") as stream:
        while words := command(stream):
            name = words[0].upper()
            if name == b"PING":
                loading = time.monotonic() - began < {loading_seconds}
                conn.sendall(b"-LOADING Redis is loading\\r\\n" if loading else b"+PONG\\r\\n")
            elif name == b"INFO":
                conn.sendall(b"$%d\\r\\n%s\\r\\n" % (len(info), info))
            elif name == b"HELLO":  # redis-py asks for RESP3
                conn.sendall(b"%1\\r\\n+proto\\r\\n:3\\r\\n")
            else:
                conn.sendall(b"+OK\\r\\n")

if "--unixsocket" in args:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(args[args.index("--unixsocket") + 1])
    listener.listen()
else:
    host, port = args[args.index("--bind") + 1], int(args[args.index("--port") + 1])
    listener = socket.create_server((host, port))
open(os.path.join(args[args.index("--dir") + 1], "loading"), "w").close()
while True:
    threading.Thread(target=serve, args=(listener.accept()[0],), daemon=True).start()
"""


def slow_redis_server(path: Path, loading_seconds: float) -> Path:
    """Write the stand-in redis-server above to ``path`` (executable); returns ``path``."""
    script = _SLOW_LOADER.replace("{python}", sys.executable)
    path.write_text(script.replace("{loading_seconds}", repr(loading_seconds)))
    path.chmod(0o755)
    return path


class PlayStream:
    """A Play stream driven from a test: ``send`` queues requests (the first, ``open``, is sent
    at once), a background thread reads every update into ``updates``; ``next`` takes one."""

    def __init__(
        self, stub: Any, match_id: str, token: str, after: str = "", **open_fields: Any
    ) -> None:
        self._requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        self._updates: queue.Queue[pb.PlayUpdate | BaseException | None] = queue.Queue()
        self.received: list[pb.PlayUpdate] = []
        opened = pb.PlayOpen(
            match_id=match_id, seat_token=token, after_event_id=after, **open_fields
        )
        self.send(pb.PlayRequest(open=opened))
        self.call = stub.Play(self._outgoing(), timeout=120)
        threading.Thread(target=self._read, daemon=True).start()

    def _outgoing(self) -> Iterator[pb.PlayRequest]:
        while (request := self._requests.get()) is not None:
            yield request

    def _read(self) -> None:
        try:
            for update in self.call:
                self._updates.put(update)
        except BaseException as error:
            self._updates.put(error)
            return
        self._updates.put(None)

    def send(self, request: pb.PlayRequest) -> None:
        self._requests.put(request)

    def move(
        self, request_id: str, move_id: str = "", expected_version: int = 0, payload: Any = None
    ) -> None:
        move = pb.PlayMove(request_id=request_id, expected_version=expected_version)
        if payload is not None:
            move.payload.CopyFrom(payload)
        else:
            move.move_id = move_id
        self.send(pb.PlayRequest(move=move))

    def next(self, timeout: float = 60) -> pb.PlayUpdate | None:
        """The next update; None once the stream ended OK; raises the status it ended with."""
        item = self._updates.get(timeout=timeout)
        if isinstance(item, BaseException):
            raise item
        if item is not None:
            self.received.append(item)
        return item

    def answer(self, timeout: float = 60) -> pb.PlayAnswer:
        """The next answer, alone or with an event (PlayOpen.answer_with_event); the updates
        before it are kept in ``received``."""
        while True:
            update = self.next(timeout)
            assert update is not None, "the stream ended before the answer came"
            if update.HasField("answer"):
                return update.answer
            if update.HasField("answered"):
                return update.answered

    def close(self) -> None:
        self._requests.put(None)
        self.call.cancel()
