"""``GET /healthz`` and ``GET /readyz`` on the HTTP port, for probes that speak plain HTTP
(Kubernetes' httpGet, Docker's healthcheck, a load balancer): liveness says the process answers,
readiness that it should get traffic (the store answers and it is not stopping), as
grpc.health.v1 says on both ports.

Liveness must not follow the store: a Redis outage would otherwise restart every replica, which
cannot help and loses the in-flight work. Example::

    $ curl -i localhost:50052/readyz
    HTTP/1.1 503 Service Unavailable
    not ready: the store (Redis) does not answer
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serai.runtime import Runtime

LIVE_PATH = "/healthz"
READY_PATH = "/readyz"


class Probe:
    """An ASGI app answering GET or HEAD with 200 and ``ok`` while ``state()`` says "" (ready),
    else 503 and why; other methods get 405."""

    def __init__(self, state: Callable[[], str]) -> None:
        self._state = state

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD"):
            status, body, extra = 405, b"use GET\n", [(b"allow", b"GET, HEAD")]
        else:
            why = self._state()
            status, body, extra = (200, b"ok\n", []) if not why else (503, f"{why}\n".encode(), [])
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *extra,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


def probes(runtime: Runtime) -> dict[str, Probe]:
    """The two routes, by path, for ``runtime``'s process."""

    def readiness() -> str:
        if runtime.closing:
            return "not ready: stopping"
        if not runtime.store_up:
            return "not ready: the store (Redis) does not answer"
        return ""

    return {LIVE_PATH: Probe(lambda: ""), READY_PATH: Probe(readiness)}
