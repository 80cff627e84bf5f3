"""Where finished matches go once Redis lets them go: the :class:`Archive` protocol, the values
it keeps (:func:`serai.archive.opening.open_archive` picks an implementation by URL).

Redis keeps what is playing and, for ``serve --keep-finished``, what finished lately; a finished
match is written here first and expires from Redis only after (see
:mod:`serai.matches.archiving`). Two implementations share one schema (:mod:`.schema`) and one
contract test suite: :mod:`.sqlite`, a file in the data folder (the embedded default, no set-up),
and :mod:`.postgres` for production (``serve --archive-url postgresql://...``). Example::

    archive = open_archive(None, Path("data"))          # data/archive.sqlite3
    await archive.put(ArchivedMatch(record, tuple(log), archived_ms=now_ms))
    found = await archive.get(record.match_id)           # None if never archived
    await archive.close()

A put is idempotent on the match id: a second put of the same match (a replica that crashed
between archiving a match and letting it expire, then tried again) writes nothing and answers
False, so no match is lost or written twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from serai.store import LogEntry, MatchRecord, StoreError, StoreUnavailable

SQLITE_FILE = "archive.sqlite3"  # in the data folder


class ArchiveError(StoreError):
    """The archive failed in a way the caller cannot fix (bad data, a schema it does not know).
    A StoreError: to a caller, the archive is where the store keeps finished matches, and its
    failures are answered as the store's are (one mapping to status codes)."""


class ArchiveUnavailable(ArchiveError, StoreUnavailable):
    """The archive cannot be reached right now; retrying later may work (UNAVAILABLE)."""


@dataclass(frozen=True)
class ArchivedMatch:
    """A finished match as archived: its whole record (state included) and its move log, enough
    for GetMatch, transcripts and replays. ``archived_ms``: when it was written here."""

    record: MatchRecord
    log: tuple[LogEntry, ...]
    archived_ms: int


@dataclass(frozen=True)
class ArchiveStats:
    """What ``serai archive stats`` prints: how many matches (of how many tenants, with how many
    seats of identified players), the bytes their bodies and the whole archive take, and the
    creation times (ms) of the oldest and newest (None when empty)."""

    matches: int
    tenants: int
    player_seats: int
    body_bytes: int
    total_bytes: int
    oldest_ms: int | None
    newest_ms: int | None


class Archive(Protocol):
    """Finished matches, kept for good; see the module docstring."""

    async def put(self, match: ArchivedMatch) -> bool:
        """Write ``match`` unless the archive has its id already (idempotent): True when written
        now, False when it was there. Only finished matches are archived."""

    async def get(self, match_id: str) -> ArchivedMatch | None:
        """The archived match, or None if it was never archived."""

    async def tenant_matches(
        self,
        tenant: str,
        limit: int,
        *,
        game: str | None = None,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        """The archived matches of ``tenant`` ("": made without an API key), of ``game`` when
        not None, newest first by (created_ms, match_id), without their state; with ``after``
        only those after it (as :meth:`serai.store.Store.list_matches` pages)."""

    async def player_matches(
        self,
        tenant: str,
        player: str,
        limit: int,
        *,
        game: str | None = None,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        """As :meth:`tenant_matches`, of the matches in which ``player`` (a player id's hash, see
        SeatRecord.player) of ``tenant`` held a seat."""

    async def prune(self, created_before_ms: int, tenant: str | None = None) -> int:
        """Delete the archived matches created before ``created_before_ms`` (of ``tenant`` only,
        when not None): a retention, per tenant or for all; how many were deleted."""

    async def stats(self) -> ArchiveStats:
        """Counts, sizes and the time span of what is archived."""

    async def close(self) -> None:
        """Release connections (and threads)."""


__all__ = [
    "SQLITE_FILE",
    "Archive",
    "ArchiveError",
    "ArchiveStats",
    "ArchiveUnavailable",
    "ArchivedMatch",
]
