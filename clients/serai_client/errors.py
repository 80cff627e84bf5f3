"""One exception type per gRPC status the server answers, each carrying the server's message.

The server's messages say what was wrong and how to fix it, so ``str(error)`` is the message as
sent. Catch :class:`SeraiError` for any failure, or one subclass for one kind::

    try:
        client.submit(seat, move_id="3")
    except IllegalMoveError as error:      # FAILED_PRECONDITION
        print("refused:", error)
"""

from __future__ import annotations

import grpc


class SeraiError(Exception):
    """A call to the server failed. ``code`` is the gRPC status, ``details`` the server's text."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, details: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(details)
        self.details = details
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.details or self.code.name


class InvalidArgumentError(SeraiError):
    """INVALID_ARGUMENT: a malformed request or move payload, an unknown option."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFoundError(SeraiError):
    """NOT_FOUND: an unknown game, match or move id."""

    code = grpc.StatusCode.NOT_FOUND


class UnauthenticatedError(SeraiError):
    """UNAUTHENTICATED: the call needs a seat token and had none."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDeniedError(SeraiError):
    """PERMISSION_DENIED: the seat token is wrong for this match."""

    code = grpc.StatusCode.PERMISSION_DENIED


class IllegalMoveError(SeraiError):
    """FAILED_PRECONDITION: an illegal move, not your turn, the match not running, seat taken."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class StaleVersionError(SeraiError):
    """ABORTED: the match moved on since the move was chosen; choose again on the fresh view."""

    code = grpc.StatusCode.ABORTED


class ResourceExhaustedError(SeraiError):
    """RESOURCE_EXHAUSTED: a server limit (message size, rate, open matches)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class UnavailableError(SeraiError):
    """UNAVAILABLE: the server or its store cannot be reached; retrying later may work."""

    code = grpc.StatusCode.UNAVAILABLE


class DataLossError(SeraiError):
    """DATA_LOSS: a match (or its latest moves) this server issued is gone from its store, lost
    in a store failover or restart (see deploy/README.md's durability section); not a mistyped
    id. Retrying will not bring it back: start a new match, or resume from the version named."""

    code = grpc.StatusCode.DATA_LOSS


class DeadlineExceededError(SeraiError):
    """DEADLINE_EXCEEDED: the call took longer than its timeout."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


class CancelledError(SeraiError):
    """CANCELLED: the call was cancelled (usually by this side)."""

    code = grpc.StatusCode.CANCELLED


class InternalError(SeraiError):
    """INTERNAL, UNKNOWN, UNIMPLEMENTED and the rest: a server fault; the message says which."""

    code = grpc.StatusCode.INTERNAL


_BY_CODE: dict[grpc.StatusCode, type[SeraiError]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        UnauthenticatedError,
        PermissionDeniedError,
        IllegalMoveError,
        StaleVersionError,
        ResourceExhaustedError,
        UnavailableError,
        DataLossError,
        DeadlineExceededError,
        CancelledError,
    )
}


def error_for(code: grpc.StatusCode, details: str) -> SeraiError:
    """The exception for a status code and message: ``error_for(ABORTED, "...")``."""
    cls = _BY_CODE.get(code, InternalError)
    return cls(details, code)


def from_rpc_error(error: grpc.RpcError) -> SeraiError:
    """Translate what grpcio raised (sync or asyncio) into a :class:`SeraiError`."""
    code_fn = getattr(error, "code", None)
    details_fn = getattr(error, "details", None)
    code = code_fn() if callable(code_fn) else grpc.StatusCode.UNKNOWN
    details = details_fn() if callable(details_fn) else str(error)
    return error_for(code or grpc.StatusCode.UNKNOWN, details or "")
