"""Python SDK, bots and terminal player for serai.

The SDK in one breath::

    from serai_client import SeraiClient

    with SeraiClient("localhost:50051") as client:
        match = client.create_match("jaipur", seed=1)
        me = client.join(match.match_id, player_name="ada")

See clients/README.md for the bots (``serai bot``), the terminal player (``serai play``) and the
arena (``serai arena``).
"""

from serai_client.aio import AsyncSeraiClient
from serai_client.client import SeraiClient
from serai_client.errors import (
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    IllegalMoveError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    SeraiError,
    StaleVersionError,
    UnauthenticatedError,
    UnavailableError,
)
from serai_client.types import (
    Decoder,
    Event,
    LegalMove,
    LegalMoves,
    SeatHandle,
    Snapshot,
    SubmitResult,
)

__all__ = [
    "AsyncSeraiClient",
    "CancelledError",
    "DataLossError",
    "DeadlineExceededError",
    "Decoder",
    "Event",
    "IllegalMoveError",
    "InternalError",
    "InvalidArgumentError",
    "LegalMove",
    "LegalMoves",
    "NotFoundError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "SeatHandle",
    "SeraiClient",
    "SeraiError",
    "Snapshot",
    "StaleVersionError",
    "SubmitResult",
    "UnauthenticatedError",
    "UnavailableError",
]
