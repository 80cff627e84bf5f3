"""A TCP proxy that delays every byte by a fixed time each way: a slow network between a serai
process and Redis, without root (no tc, no network namespace).

Each chunk read from one side is written to the other ``delay`` seconds after it was read, in
order, so a round trip through the proxy costs ``2 * delay`` more and pipelining still pays off
(chunks in flight overlap), as on a real long link. Example::

    async with DelayingProxy("127.0.0.1", redis_port, delay=0.1) as proxy:
        store = RedisStore.from_url(f"redis://127.0.0.1:{proxy.port}/0")

``record=True`` keeps every byte sent towards Redis, per connection, for :meth:`count_sent`
(how many times a command or a script's SHA-1 was sent).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class DelayingProxy:
    """Listens on 127.0.0.1:<free port> (``port``) and forwards to ``host:port``, each way
    ``delay`` seconds later."""

    def __init__(self, host: str, port: int, *, delay: float, record: bool = False) -> None:
        self.target = (host, port)
        self.delay = delay
        self.record = record
        self.upstream: list[bytearray] = []  # with ``record``: each connection's bytes to Redis
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def __aenter__(self) -> DelayingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def count_sent(self, needle: bytes) -> int:
        """How many times ``needle`` was sent towards Redis (with ``record``)."""
        return sum(sent.count(needle) for sent in self.upstream)

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        try:
            server_in, server_out = await asyncio.open_connection(*self.target)
        except OSError:
            client_out.close()
            return
        self._writers.update((client_out, server_out))
        sent = bytearray() if self.record else None
        if sent is not None:
            self.upstream.append(sent)
        for reader, writer, kept in ((client_in, server_out, sent), (server_in, client_out, None)):
            task = asyncio.get_running_loop().create_task(self._pump(reader, writer, kept))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, kept: bytearray | None
    ) -> None:
        """Copy one direction: each chunk written ``delay`` after it was read (and kept)."""
        loop = asyncio.get_running_loop()
        due: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def write_when_due() -> None:
            while True:
                at, chunk = await due.get()
                if not chunk:
                    break
                wait = at - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(chunk)
                await writer.drain()
            writer.close()

        writing = loop.create_task(write_when_due())
        try:
            while True:
                chunk = await reader.read(65536)
                if kept is not None:
                    kept += chunk
                due.put_nowait((loop.time() + self.delay, chunk))
                if not chunk:
                    break
            await writing
        except OSError:  # a side went away: so does the other
            writing.cancel()
            writer.close()
        except asyncio.CancelledError:
            writing.cancel()
            writer.close()
            raise
        finally:
            self._writers.discard(writer)
