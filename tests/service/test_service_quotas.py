"""How many unfinished matches one caller, and the whole server, may hold (issue 18, fault 3).

A caller's limit counts under its address (the host, not the port), which it cannot change for
free as it can a client_id or a connection; the server-wide cap counts every match of the store,
whoever made it. Both answer RESOURCE_EXHAUSTED with a message that says which limit and what to
do, and a finished match gives its place back. Against a real ``serai serve`` and a real Redis.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.rpc.limits import quota_key_of
from service_helpers import status_of

Code = grpc.StatusCode


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _stub(address: str) -> Iterator[Any]:
    # A channel of its own (no shared subchannel): each stub is its own connection.
    options = [("grpc.use_local_subchannel_pool", 1)]
    with grpc.insecure_channel(address, options=options) as channel:
        yield pb_grpc.MatchServiceStub(channel)


def _create(stub: Any, client_id: str = "") -> str:
    request = pb.CreateMatchRequest(game="jaipur", client_id=client_id)
    return str(stub.CreateMatch(request).match.match_id)


def _resign(stub: Any, match_id: str) -> None:
    """Take both seats and resign one: the match is finished."""
    tokens = [stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat_token for _ in range(2)]
    stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))


def test_quota_key_is_the_host_without_the_port():
    """Every connection from one host counts as one caller; an IPv6 host by its /64."""
    assert quota_key_of("ipv4:10.0.0.7:51234") == quota_key_of("ipv4:10.0.0.7:40000")
    assert quota_key_of("ipv4:10.0.0.7:51234") == "peer:10.0.0.7"
    assert quota_key_of("ipv6:%5B::1%5D:5678") == "peer:::1"
    assert quota_key_of("ipv6:%5B2001:db8:0:1::7%5D:443") == "peer:2001:db8:0:1::/64"
    assert quota_key_of("ipv6:%5B2001:db8:0:1:ffff::9%5D:443") == "peer:2001:db8:0:1::/64"
    assert quota_key_of("ipv6:%5B::ffff:10.0.0.7%5D:1") == "peer:10.0.0.7"
    assert quota_key_of("http:10.0.0.7:80") == "peer:10.0.0.7"  # the Connect port's peers
    assert quota_key_of("http:::1:80") == "peer:::1"
    assert quota_key_of("unix:") == quota_key_of("unix:/run/serai.sock") == "peer:unix"
    assert quota_key_of("") == quota_key_of("http:") == ""  # no peer: no caller's limit


def test_a_fresh_client_id_does_not_reset_a_callers_limit_and_resigning_frees_a_place(
    start_serve, redis_url
):
    server = start_serve(
        "--redis-url", redis_url, "--http-port", "off",
        "--max-open-per-peer", "2", "--max-open-matches", "0",
    )  # fmt: skip
    with _stub(server.address) as stub, _stub(server.address) as other_connection:
        made = [_create(stub, "bot-1"), _create(stub, "bot-2")]
        for client_id in ("bot-3", ""):
            code, details = status_of(lambda c=client_id: _create(stub, c))
            assert code == Code.RESOURCE_EXHAUSTED, details
            assert "already has 2 unfinished matches" in details
            assert "finish or resign" in details and "client_id does not reset" in details
        # a new connection from the same address is the same caller
        assert status_of(lambda: _create(other_connection, "bot-4"))[0] == Code.RESOURCE_EXHAUSTED
        _resign(stub, made[0])
        _create(other_connection, "bot-5")  # the finished match gave its place back
        assert status_of(lambda: _create(stub))[0] == Code.RESOURCE_EXHAUSTED


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")
def test_two_addresses_have_separate_quotas_and_share_the_server_wide_cap(start_serve, redis_url):
    """127.0.0.1 and ::1 are two callers; the cap on the whole server refuses both once reached,
    and a caller refused by its own limit takes no place under the cap."""
    server = start_serve(
        "--redis-url", redis_url, "--http-port", "off", "--host", "[::]",
        "--max-open-per-peer", "2", "--max-open-total", "3",
    )  # fmt: skip
    port = server.address.rsplit(":", 1)[1]
    with _stub(f"127.0.0.1:{port}") as four, _stub(f"[::1]:{port}") as six:
        first = [_create(four), _create(four)]
        code, details = status_of(lambda: _create(four))
        assert code == Code.RESOURCE_EXHAUSTED and "this caller (127.0.0.1)" in details
        _create(six)  # another caller: its own quota, and the third place under the cap
        code, details = status_of(lambda: _create(six))
        assert code == Code.RESOURCE_EXHAUSTED, details
        assert "this server already holds 3 unfinished matches" in details
        assert "try again once some have finished" in details
        assert status_of(lambda: _create(four))[0] == Code.RESOURCE_EXHAUSTED
        _resign(four, first[0])
        _create(six)  # the place the finished match gave back, to whoever asks first
        code, details = status_of(lambda: _create(six))
        assert code == Code.RESOURCE_EXHAUSTED and "this caller (::1)" in details
