"""CPU per call of the API-key check (serai.rpc.auth) and of the metrics a call adds, to set
beside a SubmitMove's server CPU (``benchmarks/submit_cpu.py --parts handler``).

The check runs on every call that carries a key: find the key in the metadata, split it, hash
its secret (SHA-256) and compare in constant time with the key read from the store, which a
process keeps for half a second (so the store is read once per key per half second: a round
trip a warm cache never makes, left out here). Timed with ``time.process_time`` over --calls
calls, the best of --rounds; the store is a stand-in that answers from memory. Example::

    python benchmarks/key_check.py --calls 200000
"""

from __future__ import annotations

import argparse
import asyncio
import time

from serai.metrics import observe_call
from serai.rpc.auth import Authenticator
from serai.rpc.handlers import CallContext
from serai.store.redis.api_keys import ApiKey, secret_hash

SECRET = "x" * 43  # as long as secrets.token_urlsafe(32)
TOKEN = f"sk_acme.{SECRET}"
# what grpc's invocation_metadata holds for a Python client's call, plus the key
METADATA = (
    ("user-agent", "grpc-python/1.76.0 grpc-c/51.0.0 (linux; chttp2)"),
    ("authorization", f"Bearer {TOKEN}"),
)


class MemoryKeys:
    def __init__(self) -> None:
        self.key = ApiKey("acme", secret_hash(SECRET), created_ms=1)

    async def get(self, name: str) -> ApiKey | None:
        return self.key if name == "acme" else None


async def per_call(calls: int, what: str) -> float:
    auth = Authenticator(MemoryKeys(), required=True, cache_seconds=3600)
    peer = "ipv4:127.0.0.1:5678"
    start = time.process_time()
    if what == "key":
        for _ in range(calls):
            await auth.context("SubmitMove", peer, METADATA)
    elif what == "none":
        for _ in range(calls):
            CallContext(peer)
    else:
        for _ in range(calls):
            observe_call("SubmitMove", "OK", 0.0004)
    return (time.process_time() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for what, title in (
        ("none", "CallContext without auth (as before)"),
        ("key", "CallContext with an API key (warm cache)"),
        ("metrics", "metrics per call (counter + histogram)"),
    ):
        rounds = [asyncio.run(per_call(args.calls, what)) for _ in range(args.rounds)]
        shown = ", ".join(f"{r:.2f}" for r in rounds)
        print(f"{title:45s} {min(rounds):6.2f} us CPU/call  (rounds: {shown})")


if __name__ == "__main__":
    main()
