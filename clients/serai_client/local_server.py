"""A whole serai server for one command, when no ``--server`` is given (play, arena).

It runs the real service — the same :func:`serai.transports.grpc.server.build_server` over
:class:`serai.matches.Matches` and a :class:`serai.store.redis.store.RedisStore` — on a private
redis-server (:class:`serai.store.embedded.EmbeddedRedis`, nothing kept on disk), in a
background thread with its own event loop. Clients reach it over gRPC like any other server.

Example::

    with embedded_server() as target:          # "127.0.0.1:41234"
        with SeraiClient(target) as client:
            print(client.list_games())
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def embedded_server(host: str = "127.0.0.1") -> Iterator[str]:
    """Start a server and its Redis; yield ``host:port``; stop both on exit."""
    from serai.store.embedded import EmbeddedRedis

    with tempfile.TemporaryDirectory(prefix="serai-embedded-") as data_dir:
        redis = EmbeddedRedis(data_dir, persistent=False)
        redis.start()
        try:
            with _ServerThread(redis.url, host) as target:
                yield target
        finally:
            redis.stop()


class _ServerThread:
    def __init__(self, redis_url: str, host: str) -> None:
        self.redis_url = redis_url
        self.host = host
        self.port = 0
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name="serai-embedded", daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        self._ready.wait(30)
        if self.error is not None:
            raise RuntimeError(f"the embedded server did not start: {self.error}") from self.error
        if not self.port:
            raise RuntimeError("the embedded server did not start within 30 s")
        return f"{self.host}:{self.port}"

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:  # reported to the starting thread
            self.error = error
            self._ready.set()

    async def _serve(self) -> None:
        from serai import registry
        from serai.matches import Matches
        from serai.store.redis.store import RedisStore
        from serai.transports.grpc.server import build_server

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        store: Any = RedisStore.from_url(self.redis_url)
        server = await build_server(Matches(store, registry.load()))
        self.port = await server.start(self.host, 0)
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await server.stop(grace=1.0)
            await store.close()
