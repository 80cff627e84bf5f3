"""HTTP clients for the Connect port written from the protocols' specs, with nothing but
http.client (HTTP/1.1): what a curl user, a browser's gRPC-Web or a Connect client sends."""

from __future__ import annotations

import contextlib
import http.client
import json
import struct
import urllib.parse
from collections.abc import Iterator
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.rpc.status import Code

SERVICE = "/serai.v1.MatchService/"


class CallFailed(Exception):
    """A call answered an error: its code as gRPC names it (NOT_FOUND) and its message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _post(
    address: str, path: str, body: bytes, headers: dict[str, str]
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("POST", path, body=body, headers=headers)
    return connection, connection.getresponse()


def json_call(address: str, method: str, request: dict[str, Any], **headers: str) -> Any:
    """A Connect unary call in JSON: the answer's JSON, or CallFailed."""
    connection, response = _post(
        address,
        SERVICE + method,
        json.dumps(request).encode(),
        {"Content-Type": "application/json", **headers},
    )
    with contextlib.closing(connection):
        body = response.read()
    if response.status != 200:
        error = json.loads(body)
        raise CallFailed(Code(error["code"]).name, error.get("message", ""))
    return json.loads(body)


def proto_call(address: str, method: str, request: Message, answer: type[Message]) -> Any:
    """A Connect unary call in binary protobuf: the answer, or CallFailed."""
    connection, response = _post(
        address,
        SERVICE + method,
        request.SerializeToString(),
        {"Content-Type": "application/proto"},
    )
    with contextlib.closing(connection):
        body = response.read()
    if response.status != 200:
        error = json.loads(body)  # Connect's errors are JSON whatever the codec
        raise CallFailed(Code(error["code"]).name, error.get("message", ""))
    return answer.FromString(body)


def _frames(response: http.client.HTTPResponse) -> Iterator[tuple[int, bytes]]:
    """The enveloped messages of a streamed body, as they arrive: (flags, bytes)."""
    while True:
        head = response.read(5)
        if len(head) < 5:
            return
        flags, size = struct.unpack(">BI", head)
        yield flags, response.read(size)


def grpc_web_call(
    address: str, method: str, request: Message, answer: type[Message], **headers: str
) -> Any:
    """A gRPC-Web call (binary): the answer, or CallFailed from the trailers frame."""
    messages = list(grpc_web_stream(address, method, request, answer, **headers))
    assert len(messages) == 1, messages
    return messages[0]


def grpc_web_stream(
    address: str, method: str, request: Message, answer: type[Message], **headers: str
) -> Iterator[Any]:
    """A gRPC-Web call (binary): each answer as it arrives, then CallFailed if the trailers
    frame (or, for an error before any message, the headers) carries an error."""
    payload = request.SerializeToString()
    connection, response = _post(
        address,
        SERVICE + method,
        struct.pack(">BI", 0, len(payload)) + payload,
        {"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1", **headers},
    )
    with contextlib.closing(connection):
        trailers: dict[str, str] = {
            key.lower(): value for key, value in response.getheaders() if key.lower() != "vary"
        }
        for flags, data in _frames(response):
            if flags & 0x80:
                for line in data.decode().split("\r\n"):
                    if line:
                        key, _, value = line.partition(":")
                        trailers[key.strip().lower()] = value.strip()
            else:
                yield answer.FromString(data)
    status = int(trailers.get("grpc-status", "0"))
    if status:
        names = {index: code for index, code in enumerate(_GRPC_ORDER)}
        message = urllib.parse.unquote(trailers.get("grpc-message", ""))
        raise CallFailed(names[status], message)


# gRPC's status numbers, in order (0 is OK).
_GRPC_ORDER = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]  # fmt: skip


def json_watch(address: str, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A Connect server stream in JSON over HTTP/1.1: each event as it arrives; CallFailed if
    the end-of-stream message carries an error."""
    body = json.dumps(request).encode()
    connection, response = _post(
        address,
        SERVICE + "Watch",
        struct.pack(">BI", 0, len(body)) + body,
        {"Content-Type": "application/connect+json"},
    )
    with contextlib.closing(connection):
        assert response.status == 200, response.read()
        for flags, data in _frames(response):
            message = json.loads(data)
            if flags & 0x02:  # end of stream
                error = message.get("error")
                if error:
                    raise CallFailed(Code(error["code"]).name, error.get("message", ""))
                return
            yield message


def proto_watch(address: str, request: Message) -> Iterator[Any]:
    """A Connect server stream in binary protobuf over HTTP/1.1: each MatchEvent as it arrives;
    CallFailed if the end-of-stream message (JSON whatever the codec) carries an error."""
    body = request.SerializeToString()
    connection, response = _post(
        address,
        SERVICE + "Watch",
        struct.pack(">BI", 0, len(body)) + body,
        {"Content-Type": "application/connect+proto"},
    )
    with contextlib.closing(connection):
        assert response.status == 200, response.read()
        for flags, data in _frames(response):
            if flags & 0x02:  # end of stream
                error = json.loads(data).get("error")
                if error:
                    raise CallFailed(Code(error["code"]).name, error.get("message", ""))
                return
            yield pb.MatchEvent.FromString(data)


TRANSPORTS = ["native", "connect-binary", "connect-json", "grpc-web"]


class Transport:
    """MatchService over one transport of serai serve (native gRPC, Connect binary, Connect JSON
    or gRPC-Web), all alike: each call answers the protobuf message or raises CallFailed, so one
    scenario runs on every transport and their answers compare."""

    def __init__(self, name: str, native_address: str, http_address: str) -> None:
        assert name in TRANSPORTS, name
        self.name = name
        self.address = http_address
        self.channel = grpc.insecure_channel(native_address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def call(self, method: str, request: Message) -> Any:
        answer = _ANSWERS[method]
        if self.name == "native":
            try:
                return getattr(self.stub, method)(request, timeout=30)
            except grpc.RpcError as error:
                raise CallFailed(error.code().name, error.details() or "") from None
        if self.name == "connect-binary":
            return proto_call(self.address, method, request, answer)
        if self.name == "grpc-web":
            return grpc_web_call(self.address, method, request, answer)
        got = json_call(self.address, method, json_format.MessageToDict(request))
        return json_format.ParseDict(got, answer())

    def watch(self, request: pb.WatchRequest, until_event_id: str = "") -> list[Any]:
        """The Watch's events up to the one with ``until_event_id`` (a live match's stream does
        not end), or to the stream's end."""
        if self.name == "native":
            stream: Iterator[Any] = self.stub.Watch(request, timeout=30)
        elif self.name == "connect-binary":
            stream = proto_watch(self.address, request)
        elif self.name == "grpc-web":
            stream = grpc_web_stream(self.address, "Watch", request, pb.MatchEvent)
        else:
            stream = (
                json_format.ParseDict(event, pb.MatchEvent())
                for event in json_watch(self.address, json_format.MessageToDict(request))
            )
        events = []
        try:
            for event in stream:
                events.append(event)
                if event.event_id == until_event_id:
                    break
        except grpc.RpcError as error:
            raise CallFailed(error.code().name, error.details() or "") from None
        finally:
            if isinstance(stream, grpc.Call):
                stream.cancel()
            else:
                stream.close()  # type: ignore[attr-defined]
        return events


_ANSWERS: dict[str, type[Message]] = {
    method.name: getattr(pb, method.output_type.name)
    for method in pb.DESCRIPTOR.services_by_name["MatchService"].methods
}
