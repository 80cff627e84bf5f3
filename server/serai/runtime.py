"""Process-level services every transport shares, started once per process, not per server.

Today: the turn-clock sweeper (:meth:`serai.matches.Matches.run_sweeper`) and the closing flag
that ends every Watch when the process stops. ``serai serve`` starts one; a server built without
one (tests, benchmarks) makes and runs its own. Example::

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


class Runtime:
    """The sweeper task and the closing flag of one process's :class:`Matches`."""

    def __init__(self, matches: Matches) -> None:
        self.matches = matches
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def closing(self) -> bool:
        return self.matches.closing

    def start(self) -> None:
        """Start sweeping turn clocks (on the running loop); a second call does nothing."""
        if self._sweeper is None and not self.closing:
            self._sweeper = asyncio.get_running_loop().create_task(self.matches.run_sweeper())

    async def close(self) -> None:
        """Mark the process closing (open Watches end) and stop the sweeper."""
        self.matches.closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
