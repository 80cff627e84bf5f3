"""The transport-neutral handler layer: serai.v1.MatchService as ``(request, ctx) -> response``.

Each transport (gRPC today, see :mod:`serai.transports.grpc`) is an adapter over
:class:`serai.rpc.handlers.MatchHandlers`: it builds a :class:`~serai.rpc.context.CallContext`,
calls the handler, and turns what it raises into its own status with :mod:`serai.rpc.status`.
"""
