"""Watching a match: batches of its events as they happen, each with the match as the watcher
may see it at the batch's last event, read through a :class:`WatchSource`.

Two sources: :class:`Polling`, where each watch reads its match's events itself (a blocking
read, so a store connection, per waiting watch), and the process's shared hub
(:class:`serai.matches.hub.WatchHub`), which reads every watched match through a few
connections. :class:`Watching` admits watches: at most ``max_watches`` at once, ``per_peer`` from
one peer (its host: a client opening new connections gets no more) and ``per_match`` on one
match, so that no client takes every slot; beyond them a new watch is refused
(:class:`LimitExceeded`).

A batch's snapshot is the match at the batch's last event, never newer (:func:`read_to_entry`
cuts batches so): each version's snapshot reaches a watcher once, so "your turn" is said once
per version.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from serai.game import Game, Seat
from serai.matches import access, requests, spectating
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.entries import Entries
from serai.matches.errors import LimitExceeded
from serai.matches.events import seen_by
from serai.matches.limits import NO_LIMITS, Limits
from serai.matches.reading import snapshot
from serai.matches.values import WatchBatch
from serai.store import StoredEvent, event_id_after

_RECHECK_SECONDS = 5.0  # a quiet Watch looks at its match this often (expiry, clocks)
CHUNK = 100  # events per read when catching up
_RELOADS = 4  # a store answering older records than its events (a failover): give up after


class WatchSource(Protocol):
    """Where a watch gets its batches: every event after ``after_event_id``, in order, each
    batch with the match at its last event as ``seat`` may see it; ends once the match is
    finished and its last event delivered (or the process closes)."""

    def batches(
        self, entry: Entry, seat: Seat | None, after_event_id: str
    ) -> AsyncIterator[WatchBatch]: ...


class EventReads(Protocol):
    """Bounded reads of one match's events: :meth:`serai.store.Store.read_events`."""

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]: ...


@dataclass
class Caught:
    """Events read up to an entry: ``events`` end at ``entry``'s version (nothing after it),
    ``rest`` came after it (kept for the next batch), ``position`` is the last event read."""

    events: list[StoredEvent]
    rest: list[StoredEvent]
    position: str
    entry: Entry


async def read_to_entry(
    reads: EventReads,
    clocks: Clocks,
    match_id: str,
    label: Callable[[bytes], str],
    events: list[StoredEvent],
    position: str,
    entry: Entry | None,
    *,
    read_first: bool,
    read_newer: bool = True,
) -> Caught:
    """Read on from ``position`` until the events read end exactly at a loaded entry's version.

    A commit writes the record and its events at once, so an entry loaded before a read that
    came back short has all its events in that read, and an entry loaded after a read is at
    least as new as what it read. ``entry`` None: load one now (after ``events`` were read);
    ``read_first``: the events read so far may not be all there is (a read came back full).

    At most a load and a read each (a round trip each), however fast the match moves: events
    read past the entry are cut off into ``rest``, not chased with another load (which, on a
    slow link to the store, could find the match moved on again, and so on).
    ``read_newer`` False: an entry loaded newer than the events (of a match still running) is
    returned with no events and all of them in ``rest``, for a caller that gets the missing
    events another way (the hub's shared read).
    """
    synced = False  # a short read happened after the entry's load
    reloads = 0
    while True:
        if entry is None and events and not read_first:
            # The events read are all there is up to ``position``: an entry cached at their last
            # version ends exactly there (this process's own commit, usually), so no load.
            entry = clocks.cached_at(match_id, events[-1].version)
        if entry is None:
            entry = await clocks.current(match_id)
        if read_first:
            chunk = await reads.read_events(match_id, position, count=CHUNK, label_of=label)
            if chunk:
                events.extend(chunk)
                position = chunk[-1].event_id
            read_first = len(chunk) == CHUNK
            synced = not read_first
            continue
        version = entry.record.version
        if events and events[0].version > version and reloads < _RELOADS:
            # Every event read is newer than the entry (one given, or cached): load it again,
            # after them, so it is at least as new. Never chase a match that moves faster than
            # a round trip (load, read, load, ...): events newer than the entry stay for the
            # next batch instead (``rest``).
            entry, reloads = None, reloads + 1
            continue
        if not synced and (not events or events[-1].version < version):
            if not read_newer and events and entry.record.status != "finished":
                return Caught([], events, position, entry)  # the caller waits for the rest
            read_first = True  # the entry is newer than the events: read what it has
            continue
        cut = len(events)
        while cut and events[cut - 1].version > version:
            cut -= 1
        return Caught(events[:cut], events[cut:], position, entry)


