"""Process-level services every transport shares, started once per process, not per server.

Today: the webhook worker (:mod:`serai.webhooks.dispatch`, with webhooks), the rater of finished
rated matches (:class:`serai.community.rater.Rater`, of the process's
:class:`serai.community.Community`), the turn-clock sweeper
(:meth:`serai.matches.Matches.run_sweeper`), the archiver of finished matches
(:meth:`serai.matches.Matches.run_archiver`, with an archive), the watch hub that reads every
watched match through a few store connections (:mod:`serai.matches.hub`, on the store's
``event_feed()``), the closing flag that ends every Watch when the process stops, and whether this
process serves (:attr:`Runtime.serving`: not closing, and the store answers, as its ``health`` says:
see :mod:`serai.store.redis.breaker`), which every transport's health reports.
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
from collections.abc import Callable

from serai.community import Community
from serai.matches import Matches
from serai.matches.hub import WatchHub
from serai.webhooks.dispatch import Webhooks


class Runtime:
    """The sweeper and archiver tasks, the watch hub and the closing flag of one process's
    :class:`Matches`.

    ``watch_hub`` False leaves each watch reading for itself (a store connection per waiting
    watch), as before the hub."""

    def __init__(
        self,
        matches: Matches,
        *,
        watch_hub: bool = True,
        webhooks: Webhooks | None = None,
        community: Community | None = None,
    ) -> None:
        self.matches = matches
        # The queues and ratings every transport's handlers share (serve builds it from its
        # settings); the runtime runs its rater.
        self.community = community or Community(matches)
        self._rater: asyncio.Task[None] | None = None
        self.watch_hub = watch_hub
        self.webhooks = webhooks
        self._webhook_worker: asyncio.Task[None] | None = None
        self.hub: WatchHub | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._archiver: asyncio.Task[None] | None = None
        # Whether the store answers; None: a store that always does (in memory).
        self._breaker = matches.store.health
        self._listeners: list[Callable[[bool], None]] = []
        if self._breaker is not None:
            self._breaker.on_change(lambda _up: self._changed())

    @property
    def closing(self) -> bool:
        return self.matches.closing

    @property
    def store_up(self) -> bool:
        return self._breaker is None or bool(self._breaker.up)

    @property
    def serving(self) -> bool:
        """What health says: not closing, and the store answers."""
        return not self.closing and self.store_up

    def on_serving_change(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(serving)`` on the loop each time :attr:`serving` may have changed."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        serving = self.serving
        for listener in self._listeners:
            listener(serving)

    def start(self) -> None:
        """Start sweeping turn clocks (on the running loop); a second call does nothing."""
        if self._sweeper is None and not self.closing:
            loop = asyncio.get_running_loop()
            self._sweeper = loop.create_task(self.matches.run_sweeper())
            if self.matches.archive is not None:
                self._archiver = loop.create_task(self.matches.run_archiver())
            if self.webhooks is not None:
                self.matches.follow_changes(self.webhooks.follow)
                self._webhook_worker = loop.create_task(self.webhooks.run())
            self._rater = loop.create_task(self.community.rater.run())
            if self.watch_hub:
                self.hub = self.matches.use_watch_hub(self.matches.store.event_feed())
            if self._breaker is not None:
                self._breaker.start()

    async def close(self) -> None:
        """Mark the process closing (open Watches end); stop the sweeper, the archiver and the
        store's probe."""
        self.matches.closing = True
        self.community.rater.closing = True
        self._changed()
        if self._breaker is not None:
            await self._breaker.stop()
        if self.hub is not None:
            await self.hub.close()
        if self.webhooks is not None:
            self.webhooks.closing = True
        for task in (self._sweeper, self._archiver, self._webhook_worker, self._rater):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
