"""Whether a Redis answers, and whose it is: for waiting on a redis-server being started, and for
finding the one that already serves a data folder (``serai replay --data-dir``)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import redis
from redis.connection import parse_url


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (a race is possible; callers retry)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def ping(
    host: str,
    port: int,
    timeout: float = 0.5,
    unix_socket: Path | None = None,
    password: str | None = None,
) -> bool:
    """True if a Redis answers PING on host:port, or on ``unix_socket`` when given (plain RESP),
    having been given ``password`` first if any."""
    return reply_to_ping(host, port, timeout, unix_socket, password).startswith(b"+PONG")


def reply_to_ping(
    host: str,
    port: int,
    timeout: float = 0.5,
    unix_socket: Path | None = None,
    password: str | None = None,
) -> bytes:
    """The start of the answer to PING (``-LOADING ...`` while Redis reads its data, ``-NOAUTH``
    without the password, ``-WRONGPASS`` with another); b"" if nothing answers."""
    try:
        if unix_socket is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(str(unix_socket))
            except OSError:  # not listening yet: do not leave the socket to the collector
                sock.close()
                raise
        else:
            sock = socket.create_connection((host, port), timeout=timeout)
        with sock:
            replies = 1
            if password is not None:  # AUTH is answered while Redis loads, PING is not
                secret = password.encode()
                sock.sendall(b"*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n" % (len(secret), secret))
                replies = 2
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            received = b""
            while received.count(b"\r\n") < replies:
                chunk = sock.recv(256)
                if not chunk:
                    break
                received += chunk
                if received.startswith(b"-"):  # the password was refused: no PING answer
                    return received
            return (
                received.split(b"\r\n")[replies - 1] if received.count(b"\r\n") >= replies else b""
            )
    except OSError:
        return b""


def served_by(
    pid: int, host: str, port: int, unix_socket: Path | None, password: str | None = None
) -> bool:
    """True if the Redis on host:port (or ``unix_socket``) is the process ``pid``."""
    options: dict[str, object] = {"socket_timeout": 1.0, "password": password}
    if unix_socket is not None:
        client = redis.Redis(unix_socket_path=str(unix_socket), **options)  # type: ignore[arg-type]
    else:
        client = redis.Redis(host=host, port=port, **options)  # type: ignore[arg-type]
    try:
        return int(client.info("server")["process_id"]) == pid
    except (redis.RedisError, KeyError, ValueError):
        return False
    finally:
        client.close()


def running_in(data_dir: Path | str, host: str = "127.0.0.1") -> str | None:
    """The URL of an embedded Redis already serving ``data_dir``, if one is running."""
    info_file = Path(data_dir) / "redis.json"
    try:
        info = json.loads(info_file.read_text())
        os.kill(int(info["pid"]), 0)
        url = str(info.get("url") or f"redis://{host}:{int(info['port'])}/0")
        where = parse_url(url)
    except (OSError, ValueError, KeyError):
        return None
    path = where.get("path")
    found = ping(
        str(where.get("host", host)),
        int(where.get("port", 0)),
        unix_socket=Path(path) if path else None,
        password=where.get("password"),
    )
    return url if found else None
