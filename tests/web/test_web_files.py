"""The web client's files are served at / on the HTTP port, beside the RPCs, and nothing else."""

from __future__ import annotations

import http.client
from collections.abc import Callable
from typing import Any


def _get(address: str, path: str, method: str = "GET") -> tuple[int, str, bytes]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, response.getheader("content-type", ""), response.read()
    finally:
        connection.close()


def test_the_client_is_served_at_the_root(start_serve: Callable[..., Any], redis_url: str) -> None:
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    assert f"serai web client: http://{server.http_address}/" in server.log()
    status, kind, body = _get(server.http_address, "/")
    assert status == 200 and kind.startswith("text/html") and b'src="/app.js"' in body
    for name in ("/app.js", "/connect.js"):
        status, kind, body = _get(server.http_address, name)
        assert status == 200 and kind.startswith("text/javascript") and b"serai" in body
    assert _get(server.http_address, "/style.css")[0] == 200
    assert _get(server.http_address, "/../pyproject.toml")[0] == 404
    assert _get(server.http_address, "/app.js", method="DELETE")[0] == 404
    assert _get(server.http_address, "/serai.v1.MatchService/ListGames")[0] != 200
