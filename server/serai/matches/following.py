"""The watch hub's state, kept apart from its reader and delivery tasks so each module does one
job: the feed it reads, each followed match and shard, each watcher's queue, and the cap on
direct catch-up reads.

Only :mod:`serai.matches.hub` uses these.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

from serai.game import Seat
from serai.matches.cache import Entry
from serai.matches.values import WatchBatch
from serai.matches.watching import EventReads, label_of
from serai.store import MatchRecord, StoredEvent


class End:
    """What ends a watcher's queue: nothing (the watch ends) or an error to raise."""

    __slots__ = ("error",)

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error


class Watcher:
    __slots__ = ("ended", "items", "position", "ready", "seat")

    def __init__(self, seat: Seat | None, position: str) -> None:
        self.seat = seat
        self.position = position  # the last event queued for it
        self.items: deque[WatchBatch | End] = deque()
        self.ready = asyncio.Event()
        self.ended = False

    def end(self, item: End, drop_queued: bool) -> None:
        if self.ended:
            return
        if drop_queued:
            self.items.clear()
        self.items.append(item)
        self.ended = True
        self.ready.set()


class FollowedMatch:
    """One followed match: its watchers, and the events read for it and not yet delivered."""

    def __init__(self, match_id: str, shard: str, cursor: str, entry: Entry) -> None:
        self.match_id = match_id
        self.shard = shard
        self.cursor = cursor  # the last event read for it (delivered, or in ``inbox``)
        self.entry = entry
        self.label = label_of(entry.game)
        self.watchers: set[Watcher] = set()
        self.inbox: list[StoredEvent] = []
        self.full = False  # the last shared read brought as many as it may: read on directly
        self.recheck = False
        # A load newer than the events read: delivered once the shared read brings them.
        self.ahead: Entry | None = None
        # The match as the shared read found it just after the events in ``inbox`` (the entry
        # itself when unchanged): what they are delivered with, no load needed.
        self.fed: Entry | MatchRecord | None = None
        # The shared read brought events with no record, their push (which has it) on its way:
        # delivered with the push's record, or loaded if it does not come soon (see hub).
        self.awaiting_push = False
        self.pushed = False  # a push followed its cursor: every later commit comes pushed
        self.task: asyncio.Task[None] | None = None
        self.active = time.monotonic()


class Shard:
    def __init__(self, name: str) -> None:
        self.name = name
        self.matches: dict[str, FollowedMatch] = {}
        self.task: asyncio.Task[None] | None = None
        self.stale = False  # a match was added since the waiting read began
        self.waking: asyncio.Task[None] | None = None
        self.listened: set[str] = set()  # the matches whose commits the feed pushes
        self.listening: asyncio.Task[None] | None = None  # brings ``listened`` up to date
        self.pushes: asyncio.Task[None] | None = None  # takes the pushed commits


class BoundedReads:
    """Direct reads, at most ``limit`` at once: 2,000 watchers catching up together share a few
    store connections instead of each taking one."""

    def __init__(self, reads: EventReads, limit: int) -> None:
        self._reads = reads
        self._limit = asyncio.Semaphore(limit)

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]:
        async with self._limit:
            return await self._reads.read_events(
                match_id, after_event_id, block_ms=block_ms, count=count, label_of=label_of
            )
