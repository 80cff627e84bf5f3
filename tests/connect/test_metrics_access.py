"""Who may read /metrics (issue 32, item 13): with --metrics-token a scrape without it gets 401;
--metrics-port serves it on a port of its own (and not on the HTTP port); tenants' names are
counted only with --metrics-tenants. Real ``serai serve`` processes."""

from __future__ import annotations

import http.client
import re

import grpc
from serai.api import match_service_pb2 as pb
from test_api_keys import Keyed, new_key
from waiting import wait_until


def get_metrics(address: str, token: str = "") -> tuple[int, str]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        connection.request("GET", "/metrics", headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def test_a_metrics_token_is_required_once_set(start_serve, redis_url):
    server = start_serve("--redis-url", redis_url, "--metrics-token", "s3cret-scrape")
    assert get_metrics(server.http_address)[0] == 401
    assert get_metrics(server.http_address, "wrong")[0] == 401
    status, body = get_metrics(server.http_address, "s3cret-scrape")
    assert status == 200 and "serai_requests" in body


def test_metrics_on_a_port_of_their_own(start_serve, redis_url):
    server = start_serve("--redis-url", redis_url, "--metrics-port", "0")
    listening = re.compile(r"serai metrics listening on (\S+):(\d+)")
    wait_until(lambda: listening.search(server.log()), "the metrics port is said in the log")
    found = listening.search(server.log())
    assert found is not None
    status, body = get_metrics(f"{found[1]}:{found[2]}")
    assert status == 200 and "serai_requests" in body
    assert get_metrics(server.http_address)[0] == 404


def test_tenant_names_are_shown_only_when_asked(start_serve, redis_url):
    """A call with the key "acme": its name is on /metrics with --metrics-tenants only (before:
    always, to anyone)."""
    key = new_key(redis_url, "acme")
    for flags, shown in (((), False), (("--metrics-tenants",), True)):
        server = start_serve("--redis-url", redis_url, *flags)
        with grpc.insecure_channel(server.address) as channel:
            Keyed(channel, key).ListGames(pb.ListGamesRequest())
        status, body = get_metrics(server.http_address)
        assert status == 200
        assert ('tenant="acme"' in body) is shown, flags
