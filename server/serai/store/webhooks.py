"""The webhook outbox as a store keeps it: which matches may owe their API key a webhook, who is
working on each now (a lease), how far each got (its progress), and every key's delivery log;
:class:`WebhookOutbox` is the part of :class:`serai.store.Store` that keeps them
(``store.webhooks``). What a webhook says and how it is sent is :mod:`serai.webhooks`' business:
here the progress is an opaque string.

Why an outbox of *matches* rather than of messages: a match's events are already written in the
same atomic step as the move that causes them (the commit's event stream), so they are the
durable record of what must be told. The outbox only says which matches to read again, and
from where: a replica follows a match (:meth:`WebhookOutbox.follow`) of a key with a webhook
before it is stored, and again after each commit; whoever claims it next reads its events after
the stored progress, turns them into webhooks and saves what is left to send. A replica killed
between a commit and its follow loses nothing: a followed match is claimed again every so often,
and its events are still there. Example::

    await store.webhooks.follow("a1b2c3", now_ms)
    for claimed in await store.webhooks.claim(now_ms, 10_000, 50, lease="replica-7"):
        ...  # send, then:
        await store.webhooks.settle(claimed.match_id, claimed.lease, progress, now_ms, due_ms)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# How many lines of each key's delivery log are kept (older ones are dropped).
LOG_LINES = 1000


@dataclass(frozen=True, slots=True)
class Claimed:
    """A followed match leased to one caller: its ``progress`` as last settled ("" at first) and
    the ``lease`` token that the caller's :meth:`WebhookOutbox.settle` must show."""

    match_id: str
    lease: str
    progress: str


@dataclass(frozen=True, slots=True)
class DeliveryLine:
    """One attempt to deliver a webhook, as ``serai webhooks log`` shows it: when, which webhook
    (its id and type, its match), how it went (``outcome``: delivered, failed, gave_up or
    refused), the receiver's HTTP status (0: none came), the attempt's number and a detail (an
    error, in words)."""

    at_ms: int
    webhook_id: str
    kind: str
    match_id: str
    outcome: str
    status: int
    attempt: int
    detail: str = ""


class WebhookOutbox(Protocol):
    """The matches that may owe webhooks, and the delivery logs. Scores and times in ms."""

    async def follow(self, match_id: str, due_ms: int) -> None:
        """Make the match due at ``due_ms`` at the latest (added when not followed yet). While
        it is leased, its holder is told instead (:meth:`settle` makes it due at once)."""

    async def claim(self, now_ms: int, lease_ms: int, limit: int, lease: str) -> list[Claimed]:
        """Up to ``limit`` due matches, leased to ``lease`` (a token of the caller's) for
        ``lease_ms``: not claimed again before that ends, unless settled."""

    async def settle(
        self, match_id: str, lease: str, progress: str, now_ms: int, due_ms: int
    ) -> bool:
        """Save the match's ``progress`` and end the caller's lease: the match is due again at
        ``due_ms`` (at ``now_ms`` if it was followed again meanwhile). False, and nothing
        saved, if the caller no longer holds the lease (it ran out; another may hold it)."""

    async def keep(self, match_id: str, lease: str, progress: str, until_ms: int) -> bool:
        """Save the match's ``progress`` and extend the caller's lease to ``until_ms``; False if
        the caller no longer holds it."""

    async def drop(self, match_id: str, lease: str) -> bool:
        """Stop following the match (its webhooks are all sent), if the caller holds its lease."""

    async def record(self, key_name: str, line: DeliveryLine) -> None:
        """Add ``line`` to the key's delivery log (the newest :data:`LOG_LINES` are kept)."""

    async def delivery_log(self, key_name: str, limit: int) -> list[DeliveryLine]:
        """The key's newest ``limit`` delivery lines, newest first."""
