"""The gRPC server: MatchService with grpc.health.v1 and server reflection, its handlers wrapped.

Each method's handler is wrapped once, as it registers: the request decoding (a request that is
not the method's message answers INVALID_ARGUMENT) around the request log. Example::

    server = await build_server(Matches(store, registry.load()))
    port = await server.start("127.0.0.1", 0)
    ...
    await server.stop(grace=10)
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import BadRequest, Matches
from serai.rpc.auth import Authenticator
from serai.rpc.handlers import MatchHandlers
from serai.rpc.limits import RateLimiter
from serai.runtime import Runtime
from serai.transports.grpc.connections import PeerConnectionGuard
from serai.transports.grpc.reflection import DocumentedReflection, documented_files
from serai.transports.grpc.request_log import GrpcRequestLog, trace_queued_cancellations
from serai.transports.grpc.servicer import MatchService

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchService"].full_name


def _decoding(method: str, handler: Any) -> Any:
    decode = getattr(handler, "request_deserializer", None)
    if handler is None or decode is None:
        return handler
    name = method.rpartition("/")[2]
    if handler.request_streaming:
        return _decoding_stream(name, handler, decode)

    async def refuse(context: grpc.aio.ServicerContext, error: Exception) -> None:
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request is not a valid {name} request message ({error}): send the "
            "message the proto declares for this method",
        )

    if handler.response_streaming:
        stream = handler.unary_stream

        async def streaming(raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            try:
                request = decode(raw)
            except Exception as error:
                await refuse(context, error)
            async for response in stream(request, context):
                yield response

        async def writing(raw: bytes, context: grpc.aio.ServicerContext) -> None:
            try:
                request = decode(raw)
            except Exception as error:
                await refuse(context, error)
            await stream(request, context)  # it sends with context.write (grpc's health Watch)

        return grpc.unary_stream_rpc_method_handler(
            streaming if inspect.isasyncgenfunction(stream) else writing,
            response_serializer=handler.response_serializer,
        )
    unary = handler.unary_unary

    async def single(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
        # Decoded here, not in a coroutine of its own: one coroutine less on every call.
        try:
            request = decode(raw)
        except Exception as error:
            await refuse(context, error)
        return await unary(request, context)

    return grpc.unary_unary_rpc_method_handler(
        single, response_serializer=handler.response_serializer
    )


def _decoding_stream(name: str, handler: Any, decode: Callable[[bytes], Any]) -> Any:
    """A bidirectional stream's handler (Play) given its requests decoded one by one as it
    reads them: one that is not the method's message raises :class:`BadRequest` where the
    handler reads it, which ends the stream INVALID_ARGUMENT (the handler's own error mapping)."""
    stream = handler.stream_stream
    if not handler.response_streaming or not inspect.isasyncgenfunction(stream):
        return handler

    async def requests(raw: AsyncIterator[bytes]) -> AsyncIterator[Any]:
        async for data in raw:
            try:
                request = decode(data)
            except Exception as error:
                raise BadRequest(
                    f"a request is not a valid {name} request message ({error}): send the "
                    "message the proto declares for this method"
                ) from None
            yield request

    async def streaming(
        raw: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        async for response in stream(requests(raw), context):
            yield response

    # Play's handler gives each update as its message's bytes, sent as they are.
    serializer = None if name == "Play" else handler.response_serializer
    return grpc.stream_stream_rpc_method_handler(streaming, response_serializer=serializer)


# --- the server -----------------------------------------------------------------------------------


class SeraiServer:
    """A grpc.aio server with MatchService, grpc.health.v1 (SERVING while the runtime serves:
    NOT_SERVING while the store does not answer, and from the stop on) and server reflection.

    Example::

        server = await build_server(matches)
        port = await server.start("127.0.0.1", 0)   # 0: any free port
        ...
        await server.stop(grace=10)                  # in-flight requests finish first
    """

    def __init__(
        self,
        matches: Matches,
        server: grpc.aio.Server,
        checker: Any,
        runtime: Runtime | None = None,
        request_log: GrpcRequestLog | None = None,
        max_connections_per_peer: int = 0,
    ) -> None:
        self.matches = matches
        self.max_connections_per_peer = max_connections_per_peer
        self._guard: PeerConnectionGuard | None = None
        self.request_log = request_log  # its cut_short counts the calls clients gave up on
        self.grpc = server
        self.health = checker
        self.port = 0
        # None: this server runs the process's services itself, from start to stop.
        self._own_runtime = Runtime(matches) if runtime is None else None
        self.runtime: Runtime = runtime or self._own_runtime  # type: ignore[assignment]
        self.runtime.on_serving_change(self._serving_changed)
        self._health_updates: set[asyncio.Task[None]] = set()

    def _serving_changed(self, serving: bool) -> None:
        """grpc.health.v1 follows the runtime: NOT_SERVING while the store does not answer."""
        task = asyncio.get_running_loop().create_task(self._set_health())
        self._health_updates.add(task)
        task.add_done_callback(self._health_updates.discard)

    async def _set_health(self) -> None:
        # What the runtime says now, not what it said when the task was made: updates that
        # come quickly one after the other end on the last state, whatever order they run in.
        status = health_pb2.HealthCheckResponse
        serving = status.SERVING if self.runtime.serving else status.NOT_SERVING
        for name in ("", SERVICE_NAME):
            await self.health.set(name, serving)

    async def start(self, host: str, port: int) -> int:
        """Listen on host:port (an IPv6 host may be bracketed) and return the bound port."""
        self.port = self.grpc.add_insecure_port(f"{host}:{port}")
        if not self.port:
            raise OSError(f"cannot listen on {host}:{port}")
        await self.grpc.start()
        if self.max_connections_per_peer > 0:
            self._guard = PeerConnectionGuard(self.port, self.max_connections_per_peer)
            self._guard.start()
        if self._own_runtime is not None:
            self._own_runtime.start()
        return self.port

    async def stop(self, grace: float | None = 5.0) -> None:
        """Stop taking requests, let in-flight ones finish (up to ``grace`` s), end watches (a
        runtime given to :func:`build_server` is closed by its owner, once this has begun)."""
        stopping = asyncio.ensure_future(self.grpc.stop(grace))
        await asyncio.sleep(0)  # grpc.aio refuses new calls from its first step on
        if self._guard is not None:
            await self._guard.stop()
        await self.health.enter_graceful_shutdown()
        if self._own_runtime is not None:
            # Watches end only now: a client that calls again once its Watch ended is told
            # UNAVAILABLE (and retries elsewhere), not cut short by the stop mid-call.
            await self._own_runtime.close()
        await stopping

    async def wait(self) -> None:
        await self.grpc.wait_for_termination()


async def build_server(
    matches: Matches,
    *,
    max_message_bytes: int = 4 * 1024 * 1024,
    move_rate: float = 0,
    move_burst: float = 0,
    reuse_port: bool = False,
    runtime: Runtime | None = None,
    list_limiter: RateLimiter | None = None,
    auth: Authenticator | None = None,
    handlers: MatchHandlers | None = None,
    handshake_seconds: float = 10.0,
    idle_seconds: float = 300.0,
    max_connections: int = 0,
    max_connections_per_peer: int = 0,
) -> SeraiServer:
    """The server for ``matches``, not yet listening; see :class:`SeraiServer`.

    ``move_rate`` > 0 limits SubmitMove per client connection (a token bucket of ``move_burst``);
    ``list_limiter`` ListMatches per caller's address (none: no limit; pass the HTTP port's too,
    so that a caller has one rate on both).
    ``reuse_port`` lets several processes listen on one port (SO_REUSEPORT: the kernel spreads
    connections over them); off by default, so a second server on a taken port fails loudly.
    ``runtime``: the process's shared services, started and closed by the caller; None makes the
    server run its own (clocks swept from ``start`` until ``stop``).
    ``auth``: API keys (see :mod:`serai.rpc.auth`); None: keys are not looked at.
    ``handlers``: the process's handlers, shared with its HTTP port (one set of rate limits and
    response caches for both); then ``move_*``, ``list_limiter`` and ``auth`` are theirs.
    ``handshake_seconds``: a new connection that has not sent its HTTP/2 preface and settings
    by then is closed; ``idle_seconds``: one with no call for that long is closed (GOAWAY: a
    client reconnects at its next call); ``max_connections``: connections beyond are closed as
    they open (0: no limit); ``max_connections_per_peer``: one client address's connections
    past it are ended within a second (grpc core counts none per address: see
    :class:`serai.transports.grpc.connections.PeerConnectionGuard`; 0: no limit).
    """
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.so_reuseport", int(reuse_port)),
    ]
    if handshake_seconds > 0:  # else grpc core's own: 120 s
        options.append(
            ("grpc.server_handshake_timeout_ms", max(1, round(handshake_seconds * 1000)))
        )
    if idle_seconds > 0:
        options.append(("grpc.max_connection_idle_ms", max(1, round(idle_seconds * 1000))))
    if max_connections > 0:
        options.append(("grpc.max_allowed_incoming_connections", max_connections))
    server = grpc.aio.server(options=options)
    limiter = RateLimiter(move_rate, move_burst)
    logged = GrpcRequestLog()
    trace_queued_cancellations()

    def wrap(method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        # Probes call Check every few seconds: a line each would bury the requests that matter.
        return _decoding(method, handler if method in _UNLOGGED else logged.wrap(method, handler))

    wrapping = _Wrapping(server, wrap)
    pb_grpc.add_MatchServiceServicer_to_server(
        MatchService(matches, limiter, list_limiter, auth, handlers=handlers), wrapping
    )
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, wrapping)
    for name in ("", SERVICE_NAME):
        await checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(
        DocumentedReflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), documented_files()
        ),
        wrapping,
    )
    return SeraiServer(matches, server, checker, runtime, logged, max_connections_per_peer)


