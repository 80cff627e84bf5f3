"""One Redis connection shared by many concurrent commands (auto-pipelining), for the store's
hot path: the EVALSHA of every load and commit (see RedisStore._run).

Why: through a pool, each of N concurrent commands takes a connection of its own, a write
system call, a read wake-up of its task, a pool checkout and a read timeout of its own. Here the
commands of one event loop iteration go out in one write on one socket, and the replies that
one read brings are handed to their callers in one go: about a fifth less server CPU per
SubmitMove and a sixth more throughput at 100 concurrent calls.

How: redis-py's own connection class makes the connection and its handshake (TLS, AUTH, SELECT,
client name: the pool's options, RESP2 forced, see below), then its transport is handed to
:class:`_Line`, an asyncio Protocol that feeds a hiredis Reader and answers a queue of futures
in order (Redis answers the commands of one connection in the order they came).

RESP2 on this connection: RESP3 lets the server push messages (maintenance notifications) that
are no command's reply; RESP2 has none outside pub/sub, so every reply answers the oldest
command waiting. The scripts' replies are the same in both.

Failure semantics (what a caller of :meth:`Multiplexed.execute` sees):

- an error reply raises what redis-py's parser raises for it (NoScriptError, ResponseError, ...);
  the connection stays up;
- the connection lost (or never made): every command waiting fails with redis-py's
  ConnectionError; the next command connects again;
- no reply within ``socket_timeout`` of the oldest command waiting (one timer per connection):
  every command waiting fails with redis-py's TimeoutError and the connection is dropped;
- a caller cancelled while waiting: its reply is read and dropped when it comes, so the others
  still get their own;
- a command is queued whole and written whole with the others of its loop iteration, or fails:
  never half of one on the wire followed by another;
- with the pool's ``health_check_interval`` (the URL's ``?health_check_interval=30``), a command
  on a connection that heard nothing for longer than that waits for a PING on it first, and goes
  on a new connection if the PING fails. A connection the server closed is noticed at once
  anyway (the socket is always read); this is for one that died silently (a NAT or a firewall
  that forgot it), where the command would wait out the timeout and fail.

Commands are not retried here: a command that went out may have run, as with the pool.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import hiredis
from redis import exceptions as redis_errors
from redis._parsers.base import BaseParser
from redis.asyncio.connection import AbstractConnection, ConnectionPool


class _Line(asyncio.Protocol):
    """One connected socket: commands written in order, replies matched to them in order."""

    def __init__(
        self,
        connection: AbstractConnection,
        reader: hiredis.Reader,
        timeout: float | None,
        track_idle: bool = False,
    ) -> None:
        self.connection = connection  # redis-py's, kept for its transport and its host's name
        self.reader = reader
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        # (future, loop time sent) of each command written or to write, oldest first.
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self.out: list[bytes] = []  # whole commands to write at the end of this loop iteration
        self.flushing = False
        self.timer: asyncio.TimerHandle | None = None
        self.closed = False
        self.lost = self.loop.create_future()  # set once connection_lost has run
        self.track_idle = track_idle  # for health checks; the clock costs a little a read
        self.heard = self.loop.time()  # when a reply last came (with track_idle)
        self.check: asyncio.Task[None] | None = None  # the health check PING on its way

    def attach(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        transport.set_protocol(self)

    def send(self, command: bytes) -> asyncio.Future[Any]:
        future = self.loop.create_future()
        now = self.loop.time()
        self.waiting.append((future, now))
        self.out.append(command)
        if not self.flushing:  # the others of this iteration join it: one write for all
            self.flushing = True
            self.loop.call_soon(self._flush)
        if self.timer is None and self.timeout is not None:
            self.timer = self.loop.call_at(now + self.timeout, self._check_timeout)
        return future

    def _flush(self) -> None:
        self.flushing = False
        if self.closed or self.transport is None:
            return  # the commands queued were failed with the connection
        data = b"".join(self.out)
        self.out.clear()
        self.transport.write(data)  # buffered whole; a lost connection calls connection_lost

    def _check_timeout(self) -> None:
        self.timer = None
        if not self.waiting:
            return
        # Replies do not move the timer (that would cost a timer per reply): it looks at the
        # oldest command still waiting when it fires, and is set again for that one.
        timeout, sent = self.timeout or 0.0, self.waiting[0][1]
        if self.loop.time() - sent >= timeout:
            host = self.connection._host_error()
            self.close(redis_errors.TimeoutError(f"Timeout reading from {host}"))
        else:
            self.timer = self.loop.call_at(sent + timeout, self._check_timeout)

    def idle_for(self) -> float:
        """Seconds since a reply came, with no command waiting (0 while one waits: its reply
        or its timeout tells)."""
        return 0.0 if self.waiting else self.loop.time() - self.heard

    def data_received(self, data: bytes) -> None:
        if self.track_idle:
            self.heard = self.loop.time()
        self.reader.feed(data)
        gets, pop = self.reader.gets, self.waiting.popleft
        try:
            while (reply := gets()) is not False:
                if not self.waiting:
                    raise redis_errors.InvalidResponse("a reply to no command")
                future = pop()[0]
                if not future.done():  # a cancelled caller: its reply is dropped, in its turn
                    future.set_result(reply)
        except redis_errors.InvalidResponse as error:  # the stream cannot be followed any more
            self.close(error)

    def eof_received(self) -> bool:
        return False  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        host = self.connection._host_error()
        if exc is None:
            error = redis_errors.ConnectionError(f"Connection closed by server: {host}.")
        else:
            error = redis_errors.ConnectionError(f"Error while reading from {host} : {exc}")
        self._fail(error)
        self.connection._close()  # redis-py's side of it: the transport is already closed
        if not self.lost.done():
            self.lost.set_result(None)

    def close(self, error: Exception) -> None:
        """Fail every command waiting with ``error`` and drop the connection."""
        self._fail(error)
        if self.transport is not None:
            self.transport.close()  # connection_lost follows
        elif not self.lost.done():
            self.lost.set_result(None)

    def _fail(self, error: Exception) -> None:
        self.closed = True
        self.out.clear()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        while self.waiting:
            future = self.waiting.popleft()[0]
            if not future.done():
                future.set_exception(error)


_PING = b"*1\r\n$4\r\nPING\r\n"


async def _ping(line: _Line) -> None:
    """A health check: a PING on ``line``, which is closed if no reply comes in time."""
    try:
        await line.send(_PING)  # an error reply (LOADING, say) is a reply: the line is alive
    except (redis_errors.ConnectionError, redis_errors.TimeoutError) as error:
        line.close(error)  # closed already, by the loss or the timeout: this only makes sure
    finally:
        line.check = None


class Multiplexed:
    """Commands of many concurrent callers on one connection made as ``pool`` makes its own.

    >>> # store = Multiplexed(pool); reply = await store.execute(packed_evalsha)
    """

    def __init__(self, pool: ConnectionPool) -> None:
        # The pool's connection options, RESP2 (see the module docstring): the same handshake.
        self._kwargs = {**pool.connection_kwargs, "protocol": 2}
        self._connection_class = pool.connection_class
        self._health_check_interval = float(self._kwargs.get("health_check_interval") or 0)
        self._line: _Line | None = None
        self._opening: asyncio.Task[_Line] | None = None

    async def execute(self, command: bytes) -> Any:
        """The reply to ``command`` (packed, as a connection's pack_command packs it); an error
        reply raises as redis-py does (see the module docstring)."""
        line = self._line
        if line is None or line.closed:
            line = await self._connect()
        elif self._health_check_interval and (
            line.check is not None or line.idle_for() > self._health_check_interval
        ):
            line = await self._checked(line)
        reply = await line.send(command)
        if isinstance(reply, redis_errors.ResponseError):
            raise reply
        return reply

    async def _checked(self, line: _Line) -> _Line:
        """``line`` once a PING answered on it, else a new connection. Callers arriving while
        the PING is on its way wait for it: none of them sends behind a PING that may fail."""
        if line.check is None:
            line.check = asyncio.get_running_loop().create_task(_ping(line))
        await asyncio.shield(line.check)
        return await self._connect() if line.closed else line

    async def _connect(self) -> _Line:
        # Callers arriving while a connection is being made wait for that one, and fail with
        # it: a Redis down costs each of them one connect timeout, not one each in turn.
        # Shielded: a cancelled caller does not cancel the others' connect.
        if self._opening is None:
            self._opening = asyncio.get_running_loop().create_task(self._open())
            self._opening.add_done_callback(self._opened)
        return await asyncio.shield(self._opening)

    def _opened(self, task: asyncio.Task[_Line]) -> None:
        self._opening = None
        if task.cancelled():
            return
        error = task.exception()  # retrieved, even if every caller went away
        if error is None:
            self._line = task.result()

    async def _open(self) -> _Line:
        connection: AbstractConnection = self._connection_class(**self._kwargs)
        try:
            await connection.connect()  # redis-py's connect and handshake
            writer, reader = connection._writer, connection._reader
            if writer is None or reader is None or reader._buffer:  # type: ignore[attr-defined]
                raise redis_errors.ConnectionError("the connection is not ready for commands")
            encoder = connection.encoder
            options: dict[str, Any] = {
                "protocolError": redis_errors.InvalidResponse,
                "replyError": BaseParser.parse_error,  # redis-py's error classes, NOSCRIPT too
            }
            if encoder.decode_responses:
                options["encoding"] = encoder.encoding
                options["errors"] = encoder.encoding_errors
            line = _Line(
                connection,
                hiredis.Reader(**options),
                connection.socket_timeout,
                track_idle=self._health_check_interval > 0,
            )
            line.attach(writer.transport)  # type: ignore[arg-type]
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        return line

    def drop(self, error: Exception) -> None:
        """Fail the commands waiting with ``error`` and drop the connection; the next command
        makes a new one. For a Redis found not answering: its callers need not wait out the
        read timeout."""
        line = self._line
        if line is not None and not line.closed:
            line.close(error)

    async def close(self) -> None:
        """Fail the commands waiting, close the connection and wait until it is closed."""
        opening, self._opening = self._opening, None
        if opening is not None:
            opening.cancel()
            await asyncio.wait([opening])
            if not opening.cancelled() and opening.exception() is None:
                self._line = opening.result()  # made before the cancel reached it: close it
        line, self._line = self._line, None
        if line is not None:
            line.close(redis_errors.ConnectionError("The store is closed."))
            await line.lost
