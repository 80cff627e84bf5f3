"""/healthz and /readyz as ASGI apps: liveness always answers, readiness follows the store and
the stop, and only GET and HEAD are taken."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from serai.transports.connect.probes import LIVE_PATH, READY_PATH, probes


def _ask(app: Any, method: str = "GET") -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app({"type": "http", "method": method}, None, send))
    return sent[0]["status"], sent[1]["body"]


def test_readiness_follows_the_store_and_the_stop_and_liveness_does_not():
    runtime = SimpleNamespace(closing=False, store_up=True)
    routes = probes(runtime)  # type: ignore[arg-type]
    assert _ask(routes[READY_PATH]) == (200, b"ok\n")
    runtime.store_up = False
    assert _ask(routes[READY_PATH]) == (503, b"not ready: the store (Redis) does not answer\n")
    assert _ask(routes[LIVE_PATH]) == (200, b"ok\n")
    runtime.closing = True
    assert _ask(routes[READY_PATH]) == (503, b"not ready: stopping\n")
    assert _ask(routes[LIVE_PATH], "HEAD") == (200, b"")


def test_a_probe_takes_only_get_and_head():
    status, body = _ask(probes(SimpleNamespace(closing=False, store_up=True))[LIVE_PATH], "POST")  # type: ignore[arg-type]
    assert status == 405 and body == b"use GET\n"
