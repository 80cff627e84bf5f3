"""serai.v1.MatchService's methods, read once from the generated descriptor: the one method table
both transports (gRPC and Connect) are built from, so that a method added to the .proto and to
:class:`serai.rpc.handlers.MatchHandlers` is served on both with no table to edit."""

from __future__ import annotations

import re
from dataclasses import dataclass

from serai.api import match_service_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["MatchService"]


@dataclass(frozen=True)
class Method:
    name: str
    """As the .proto and gRPC name it, and as MatchHandlers' method: ``CreateMatch``."""
    client_streaming: bool
    server_streaming: bool

    @property
    def snake_name(self) -> str:
        """As the generated Connect protocol names it: ``create_match``."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.name).lower()


METHODS: tuple[Method, ...] = tuple(
    Method(method.name, method.client_streaming, method.server_streaming)
    for method in SERVICE.methods
)
