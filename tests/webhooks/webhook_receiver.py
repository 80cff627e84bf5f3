"""A webhook receiver for the tests: a small HTTP server on a free loopback port, in a thread,
that keeps every request (its headers and raw body) and answers 204 (or, while ``failing``,
503). Checking signatures is the test's business (it learns the secret after the server is up)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """``with Receiver() as hooks: ... hooks.url ... hooks.received``."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.failing = False
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.received.append(Received(self.path, dict(self.headers), body))
                self.send_response(503 if receiver.failing else 204)
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.received)
