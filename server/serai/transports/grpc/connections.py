"""The gRPC port's connections held to a number per client address, which grpc core does not
count (``grpc.max_allowed_incoming_connections`` caps only all of them together, so one address
could take every slot, or every file descriptor the process may open).

grpc core accepts its own connections and tells Python nothing of them. So a guard looks at this
process's sockets on the port every ``every`` seconds (each socket descriptor in /proc/self/fd
asked for its own and its peer's address) and ends the connections of an address past
``per_peer`` (the host; an IPv6 /64 as one, as :func:`serai.rpc.limits.quota_key_of` counts
callers): ``shutdown(2)`` on a duplicate of the socket's descriptor ends the connection itself,
so grpc sees it close and frees it. A connection past the limit lives until the next look (a
second by default), long enough for nothing. The lowest descriptors of an address are kept (the
older ones, mostly); a descriptor is ended only if it is still the connection that was counted.
Where the process's descriptors cannot be listed (no /proc), the guard logs that once and does
nothing. Example::

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
from collections.abc import Iterator

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
            except OSError as error:
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
        by_peer: dict[str, list[tuple[int, tuple[str, int]]]] = defaultdict(list)
        for fd, peer in _connections(self.port):
            host = peer[0].partition("%")[0]  # a link-local address's zone is no part of it
            by_peer[quota_key_of(f"ipv6:[{host}]:{peer[1]}")].append((fd, peer))
        ended = 0
        for held in by_peer.values():
            if len(held) > self.per_peer:
                for fd, peer in sorted(held)[self.per_peer :]:
                    ended += _end(fd, self.port, peer)
        self.ended += ended
        return ended


def _connections(port: int) -> Iterator[tuple[int, tuple[str, int]]]:
    """This process's TCP connections to ``port``: each descriptor and its peer's host and port,
    asked of each socket itself. Not from /proc/net/tcp (psutil's way), which lists every socket
    of the host: the kernel walks its whole socket table to write it, ~10 ms of CPU a look on a
    busy host, where this costs a few microseconds a descriptor of this process."""
    for name in os.listdir("/proc/self/fd"):
        try:
            if not os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                continue
            with socket.socket(fileno=os.dup(int(name))) as duplicate:
                if (
                    duplicate.type != socket.SOCK_STREAM
                    or duplicate.family not in (socket.AF_INET, socket.AF_INET6)
                    or duplicate.getsockname()[1] != port
                ):
                    continue
                peer = duplicate.getpeername()  # OSError for the listening socket
        except OSError:
            continue  # closed meanwhile, not connected, or listdir's own descriptor
        yield int(name), (peer[0], peer[1])


def _end(fd: int, port: int, peer: tuple[str, int]) -> int:
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
            if duplicate.getpeername()[:2] != peer:
                return 0
            duplicate.shutdown(socket.SHUT_RDWR)
        except OSError:
            return 0
    return 1
