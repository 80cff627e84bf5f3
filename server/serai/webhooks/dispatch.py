"""The webhook worker every replica runs (with ``serve --webhook-allow-host``): it follows the
matches of keys with a webhook, turns their events into webhooks and sends them.

Why derived from the event stream: a commit writes a match's events in the same atomic step as
the move (one Lua script), so the stream is already a durable outbox; a second outbox written by
that script would cross Redis Cluster slots. So the store's outbox
(:mod:`serai.store.webhooks`) holds only *which* matches to read and how far each got:

1. Before a match of such a key is stored, and after each commit of it, the replica follows it
   (:meth:`Webhooks.follow`, awaited: a replica killed after a commit has followed the match
   already, at its creation, and the match is read again within ``recheck`` at worst).
2. A worker claims due matches (a lease: one worker per match at a time, so each webhook is sent
   once in the normal case), reads the events after the match's progress, and saves the webhooks
   they call for as pending (:mod:`.payloads`) before sending any.
3. It sends them in order; each one sent, the progress is saved and the lease extended. A failed
   one is retried with exponential backoff (1 s doubling to an hour) for ``retry_for`` (a day),
   then given up; later webhooks of that match wait behind it (order kept). A worker killed
   mid-way leaves the lease to run out: another sends what is pending again, with the same
   ``webhook-id`` (at least once).
4. Once the ``match.finished`` webhook is done, the match is no longer followed.

Every attempt goes to the key's delivery log (``serai webhooks log NAME``) and the
``serai_webhook_deliveries`` metric, by outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from serai.matches import replay
from serai.metrics import WEBHOOK_DELIVERIES
from serai.registry import Registry
from serai.store import MatchRecord, Store, StoreError
from serai.store.api_keys import ApiKey
from serai.store.webhooks import Claimed, DeliveryLine
from serai.webhooks import payloads
from serai.webhooks.payloads import Webhook
from serai.webhooks.sending import SendLimits, Sent, new_client, send
from serai.webhooks.urls import AllowedHosts, refuse_own_address

if TYPE_CHECKING:
    import httpx

log = structlog.get_logger("serai.webhooks")

# Events read per pass of one match: a pass that reads this many may have cut a version's
# events short, so its last version is left for the next pass.
EVENTS_PER_PASS = 500
KEY_CACHE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class WebhookSettings:
    """Where webhooks may go (``allowed``), how long a receiver has (``limits``) and the
    worker's timing: leases, backoff, how long to retry, how often a quiet match is read again
    (doubling from ``recheck_ms`` to ``max_recheck_ms``), how often to look for due matches."""

    allowed: AllowedHosts
    limits: SendLimits = field(default_factory=SendLimits)
    lease_ms: int = 15_000
    first_retry_ms: int = 1_000
    max_retry_ms: int = 3_600_000
    retry_for_ms: int = 24 * 3_600_000
    recheck_ms: int = 5_000
    max_recheck_ms: int = 300_000
    poll_seconds: float = 0.25
    batch: int = 50


@dataclass(slots=True)
class Progress:
    """How far one match's webhooks got, as the outbox keeps it (JSON): the last event turned
    into webhooks, those not sent yet, the failed attempts of the first and since when, passes
    in a row that found nothing, and whether the match's end was seen."""

    tenant: str = ""
    after: str = ""
    pending: list[Webhook] = field(default_factory=list)
    attempts: int = 0
    failing_since_ms: int = 0
    quiet: int = 0
    finished: bool = False

    @classmethod
    def read(cls, text: str) -> Progress:
        if not text:
            return cls()
        fields = json.loads(text)
        fields["pending"] = [payloads.from_fields(item) for item in fields["pending"]]
        return cls(**fields)

    def dumps(self) -> str:
        fields: dict[str, Any] = {name: getattr(self, name) for name in self.__slots__}
        fields["pending"] = [hook.fields() for hook in self.pending]
        return json.dumps(fields, separators=(",", ":"))


