"""Process-level services every transport shares, started once per process, not per server.

Today: the turn-clock sweeper (:meth:`serai.matches.Matches.run_sweeper`), the watch hub that
reads every watched match through a few store connections (:mod:`serai.matches.hub`, on the
store's ``event_feed()``), and the closing flag that ends every Watch when the process stops.
``serai serve`` starts one; a server built without one (tests, benchmarks) makes and runs its
own. Example::

    runtime = Runtime(matches)
    runtime.start()
    server = await build_server(matches, runtime=runtime)
    ...
    await runtime.close()        # Watches end, the sweeper stops
    await server.stop(grace=10)
"""

from __future__ import annotations

import asyncio
import contextlib

from serai.matches import Matches
from serai.matches.hub import WatchHub


class Runtime:
    """The sweeper task, the watch hub and the closing flag of one process's :class:`Matches`.

    ``watch_hub`` False leaves each watch reading for itself (a store connection per waiting
    watch), as before the hub."""

    def __init__(self, matches: Matches, *, watch_hub: bool = True) -> None:
        self.matches = matches
        self.watch_hub = watch_hub
        self.hub: WatchHub | None = None
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def closing(self) -> bool:
        return self.matches.closing

    def start(self) -> None:
        """Start sweeping turn clocks (on the running loop); a second call does nothing."""
        if self._sweeper is None and not self.closing:
            self._sweeper = asyncio.get_running_loop().create_task(self.matches.run_sweeper())
            if self.watch_hub:
                self.hub = self.matches.use_watch_hub(self.matches.store.event_feed())

    async def close(self) -> None:
        """Mark the process closing (open Watches end) and stop the sweeper."""
        self.matches.closing = True
        if self.hub is not None:
            await self.hub.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
