"""The HTTP server: MatchService and grpc.health.v1 over Connect, gRPC-Web and JSON, and the
``/healthz`` and ``/readyz`` probes, on uvicorn.

The generated ``MatchServiceASGIApplication`` speaks the protocols (connectrpc); this module
puts it and the health check behind one ASGI router, CORS in front, and runs them on uvicorn
(HTTP/1.1, streaming responses) on a socket of our own, so several worker processes can share
the port (SO_REUSEPORT) and uvicorn installs no signal handlers: ``serai serve`` owns SIGTERM.
Example::

    server = build_http_server(MatchHandlers(matches), runtime, allow_origins=["https://a.example"])
    port = await server.start("127.0.0.1", 0)
    ...
    await server.stop(grace=10)      # in-flight calls finish first; open Watches end
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import uvicorn

from serai.api.match_service_connect import MatchServiceASGIApplication
from serai.house_bots import HouseBots
from serai.rpc.admin import AdminHandlers
from serai.rpc.handlers import MatchHandlers
from serai.runtime import Runtime
from serai.transports.connect.admin import AdminRoute
from serai.transports.connect.bots import PATH as BOTS_PATH
from serai.transports.connect.bots import BotsRoute
from serai.transports.connect.connections import ConnectionLimits, guarded_protocol
from serai.transports.connect.cors import Cors
from serai.transports.connect.metrics import MetricsRoute, not_found
from serai.transports.connect.probes import probes
from serai.transports.connect.service import ConnectMatchService, HealthApplication
from serai.transports.connect.static import WebFiles
from serai.transports.request_log import RequestLog

MATCH_SERVICE = "serai.v1.MatchService"
HEADER_SECONDS = 10.0  # a request's headers arrive within this, or the connection is closed
IDLE_SECONDS = 5.0  # a connection waiting longer than this for its next request is closed


class Routes:
    """An ASGI app sending each call to the application of its service (the path's first part,
    e.g. ``/serai.v1.MatchService``), or of its whole path in ``paths`` (e.g. ``/bots``); 404
    for the rest."""

    def __init__(
        self,
        apps: Sequence[Any],
        web: WebFiles | None = None,
        paths: Mapping[str, Any] | None = None,
    ) -> None:
        self._apps = {app.path: app for app in apps}
        self._web = web  # the browser client's files, at "/"
        self._paths = dict(paths or {})

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return  # no lifespan (uvicorn runs with it off) and no websockets
        exact = self._paths.get(scope["path"])
        if exact is not None:
            await exact(scope, receive, send)
            return
        service, _, _ = scope["path"].rpartition("/")
        app = self._apps.get(service)
        if app is None and self._web is not None and self._web.serves(scope):
            await self._web(scope, receive, send)
            return
        if app is None:
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", b"10")],
                }
            )
            await send({"type": "http.response.body", "body": b"not found\n"})
            return
        await app(scope, receive, send)


class HttpServer:
    """uvicorn serving ``app`` on a socket :meth:`start` binds; see the module's example."""

    def __init__(
        self,
        app: Any,
        request_log: RequestLog | None = None,
        *,
        limits: ConnectionLimits | None = None,
        header_seconds: float = HEADER_SECONDS,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self.app = app
        self.request_log = request_log  # its cut_short counts the calls clients gave up on
        # connections by address (see serai.transports.connect.connections); None: no limit
        self.limits = limits or ConnectionLimits()
        self.header_seconds = header_seconds
        self.idle_seconds = idle_seconds
        self.port = 0
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._ticking: asyncio.Task[None] | None = None

    async def start(self, host: str, port: int, *, reuse_port: bool = False) -> int:
        """Listen on host:port (an IPv6 host may be bracketed; 0: a free port) and return the
        bound port. ``reuse_port``: SO_REUSEPORT, for worker processes sharing the port."""
        bare = host.strip("[]")
        family = socket.AF_INET6 if ":" in bare else socket.AF_INET
        made = socket.create_server((bare, port), family=family, reuse_port=reuse_port)
        # Named TCP, so that asyncio turns Nagle off on each accepted connection (it does only
        # for sockets whose proto says TCP): otherwise uvicorn's body, sent after the headers,
        # waits for the client's delayed ACK, about 40 ms a call.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, fileno=made.detach())
        config = uvicorn.Config(
            self.app,
            http=guarded_protocol(self.limits, self.header_seconds),
            # uvicorn types it int; it hands it to loop.call_later, which takes a float
            timeout_keep_alive=self.idle_seconds,  # type: ignore[arg-type]
            lifespan="off",
            access_log=False,  # the request log writes one line per call
            log_config=None,  # leave the process's logging alone
            proxy_headers=False,  # the peer is the connection, as per-connection limits need
            server_header=False,
        )
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        try:
            await server.startup(sockets=[sock])
        except BaseException:
            sock.close()
            raise
        self._socket, self._server = sock, server
        # uvicorn's tick: refreshes the Date header once a second, ends when should_exit is set
        self._ticking = asyncio.get_running_loop().create_task(server.main_loop())
        self.port = sock.getsockname()[1]
        return self.port

    async def stop(self, grace: float | None = 5.0) -> None:
        """Stop taking connections, let in-flight calls finish (up to ``grace`` s; then they are
        cancelled) and close idle keep-alive connections."""
        server = self._server
        if server is None:
            return
        self._server = None
        server.should_exit = True
        if self._ticking is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticking
        # uvicorn types it int; it only hands it to asyncio.timeout, which takes a float
        server.config.timeout_graceful_shutdown = None if grace is None else max(grace, 0.1)  # type: ignore[assignment]
        await server.shutdown(sockets=[self._socket] if self._socket else None)


def build_http_server(
    handlers: MatchHandlers,
    runtime: Runtime,
    *,
    max_message_bytes: int = 4 * 1024 * 1024,
    allow_origins: Iterable[str] = (),
    house_bots: HouseBots | None = None,
    limits: ConnectionLimits | None = None,
    header_seconds: float = HEADER_SECONDS,
    idle_seconds: float = IDLE_SECONDS,
    metrics: bool = True,
    metrics_token: str = "",
    admin_token: str = "",
) -> HttpServer:
    """The HTTP server for ``handlers`` (the same handlers as the gRPC server's), not yet
    listening. Requests over ``max_message_bytes`` get RESOURCE_EXHAUSTED; ``allow_origins``
    may call from a browser page of another origin (see :mod:`serai.transports.connect.cors`);
    health (grpc.health.v1 and ``/readyz``, see :mod:`.probes`) answers NOT_SERVING while
    ``runtime`` does not serve (the store does not answer, or it closes); ``/bots`` starts
    ``house_bots`` (None: it answers 404, see :mod:`serai.transports.connect.bots`).
    ``limits``: the connections one address (and all) may hold; ``header_seconds``: the time a
    request's headers may take to arrive; ``idle_seconds``: how long a connection may wait
    between requests. ``metrics``: GET /metrics served here (see :func:`build_metrics_server`
    for a port of its own), behind ``metrics_token`` if given. ``/admin``: the operator's
    console, behind ``admin_token`` (none: off; see :mod:`serai.transports.connect.admin`)."""
    log = RequestLog()
    service = MatchServiceASGIApplication(
        ConnectMatchService(handlers, log),  # type: ignore[arg-type]
        read_max_bytes=max_message_bytes,
    )
    health = HealthApplication(frozenset({MATCH_SERVICE}), lambda: runtime.serving)
    origins = tuple(allow_origins)
    auth = handlers.auth
    bots = BotsRoute(
        house_bots,
        allows=Cors(None, origins).allows,
        auth=auth,
        keys_exist=None if auth is None else auth.keys_exist,
    )
    paths = {BOTS_PATH: bots, **probes(runtime)}
    web = WebFiles.from_package()
    routes = Routes([service, health], web, paths)
    app: Any = Cors(routes, origins)
    app = AdminRoute(app, AdminHandlers(handlers, house_bots), admin_token, web)
    if metrics:
        app = MetricsRoute(app, runtime.matches.store, metrics_token)
    return HttpServer(
        app,
        log,
        limits=limits,
        header_seconds=header_seconds,
        idle_seconds=idle_seconds,
    )


def build_metrics_server(runtime: Runtime, token: str = "") -> HttpServer:
    """An HTTP server of GET /metrics alone (serve --metrics-port), behind ``token`` if
    given; every other path is 404."""
    return HttpServer(
        MetricsRoute(not_found, runtime.matches.store, token),
        limits=ConnectionLimits(per_peer=16, total=64),  # scrapers: a few
    )
