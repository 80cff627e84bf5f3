"""Watching a match: batches of its events as they happen, each with the match as the watcher
may see it, read through a :class:`WatchSource` (the store's event stream today).

A waiting watch holds a store connection: beyond ``max_watches`` at once, a new one is refused
(:class:`LimitExceeded`), so that moves and reads still find connections.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Protocol

from serai.game import Game, Seat
from serai.matches import access, requests
from serai.matches.clocks import Clocks
from serai.matches.errors import LimitExceeded
from serai.matches.reading import snapshot
from serai.matches.values import WatchBatch
from serai.store import StoredEvent

_RECHECK_SECONDS = 5.0  # a quiet Watch looks at its match this often (expiry, clocks)


class WatchSource(Protocol):
    """Where a watch reads events; :meth:`serai.store.Store.read_events` is one."""

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]: ...


class Watching:
    """The open watches of this process."""

    def __init__(
        self, source: WatchSource, clocks: Clocks, *, block_ms: int, max_watches: int
    ) -> None:
        self.source = source
        self.clocks = clocks
        self.block_ms = block_ms
        self.max_watches = max_watches  # 0: no limit
        self.open = 0
        self.closing = False  # every watch ends when set

    async def watch(
        self, match_id: str, token: str = "", after_event_id: str = ""
    ) -> AsyncIterator[WatchBatch]:
        """Batches of events after ``after_event_id`` ("": from the start), as they happen.

        Each batch carries the match as the watcher may see it. Ends once the match is finished
        and its last event delivered, or when the process is closing."""
        requests.check_event_id(after_event_id)
        if self.max_watches and self.open >= self.max_watches:
            raise LimitExceeded(
                f"this server already serves {self.open} watches, the most it allows: "
                "retry in a moment (another replica may have room), or poll GetMatch"
            )
        self.open += 1
        try:
            async with contextlib.aclosing(self._batches(match_id, token, after_event_id)) as got:
                async for batch in got:
                    yield batch
        finally:
            self.open -= 1

    async def _batches(
        self, match_id: str, token: str, after_event_id: str
    ) -> AsyncGenerator[WatchBatch, None]:
        clocks = self.clocks
        entry = await clocks.current(match_id)
        seat: Seat | None = access.authenticate(entry, token)
        after = after_event_id
        looked = clocks.clock()
        while not self.closing:
            record = entry.record
            if record.status == "finished" and after and not is_after(record.last_event_id, after):
                return
            finished = record.status == "finished"  # nothing more will come: do not wait
            events = await self.source.read_events(
                match_id,
                after,
                block_ms=0 if finished else self.block_ms,
                count=100,
                label_of=label_of(entry.game),
            )
            if not events:
                if finished:
                    return
                # Quiet: now and then make sure the match still exists and its clock is kept.
                if clocks.overdue(entry) or clocks.clock() - looked >= _RECHECK_SECONDS:
                    entry, looked = await clocks.current(match_id), clocks.clock()
                continue
            entry, looked = await clocks.current(match_id), clocks.clock()
            yield WatchBatch(tuple(events), snapshot(entry, seat))
            after = events[-1].event_id


def is_after(event_id: str, than: str) -> bool:
    """Whether one event id comes after another in its stream."""

    def key(text: str) -> tuple[int, int]:
        ms, _, seq = text.partition("-")
        return int(ms or 0), int(seq or 0)

    return key(event_id) > key(than)


def label_of(game: Game[Any, Any, Any]) -> Callable[[bytes], str]:
    """A logged move's label from its bytes (what its move event says): for
    :meth:`serai.store.Store.read_events`, which may rebuild a finished match's move labels."""

    def label(raw: bytes) -> str:
        message = game.move_message()
        message.ParseFromString(raw)
        return game.label(game.move_from_proto(message))

    return label
