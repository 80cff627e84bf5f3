"""CPU per call of the API-key check (serai.rpc.auth) and of the metrics a call adds, to set
beside a SubmitMove's server CPU (``benchmarks/submit_cpu.py --parts handler``).

The check runs on every call that carries a key: find the key in the metadata, split it, hash
its secret (SHA-256) and compare in constant time with the key read from the store, which a
process keeps for half a second (so the store is read once per key per half second: a round
trip a warm cache never makes, left out here). Timed with ``time.process_time`` over --calls
calls, the best of --rounds; the store is a stand-in that answers from memory.

Also the player-token check (serai.rpc.player_tokens: a JWT verified with PyJWT, HS256 with the
key's secret, or RS256/ES256 with its public key), which JoinMatch, ReclaimSeat and ListMatches pay
when they carry a player token (SubmitMove never does: the seat token stands for the player there);
and the figures issue 22's second round added on a SubmitMove's path: two timed Redis round trips
(load and commit: two ``perf_counter`` reads and a histogram observation each) and the call
counted for its API key. Example::

    python benchmarks/key_check.py --calls 200000
"""

from __future__ import annotations

import argparse
import asyncio
import time
from time import perf_counter
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from serai.metrics import count_tenant_call, observe_call, observe_store
from serai.rpc.auth import Authenticator
from serai.rpc.context import CallContext
from serai.rpc.player_tokens import PlayerTokens
from serai.store.api_keys import ApiKey, PlayerTokenRules, secret_hash

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

    async def list(self) -> list[ApiKey]:
        return [self.key]


def player_check(what: str) -> tuple[PlayerTokens, str]:
    """A key's player-token check and a valid token for it."""
    claims = {"sub": "player-1234", "name": "Ada", "exp": int(time.time()) + 3600}
    if what == "player-hs256":
        secret = "y" * 43
        return PlayerTokens(PlayerTokenRules(secret=secret)), jwt.encode(claims, secret, "HS256")
    private: Any = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if what == "player-rs256"
        else ec.generate_private_key(ec.SECP256R1())
    )
    pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    algorithm = "RS256" if what == "player-rs256" else "ES256"
    return PlayerTokens(PlayerTokenRules(public_key=pem.decode())), jwt.encode(
        claims, private, algorithm
    )


async def per_call(calls: int, what: str) -> float:
    auth = Authenticator(MemoryKeys(), required=True, cache_seconds=3600)
    peer = "ipv4:127.0.0.1:5678"
    if what.startswith("player"):
        checker, token = player_check(what.removesuffix("-seen"))
        start = time.process_time()
        if what.endswith("-seen"):  # the same token again: remembered until its exp
            for _ in range(calls):
                await checker.verify(token)
        else:
            for _ in range(calls):
                await checker.check(token)
        return (time.process_time() - start) / calls * 1e6
    start = time.process_time()
    if what == "store":  # a SubmitMove's two round trips, timed as RedisStore._run does
        for _ in range(calls):
            began = perf_counter()
            observe_store("load", perf_counter() - began)
            began = perf_counter()
            observe_store("commit", perf_counter() - began)
    elif what == "tenant":
        for _ in range(calls):
            count_tenant_call("acme")
    elif what == "key":
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
        ("store", "store figures a SubmitMove adds (2 round trips)"),
        ("tenant", "calls counted by API key"),
        ("player-hs256-seen", "player token seen before (remembered)"),
        ("player-hs256", "player token, HS256 (JoinMatch, ListMatches)"),
        ("player-es256", "player token, ES256"),
        ("player-rs256", "player token, RS256 (2048-bit key)"),
    ):
        checks = what.startswith("player") and not what.endswith("-seen")
        calls = args.calls // 10 if checks else args.calls
        rounds = [asyncio.run(per_call(calls, what)) for _ in range(args.rounds)]
        shown = ", ".join(f"{r:.2f}" for r in rounds)
        print(f"{title:45s} {min(rounds):6.2f} us CPU/call  (rounds: {shown})")


if __name__ == "__main__":
    main()
