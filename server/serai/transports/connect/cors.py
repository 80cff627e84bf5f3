"""CORS for browsers calling serai from another origin: preflights answered, the Connect and
gRPC-Web headers allowed and exposed, for the origins the operator names and no others.

An ASGI middleware: a preflight (OPTIONS with Access-Control-Request-Method) from an allowed
origin gets 204 and the allow headers, from any other 403; an actual request from an allowed
origin gets Access-Control-Allow-Origin and the exposed headers on its response, from any other
nothing (so the browser keeps the answer from the page). Example::

    app = Cors(app, origins=["https://play.example.com"])   # "*" allows every origin
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# What a Connect or gRPC-Web client sends and must read (connectrpc.com/docs/cors).
ALLOWED_METHODS = "GET, POST"
ALLOWED_HEADERS = (
    "Content-Type, Content-Encoding, Accept-Encoding, Connect-Protocol-Version, "
    "Connect-Timeout-Ms, Connect-Content-Encoding, Connect-Accept-Encoding, Grpc-Timeout, "
    "Grpc-Encoding, Grpc-Accept-Encoding, X-Grpc-Web, X-User-Agent, "
    # An app's API key (serai.rpc.auth): a page on another origin sends it with each call.
    "Authorization, X-Serai-Key"
)
EXPOSED_HEADERS = (
    "Content-Encoding, Connect-Content-Encoding, Grpc-Status, Grpc-Message, "
    "Grpc-Status-Details-Bin, Grpc-Encoding"
)
MAX_AGE_SECONDS = "7200"

Scope = dict[str, Any]


class Cors:
    """``app`` answering cross-origin requests from ``origins`` (exact, e.g.
    ``https://play.example.com``; ``*`` for any)."""

    def __init__(self, app: Any, origins: Iterable[str]) -> None:
        self.app = app
        self.origins = frozenset(origin.rstrip("/") for origin in origins)
        self._any = "*" in self.origins

    def allows(self, origin: str) -> bool:
        return self._any or origin in self.origins

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        origin = headers.get(b"origin", b"").decode("latin-1")
        if not origin:  # not a browser's cross-origin call
            await self.app(scope, receive, send)
            return
        allowed = self.allows(origin)
        if scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            await self._preflight(send, origin, allowed)
            return
        if not allowed:
            await self.app(scope, receive, send)
            return
        extra = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-expose-headers", EXPOSED_HEADERS.encode()),
            (b"vary", b"Origin"),
        ]

        async def send_with_cors(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cors)

    async def _preflight(self, send: Any, origin: str, allowed: bool) -> None:
        headers = [(b"vary", b"Origin"), (b"content-length", b"0")]
        if allowed:
            headers += [
                (b"access-control-allow-origin", origin.encode("latin-1")),
                (b"access-control-allow-methods", ALLOWED_METHODS.encode()),
                (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                (b"access-control-max-age", MAX_AGE_SECONDS.encode()),
            ]
        await send(
            {"type": "http.response.start", "status": 204 if allowed else 403, "headers": headers}
        )
        await send({"type": "http.response.body", "body": b""})
