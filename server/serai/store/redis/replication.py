"""Acknowledging a change only once Redis replicas have it (Redis ``WAIT``), for an operator who
would rather answer a move UNAVAILABLE than acknowledge one that a failover can lose.

Redis replicates asynchronously: a change the primary has made is acknowledged to serai at once,
and a failover before it reached a replica loses it (versions go backwards; a new match vanishes).
With :class:`ReplicaWait`, the script that commits a move (or creates a match) is sent with a
``WAIT replicas timeout_ms`` behind it, on the same connection, in one round trip; the change is
acknowledged only if that many replicas confirmed it in time. If fewer did, the change stays
applied on the primary but the caller gets :class:`NotReplicated` (a StoreUnavailable: the call
answers UNAVAILABLE), and a client that sends the move again with the same request id gets it
applied exactly once: answered from the primary if the move survived, applied anew if a failover
lost it. ``WAIT`` narrows the window, it does not close it: see deploy/README.md, "Durability".

Example::

    store = open_store(url, replica_wait=ReplicaWait(replicas=1, timeout_ms=500))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis import exceptions as redis_errors

from serai.metrics import STORE_ERRORS
from serai.store import StoreUnavailable


@dataclass(frozen=True)
class ReplicaWait:
    """How many replicas must confirm a change, and for how long to wait for them."""

    replicas: int
    timeout_ms: int

    def __post_init__(self) -> None:
        if self.replicas < 1 or self.timeout_ms < 1:
            raise ValueError("a replica wait needs 1 replica or more and a timeout of 1 ms or more")


class NotReplicated(StoreUnavailable):
    """The change is applied on the Redis primary, but fewer replicas than asked confirmed it in
    time: it is not acknowledged, and a failover now would lose it."""


async def run_and_wait(
    client: Any, sha: str, text: str, keys: list[str], args: list[Any], wait: ReplicaWait
) -> tuple[Any, int]:
    """The reply of EVALSHA ``sha`` (loading ``text`` first if Redis does not know it) and the
    number of replicas that confirmed it, from one pipeline on one connection (WAIT counts the
    writes of its own connection)."""
    for attempt in (1, 2):
        pipe = client.pipeline(transaction=False)
        pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)
        pipe.execute_command("WAIT", wait.replicas, wait.timeout_ms)
        reply, confirmed = await pipe.execute(raise_on_error=False)
        if isinstance(reply, redis_errors.NoScriptError) and attempt == 1:
            await client.script_load(text)  # a restarted or failed-over Redis
            continue
        for answer in (reply, confirmed):
            if isinstance(answer, Exception):
                raise answer
        return reply, int(confirmed)
    raise AssertionError("unreachable")


RESEND = "send it again with the same request_id: it is applied once"


def not_replicated(what: str, confirmed: int, wait: ReplicaWait, then: str) -> NotReplicated:
    """The error for ``what`` confirmed by only ``confirmed`` replicas; ``then``: what the
    caller may do about it."""
    STORE_ERRORS.labels("not_replicated").inc()
    return NotReplicated(
        f"{what} is applied on the Redis primary, but only {confirmed} of {wait.replicas} "
        f"replicas confirmed it within {wait.timeout_ms} ms, so it is not acknowledged (a failover "
        f"now would lose it); {then}"
    )
