"""The handoff of finished matches from the store (live state) to the archive (history): a loop
that any replica runs, and that several may run at once.

Each pass leases the finished matches not archived yet (:meth:`serai.store.Store.unarchived`),
writes each to the archive (a put is idempotent on the match id), and only then tells the store
it is archived (:meth:`serai.store.Store.archived`): its keys expire after ``keep_ms`` (``serve
--keep-finished``). A replica killed between the two leaves the match leased; once the lease
runs out another replica (or this one, restarted) archives it again, which writes nothing new,
and lets it expire. So a match is never lost (it expires only once archived) nor archived twice.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import structlog

from serai.archive import Archive, ArchivedMatch, ArchiveError
from serai.store import MatchRecord, Store, StoreError

log = structlog.get_logger("serai.matches")

# How long a drainer holds the matches it took before another may take them: far longer than a
# pass takes, short enough that a crashed replica's matches are archived soon after.
LEASE_MS = 60_000


class Archiving:
    """Drains the store's finished matches into ``archive``."""

    def __init__(
        self,
        store: Store,
        archive: Archive,
        clock: Callable[[], float],
        *,
        keep_ms: int,
        every_seconds: float = 1.0,
        batch: int = 100,
        lease_ms: int = LEASE_MS,
    ) -> None:
        self.store = store
        self.archive = archive
        self.clock = clock
        self.keep_ms = keep_ms
        self.every_seconds = every_seconds
        self.batch = batch
        self.lease_ms = lease_ms
        self.closing = False  # the loop stops when set

    async def drain(self) -> int:
        """One pass over up to ``batch`` due matches; how many were archived (now or before)."""
        now_ms = int(self.clock() * 1000)
        done = 0
        for match_id in await self.store.unarchived(now_ms, self.lease_ms, self.batch):
            record = await self.store.load(match_id)
            if not isinstance(record, MatchRecord) or record.status != "finished":
                continue  # gone meanwhile (unarchived drops it next time), or not finished
            entries = await self.store.read_log(match_id)
            log_entries = tuple(e for e in entries if e.version <= record.version)
            await self.archive.put(ArchivedMatch(record, log_entries, now_ms))
            await self.store.archived(record, self.keep_ms, now_ms)
            done += 1
        return done

    async def run(self) -> None:
        """Drain every ``every_seconds`` (jittered, so replicas spread out) until closing; a full
        batch is followed by another pass at once."""
        jitter = random.Random()
        while not self.closing:
            try:
                if await self.drain() >= self.batch:
                    continue
            except (StoreError, ArchiveError) as error:
                log.warning("archiving finished matches failed", error=str(error))
            except Exception:  # a bug must not stop archiving for good
                log.exception("archiving finished matches failed")
            await asyncio.sleep(self.every_seconds * (0.5 + jitter.random()))