class Webhooks:
    """One process's webhook worker over ``store``; ``registry`` decodes states (whose turn);
    ``clock_ms``: now in ms (default: this machine's clock)."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        settings: WebhookSettings,
        clock_ms: Callable[[], int] | None = None,
    ) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings
        # Leases and retries are timed on the store's clock when given (Matches.now_ms), so a
        # replica whose clock is off neither steals leases nor retries early.
        self.clock_ms = clock_ms if clock_ms is not None else lambda: int(time.time() * 1000)
        self.closing = False
        self._lease = secrets.token_hex(8)  # this process's: whose lease a match is under
        self._keys: dict[str, tuple[float, ApiKey | None]] = {}
        self._wake = asyncio.Event()
        self._client: httpx.AsyncClient | None = None
        self.own_ports: tuple[int, ...] = ()  # serai's own (set once they are bound): never called

    def now_ms(self) -> int:
        return self.clock_ms()

    async def follow(self, record: MatchRecord) -> None:
        """Follow the match if its key has a webhook (before it is stored, and after each
        commit: see the module docstring). A store failure here is logged, not raised: the move
        is made, and the match was followed at its creation, so it is read again anyway."""
        if not record.tenant:
            return
        try:
            key = await self.key(record.tenant)
            if key is None or not key.webhook_url:
                return
            await self.store.webhooks.follow(record.match_id, self.now_ms())
        except StoreError as error:
            log.warning("webhooks: a match not followed", match=record.match_id, error=str(error))
            return
        self._wake.set()

    async def key(self, name: str) -> ApiKey | None:
        """The key of that name, read again at most every few seconds."""
        now = time.monotonic()
        cached = self._keys.get(name)
        if cached is not None and now - cached[0] < KEY_CACHE_SECONDS:
            return cached[1]
        key = await self.store.api_keys.get(name)
        self._keys[name] = (now, key if key is not None and not key.revoked_ms else None)
        return self._keys[name][1]

    async def run(self) -> None:
        """Claim and serve due matches until closing."""
        jitter = random.Random()
        try:
            while not self.closing:
                try:
                    if await self.pass_once() >= self.settings.batch:
                        continue
                except StoreError as error:
                    log.warning("webhooks: the store failed", error=str(error))
                except Exception:  # a bug must not stop webhooks for good
                    log.exception("webhooks: a pass failed")
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    wait = self.settings.poll_seconds * (0.5 + jitter.random())
                    await asyncio.wait_for(self._wake.wait(), wait)
        finally:
            await self.close()

    async def close(self) -> None:
        """Close the HTTP client (its connections to the receivers)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def pass_once(self) -> int:
        """Serve the matches due now (up to a batch), together; how many there were."""
        settings = self.settings
        claimed = await self.store.webhooks.claim(
            self.now_ms(), settings.lease_ms, settings.batch, self._lease
        )
        await asyncio.gather(*(self._serve(one) for one in claimed))
        return len(claimed)

    async def _serve(self, claimed: Claimed) -> None:
        try:
            await _Match(self, claimed).serve()
        except StoreError as error:
            log.warning("webhooks: the store failed", match=claimed.match_id, error=str(error))
        except Exception:
            log.exception("webhooks: serving a match failed", match=claimed.match_id)

    async def deliver(self, key: ApiKey, hook: Webhook, attempt: int) -> tuple[str, Sent]:
        """One attempt: (outcome, how it went); outcome "refused" when the URL may not be
        called (not retried), "delivered" or "failed"."""
        try:
            host, port = self.settings.allowed.check(key.webhook_url)
            await refuse_own_address(host, port, self.own_ports)
        except ValueError as error:
            return "refused", Sent(False, 0, str(error))
        if self._client is None:
            self._client = new_client()
        sent = await send(
            self._client, key.webhook_url, key.webhook_secret, hook, self.settings.limits
        )
        return ("delivered" if sent.ok else "failed"), sent

    async def note(self, key_name: str, hook: Webhook, outcome: str, sent: Sent, n: int) -> None:
        """Count the attempt and add it to the key's delivery log."""
        WEBHOOK_DELIVERIES.labels(outcome).inc()
        line = DeliveryLine(
            self.now_ms(),
            hook.webhook_id,
            hook.type,
            hook.match_id,
            outcome,
            sent.status,
            n,
            sent.detail,
        )
        await self.store.webhooks.record(key_name, line)
        if outcome != "delivered":
            log.info(
                "webhook not delivered",
                key=key_name,
                webhook=hook.webhook_id,
                outcome=outcome,
                status=sent.status,
                detail=sent.detail,
            )

    async def to_act_at(self, record: MatchRecord, version: int) -> Sequence[int]:
        """The seats to act once the match was at ``version``: from the record's state at its
        own version, else rebuilt from the log (a worker behind by a few moves)."""
        game = self.registry.games[record.game]
        if version == record.version:
            state = game.decode_state(record.state)
        else:
            log_entries = await self.store.read_log(record.match_id)
            state, _ = replay.rebuild(record, game, log_entries, version)
        if game.outcome(state) is not None:
            return ()
        return tuple(game.to_act(state))


