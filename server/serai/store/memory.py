"""A :class:`serai.store.Store` in one process's memory, as boardgame.io's ``InMemory`` storage:
what the tests of the core run on, so that they need no redis-server.

It keeps the Redis store's semantics (tests/store/test_store_contract.py runs the same tests on
both): a commit applies only at the version read and is answered with the current record when
not; request ids are remembered per seat for the last :data:`REQUEST_WINDOW` commits; an
unfinished match idle for its ``idle_ms`` is gone (though :meth:`MemoryStore.existed` still
knows it); listings show a match once :meth:`MemoryStore.index` was called for it, newest first;
event ids are "<ms>-<seq>", growing. What it leaves out is what only a shared, bounded store
needs: the compaction of a finished match (nothing to save here) and the expiry of an idle
caller's quota index. Nothing is kept once the process ends. Example::

    store = MemoryStore()
    await store.create(record, [NewEvent("created")])
    result = await store.commit(record.match_id, record.version, Commit(state=b"..."))
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from serai.store import (
    REQUEST_WINDOW,
    STATUSES,
    UNCHANGED,
    Answer,
    Commit,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    FeedPush,
    FeedRead,
    LogEntry,
    MatchIdTaken,
    MatchRecord,
    NewEvent,
    Status,
    StoredEvent,
    Unchanged,
    event_id_after,
)
from serai.store.api_keys import (
    ApiKey,
    CreatedKey,
    KeyExists,
    PlayerTokenRules,
    new_key,
    with_webhook,
)
from serai.store.api_keys import with_players as _with_players
from serai.store.memory_community import MemoryCommunity
from serai.store.webhooks import LOG_LINES, Claimed, DeliveryLine

# A claim whose match is not there (yet) is pruned only after this long: it may be a create still
# on its way (as in the Redis store).
_CLAIM_GRACE_MS = 60_000


def wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class _Match:
    """One match: its record, log and events, and each seat's last request ids' answers."""

    record: MatchRecord
    expires_ms: int = 0  # 0: never
    log: list[LogEntry] = field(default_factory=list)
    events: list[StoredEvent] = field(default_factory=list)
    answers: dict[int, deque[tuple[str, Answer]]] = field(default_factory=dict)


class MemoryStore(MemoryCommunity):
    """Every match, index and API key of one process, in dictionaries. ``clock_ms`` (the wall
    clock in milliseconds) dates event ids and idle expiry; a test may pass its own."""

    def __init__(self, *, clock_ms: Callable[[], int] = wall_ms) -> None:
        super().__init__(clock_ms)
        self._clock_ms = clock_ms
        self._matches: dict[str, _Match] = {}
        self._existed: set[str] = set()  # every match ever indexed, expired ones too
        self._listed: dict[str, tuple[int, Status]] = {}  # the status indexes: created_ms, status
        self._unfinished: dict[str, int] = {}  # match id -> created_ms (or a claim's time)
        self._clocks: dict[str, int] = {}
        self._clients: dict[str, dict[str, int]] = {}
        self._quotas: dict[str, dict[str, int]] = {}
        self._players: dict[tuple[str, str], dict[str, int]] = {}
        self._last_event = (0, -1)  # (ms, seq) of the last event id given
        self._waiters: set[asyncio.Future[None]] = set()  # reads waiting for new events
        self._feeds: set[MemoryFeed] = set()  # the feeds listening to some match
        self._api_keys = MemoryApiKeys(clock_ms)
        self._webhooks = MemoryWebhookOutbox()
        self._unarchived: dict[str, int] = {}  # finished, not archived: match id -> leased until

    @property
    def api_keys(self) -> MemoryApiKeys:
        return self._api_keys

    @property
    def webhooks(self) -> MemoryWebhookOutbox:
        return self._webhooks

    @property
    def health(self) -> None:
        return None  # in this process's memory: it answers while the process does

    def event_feed(self) -> MemoryFeed:
        return MemoryFeed(self)

    async def ping(self) -> None:
        pass

    async def time_ms(self) -> int:
        return self._clock_ms()

    async def close(self) -> None:
        pass

    # --- one match ----------------------------------------------------------------------------

    async def create(
        self,
        record: MatchRecord,
        events: Sequence[NewEvent],
        *,
        idle_ms: int = 0,
        listed: bool = False,
    ) -> str:
        if self._live(record.match_id) is not None:
            raise MatchIdTaken(f"match id {record.match_id} is already taken")
        match = _Match(_as_stored(record))
        self._add_events(match, record.version, events)
        last = match.events[-1].event_id if match.events else ""
        match.record = replace(match.record, last_event_id=last)
        if idle_ms > 0:
            match.expires_ms = self._clock_ms() + idle_ms
        self._matches[record.match_id] = match
        if listed:
            await self.index(match.record, None, record.status)
        return last

    async def existed(self, match_id: str) -> bool:
        return match_id in self._existed

    async def load(
        self, match_id: str, unless_version: int | None = None
    ) -> MatchRecord | Unchanged | None:
        match = self._live(match_id)
        if match is None:
            return None
        if match.record.version == unless_version:
            return UNCHANGED
        return match.record

    async def commit(
        self,
        match_id: str,
        expected_version: int,
        commit: Commit,
        *,
        listed: MatchRecord | None = None,
    ) -> CommitResult:
        match = self._live(match_id)
        if match is not None and commit.request_id:
            first = _answer_to(match, commit.request_seat, commit.request_id)
            if first is not None:
                return Duplicate(first)
        if match is None:
            return Conflict(None)
        record = match.record
        if record.version != expected_version:
            return Conflict(record)
        version = record.version + 1
        ids = self._add_events(match, version, commit.events)
        changes: dict[str, Any] = {"version": version}
        if commit.state is not None:
            changes["state"] = commit.state
        if commit.status is not None:
            changes["status"] = commit.status
        if commit.seats is not None:
            changes["seats"] = commit.seats
        if commit.outcome is not None:
            changes["outcome"] = _json_copy(commit.outcome)
        if commit.deadline_ms is not None:
            changes["deadline_ms"] = commit.deadline_ms
        if commit.seed is not None:
            changes["seed"] = commit.seed
        if ids:
            changes["last_event_id"] = ids[-1]
        match.record = replace(record, **changes)
        if ids:
            events = match.events[-len(ids) :]
            push = FeedPush(match_id, record.last_event_id, events, match.record)
            for feed in self._feeds:
                feed._push(push)
        match.log += commit.log
        if commit.request_id:
            answers = match.answers.setdefault(commit.request_seat, deque(maxlen=REQUEST_WINDOW))
            last = ids[-1] if ids else ""
            answers.append((commit.request_id, Answer(version, last, commit.answer)))
        if commit.status == "finished":
            match.expires_ms = 0  # kept for ever, for replay
        elif commit.idle_ms > 0:
            match.expires_ms = self._clock_ms() + commit.idle_ms
        if listed is not None and commit.status is not None:
            await self.index(listed, listed.status, commit.status)
        return Committed(version, tuple(ids))

    async def request_answer(self, match_id: str, seat: int, request_id: str) -> Answer | None:
        match = self._live(match_id)
        return None if match is None else _answer_to(match, seat, request_id)

    async def read_log(self, match_id: str) -> list[LogEntry]:
        match = self._live(match_id)
        return [] if match is None else list(match.log)

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]:
        # label_of: never needed, as events are kept whole (nothing is archived).
        deadline = time.monotonic() + block_ms / 1000
        while True:
            found = self._events_after(match_id, after_event_id, count)
            left = deadline - time.monotonic()
            if found or left <= 0:
                return found
            await self._wait(asyncio.get_running_loop().create_future(), left)

    # --- the indexes --------------------------------------------------------------------------

    async def index(self, record: MatchRecord, previous: Status | None, current: Status) -> None:
        match_id, created = record.match_id, record.created_ms
        if current == "finished":
            self._unarchived.setdefault(match_id, 0)
            self._clocks.pop(match_id, None)
            self._unfinished.pop(match_id, None)
            self._clients.get(record.client_id, {}).pop(match_id, None)
        else:
            self._unfinished[match_id] = created
            if record.move_seconds:
                self._clocks[match_id] = created
            if record.client_id:
                self._clients.setdefault(record.client_id, {})[match_id] = created
        self._existed.add(match_id)
        self._listed[match_id] = (created, current)

    async def unarchived(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        due = [m for m, until in self._unarchived.items() if until <= now_ms][:limit]
        for match_id in due:
            if self._live(match_id) is None:  # gone: nothing left to archive
                del self._unarchived[match_id]
            else:
                self._unarchived[match_id] = now_ms + lease_ms
        return [m for m in due if m in self._unarchived]

    async def archived(self, record: MatchRecord, keep_ms: int, now_ms: int) -> None:
        match = self._live(record.match_id)
        if match is not None:
            match.expires_ms = now_ms + keep_ms
        self._unarchived.pop(record.match_id, None)  # last, as the Redis store does

    async def list_matches(
        self,
        status: Status | None,
        game: str | None,
        limit: int,
        *,
        after: tuple[int, str] | None = None,
        tenant: str = "",
    ) -> list[MatchRecord]:
        found = []
        for match_id, (created, indexed) in list(self._listed.items()):
            match = self._live(match_id)
            if match is None:
                continue
            record = match.record
            if record.status != indexed:  # a stale entry: repaired
                await self.index(record, indexed, record.status)
                if status is not None:
                    continue  # it was not in the index asked for
            if record.tenant == tenant and _wanted(record, status, game):
                found.append((created, match_id, record))
        return _page(found, limit, after)

    async def index_player(self, tenant: str, player: str, match_id: str, created_ms: int) -> None:
        self._players.setdefault((tenant, player), {})[match_id] = created_ms

    async def player_matches(
        self,
        tenant: str,
        player: str,
        status: Status | None,
        game: str | None,
        limit: int,
        *,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        found = []
        for match_id, created in self._players.get((tenant, player), {}).items():
            match = self._live(match_id)
            if match is None:
                continue
            record = match.record
            if record.tenant != tenant or not any(s.player == player for s in record.seats):
                continue  # never listed for another's player (the index is only a hint)
            if _wanted(record, status, game):
                found.append((created, match_id, record))
        return _page(found, limit, after)

    async def open_matches(self, client_id: str) -> int:
        return sum(self._unfinished_now(m) for m in self._clients.get(client_id, {}))

    async def claim_open_slot(
        self, client_id: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        return self._claim(self._clients.setdefault(client_id, {}), match_id, now_ms, limit)

    async def claim_quota_slot(
        self, quota_key: str, match_id: str, now_ms: int, limit: int
    ) -> int | None:
        return self._claim(self._quotas.setdefault(quota_key, {}), match_id, now_ms, limit)

    async def claim_unfinished_slot(self, match_id: str, now_ms: int, limit: int) -> int | None:
        return self._claim(self._unfinished, match_id, now_ms, limit)

    async def release_open_slots(
        self, match_id: str, *, client_id: str = "", quota_key: str = ""
    ) -> None:
        self._unfinished.pop(match_id, None)
        self._clients.get(client_id, {}).pop(match_id, None)
        self._quotas.get(quota_key, {}).pop(match_id, None)

    async def deadlines(self, limit: int, offset: int = 0) -> tuple[list[tuple[str, int]], int]:
        page = sorted(self._clocks.items(), key=lambda item: (item[1], item[0]))
        page = page[offset : offset + limit]
        found, gone = [], 0
        for match_id, _created in page:
            match = self._live(match_id)
            if match is None or match.record.status == "finished":
                self._clocks.pop(match_id, None)
                self._unfinished.pop(match_id, None)
                gone += 1
            else:
                found.append((match_id, match.record.deadline_ms))
        # The ones removed leave the index: the next page starts that much closer.
        return found, (offset + len(page) - gone if len(page) == limit else 0)

    async def match_counts(self) -> dict[Status, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for match_id, (_created, status) in list(self._listed.items()):
            if self._live(match_id) is not None:
                counts[status] += 1
        return counts

    # --- inside -------------------------------------------------------------------------------

    def _live(self, match_id: str) -> _Match | None:
        """The match, unless it is unknown or expired (then dropped, as Redis drops its keys)."""
        match = self._matches.get(match_id)
        if match is not None and match.expires_ms and match.expires_ms <= self._clock_ms():
            del self._matches[match_id]
            self._listed.pop(match_id, None)
            return None
        return match

    def _unfinished_now(self, match_id: str) -> bool:
        match = self._live(match_id)
        return match is not None and match.record.status != "finished"

    def _claim(self, index: dict[str, int], match_id: str, now_ms: int, limit: int) -> int | None:
        """Count ``match_id`` in a quota index unless it holds ``limit`` already: None when
        counted, else how many it holds (once pruned of matches no longer unfinished)."""
        if match_id not in index and len(index) >= limit:
            for other, claimed in list(index.items()):
                match = self._live(other)
                if match is None:  # gone, or a create maybe still on its way
                    if claimed < now_ms - _CLAIM_GRACE_MS:
                        del index[other]
                elif match.record.status == "finished":
                    del index[other]
            if len(index) >= limit:
                return len(index)
        index.setdefault(match_id, now_ms)
        return None

    def _add_events(self, match: _Match, version: int, events: Sequence[NewEvent]) -> list[str]:
        ids = []
        for event in events:
            event_id = self._next_event_id()
            ids.append(event_id)
            match.events.append(StoredEvent(event_id, version, event.kind, _json_copy(event.data)))
        if ids:  # every waiting read reads again
            for waiter in self._waiters:
                if not waiter.done():
                    waiter.set_result(None)
            self._waiters.clear()
        return ids

    async def _wait(self, waiter: asyncio.Future[None], seconds: float) -> None:
        """Wait up to ``seconds`` for new events, or for ``waiter`` to be done otherwise."""
        self._waiters.add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, seconds)
        finally:
            self._waiters.discard(waiter)

    def _next_event_id(self) -> str:
        """ "<ms>-<seq>", after every id given before (as Redis's XADD makes them)."""
        ms, seq = self._clock_ms(), 0
        last_ms, last_seq = self._last_event
        if ms <= last_ms:
            ms, seq = last_ms, last_seq + 1
        self._last_event = (ms, seq)
        return f"{ms}-{seq}"

    def _events_after(self, match_id: str, after: str, count: int) -> list[StoredEvent]:
        match = self._live(match_id)
        if match is None:
            return []
        return [e for e in match.events if event_id_after(e.event_id, after)][:count]


class MemoryFeed:
    """:class:`serai.store.EventFeed` on a :class:`MemoryStore`: one shard ("")."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._waiting: asyncio.Future[None] | None = None  # the waiting read's, for wake()
        self._woken = False
        self._listening: set[str] = set()
        self._pushes: list[FeedPush] = []
        self._pushed = asyncio.Event()

    def shard_of(self, match_id: str) -> str:
        return ""

    async def read(
        self,
        shard: str,
        after: Mapping[str, str],
        *,
        block_ms: int,
        count: int,
        versions: Mapping[str, int] | None = None,
    ) -> FeedRead:
        store = self._store
        deadline = time.monotonic() + max(1, block_ms) / 1000
        while True:
            found = {m: store._events_after(m, a, count) for m, a in after.items()}
            left = deadline - time.monotonic()
            if any(found.values()) or left <= 0:
                events = {m: events for m, events in found.items() if events}
                return FeedRead(events, self._records(events, versions))
            self._waiting = waiter = asyncio.get_running_loop().create_future()
            try:
                await store._wait(waiter, left)
            finally:
                self._waiting = None
            if self._woken:  # answered as a read that timed out
                self._woken = False
                return FeedRead({})

    def _records(
        self, events: Mapping[str, Sequence[StoredEvent]], versions: Mapping[str, int] | None
    ) -> dict[str, MatchRecord | Unchanged]:
        """The records of the matches with ``events`` (read at the same moment)."""
        if versions is None:
            return {}
        records: dict[str, MatchRecord | Unchanged] = {}
        for match_id in events.keys() & versions.keys():
            match = self._store._live(match_id)
            if match is not None:
                same = match.record.version == versions[match_id]
                records[match_id] = UNCHANGED if same else match.record
        return records

    async def wake(self, shard: str) -> bool:
        waiter = self._waiting
        if waiter is None or waiter.done():
            return False
        self._woken = True
        waiter.set_result(None)
        return True

    @property
    def pushes(self) -> bool:
        return True

    async def listen(
        self, shard: str, add: Collection[str] = (), drop: Collection[str] = ()
    ) -> None:
        self._listening.update(add)
        self._listening.difference_update(drop)
        if self._listening:
            self._store._feeds.add(self)
        else:
            self._store._feeds.discard(self)

    async def pushed(self, shard: str, *, timeout_ms: int) -> list[FeedPush]:
        if not self._pushes:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._pushed.wait(), timeout_ms / 1000)
        pushes, self._pushes = self._pushes, []
        self._pushed.clear()
        return pushes

    def _push(self, push: FeedPush) -> None:
        """A commit of a match (the store's own call): kept for :meth:`pushed` if listened to."""
        if push.match_id in self._listening:
            self._pushes.append(push)
            self._pushed.set()

    async def close(self) -> None:
        self._store._feeds.discard(self)
        await self.wake("")


class MemoryApiKeys:
    """:class:`serai.store.api_keys.ApiKeyStore` in a dictionary (revoked keys kept, marked)."""

    def __init__(self, clock_ms: Callable[[], int] = wall_ms) -> None:
        self._clock_ms = clock_ms
        self._keys: dict[str, ApiKey] = {}

    async def create(
        self,
        name: str,
        *,
        max_open_matches: int = 0,
        move_rate: float = 0.0,
        move_burst: float = 0.0,
        players: PlayerTokenRules | None = None,
        webhook_url: str = "",
        now_ms: int | None = None,
    ) -> CreatedKey:
        made = new_key(
            name,
            self._clock_ms() if now_ms is None else now_ms,
            max_open_matches=max_open_matches,
            move_rate=move_rate,
            move_burst=move_burst,
            players=players,
            webhook_url=webhook_url,
        )
        if name in self._keys:
            raise KeyExists(f"a key named {name!r} exists or existed: choose another name")
        self._keys[name] = made.key
        return made

    async def set_players(self, name: str, players: PlayerTokenRules | None) -> CreatedKey | None:
        key = self._keys.get(name)
        if key is None or key.revoked_ms:
            return None
        updated = _with_players(key, players)
        self._keys[name] = updated.key
        return updated

    async def set_webhook(
        self, name: str, url: str, now_ms: int | None = None
    ) -> CreatedKey | None:
        key = self._keys.get(name)
        if key is None or key.revoked_ms:
            return None
        updated = with_webhook(key, url, self._clock_ms() if now_ms is None else now_ms)
        self._keys[name] = updated.key
        return updated

    async def get(self, name: str) -> ApiKey | None:
        return self._keys.get(name)

    async def list(self) -> list[ApiKey]:
        return [self._keys[name] for name in sorted(self._keys)]

    async def revoke(self, name: str, now_ms: int | None = None) -> bool:
        key = self._keys.get(name)
        if key is None or key.revoked_ms:
            return False
        revoked = self._clock_ms() if now_ms is None else now_ms
        self._keys[name] = replace(key, revoked_ms=revoked)
        return True


class MemoryWebhookOutbox:
    """:class:`serai.store.webhooks.WebhookOutbox` in dictionaries, as the Redis one keeps it:
    due times, lease tokens, progress, the matches followed while leased, and the logs."""

    def __init__(self) -> None:
        self._due: dict[str, int] = {}
        self._leases: dict[str, str] = {}
        self._progress: dict[str, str] = {}
        self._poked: set[str] = set()
        self._logs: dict[str, deque[DeliveryLine]] = {}

    async def follow(self, match_id: str, due_ms: int) -> None:
        if match_id in self._leases:
            self._poked.add(match_id)
        else:
            self._due[match_id] = min(due_ms, self._due.get(match_id, due_ms))

    async def claim(self, now_ms: int, lease_ms: int, limit: int, lease: str) -> list[Claimed]:
        due = sorted((at, m) for m, at in self._due.items() if at <= now_ms)[:limit]
        for _at, match_id in due:
            self._due[match_id] = now_ms + lease_ms
            self._leases[match_id] = lease
            self._poked.discard(match_id)
        return [Claimed(m, lease, self._progress.get(m, "")) for _at, m in due]

    async def settle(
        self, match_id: str, lease: str, progress: str, now_ms: int, due_ms: int
    ) -> bool:
        if self._leases.get(match_id) != lease:
            return False
        del self._leases[match_id]
        self._progress[match_id] = progress
        poked = match_id in self._poked
        self._poked.discard(match_id)
        self._due[match_id] = now_ms if poked else due_ms
        return True

    async def keep(self, match_id: str, lease: str, progress: str, until_ms: int) -> bool:
        if self._leases.get(match_id) != lease:
            return False
        self._progress[match_id] = progress
        self._due[match_id] = until_ms
        return True

    async def drop(self, match_id: str, lease: str) -> bool:
        if self._leases.get(match_id) != lease:
            return False
        for table in (self._due, self._leases, self._progress):
            table.pop(match_id, None)
        self._poked.discard(match_id)
        return True

    async def record(self, key_name: str, line: DeliveryLine) -> None:
        self._logs.setdefault(key_name, deque(maxlen=LOG_LINES)).appendleft(line)

    async def delivery_log(self, key_name: str, limit: int) -> list[DeliveryLine]:
        return list(self._logs.get(key_name, ()))[:limit]


def _as_stored(record: MatchRecord) -> MatchRecord:
    """The record as the Redis store gives it back: JSON values copied (no value shared with
    the caller), and a match without a clock has no deadline nor timeout policy."""
    changes: dict[str, Any] = {"options": _json_copy(record.options)}
    if record.outcome is not None:
        changes["outcome"] = _json_copy(record.outcome)
    if not record.move_seconds:
        changes |= {"deadline_ms": 0, "timeout_policy": "lose"}
    return replace(record, **changes)


def _json_copy(value: Mapping[str, Any]) -> dict[str, Any]:
    """``value`` as read back from JSON (what the Redis store gives), shared with no one."""
    copied: dict[str, Any] = json.loads(json.dumps(dict(value), separators=(",", ":")))
    return copied


def _answer_to(match: _Match, seat: int, request_id: str) -> Answer | None:
    for seen, first in match.answers.get(seat, ()):
        if seen == request_id:
            return first
    return None


def _wanted(record: MatchRecord, status: Status | None, game: str | None) -> bool:
    return (status is None or record.status == status) and (game is None or record.game == game)


def _page(
    found: list[tuple[int, str, MatchRecord]], limit: int, after: tuple[int, str] | None
) -> list[MatchRecord]:
    """Newest first by (created_ms, match_id), only those after the position ``after``, at most
    ``limit``; without their state (as a listing gives them)."""
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    if after is not None:
        found = [item for item in found if (item[0], item[1]) < after]
    return [replace(record, state=b"") for _created, _id, record in found[:limit]]
