"""The limits per client address hold on the HTTP port as on the native one, and count a caller's
calls on both together (issue 18, faults 3 and 10): unfinished matches per address, and the
ListMatches rate. HTTP calls come from 127.0.0.1 or 127.0.0.2 (a source address of the loopback),
so one server sees two callers. Against a real ``serai serve`` and a real Redis."""

from __future__ import annotations

import contextlib
import http.client
import json
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from connect_helpers import SERVICE, CallFailed
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.rpc.status import Code


def _json_from(source: str, address: str, method: str, request: dict[str, Any]) -> Any:
    """A Connect JSON call made from the local address ``source``: the answer, or CallFailed."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    with contextlib.closing(connection):
        connection.request(
            "POST",
            SERVICE + method,
            body=json.dumps(request).encode(),
            headers={"Content-Type": "application/json"},
        )
        response = connection.getresponse()
        body = json.loads(response.read())
    if response.status != 200:
        raise CallFailed(Code(body["code"]).name, body.get("message", ""))
    return body


def _fails(call: Callable[[], Any]) -> CallFailed:
    with pytest.raises(CallFailed) as failure:
        call()
    return failure.value


def test_unfinished_matches_per_address_count_both_ports_and_each_address_alone(
    start_serve, redis_url
):
    server = start_serve(
        "--redis-url", redis_url, "--http-port", "0", "--max-open-per-peer", "2",
    )  # fmt: skip
    create = {"game": "jaipur"}
    with grpc.insecure_channel(server.address) as channel:  # from 127.0.0.1
        pb_grpc.MatchServiceStub(channel).CreateMatch(pb.CreateMatchRequest(game="jaipur"))
    _json_from("127.0.0.1", server.http_address, "CreateMatch", {**create, "clientId": "a"})
    refused = _fails(
        lambda: _json_from("127.0.0.1", server.http_address, "CreateMatch", {**create})
    )
    assert refused.code == "RESOURCE_EXHAUSTED", refused
    assert "this caller (127.0.0.1) already has 2 unfinished matches" in refused.message
    for _ in range(2):  # another address: a quota of its own
        _json_from("127.0.0.2", server.http_address, "CreateMatch", create)
    refused = _fails(lambda: _json_from("127.0.0.2", server.http_address, "CreateMatch", create))
    assert refused.code == "RESOURCE_EXHAUSTED" and "(127.0.0.2)" in refused.message


def test_a_looping_lister_is_refused_while_another_address_is_served(start_serve, redis_url):
    """--list-rate counts per address over both ports: a caller looping on ListMatches over gRPC
    gets RESOURCE_EXHAUSTED, over HTTP too, while a caller from another address is answered."""
    server = start_serve(
        "--redis-url", redis_url, "--http-port", "0", "--list-rate", "0.5", "--list-burst", "3",
    )  # fmt: skip
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        codes = []
        for _ in range(6):
            try:
                stub.ListMatches(pb.ListMatchesRequest())
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                codes.append(error.code())
                assert "ListMatches calls per second" in error.details()
                assert "retry in a moment" in error.details()
        assert codes[:3] == [grpc.StatusCode.OK] * 3
        assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes[3:]
    refused = _fails(lambda: _json_from("127.0.0.1", server.http_address, "ListMatches", {}))
    assert refused.code == "RESOURCE_EXHAUSTED"
    assert _json_from("127.0.0.2", server.http_address, "ListMatches", {}) == {}