class _Match:
    """One claimed match served: its pending webhooks sent, new events turned into webhooks."""

    def __init__(self, hooks: Webhooks, claimed: Claimed) -> None:
        self.hooks = hooks
        self.claimed = claimed
        self.progress = Progress.read(claimed.progress)
        self.outbox = hooks.store.webhooks

    async def serve(self) -> None:
        for _ in range(4):  # a few rounds: a busy match does not hold its lease for ever
            if not self.progress.pending and (
                self.progress.finished or not await self._read_events()
            ):
                break
            if not await self._send_pending():
                return  # settled for a retry later, or the lease was lost
            if not self.progress.pending and self.progress.finished:
                break
        await self._settle()

    async def _read_events(self) -> bool:
        """Turn the events after the progress into pending webhooks (saved before any is sent);
        False when there were none (or the match is gone)."""
        match_id, progress = self.claimed.match_id, self.progress
        events = await self.hooks.store.read_events(match_id, progress.after, count=EVENTS_PER_PASS)
        record = await self.hooks.store.load(match_id)
        if not isinstance(record, MatchRecord):
            progress.finished = True  # gone (expired): nothing more will come
            return False
        if len(events) >= EVENTS_PER_PASS and events[0].version != events[-1].version:
            last = events[-1].version  # maybe cut short: its version waits for the next pass
            events = [event for event in events if event.version != last]
        progress.tenant = record.tenant
        if not events:
            progress.quiet += 1
            progress.finished = record.status == "finished"
            return False
        progress.quiet = 0
        progress.after = events[-1].event_id

        async def to_act_at(version: int) -> Sequence[int]:
            return await self.hooks.to_act_at(record, version)

        # Not what happened before the key had this webhook (set mid-match: no flood of turns).
        key = await self.hooks.key(record.tenant)
        since = key.webhook_since_ms if key is not None else 0
        derived = await payloads.derive(record, events, to_act_at)
        progress.pending = [hook for hook in derived if hook.at_ms >= since]
        progress.finished = any(h.type == payloads.WebhookType.FINISHED for h in derived)
        until = self.hooks.now_ms() + self.hooks.settings.lease_ms
        return await self.outbox.keep(match_id, self.claimed.lease, progress.dumps(), until)

    async def _send_pending(self) -> bool:
        """Send the pending webhooks in order; False when one failed (the match is settled for
        its retry) or the lease was lost."""
        hooks, progress = self.hooks, self.progress
        while progress.pending:
            hook = progress.pending[0]
            key = await hooks.key(progress.tenant)
            attempt = progress.attempts + 1
            if key is None or not key.webhook_url:
                outcome, sent = "refused", Sent(False, 0, "the key has no webhook (any more)")
            else:
                outcome, sent = await hooks.deliver(key, hook, attempt)
            await hooks.note(progress.tenant, hook, outcome, sent, attempt)
            if outcome == "failed" and not self._give_up():
                await self._settle(due_ms=self._retry_at())
                return False
            progress.pending.pop(0)
            progress.attempts, progress.failing_since_ms = 0, 0
            until = hooks.now_ms() + hooks.settings.lease_ms
            if not await self.outbox.keep(
                self.claimed.match_id, self.claimed.lease, progress.dumps(), until
            ):
                return False
        return True

    def _give_up(self) -> bool:
        """Count a failed attempt; True once the first failed one is older than retry_for."""
        progress, now = self.progress, self.hooks.now_ms()
        progress.attempts += 1
        progress.failing_since_ms = progress.failing_since_ms or now
        if now - progress.failing_since_ms < self.hooks.settings.retry_for_ms:
            return False
        hook = progress.pending[0]
        WEBHOOK_DELIVERIES.labels("gave_up").inc()
        log.warning("webhook given up", webhook=hook.webhook_id, attempts=progress.attempts)
        return True

    def _retry_at(self) -> int:
        settings = self.hooks.settings
        delay = settings.first_retry_ms * 2 ** min(self.progress.attempts - 1, 30)
        delay = min(delay, settings.max_retry_ms)
        return self.hooks.now_ms() + int(delay * random.uniform(0.8, 1.2))

    async def _settle(self, due_ms: int | None = None) -> None:
        """End the lease: drop the match once its end is sent, else make it due again (at
        ``due_ms``, or after a quiet wait that doubles with each pass that found nothing)."""
        match_id, lease, progress = self.claimed.match_id, self.claimed.lease, self.progress
        if due_ms is None and progress.finished and not progress.pending:
            await self.outbox.drop(match_id, lease)
            return
        now, settings = self.hooks.now_ms(), self.hooks.settings
        if due_ms is None:
            wait = settings.recheck_ms * 2 ** min(progress.quiet, 20)
            due_ms = now + min(wait, settings.max_recheck_ms)
        await self.outbox.settle(match_id, lease, progress.dumps(), now, due_ms)
