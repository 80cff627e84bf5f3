"""The loop that rates finished rated matches: any replica runs it, several may run at once.

A rated match is registered in the store when it is made (:meth:`serai.store.Store.register_rated`).
Each pass leases the registered matches due (:meth:`~serai.store.Store.rated_due`), and for each
finished one applies its result (:meth:`serai.community.ratings.Ratings.rate`, which writes it
once per board whatever happens) and only then drops it from the registry. A replica killed
anywhere in between leaves the match leased; once the lease runs out another replica (or this
one, restarted) rates it again, which the board answers "duplicate": nothing is counted twice,
and nothing is lost. An unfinished match is looked at again one lease later.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import structlog

from serai.archive import Archive, ArchiveError
from serai.community.ratings import Ratings
from serai.store import MatchRecord, Store, StoreError
from serai.store.community import RatedMatch, RatedSeat

log = structlog.get_logger("serai.community")

# How long a pass holds a match before another may take it: a running match is looked at again
# this often, and a crashed replica's matches are rated this soon after.
LEASE_MS = 2_000
# A registered match neither in the store nor in the archive this long after it was registered
# was never finished (it expired idle): it is dropped.
GIVE_UP_MS = 24 * 3600 * 1000


class Rater:
    """Rates ``store``'s finished rated matches through ``ratings``; ``archive`` (if any) is
    where a finished match is read once it left the store."""

    def __init__(
        self,
        store: Store,
        ratings: Ratings,
        clock: Callable[[], float],
        *,
        archive: Archive | None = None,
        every_seconds: float = 0.5,
        batch: int = 100,
        lease_ms: int = LEASE_MS,
    ) -> None:
        self.store = store
        self.ratings = ratings
        self.clock = clock
        self.archive = archive
        self.every_seconds = every_seconds
        self.batch = batch
        self.lease_ms = lease_ms
        self.closing = False

    async def drain(self) -> int:
        """One pass over up to ``batch`` due matches; how many were rated (now or before)."""
        now_ms = int(self.clock() * 1000)
        done = 0
        for rated in await self.store.rated_due(now_ms, self.lease_ms, self.batch):
            record = await self._finished(rated.match_id)
            if record is None:
                if now_ms - rated.registered_ms > GIVE_UP_MS:
                    await self.store.rated_done(rated.match_id)
                continue
            rated = rated if rated.seats else _seated(rated, record)
            if (record.outcome or {}).get("cancelled"):
                log.info("match not rated: cancelled", match=rated.match_id)
            elif rated.seats:
                ranks = list((record.outcome or {}).get("ranks", ()))
                answer = await self.ratings.rate(rated, ranks, now_ms)
                log.info("match rated", match=rated.match_id, answer=answer)
            else:
                log.info("match not rated: a seat has no player", match=rated.match_id)
            await self.store.rated_done(rated.match_id)
            done += 1
        return done

    async def _finished(self, match_id: str) -> MatchRecord | None:
        """The match if it is finished (from the store, else the archive); None otherwise."""
        record = await self.store.load(match_id)
        if not isinstance(record, MatchRecord) and self.archive is not None:
            archived = await self.archive.get(match_id)
            record = archived.record if archived is not None else None
        if isinstance(record, MatchRecord) and record.status == "finished":
            return record
        return None

    async def run(self) -> None:
        """Drain every ``every_seconds`` (jittered) until closing."""
        jitter = random.Random()
        while not self.closing:
            try:
                if await self.drain() >= self.batch:
                    continue
            except (StoreError, ArchiveError) as error:
                log.warning("rating finished matches failed", error=str(error))
            except Exception:  # a bug must not stop rating for good
                log.exception("rating finished matches failed")
            await asyncio.sleep(self.every_seconds * (0.5 + jitter.random()))


def _seated(rated: RatedMatch, record: MatchRecord) -> RatedMatch:
    """A match registered without its seats (CreateMatch's ``rated``): its seats' players as the
    finished record has them; none at all when a seat was joined without a player token."""
    if not all(seat.player for seat in record.seats):
        return rated
    seats = tuple(RatedSeat(seat.player, seat.name) for seat in record.seats)
    return RatedMatch(rated.match_id, rated.board, seats, rated.registered_ms)
