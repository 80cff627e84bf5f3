"""One process's shared watch hub: every watched match's events read through a few store
connections, whatever the number of watchers, and fanned out to the match's local watchers.

It is a :class:`serai.matches.watching.WatchSource`, knowing no transport and no game. The
shape is boardgame.io's (one subscription per match per process) on redis-py's PubSub and
asyncio's Queue patterns (one reader task per source, bounded queues per consumer):

- one reader task per shard of the :class:`EventFeed` (a Redis node), doing one blocking read
  of every followed match's events at once;
- where the feed can push (not a Redis Cluster), a second task per shard takes each commit
  of the followed matches as the store pushes it (:class:`serai.store.FeedPush`, the record
  with the events): a delivery half a round trip after the commit, where the shared read,
  one in flight and sent again only after its answer, can be up to a round trip later. A
  push that does not follow the hub's cursor (one was missed) is left to the shared read,
  the lossless path; whichever brings an event first delivers it, once. Once a push has
  followed a match's cursor, the shared read brings that match's events alone, and they wait
  for their push's record (a commit's record is read once, not twice), loading only if the
  push was lost;
- a match is followed from its first watcher to its last; the shared read brings each moved
  match's record with its new events (:class:`serai.store.FeedRead`: one round trip, no load
  of its own), the batch's snapshot is the match at its last event (:func:`read_to_entry`),
  and each seat's snapshot is built once for all who share it (spectators share one). Where
  the feed brings no record (a Redis Cluster), a batch is completed up to one load; a load
  newer than the events waits for the shared read to bring the rest, never chases the match
  with more loads; new events' reads never queue behind catch-ups or the rechecks of quiet
  matches (a load each);
- a watcher first catches up from its ``after_event_id`` with direct, bounded reads, then
  joins the feed at the event it reached: no gap, nothing twice;
- each watcher's queue holds at most ``queue_batches`` batches: one that falls further behind
  is ended with :class:`WatchBehind` (it resumes after the last event it received), never
  buffered without bound;
- :meth:`WatchHub.close` ends every watch at once.

The feed protocol and the per-match, per-shard and per-watcher state it keeps are in
:mod:`serai.matches.following`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator

import structlog

from serai.game import Seat
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.errors import MatchError, WatchBehind
from serai.matches.events import seen_by
from serai.matches.following import BoundedReads, End, FollowedMatch, Shard, Watcher
from serai.matches.reading import snapshot
from serai.matches.values import Snapshot, WatchBatch
from serai.matches.watching import (
    Caught,
    EventReads,
    finished_at,
    label_of,
    read_to_entry,
)
from serai.store import (
    EventFeed,
    FeedPush,
    MatchRecord,
    StoredEvent,
    StoreError,
    event_id_after,
)

log = structlog.get_logger("serai.matches")

_READ_COUNT = 500  # events per match per shared read
_RECHECK_SECONDS = 5.0  # a quiet match is loaded again this often at the least (expiry)
_RECHECKS_PER_SECOND = 500  # ... and no more of them than this, however many matches
_RETRY_SECONDS = 0.5  # after a failed shared read
_ENDED_KEPT = 10_000  # matches followed to their end that the hub remembers (see _ended_after)
_FED_ROUND_TRIP = 0.25  # seconds: what the nudge takes a round trip to be, with no load timed
# How long events the shared read brought wait for their push (sent by the same commit, on
# another connection) before they are delivered with a load.
_PUSH_WAIT_SECONDS = 0.05
_DIRECT_READS = 8  # catch-up reads at once: each holds a store connection while it runs
_DELIVERY_READS = 16  # ... and deliveries' reads, apart: a burst of catch-ups or rechecks must
# not hold up new events (on a slow link, 8 reads at once are 8 a round trip, for every match)

__all__ = ["WatchHub"]


class WatchHub:
    """The watch source of one process: a few shared readers instead of a read per watch.

    Example::

        hub = WatchHub(store.event_feed(), store, clocks, block_ms=1000)
        watching = Watching(hub, clocks, max_watches=20_000)
        ...
        await hub.close()       # every watch ends; the feed's connections close
    """

    def __init__(
        self,
        feed: EventFeed,
        reads: EventReads,
        clocks: Clocks,
        *,
        block_ms: int = 1000,
        queue_batches: int = 256,
    ) -> None:
        self.feed = feed
        self.reads = BoundedReads(reads, _DIRECT_READS)  # catch-ups and rechecks
        self.delivery_reads = BoundedReads(reads, _DELIVERY_READS)  # new events
        self.clocks = clocks
        self.block_ms = max(1, min(block_ms, 5000))  # below the store's command timeout
        self.queue_batches = queue_batches
        self.closing = False
        self._matches: dict[str, FollowedMatch] = {}
        self._shards: dict[str, Shard] = {}
        # The last event of each match the hub followed to its end, the latest few: a watcher
        # that caught up to before it as it ended reads on instead of following it again.
        self._ended: dict[str, str] = {}
        self._janitor: asyncio.Task[None] | None = None

    @property
    def followed(self) -> int:
        """How many matches the hub follows now."""
        return len(self._matches)

    async def batches(
        self, entry: Entry, seat: Seat | None, after_event_id: str
    ) -> AsyncGenerator[WatchBatch, None]:
        """See :class:`serai.matches.watching.WatchSource`."""
        match_id = entry.record.match_id
        label = label_of(entry.game)
        caught = Caught([], [], after_event_id, entry)
        read_first = True
        load: bool = False  # the next read is completed with a new load, not caught.entry
        while True:  # catch up with direct reads until the shared feed has nothing newer
            caught = await read_to_entry(
                self.reads,
                self.clocks,
                match_id,
                label,
                caught.rest,
                caught.position,
                None if load else caught.entry,
                read_first=read_first,
            )
            if caught.events:
                yield WatchBatch(
                    seen_by(caught.events, seat), snapshot(caught.entry, seat), caught.entry
                )
            if self.closing or (finished_at(caught.entry, caught.position) and not caught.rest):
                return
            followed = self._matches.get(match_id)
            load = False
            if not caught.rest and (
                followed is None or not event_id_after(followed.cursor, caught.position)
            ):
                if followed is not None or not self._ended_after(match_id, caught.position):
                    break
                # The hub just delivered the match's last events and stopped following it, and
                # its stream may be archived already: the shared read would never bring them.
                load = True
            read_first = not caught.rest
        watcher = Watcher(seat, caught.position)
        followed = self._follow(match_id, watcher, caught.position, caught.entry)
        delivered = caught.position
        try:
            while True:
                if not watcher.items:
                    watcher.ready.clear()
                    await watcher.ready.wait()
                item = watcher.items.popleft()
                if isinstance(item, End):
                    if item.error is not None:
                        if isinstance(item.error, WatchBehind):
                            raise WatchBehind(
                                f"{item.error} (resume after event {delivered or '0-0'})"
                            )
                        raise item.error
                    return
                yield item
                delivered = item.events[-1].event_id
        finally:
            self._unfollow(followed, watcher)

    def _follow(
        self, match_id: str, watcher: Watcher, position: str, entry: Entry
    ) -> FollowedMatch:
        followed = self._matches.get(match_id)
        if followed is None:
            shard_name = self.feed.shard_of(match_id)
            followed = FollowedMatch(match_id, shard_name, position, entry)
            self._matches[match_id] = followed
            shard = self._shards.get(shard_name)
            if shard is None:
                shard = self._shards[shard_name] = Shard(shard_name)
            shard.matches[match_id] = followed
            self._start_reading(shard)
            self._start_listening(shard)
        followed.watchers.add(watcher)
        if self._janitor is None and not self.closing:
            self._janitor = asyncio.get_running_loop().create_task(self._look_at_quiet())
        return followed

    def _unfollow(self, followed: FollowedMatch, watcher: Watcher) -> None:
        followed.watchers.discard(watcher)
        if followed.watchers or self._matches.get(followed.match_id) is not followed:
            return
        del self._matches[followed.match_id]
        shard = self._shards.get(followed.shard)
        if shard is not None:
            shard.matches.pop(followed.match_id, None)
            self._start_listening(shard)
        if followed.task is not None and followed.task is not asyncio.current_task():
            followed.task.cancel()

    def _start_reading(self, shard: Shard) -> None:
        if self.closing:
            return
        if shard.task is None or shard.task.done():
            shard.task = asyncio.get_running_loop().create_task(self._read(shard))
            return
        shard.stale = True  # its waiting read does not have the new match: end it early
        if shard.waking is None or shard.waking.done():
            shard.waking = asyncio.get_running_loop().create_task(self._wake(shard))

    async def _wake(self, shard: Shard) -> None:
        """End the shard's waiting read, so that the next one includes the new matches. A wake
        sent before Redis took the read ends nothing: try again briefly."""
        await asyncio.sleep(0.002)  # let a burst of new watchers gather into one wake
        for _ in range(20):
            if not shard.stale or self.closing:
                return
            try:
                if await self.feed.wake(shard.name):
                    return
            except StoreError:
                return  # the reader meets the same trouble and reports it
            await asyncio.sleep(0.005)

    def _start_listening(self, shard: Shard) -> None:
        """Have the feed push the commits of the shard's followed matches (and no others)."""
        if self.closing or not self.feed.pushes:
            return
        loop = asyncio.get_running_loop()
        if shard.listening is None or shard.listening.done():
            shard.listening = loop.create_task(self._listen(shard))
        if shard.matches and (shard.pushes is None or shard.pushes.done()):
            shard.pushes = loop.create_task(self._take_pushes(shard))

    async def _listen(self, shard: Shard) -> None:
        """Bring the feed's listening up to the shard's matches, one change at a time (a
        burst of new watchers gathers into one)."""
        await asyncio.sleep(0)
        while not self.closing:
            add = shard.matches.keys() - shard.listened
            drop = shard.listened - shard.matches.keys()
            if not add and not drop:
                return
            try:
                await self.feed.listen(shard.name, add, drop)
            except StoreError:  # the shared read meets the same trouble and reports it
                return
            shard.listened = (shard.listened | add) - drop

    async def _take_pushes(self, shard: Shard) -> None:
        """The shard's pushed commits, handed to their matches while it follows any."""
        while shard.matches and not self.closing:
            try:
                pushes = await self.feed.pushed(shard.name, timeout_ms=self.block_ms)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the shared read reports it: pushes are a shortcut
                if not isinstance(error, StoreError):
                    log.exception("watch hub pushes failed", shard=shard.name)
                await asyncio.sleep(_RETRY_SECONDS)
                continue
            for push in pushes:
                self._take(shard, push)

    def _take(self, shard: Shard, push: FeedPush) -> None:
        """A pushed commit: its events delivered with its record, unless it does not follow
        the match's cursor (the shared read brings what was missed); where the shared read
        brought its events first, they are delivered with its record."""
        followed = shard.matches.get(push.match_id)
        if followed is None or event_id_after(push.after_event_id, followed.cursor):
            return
        new = [e for e in push.events if event_id_after(e.event_id, followed.cursor)]
        if not new:
            if (
                followed.awaiting_push
                and push.events[-1:]
                and (push.events[-1].event_id == followed.cursor)
            ):  # the shared read brought these events first: this is their record
                followed.fed, followed.awaiting_push = push.record, False
                self._kick(followed)
            return
        followed.pushed = True
        followed.fed, followed.awaiting_push = push.record, False  # after all of the inbox
        followed.inbox.extend(new)
        followed.cursor = new[-1].event_id
        followed.active = time.monotonic()
        self._kick(followed)

    async def _read(self, shard: Shard) -> None:
        """The shard's reader: one shared read after another while it follows any match."""
        while shard.matches and not self.closing:
            after = {match_id: m.cursor for match_id, m in shard.matches.items()}
            versions = self._versions_held(shard)
            shard.stale = False
            try:
                got = await self.feed.read(
                    shard.name, after, block_ms=self.block_ms, count=_READ_COUNT, versions=versions
                )
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the store is down, or a bug: its watchers resume
                if not isinstance(error, StoreError):
                    log.exception("watch hub read failed", shard=shard.name)
                for failed in list(shard.matches.values()):
                    self._end_all(failed, error if isinstance(error, StoreError) else None)
                await asyncio.sleep(_RETRY_SECONDS)
                continue
            now = time.monotonic()
            for match_id, events in got.events.items():
                followed = shard.matches.get(match_id)
                if followed is None or not events:
                    continue
                cursor = followed.cursor
                new = [e for e in events if event_id_after(e.event_id, cursor)]
                if not new:
                    continue
                fed = got.records.get(match_id)
                if fed is not None:  # read just after these events: no load to deliver them
                    followed.fed = fed if isinstance(fed, MatchRecord) else followed.entry
                followed.inbox.extend(new)
                followed.cursor = new[-1].event_id
                followed.full = followed.full or len(events) >= _READ_COUNT
                followed.active = now
                if fed is None and followed.pushed and not followed.full:  # the push has it
                    followed.awaiting_push = True
                    loop = asyncio.get_running_loop()
                    loop.call_later(_PUSH_WAIT_SECONDS, self._push_late, followed, followed.cursor)
                self._kick(followed)
            if got.events and len(after) > 2000:
                # Each shared read names every followed stream: with many, let a few more
                # events gather than re-read them all after each (at most 50 ms later).
                await asyncio.sleep(min(0.05, len(after) / 500_000))

    def _versions_held(self, shard: Shard) -> dict[str, int] | None:
        """The versions the shared read is told, so that it brings each moved match's record
        with its events: of the matches whose commits do not come pushed yet (no push has
        followed their cursor). A pushed match's events come alone, delivered with their
        push's record (or loaded, should the push not come: :meth:`_push_late`), so that no
        commit's record is read twice (with every seat on Play that was two record reads a
        move and doubled Redis's time); None, no record at all, once every match is pushed."""
        versions = {
            match_id: m.entry.record.version
            for match_id, m in shard.matches.items()
            if not (m.pushed and self.feed.pushes)
        }
        return versions or None

    def _push_late(self, followed: FollowedMatch, cursor: str) -> None:
        """The push of the events the shared read brought up to ``cursor`` did not come (pub/sub
        may drop one): deliver them with a load."""
        if followed.awaiting_push and followed.cursor == cursor:
            followed.awaiting_push = False
            self._kick(followed)

    def _kick(self, followed: FollowedMatch) -> None:
        if followed.task is None or followed.task.done():
            followed.task = asyncio.get_running_loop().create_task(self._deliver(followed))

    async def _deliver(self, followed: FollowedMatch) -> None:
        """Complete the match's new events up to a load of it and hand them to its watchers."""
        while (followed.inbox or followed.recheck) and followed.watchers and not self.closing:
            if self._waiting_for_feed(followed):
                return  # the reader kicks this again with the events (or the nudge does)
            events, followed.inbox = followed.inbox, []
            read_first, followed.full = followed.full or not events, False
            nudged, followed.recheck = followed.recheck, False
            ahead, followed.ahead = followed.ahead, None
            fed, followed.fed = followed.fed, None
            start = followed.cursor  # the newest event read for it, in ``events`` or before
            began = time.monotonic()
            try:
                # a recheck: only a load, unless the match has more to read
                if not events and not await self._has_more(followed):
                    if finished_at(followed.entry, followed.cursor):
                        self._end_all(followed, None, drop_queued=False)
                        return
                    continue
                entry = followed.entry if not events else None if read_first else ahead
                if events and not read_first and fed is not None:
                    entry = await self._entry_fed(fed, ahead)
                caught = await read_to_entry(
                    self.delivery_reads if events else self.reads,
                    self.clocks,
                    followed.match_id,
                    followed.label,
                    events,
                    start,
                    entry,
                    read_first=read_first,
                    read_newer=nudged or not events,
                )
            except (MatchError, StoreError) as error:  # expired, gone, or the store is down
                self._end_all(followed, error)
                return
            except Exception:
                log.exception("watch hub could not deliver", match_id=followed.match_id)
                self._end_all(followed, None)
                return
            # the shared read in flight brings the rest: a direct read only if it has not
            # within about a round trip (a load's time, or a guess where none was made)
            took = time.monotonic() - began if fed is None else _FED_ROUND_TRIP
            if self._delivered(followed, caught, took):
                return

    async def _entry_fed(self, fed: Entry | MatchRecord, ahead: Entry | None) -> Entry:
        """The entry of a record the shared read brought (its clock enforced if it ran out, as
        a load's would be), or ``ahead`` when that is newer."""
        entry = fed if isinstance(fed, Entry) else self.clocks.entries.remember(fed)
        if ahead is not None and ahead.record.version > entry.record.version:
            return ahead
        if self.clocks.overdue(entry):
            entry = await self.clocks.enforce(entry)
        return entry

    def _waiting_for_feed(self, followed: FollowedMatch) -> bool:
        """Whether the match waits for the shared read to bring its events up to the entry
        loaded ahead of them (see :meth:`_delivered`)."""
        ahead, inbox = followed.ahead, followed.inbox
        if followed.awaiting_push and inbox and not followed.recheck:
            return True
        return (
            ahead is not None
            and bool(inbox)
            and not followed.full
            and not followed.recheck
            and ahead.record.version > inbox[-1].version
        )

    def _delivered(self, followed: FollowedMatch, caught: Caught, took: float) -> bool:
        """Hand what was caught to the watchers; whether the match is over for them.

        A load that found the match newer than its events read: their missing events are
        already on their way in the shared read (it was sent as the load was), so wait for them
        (``ahead``) rather than spend a round trip reading them directly; a direct read only if
        they do not come within twice the time the load took (the nudge)."""
        # Events read directly may also come from the shared read in flight: keep each once.
        position = caught.position
        if event_id_after(position, followed.cursor):
            followed.cursor = position
        later = [e for e in followed.inbox if event_id_after(e.event_id, position)]
        followed.inbox = caught.rest + later
        followed.entry = caught.entry
        if caught.events:
            self._fan_out(followed, caught.events, caught.entry)
        elif caught.rest and caught.entry.record.version > caught.rest[-1].version:
            followed.ahead = caught.entry
            wait = min(max(2 * took, 0.02), self.block_ms / 1000)
            asyncio.get_running_loop().call_later(wait, self._nudge, followed, caught.entry)
        if finished_at(caught.entry, followed.cursor) and not followed.inbox:
            self._end_all(followed, None, drop_queued=False)
            return True
        return False

    def _nudge(self, followed: FollowedMatch, ahead: Entry) -> None:
        """Read the match directly if the events up to ``ahead`` did not come."""
        if followed.ahead is ahead and self._matches.get(followed.match_id) is followed:
            followed.recheck = True
            self._kick(followed)

    async def _has_more(self, followed: FollowedMatch) -> bool:
        """Load a quiet match (its clock enforced, its expiry found): whether it has events
        after the hub's cursor, the shared read's having missed them (archived first)."""
        entry = await self.clocks.current(followed.match_id)
        followed.entry = entry
        return event_id_after(entry.record.last_event_id, followed.cursor)

    def _fan_out(self, followed: FollowedMatch, events: list[StoredEvent], entry: Entry) -> None:
        shared: dict[Seat | None, WatchBatch] = {}
        snapshots: dict[Seat | None, Snapshot] = {}
        last = events[-1].event_id
        for watcher in list(followed.watchers):
            if watcher.ended or not event_id_after(last, watcher.position):
                continue
            seat = watcher.seat
            if event_id_after(events[0].event_id, watcher.position):
                batch = shared.get(seat)
                if batch is None:
                    view = snapshots.get(seat) or snapshot(entry, seat)
                    batch = shared[seat] = WatchBatch(seen_by(events, seat), view, entry)
                    snapshots[seat] = view
            else:  # it caught up past the first of these
                mine = tuple(e for e in events if event_id_after(e.event_id, watcher.position))
                view = snapshots.get(seat) or snapshot(entry, seat)
                snapshots[seat] = view
                batch = WatchBatch(seen_by(mine, seat), view, entry)
            watcher.position = last
            if len(watcher.items) >= self.queue_batches:
                watcher.end(
                    End(
                        WatchBehind(
                            f"this watch fell more than {self.queue_batches} batches behind "
                            "its match's events and was ended"
                        )
                    ),
                    drop_queued=True,
                )
                continue
            watcher.items.append(batch)
            watcher.ready.set()

    def _end_all(
        self, followed: FollowedMatch, error: Exception | None, *, drop_queued: bool = True
    ) -> None:
        """End every watcher of the match (with ``error``, or as the match's end) and stop
        following it."""
        for watcher in list(followed.watchers):
            watcher.end(End(error), drop_queued=drop_queued)
        followed.watchers.clear()
        if error is None and finished_at(followed.entry, followed.cursor):
            self._ended[followed.match_id] = followed.cursor
            while len(self._ended) > _ENDED_KEPT:
                del self._ended[next(iter(self._ended))]
        if self._matches.get(followed.match_id) is followed:
            del self._matches[followed.match_id]
            shard = self._shards.get(followed.shard)
            if shard is not None:
                shard.matches.pop(followed.match_id, None)
                self._start_listening(shard)

    def _ended_after(self, match_id: str, position: str) -> bool:
        """Whether the hub saw the match end after ``position``: a watcher that caught up to
        there just before must read the rest itself."""
        last = self._ended.get(match_id)
        return last is not None and event_id_after(last, position)

    async def _look_at_quiet(self) -> None:
        """Load quiet matches now and then: one that expired, or whose last events were
        archived before the shared read saw them, is not left waiting for ever."""
        while not self.closing:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            every = max(_RECHECK_SECONDS, len(self._matches) / _RECHECKS_PER_SECOND)
            budget = _RECHECKS_PER_SECOND
            for followed in list(self._matches.values()):
                if budget <= 0:
                    break
                if now - followed.active >= every or self.clocks.overdue(followed.entry):
                    followed.active = now
                    followed.recheck = True
                    self._kick(followed)
                    budget -= 1

    async def close(self) -> None:
        """End every watch now (each resumes elsewhere after its last event) and stop reading."""
        self.closing = True
        for followed in list(self._matches.values()):
            self._end_all(followed, None, drop_queued=True)
        tasks = [t for t in (self._janitor,) if t is not None]
        tasks += [s.task for s in self._shards.values() if s.task is not None]
        tasks += [s.waking for s in self._shards.values() if s.waking is not None]
        tasks += [s.listening for s in self._shards.values() if s.listening is not None]
        tasks += [s.pushes for s in self._shards.values() if s.pushes is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.feed.close()
