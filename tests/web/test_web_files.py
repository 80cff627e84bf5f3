"""The web client's files are served at / on the HTTP port, beside the RPCs, and nothing else."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from typing import Any

import pytest


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


def _api(address: str, method: str, path: str, token: str) -> tuple[int, Any]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, headers={"authorization": f"Bearer {token}"})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_the_console_is_off_without_an_admin_token(
    start_serve: Callable[..., Any], redis_url: str
) -> None:
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    status, answer = _api(server.http_address, "GET", "/admin/api/overview", "")
    assert status == 404 and "--admin-token" in answer["message"]
    assert _get(server.http_address, "/admin")[0] == 404


def test_the_console_answers_the_admin_token_only(
    start_serve: Callable[..., Any], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERAI_ADMIN_TOKEN", "s3cret-admin")
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    address = server.http_address
    status, kind, body = _get(address, "/admin")
    assert status == 200 and kind.startswith("text/html") and b"/admin.js" in body
    assert _api(address, "GET", "/admin/api/overview", "wrong")[0] == 401
    status, overview = _api(address, "GET", "/admin/api/overview", "s3cret-admin")
    assert status == 200 and overview["tenants"][0]["tenant"] == ""
    assert any(name.startswith("serai_") for name, _ in overview["figures"])
    status, answer = _api(address, "GET", "/admin/api/matches/0123456789abcdef", "s3cret-admin")
    assert status == 404, answer
    status, answer = _api(address, "POST", "/admin/api/nothing", "s3cret-admin")
    assert status == 404 and "no such console call" in answer["message"]