def finished_at(entry: Entry, position: str) -> bool:
    """Whether the match is over and ``position`` is (at or after) its last event."""
    record = entry.record
    return record.status == "finished" and not event_id_after(record.last_event_id, position)


class Polling:
    """The source where each watch reads its own match's events (a blocking read per waiting
    watch): for a :class:`serai.matches.Matches` that no process runtime gave a hub."""

    def __init__(self, reads: EventReads, clocks: Clocks, *, block_ms: int) -> None:
        self.reads = reads
        self.clocks = clocks
        self.block_ms = block_ms
        self.closing = False  # every watch ends when set

    async def batches(
        self, entry: Entry, seat: Seat | None, after_event_id: str
    ) -> AsyncGenerator[WatchBatch, None]:
        clocks = self.clocks
        match_id = entry.record.match_id
        label = label_of(entry.game)
        caught = await read_to_entry(
            self.reads, clocks, match_id, label, [], after_event_id, entry, read_first=True
        )
        looked = clocks.clock()
        while True:
            if caught.events:
                yield WatchBatch(
                    seen_by(caught.events, seat), snapshot(caught.entry, seat), caught.entry
                )
            entry, position, pending = caught.entry, caught.position, caught.rest
            if self.closing or (finished_at(entry, position) and not pending):
                return
            if not pending:
                events = await self.reads.read_events(
                    match_id, position, block_ms=self.block_ms, count=CHUNK, label_of=label
                )
                if not events:
                    if self.closing:
                        return
                    # Quiet: now and then make sure the match still exists and its clock is kept.
                    if clocks.overdue(entry) or clocks.clock() - looked >= _RECHECK_SECONDS:
                        looked = clocks.clock()
                        caught = await read_to_entry(
                            self.reads, clocks, match_id, label, [], position, None, read_first=True
                        )
                    else:
                        caught = Caught([], [], position, entry)
                    continue
                pending, position = events, events[-1].event_id
            looked = clocks.clock()
            caught = await read_to_entry(
                self.reads,
                clocks,
                match_id,
                label,
                list(pending),
                position,
                None,
                read_first=len(pending) >= CHUNK,
            )


