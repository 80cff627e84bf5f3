"""``/admin`` on the HTTP port: the operator's console (a page of the web client) and the plain
JSON it reads, behind the admin token (serve --admin-token). Without a token set the console is
off and every path under /admin is 404: it shows every tenant's matches and hidden cards.

    GET  /admin                          -> the console's page (it asks for the token)
    GET  /admin/api/overview             -> matches per tenant, keys, house bots, figures
    GET  /admin/api/matches/<id>         -> the match as every seat and a spectator see it
    POST /admin/api/matches/<id>/end     -> the running match ends, no one winning (an open
                                            one is cancelled before it starts)

Every /admin/api call sends ``authorization: Bearer <admin token>`` (else 401). Errors are JSON
``{"message": ...}`` with 400, 404, 409 (already finished) or 503, as the core's error says.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from serai.rpc.admin import AdminHandlers
from serai.rpc.status import Code, rpc_error
from serai.transports.connect.static import WebFiles

PREFIX = "/admin"
_API = "/admin/api/"
_HTTP_STATUS = {
    Code.INVALID_ARGUMENT: 400,
    Code.NOT_FOUND: 404,
    Code.FAILED_PRECONDITION: 409,
    Code.ABORTED: 409,
    Code.UNAVAILABLE: 503,
}


class AdminRoute:
    """An ASGI app answering /admin and its API itself and passing every other request to
    ``app``; ``token`` "" turns the console off (404)."""

    def __init__(self, app: Any, admin: AdminHandlers, token: str, web: WebFiles) -> None:
        self.app = app
        self.admin = admin
        self._expected = f"Bearer {token}".encode() if token else b""
        self._page = web.file("/admin.html")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or (path != PREFIX and not path.startswith(PREFIX + "/")):
            await self.app(scope, receive, send)
            return
        if not self._expected:
            await _answer(send, 404, {"message": "the console is off: serve --admin-token"})
            return
        if path in (PREFIX, PREFIX + "/") and scope["method"] == "GET" and self._page:
            kind, body = self._page
            await _send(send, 200, kind, body)
            return
        if not path.startswith(_API):
            await _answer(send, 404, {"message": "not found"})
            return
        sent = dict(scope.get("headers") or ()).get(b"authorization", b"")
        if not hmac.compare_digest(sent, self._expected):
            await _answer(send, 401, {"message": "send the admin token: authorization: Bearer"})
            return
        try:
            status, answer = await self._api(scope["method"], path.removeprefix(_API).split("/"))
        except Exception as error:  # the core's errors, by their code
            refused = rpc_error(error)
            status, answer = _HTTP_STATUS.get(refused.code, 500), {"message": refused.message}
        await _answer(send, status, answer)

    async def _api(self, method: str, parts: list[str]) -> tuple[int, Any]:
        if method == "GET" and parts == ["overview"]:
            return 200, await self.admin.overview()
        if len(parts) >= 2 and parts[0] == "matches" and parts[1]:
            if method == "GET" and len(parts) == 2:
                return 200, await self.admin.match(parts[1])
            if method == "POST" and parts[2:] == ["end"]:
                return 200, await self.admin.end(parts[1])
        return 404, {"message": "no such console call (see serai.transports.connect.admin)"}


async def _answer(send: Any, status: int, answer: Any) -> None:
    await _send(send, status, b"application/json", json.dumps(answer).encode())


async def _send(send: Any, status: int, kind: bytes, body: bytes) -> None:
    headers = [
        (b"content-type", kind),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
