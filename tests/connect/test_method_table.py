"""One method table for both transports: every method of serai.v1.MatchService (read from the
generated descriptor) has a handler, and the gRPC servicer and the Connect service each serve it
under the name their generated code calls; Play on the Connect port says why it is not there."""

from __future__ import annotations

import asyncio

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from serai.api import match_service_connect as generated_connect
from serai.api import match_service_pb2_grpc as generated_grpc
from serai.rpc.handlers import MatchHandlers
from serai.rpc.methods import METHODS
from serai.transports.connect.service import ConnectMatchService
from serai.transports.grpc.servicer import MatchService


def test_every_method_of_the_proto_has_a_handler_and_is_served_on_both_transports():
    names = {method.name for method in METHODS}
    assert {"CreateMatch", "Watch", "Play", "JoinQueue"} <= names
    for method in METHODS:
        assert callable(getattr(MatchHandlers, method.name, None)), method.name
        served = MatchService.__dict__[method.name]  # ours, not the generated base's
        assert served.__name__ == method.name
        assert callable(ConnectMatchService.__dict__[method.snake_name])


def test_the_names_are_those_of_the_generated_code():
    grpc_base = {n for n in vars(generated_grpc.MatchServiceServicer) if not n.startswith("_")}
    assert grpc_base == {method.name for method in METHODS}
    protocol = generated_connect.MatchService
    connect_names = {n for n in vars(protocol) if not n.startswith("_")}
    assert {method.snake_name for method in METHODS} <= connect_names


def test_play_on_the_connect_port_says_it_needs_http2():
    service = ConnectMatchService.__new__(ConnectMatchService)

    async def first() -> None:
        async for _ in service.play(None, None):  # type: ignore[attr-defined]
            pass

    with pytest.raises(ConnectError) as refused:
        asyncio.run(first())
    assert refused.value.code == Code.UNIMPLEMENTED and "HTTP/2" in refused.value.message
