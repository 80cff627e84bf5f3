"""Server reflection that documents: answers carry the .proto files' comments.

grpc's reflection servicer describes each file from the descriptor pool, and the generated
modules hold no comments (protoc leaves source_code_info out of them). ``serai.protogen`` also
writes a descriptor set with them (``serai/api/match_service.binpb``); this servicer answers
those files from it, so a third party reads the API's documentation from a running server::

    grpcurl -plaintext localhost:50051 describe serai.v1.MatchService
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Any

from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2

DESCRIPTOR_SETS = ("match_service.binpb",)


def documented_files() -> dict[str, bytes]:
    """Each file of the committed descriptor sets, with its comments: serialized, by name."""
    files: dict[str, bytes] = {}
    for name in DESCRIPTOR_SETS:
        data = resources.files("serai.api").joinpath(name).read_bytes()
        for file in descriptor_pb2.FileDescriptorSet.FromString(data).file:
            files[file.name] = file.SerializeToString()
    return files


class DocumentedReflection(reflection.ReflectionServicer):
    """grpc's reflection servicer, answering the files of ``documented`` (name -> serialized
    FileDescriptorProto) with those bytes instead of the pool's comment-less copy."""

    def __init__(self, service_names: Iterable[str], documented: dict[str, bytes]) -> None:
        super().__init__(tuple(service_names))
        self._documented = documented

    def ServerReflectionInfo(
        self, request_iterator: Iterator[reflection_pb2.ServerReflectionRequest], context: Any
    ) -> Iterator[reflection_pb2.ServerReflectionResponse]:
        for response in super().ServerReflectionInfo(request_iterator, context):
            if response.HasField("file_descriptor_response"):
                protos = response.file_descriptor_response.file_descriptor_proto
                for index, data in enumerate(protos):
                    name = descriptor_pb2.FileDescriptorProto.FromString(data).name
                    if name in self._documented:
                        protos[index] = self._documented[name]
            yield response