class Watching:
    """The open watches of this process, admitted within its limits, and where they read."""

    def __init__(
        self,
        source: WatchSource,
        clocks: Clocks,
        *,
        limits: Limits = NO_LIMITS,
    ) -> None:
        self.source = source
        self.clocks = clocks
        self.limits = limits
        self.open = 0
        self.by_peer: dict[str, int] = {}
        self.by_match: dict[str, int] = {}

    async def watch(
        self,
        match_id: str,
        token: str = "",
        after_event_id: str = "",
        *,
        peer: str = "",
        tenant: str | None = None,
        seat_required: bool = False,
    ) -> AsyncIterator[WatchBatch]:
        """Batches of events after ``after_event_id`` ("": from the start), as they happen.

        Each batch carries the match as the watcher may see it after the batch's last event.
        Ends once the match is finished and its last event delivered, or when the process is
        closing; at once for a finished match the store has let go to the archive (its events
        are not kept: GetMatch and GetTranscript give it). ``peer``: who is calling, in the
        transport's words (see :func:`peer_host`); "" (a call from inside the process) is held
        to no per-peer limit. ``seat_required``: a watch for a seat (the Play stream),
        Unauthenticated without a token."""
        requests.check_event_id(after_event_id)
        requests.check_match_id(match_id)
        host = peer_host(peer)
        self._admit(match_id, host)
        self.open += 1
        _count(self.by_match, match_id, 1)
        if host:
            _count(self.by_peer, host, 1)
        try:
            entry = await self.clocks.current(match_id)
            access.check_tenant(entry, tenant)
            if seat_required:
                seat: Seat | None = access.require_seat(entry, token)
            else:
                seat = access.authenticate(entry, token)
            if entry.archived:  # its events left with it: nothing more will happen there
                return
            batches = self.source.batches(entry, seat, after_event_id)
            if seat is None and entry.record.spectator_delay_moves:
                batches = delayed_batches(self.clocks.entries, batches)
            async with contextlib.aclosing(batches):  # type: ignore[type-var]
                async for batch in batches:
                    yield batch
        finally:
            self.open -= 1
            _count(self.by_match, match_id, -1)
            if host:
                _count(self.by_peer, host, -1)

    @contextlib.contextmanager
    def waiting(self, peer: str = "") -> Iterator[None]:
        """A watch's place, held by a stream between two matches (a Play stream kept with
        ``keep_open``): it counts in the process's and the peer's watches, so that streams left
        open between matches are held to the same limits as watches. Taken while the stream's
        last watch still holds its own (so never refused: the place is that watch's, kept)."""
        host = peer_host(peer)
        self.open += 1
        if host:
            _count(self.by_peer, host, 1)
        try:
            yield
        finally:
            self.open -= 1
            if host:
                _count(self.by_peer, host, -1)

    @contextlib.contextmanager
    def opening(self, peer: str = "") -> Iterator[None]:
        """A place taken by a stream that has not yet said what it watches (a Play stream
        before its ``open``): admitted within the process's and the peer's limits (else
        LimitExceeded), so that streams that never open are held to them as watches are."""
        host = peer_host(peer)
        self._admit(None, host)
        with self.waiting(peer):
            yield

    def _admit(self, match_id: str | None, host: str) -> None:
        limits = self.limits
        if limits.max_watches and self.open >= limits.max_watches:
            raise LimitExceeded(
                f"this server already serves {self.open} watches, the most it allows: "
                "retry in a moment (another replica may have room), or poll GetMatch"
            )
        per_peer, per_match = limits.max_watches_per_peer, limits.max_watches_per_match
        if host and per_peer and self.by_peer.get(host, 0) >= per_peer:
            raise LimitExceeded(
                f"you already have {per_peer} watches open on this server, the most one "
                "client may: close one first (one watch per match is enough)"
            )
        if match_id is None:
            return
        if per_match and self.by_match.get(match_id, 0) >= per_match:
            raise LimitExceeded(
                f"match {match_id} already has {per_match} watchers on this server, the "
                "most it allows: retry in a moment (another replica may have room), or poll "
                "GetMatch"
            )


async def delayed_batches(
    entries: Entries, batches: AsyncIterator[WatchBatch]
) -> AsyncIterator[WatchBatch]:
    """A spectator's watch of a match with a delay: each event held back until the delayed
    match reaches its version, each batch's snapshot the delayed match's; all of it once the
    match is finished."""
    held: list[StoredEvent] = []
    async for batch in batches:
        held.extend(batch.events)
        if batch.entry is None or not spectating.delayed(batch.entry):
            if held:
                yield WatchBatch(tuple(held), batch.snapshot, batch.entry)
            held = []
            continue
        seen = await spectating.spectator_entry(entries, batch.entry)
        upto = seen.record.version
        shown = [e for e in held if e.version <= upto]
        if shown:
            held = held[len(shown) :]
            yield WatchBatch(tuple(shown), snapshot(seen, None), seen)


def _count(counts: dict[str, int], key: str, change: int) -> None:
    left = counts.get(key, 0) + change
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


def peer_host(peer: str) -> str:
    """Who a peer is, without the port of its connection (a client opening another connection
    is still the same client): ``ipv4:10.0.0.7:51234`` -> ``ipv4:10.0.0.7``, ``ipv6:[::1]:5``
    -> ``ipv6:[::1]``, ``http:10.0.0.7:51234`` -> ``http:10.0.0.7``; others as they are.

    >>> peer_host("ipv4:10.0.0.7:51234"), peer_host("ipv6:[::1]:5"), peer_host("unix:/s")
    ('ipv4:10.0.0.7', 'ipv6:[::1]', 'unix:/s')
    """
    scheme, colon, rest = peer.partition(":")
    if not colon or scheme not in ("ipv4", "ipv6", "http"):
        return peer
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        return peer
    if scheme == "ipv6" and not host.endswith("]"):
        return peer
    return f"{scheme}:{host}"


def label_of(game: Game[Any, Any, Any]) -> Callable[[bytes], str]:
    """A logged move's label from its bytes (what its move event says): for
    :meth:`serai.store.Store.read_events`, which may rebuild a finished match's move labels."""

    def label(raw: bytes) -> str:
        message = game.move_message()
        message.ParseFromString(raw)
        return game.label(game.move_from_proto(message))

    return label
