"""The gRPC port's connections held to a number per client address, which grpc core does not
count (``grpc.max_allowed_incoming_connections`` caps only all of them together, so one address
could take every slot, or every file descriptor the process may open).

grpc core accepts its own connections and tells Python nothing of them. So a guard looks at this
process's sockets on the port every ``every`` seconds (psutil: /proc on Linux) and ends the
connections of an address past ``per_peer`` (the host; an IPv6 /64 as one, as
:func:`serai.rpc.limits.quota_key_of` counts callers): ``shutdown(2)`` on a duplicate of the
socket's descriptor ends the connection itself, so grpc sees it close and frees it. A connection
past the limit lives until the next look (a second by default), long enough for nothing. The
lowest descriptors of an address are kept (the older ones, mostly); a descriptor is ended only
if it is still the connection that was counted. Where psutil cannot list this process's sockets
(not Linux, or no /proc), the guard logs that once and does nothing. Example::

    guard = PeerConnectionGuard(port=50051, per_peer=256)
    guard.start()            # on the running loop
    ...
    await guard.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections import defaultdict
from typing import Any

import psutil
import structlog

from serai.rpc.limits import quota_key_of

log = structlog.get_logger("serai.service")


class PeerConnectionGuard:
    """Ends the connections to ``port`` of any address holding more than ``per_peer``."""

    def __init__(self, port: int, per_peer: int, *, every: float = 1.0) -> None:
        self.port = port
        self.per_peer = per_peer
        self.every = every
        self.ended = 0  # connections ended so far (for tests and logs)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.per_peer > 0 and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._guard())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _guard(self) -> None:
        while True:
            try:
                ended = await asyncio.to_thread(self.look)
            except (psutil.Error, OSError, NotImplementedError) as error:
                log.warning(
                    "cannot count gRPC connections per address: the per-address limit is off",
                    error=str(error),
                )
                return
            if ended:
                log.warning(
                    "gRPC connections past the per-address limit ended",
                    ended=ended,
                    per_peer=self.per_peer,
                )
            await asyncio.sleep(self.every)

    def look(self) -> int:
        """Count the port's connections by address and end those past the limit: how many."""
        by_peer: dict[str, list[tuple[int, Any]]] = defaultdict(list)
        for connection in psutil.Process().net_connections(kind="tcp"):
            if (
                connection.fd < 0
                or not connection.raddr
                or connection.laddr.port != self.port
                or connection.status == psutil.CONN_LISTEN
            ):
                continue
            peer = quota_key_of(f"ipv6:[{connection.raddr.ip}]:{connection.raddr.port}")
            by_peer[peer].append((connection.fd, connection.raddr))
        ended = 0
        for held in by_peer.values():
            if len(held) > self.per_peer:
                for fd, raddr in sorted(held)[self.per_peer :]:
                    ended += _end(fd, self.port, raddr)
        self.ended += ended
        return ended


def _end(fd: int, port: int, raddr: Any) -> int:
    """Shut down the connection behind ``fd`` if it is still the one counted (the descriptor
    may have been closed and reused since): 1 if ended."""
    try:
        duplicate = socket.socket(fileno=os.dup(fd))
    except OSError:
        return 0  # closed meanwhile
    with duplicate:
        try:
            if duplicate.type != socket.SOCK_STREAM or duplicate.getsockname()[1] != port:
                return 0
            if duplicate.getpeername()[:2] != (raddr.ip, raddr.port):
                return 0
            duplicate.shutdown(socket.SHUT_RDWR)
        except OSError:
            return 0
    return 1
