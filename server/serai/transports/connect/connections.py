"""The HTTP port's connections held to limits uvicorn lacks: a request's headers must arrive
within ``header_seconds`` (slowloris: a client trickling a header a byte at a time, or sending
nothing, held a connection and its file descriptor for ever), and one client address may hold at
most ``per_peer`` connections (``total`` for every address together); a connection beyond them
is closed as it opens.

uvicorn's ``timeout_keep_alive`` covers only the wait between two requests, and is cancelled by
the first byte of the next; ASGI middleware sees a request only once its headers are complete.
So the deadline lives in the protocol: :func:`guarded_protocol` makes a subclass of uvicorn's
h11 protocol that arms a timer while h11 waits for a request's headers and disarms it once they
are in. A request's body (a long Watch, a slow upload) is not timed: it comes after its headers,
on a connection already counted. Example::

    protocol = guarded_protocol(ConnectionLimits(per_peer=100, total=10_000), header_seconds=10)
    config = uvicorn.Config(app, http=protocol, timeout_keep_alive=5)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from serai.rpc.limits import quota_key_of


@dataclass
class ConnectionLimits:
    """The connections open on one port, counted by client address (see
    :func:`serai.rpc.limits.quota_key_of`: the host, an IPv6 /64 as one). 0: no limit."""

    per_peer: int = 0
    total: int = 0
    open: int = 0
    by_peer: dict[str, int] = field(default_factory=dict)

    def admit(self, peer: str) -> bool:
        """Count a new connection from ``peer``, or False (nothing counted) past a limit."""
        if self.total and self.open >= self.total:
            return False
        held = self.by_peer.get(peer, 0)
        if peer and self.per_peer and held >= self.per_peer:
            return False
        self.open += 1
        if peer:
            self.by_peer[peer] = held + 1
        return True

    def release(self, peer: str) -> None:
        self.open -= 1
        if peer:
            left = self.by_peer.get(peer, 0) - 1
            if left > 0:
                self.by_peer[peer] = left
            else:
                self.by_peer.pop(peer, None)


def guarded_protocol(limits: ConnectionLimits, header_seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with ``limits`` on connections and ``header_seconds`` to send a
    request's headers (0: no deadline); for ``uvicorn.Config(http=...)``."""

    class GuardedH11Protocol(H11Protocol):
        _peer = ""
        _refused = False
        _late: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            address = transport.get_extra_info("peername")
            if isinstance(address, tuple) and len(address) >= 2:
                self._peer = quota_key_of(f"http:{address[0]}:{address[1]}")
            if not limits.admit(self._peer):
                self._refused = True
                transport.abort()  # nothing was read: no answer is owed, and none is sent
                return
            super().connection_made(transport)
            self._watch_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            limits.release(self._peer)
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch_headers()

        def _watch_headers(self) -> None:
            """Armed while h11 waits for a request's headers (none yet, or part of them)."""
            waiting = self.conn.their_state is h11.IDLE and not self.transport.is_closing()
            if not waiting:
                self._disarm()
            elif self._late is None and header_seconds > 0 and self._reading_request():
                self._late = self.loop.call_later(header_seconds, self._headers_late)

        def _reading_request(self) -> bool:
            """A request is due: the connection is new, or bytes of a next one came (between
            two requests the keep-alive timeout applies instead)."""
            return self.cycle is None or self.timeout_keep_alive_task is None

        def _disarm(self) -> None:
            if self._late is not None:
                self._late.cancel()
                self._late = None

        def _headers_late(self) -> None:
            self._late = None
            if self.conn.their_state is h11.IDLE:
                self.timeout_keep_alive_handler()  # closes the connection as an idle one

    return GuardedH11Protocol
