"""Connections that hold a port without using it (issue 32, item 8): on the HTTP port a request's
headers must arrive within --header-seconds and one address holds at most
--max-connections-per-peer connections; on the gRPC port a connection must finish its HTTP/2
handshake within --header-seconds, is closed after --grpc-idle-seconds without calls, at most
--max-connections are open, and one address's past --max-connections-per-peer are ended. Real
``serai serve`` processes and real sockets from the test."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

from waiting import wait_until

PREFACE = (
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
)  # + SETTINGS
GET_BOTS = b"GET /bots HTTP/1.1\r\nHost: serai\r\n\r\n"


def _split(address: str) -> tuple[str, int]:
    host, port = address.rsplit(":", 1)
    return host, int(port)


@contextlib.contextmanager
def connections(address: str, count: int, source: str = "") -> Iterator[list[socket.socket]]:
    """``count`` TCP connections to ``address`` (from the loopback address ``source``, if
    given), closed afterwards."""
    opened = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if source:
                sock.bind((source, 0))
            sock.connect(_split(address))
            opened.append(sock)
        yield opened
    finally:
        for sock in opened:
            sock.close()


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (whatever it sends first)."""
    deadline = time.monotonic() + seconds
    sock.settimeout(0.1)
    while time.monotonic() < deadline:
        try:
            if not sock.recv(65536):
                return True
        except TimeoutError:
            continue
        except ConnectionError:
            return True
    return False


def answered(address: str, source: str = "") -> bytes:
    """The status line of GET /bots on a fresh connection."""
    with connections(address, 1, source) as (sock,):
        sock.settimeout(30)
        sock.sendall(GET_BOTS)
        return sock.recv(65536).split(b"\r\n", 1)[0]


def test_http_connections_that_send_no_headers_are_closed(start_serve, redis_url):
    """A connection that sends nothing, and one that sends half its headers, are closed after
    --header-seconds; a whole request is still answered (before: both were held for ever)."""
    server = start_serve("--redis-url", redis_url, "--header-seconds", "1")
    with connections(server.http_address, 2) as (silent, partial):
        partial.sendall(b"POST /serai.v1.MatchService/GetMatch HTTP/1.1\r\nHost: serai\r\n")
        assert closed_within(silent, 60), "a silent connection was kept"
        assert closed_within(partial, 60), "a connection with half its headers was kept"
    assert answered(server.http_address).startswith(b"HTTP/1.1 200")


def test_connections_per_address_are_capped_on_both_ports(start_serve, redis_url):
    """With 3 allowed per address: a 4th HTTP connection from 127.0.0.1 is closed as it opens,
    while 127.0.0.2 is served; once one of the three closes, 127.0.0.1 is served again. On the
    gRPC port, of 5 connections from 127.0.0.1 two are ended (grpc core counts none per
    address: before, all 5 stayed), and 127.0.0.2's is kept."""
    server = start_serve(
        "--redis-url", redis_url, "--max-connections-per-peer", "3", "--header-seconds", "600"
    )
    with (
        connections(server.address, 5) as held,
        connections(server.address, 1, source="127.0.0.2") as (other,),
    ):
        for sock in (*held, other):
            sock.sendall(PREFACE)
        ended: set[socket.socket] = set()

        def two_ended() -> bool:
            ended.update(sock for sock in held if sock not in ended and closed_within(sock, 0.05))
            return len(ended) >= 2

        wait_until(two_ended, "two of five gRPC connections from one address ended", 60)
        kept = [sock for sock in held if sock not in ended]
        assert not any(closed_within(sock, 1) for sock in (*kept, other)), "ended too many"
    with connections(server.http_address, 3) as held:
        with connections(server.http_address, 1) as (extra,):
            assert closed_within(extra, 60), "a 4th connection from one address was kept"
        assert answered(server.http_address, source="127.0.0.2").startswith(b"HTTP/1.1 200")
        held[0].close()
        deadline = time.monotonic() + 60
        while True:  # the server sees the close in its own time
            with contextlib.suppress(ConnectionError):
                if answered(server.http_address).startswith(b"HTTP/1.1 200"):
                    break
            assert time.monotonic() < deadline, "a freed place was not given back"
            time.sleep(0.05)


def test_grpc_connections_that_never_handshake_or_stay_idle_are_closed(start_serve, redis_url):
    """On the gRPC port: a connection that sends nothing is closed after --header-seconds, one
    that handshakes and makes no call after --grpc-idle-seconds (before: 120 s and never)."""
    server = start_serve(
        "--redis-url", redis_url, "--header-seconds", "1", "--grpc-idle-seconds", "1"
    )
    with connections(server.address, 2) as (silent, idle):
        idle.sendall(PREFACE)
        assert closed_within(silent, 60), "a connection without a handshake was kept"
        assert closed_within(idle, 60), "an idle connection was kept"


def test_grpc_connections_beyond_the_cap_are_closed(start_serve, redis_url):
    """With --max-connections 3, a 4th connection to the gRPC port is closed as it opens."""
    server = start_serve(
        "--redis-url", redis_url, "--max-connections", "3", "--header-seconds", "600"
    )
    with connections(server.address, 3) as held:
        for sock in held:
            sock.sendall(PREFACE)
        with connections(server.address, 1) as (extra,):
            assert closed_within(extra, 60), "a 4th connection was kept"
        assert not closed_within(held[0], 0.5)
