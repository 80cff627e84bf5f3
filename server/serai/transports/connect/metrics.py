"""``GET /metrics`` on the HTTP port, for Prometheus: in front of the other routes, so that a
scrape goes through neither CORS nor the Connect protocols (see :mod:`serai.metrics`)."""

from __future__ import annotations

from typing import Any

from serai.metrics import CONTENT_TYPE, exposition
from serai.store import Store

PATH = "/metrics"


class MetricsRoute:
    """An ASGI app answering ``GET /metrics`` itself and passing every other request to ``app``.
    ``store``: whose indexes give the matches by status (None: not shown)."""

    def __init__(self, app: Any, store: Store | None) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        try:
            body, status, kind = await exposition(self.store), 200, CONTENT_TYPE
        except Exception as error:  # the store is down: say so, as a scrape error
            body, status, kind = f"{type(error).__name__}\n".encode(), 503, "text/plain"
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", kind.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
