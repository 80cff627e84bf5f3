"""Native server reflection answers the API's files with their .proto comments."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc


def test_reflection_answers_carry_the_proto_comments(service: Any) -> None:
    """A client asking for serai.v1.MatchService gets match_service.proto with its comments
    (source_code_info), e.g. the one on ListGames."""
    stub = reflection_pb2_grpc.ServerReflectionStub(service.channel())
    request = reflection_pb2.ServerReflectionRequest(file_containing_symbol="serai.v1.MatchService")
    (response,) = list(stub.ServerReflectionInfo(iter([request])))
    files = {
        proto.name: proto
        for proto in map(
            descriptor_pb2.FileDescriptorProto.FromString,
            response.file_descriptor_response.file_descriptor_proto,
        )
    }
    described = files["serai/v1/match_service.proto"]
    comments = " ".join(
        location.leading_comments for location in described.source_code_info.location
    )
    assert "The installed games, with their metadata" in comments
    assert "seat token" in comments.lower()