_Wrap = Callable[[str, grpc.RpcMethodHandler], grpc.RpcMethodHandler]
_UNLOGGED = frozenset({"/grpc.health.v1.Health/Check"})


class _Wrapping:
    """Stands for the grpc.aio server while the services register: each method's handler is
    wrapped once, there (the request decoding of :func:`_decoding` around the request log of
    :class:`GrpcRequestLog`), so that no interceptor runs on every call: grpc.aio
    interceptors cost about 0.05 ms of CPU a call, a tenth of a SubmitMove."""

    def __init__(self, server: grpc.aio.Server, wrap: _Wrap) -> None:
        self._server = server
        self._wrap = wrap

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(
            tuple(_WrappedGeneric(handler, self._wrap) for handler in handlers)
        )

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler]
    ) -> None:
        self._server.add_registered_method_handlers(
            service,
            {name: self._wrap(f"/{service}/{name}", h) for name, h in handlers.items()},
        )


class _WrappedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose answers are wrapped; each known method once (unknown method names,
    which answer UNIMPLEMENTED, are not remembered)."""

    def __init__(self, inner: grpc.GenericRpcHandler, wrap: _Wrap) -> None:
        self._inner = inner
        self._wrap = wrap
        self._handlers: dict[str, grpc.RpcMethodHandler] = {}

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method: str = details.method  # type: ignore[attr-defined]
        handler = self._handlers.get(method)
        if handler is None:
            found = self._inner.service(details)
            if found is None:
                return None
            handler = self._handlers[method] = self._wrap(method, found)
        return handler
