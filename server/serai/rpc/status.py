"""Domain errors as transport-neutral status codes: the one table every transport reads.

A handler raises the domain's own exceptions (:mod:`serai.matches.errors`, the plugin contract's
:class:`serai.game.GameError` kinds, :class:`serai.store.StoreUnavailable`) or an
:class:`RpcError`; the transport calls :func:`rpc_error` once, at its edge, and maps the
:class:`Code` to its wire with a table of its own. Example::

    try:
        response = await handlers.GetMatch(request, ctx)
    except Exception as error:
        failure = rpc_error(error)   # a bug is logged here and its text kept from the client
        send(GRPC_CODES[failure.code], failure.message)
"""

from __future__ import annotations

import enum

import structlog

from serai.game import IllegalMove, InvalidOptions, MalformedMove, NotPlayable
from serai.logging import clipped
from serai.matches.errors import (
    BadRequest,
    GameNotFound,
    LimitExceeded,
    MatchLost,
    MatchNotFound,
    MatchNotRunning,
    MoveNotFound,
    NotYourTurn,
    SeatTaken,
    StaleVersion,
    Unauthenticated,
    WatchBehind,
    WrongToken,
)
from serai.store import StoreFull, StoreUnavailable


class Code(enum.Enum):
    """How a call failed. Members are named as gRPC names its status codes; each value is the
    name Connect gives the same code on its wire (it spells CANCELLED "canceled")."""

    CANCELLED = "canceled"
    UNKNOWN = "unknown"
    INVALID_ARGUMENT = "invalid_argument"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    PERMISSION_DENIED = "permission_denied"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    FAILED_PRECONDITION = "failed_precondition"
    ABORTED = "aborted"
    OUT_OF_RANGE = "out_of_range"
    UNIMPLEMENTED = "unimplemented"
    INTERNAL = "internal"
    UNAVAILABLE = "unavailable"
    DATA_LOSS = "data_loss"
    UNAUTHENTICATED = "unauthenticated"


# Each code's number on the wire (google.rpc.Code), for a status carried inside a message
# (PlayError.code) rather than as the call's own.
NUMBERS: dict[Code, int] = {
    code: number
    for number, code in enumerate(
        (
            Code.CANCELLED,
            Code.UNKNOWN,
            Code.INVALID_ARGUMENT,
            Code.DEADLINE_EXCEEDED,
            Code.NOT_FOUND,
            Code.ALREADY_EXISTS,
            Code.PERMISSION_DENIED,
            Code.RESOURCE_EXHAUSTED,
            Code.FAILED_PRECONDITION,
            Code.ABORTED,
            Code.OUT_OF_RANGE,
            Code.UNIMPLEMENTED,
            Code.INTERNAL,
            Code.UNAVAILABLE,
            Code.DATA_LOSS,
            Code.UNAUTHENTICATED,
        ),
        start=1,
    )
}


class RpcError(Exception):
    """A failure as a client sees it: a code and a message saying what was wrong and what to do.

    Handlers may raise it for a failure the domain has no exception for; :func:`rpc_error`
    turns every other failure into one.
    """

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# Order matters: MalformedMove is an IllegalMove, and answers INVALID_ARGUMENT.
ERRORS: tuple[tuple[type[Exception], Code, str], ...] = (
    (MalformedMove, Code.INVALID_ARGUMENT, "malformed move: {}"),
    (
        IllegalMove,
        Code.FAILED_PRECONDITION,
        "illegal move: {}; ListLegalMoves lists the moves you can play now",
    ),
    (InvalidOptions, Code.INVALID_ARGUMENT, "{}; ListGames shows what each game takes"),
    (NotPlayable, Code.FAILED_PRECONDITION, "{}"),
    (BadRequest, Code.INVALID_ARGUMENT, "{}"),
    (GameNotFound, Code.NOT_FOUND, "{}"),
    (MatchLost, Code.DATA_LOSS, "{}"),
    (MatchNotFound, Code.NOT_FOUND, "{}"),
    (MoveNotFound, Code.NOT_FOUND, "{}"),
    (Unauthenticated, Code.UNAUTHENTICATED, "{}"),
    (WrongToken, Code.PERMISSION_DENIED, "{}"),
    (SeatTaken, Code.FAILED_PRECONDITION, "{}"),
    (NotYourTurn, Code.FAILED_PRECONDITION, "{}"),
    (MatchNotRunning, Code.FAILED_PRECONDITION, "{}"),
    (StaleVersion, Code.ABORTED, "{}"),
    (WatchBehind, Code.ABORTED, "{}"),
    (LimitExceeded, Code.RESOURCE_EXHAUSTED, "{}"),
    (StoreFull, Code.RESOURCE_EXHAUSTED, "{}; the server is out of room, try later"),
    (StoreUnavailable, Code.UNAVAILABLE, "{}; retry in a moment"),
)
DOMAIN = tuple(kind for kind, _code, _text in ERRORS)
INTERNAL_MESSAGE = "internal error: the server logged it; please report it"
# A message may quote what the client sent (a match id of a megabyte): gRPC refuses trailers
# past 16 KiB, and nobody reads that much. Every message the domain writes is shorter.
MESSAGE_LIMIT = 1000

_log = structlog.get_logger("serai.service")


def status_of(error: Exception) -> tuple[Code, str]:
    """The code and message for a domain error (INTERNAL, naming only its type, for others)."""
    for kind, code, text in ERRORS:
        if isinstance(error, kind):
            return code, text.format(error)
    return Code.INTERNAL, f"internal error: {type(error).__name__}"


def rpc_error(error: Exception) -> RpcError:
    """What a transport answers for ``error``; call it where the error is caught.

    Anything not in the table is a bug (a plugin's or ours): it is logged with its traceback
    and the client is told nothing of its text, which may name hidden cards. Messages are cut
    to :data:`MESSAGE_LIMIT` characters.
    """
    if isinstance(error, RpcError):
        if len(error.message) <= MESSAGE_LIMIT:
            return error
        return RpcError(error.code, _bounded(error.message))
    if isinstance(error, DOMAIN):
        code, message = status_of(error)
        return RpcError(code, _bounded(message))
    _log.exception("internal error")
    return RpcError(Code.INTERNAL, INTERNAL_MESSAGE)


def _bounded(message: str) -> str:
    return clipped(message, MESSAGE_LIMIT, tail=MESSAGE_LIMIT // 2)
