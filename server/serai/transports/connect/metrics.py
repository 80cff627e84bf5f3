"""``GET /metrics`` for Prometheus, on the HTTP port or a port of its own: in front of the other
routes, so that a scrape goes through neither CORS nor the Connect protocols (see
:mod:`serai.metrics`). With a token (serve --metrics-token) a scrape must send it as
``authorization: Bearer <token>``, else 401: the figures say how busy the service is, and with
--metrics-tenants who its tenants are."""

from __future__ import annotations

import hmac
from typing import Any

from serai.metrics import CONTENT_TYPE, exposition
from serai.store import Store

PATH = "/metrics"


class MetricsRoute:
    """An ASGI app answering ``GET /metrics`` itself and passing every other request to ``app``.
    ``store``: whose indexes give the matches by status (None: not shown)."""

    def __init__(self, app: Any, store: Store | None, token: str = "") -> None:
        self.app = app
        self.store = store
        self._expected = f"Bearer {token}".encode() if token else b""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        headers = [(b"content-type", b"text/plain")]
        if self._expected and not self._authorized(scope):
            body, status = b"send the metrics token: authorization: Bearer <token>\n", 401
            headers.append((b"www-authenticate", b"Bearer"))
        else:
            try:
                body, status = await exposition(self.store), 200
                headers = [(b"content-type", CONTENT_TYPE.encode())]
            except Exception as error:  # the store is down: say so, as a scrape error
                body, status = f"{type(error).__name__}\n".encode(), 503
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: dict[str, Any]) -> bool:
        sent = dict(scope.get("headers") or ()).get(b"authorization", b"")
        return hmac.compare_digest(sent, self._expected)


async def not_found(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Every path but /metrics on the metrics port."""
    if scope["type"] != "http":
        return
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"10")]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": b"not found\n"})
