"""Process-level services every transport shares, started once per process, not per server.

Today: the turn-clock sweeper (:meth:`serai.matches.Matches.run_sweeper`), the archiver of
finished matches (:meth:`serai.matches.Matches.run_archiver`, with an archive), the watch hub that
reads every watched match through a few store connections (:mod:`serai.matches.hub`, on stores
that offer ``event_feed()``), and the closing flag that ends every Watch when the process stops.
``serai serve`` starts one; a server built without one (tests, benchmarks) makes and runs its
own. Example::

    runtime = Runtime(matches)
    runtime.start()
    server = await build_server(matches, runtime=runtime)
    ...
    await runtime.close()        # Watches end, the sweeper and the archiver stop
    await server.stop(grace=10)
"""

from __future__ import annotations

import asyncio
import contextlib

from serai.matches import Matches
from serai.matches.hub import WatchHub


class Runtime:
    """The sweeper and archiver tasks, the watch hub and the closing flag of one process's
    :class:`Matches`.

    ``watch_hub`` False leaves each watch reading for itself (a store connection per waiting
    watch), as before the hub."""

    def __init__(self, matches: Matches, *, watch_hub: bool = True) -> None:
        self.matches = matches
        self.watch_hub = watch_hub
        self.hub: WatchHub | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._archiver: asyncio.Task[None] | None = None

    @property
    def closing(self) -> bool:
        return self.matches.closing

    def start(self) -> None:
        """Start sweeping turn clocks (on the running loop); a second call does nothing."""
        if self._sweeper is None and not self.closing:
            loop = asyncio.get_running_loop()
            self._sweeper = loop.create_task(self.matches.run_sweeper())
            if self.matches.archive is not None:
                self._archiver = loop.create_task(self.matches.run_archiver())
            event_feed = getattr(self.matches.store, "event_feed", None)
            if self.watch_hub and event_feed is not None:
                self.hub = self.matches.use_watch_hub(event_feed())

    async def close(self) -> None:
        """Mark the process closing (open Watches end) and stop the sweeper and the archiver."""
        self.matches.closing = True
        if self.hub is not None:
            await self.hub.close()
        for task in (self._sweeper, self._archiver):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
