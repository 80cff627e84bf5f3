"""CPU per call of the gRPC request log line (transports.grpc.request_log), in process.

Times a unary handler that binds the seat, as serai.matches does, called --calls times one after
another in one task, best of --repeat runs (process CPU time, microseconds per call):

  bare             the handler alone
  json             wrapped, configure("json"): the line serai writes for nearly every call
  json, chain      wrapped, the handler also binding a key of its own: the line is then rendered
                   by structlog's processor chain (what every line cost before)
  warning          wrapped, configure("json", level="warning"): no line written

Lines go to --out (default /dev/null: a write and a flush per line, as on a pipe). Example::

    .venv/bin/python benchmarks/log_line.py --calls 50000
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import structlog
from serai import logging as serai_logging
from serai.transports.grpc.request_log import GrpcRequestLog


class _Request:
    match_id = "9f1c2b3a4d5e6f708192a3b4c5d6e7f8"


class _Context:
    def code(self) -> None:
        return None


async def _seated(request: Any, context: Any) -> int:
    structlog.contextvars.bind_contextvars(seat=1)
    return 1


async def _seated_and_more(request: Any, context: Any) -> int:
    structlog.contextvars.bind_contextvars(seat=1, game="jaipur")
    return 1


def _logged(behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    handler = grpc.unary_unary_rpc_method_handler(behavior)
    wrapped = GrpcRequestLog().wrap("/serai.v1.MatchService/SubmitMove", handler)
    return wrapped.unary_unary  # type: ignore[no-any-return]


async def _per_call_us(call: Callable[..., Awaitable[Any]], calls: int, repeat: int) -> float:
    request, context = _Request(), _Context()
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        for _ in range(calls):
            await call(request, context)
        best = min(best, (time.process_time() - started) / calls * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=os.devnull)
    args = parser.parse_args()
    with open(args.out, "w") as out:
        cases: list[tuple[str, str, Callable[..., Awaitable[Any]]]] = [
            ("bare", "info", _seated),
            ("json", "info", _logged(_seated)),
            ("json, chain", "info", _logged(_seated_and_more)),
            ("warning", "warning", _logged(_seated)),
        ]
        for name, level, call in cases:
            serai_logging.configure("json", level, stream=out)
            # An empty context, as grpc.aio gives each call's task.
            us = contextvars.Context().run(asyncio.run, _per_call_us(call, args.calls, args.repeat))
            print(f"{name:12} {us:6.2f} us per call")


if __name__ == "__main__":
    main()
