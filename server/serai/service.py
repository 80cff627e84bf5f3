"""The old home of the gRPC service, kept so that ``from serai import service`` still works.

The service now lives in rooms of one job each: :mod:`serai.rpc` (the transport-neutral
handlers, status codes, protobuf builders, response caches and rate limits) and
:mod:`serai.transports.grpc` (the servicer, the server and its request log).
"""

from __future__ import annotations

from serai.rpc.convert import event, game_info, outcome, snapshot, summary
from serai.rpc.handlers import CallContext, MatchHandlers
from serai.rpc.limits import RateLimiter
from serai.rpc.responses import MovePayloads, SubmitResponses
from serai.transports.grpc.server import (
    SERVICE_NAME,
    DecodeInterceptor,
    SeraiServer,
    _decoding,
    _Wrapping,
    build_server,
)
from serai.transports.grpc.servicer import GRPC_CODES, MatchService, status_of

__all__ = [
    "GRPC_CODES",
    "SERVICE_NAME",
    "CallContext",
    "DecodeInterceptor",
    "MatchHandlers",
    "MatchService",
    "MovePayloads",
    "RateLimiter",
    "SeraiServer",
    "SubmitResponses",
    "_Wrapping",
    "_decoding",
    "build_server",
    "event",
    "game_info",
    "outcome",
    "snapshot",
    "status_of",
    "summary",
]
