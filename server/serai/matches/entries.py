"""The cached entries and the store kept consistent: each read, write and lost race goes through
here, so that what this process caches of a match is never newer than what the store holds.

An :class:`~serai.matches.cache.Entry` is a record with its state decoded. The cache is a hint:
every commit names the version it was planned at, and the store refuses it (with the current
record) when that version has moved on, so a stale entry costs one more round trip, never a
wrong move.
"""

from __future__ import annotations

from typing import Any, NoReturn

from serai.game import Game, GameInfo, Seat
from serai.matches import planning, requests
from serai.matches.cache import Cache, Entry
from serai.matches.errors import GameNotFound, MatchExpired, MatchNotFound
from serai.registry import Registry
from serai.store import UNCHANGED, Commit, Committed, Conflict, Duplicate, MatchRecord, Store


class Entries:
    """The store, the cache of decoded entries, and the installed games they are decoded by."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        *,
        cache_size: int,
        max_retries: int,
        idle_seconds: int,
    ) -> None:
        self.store = store
        self.registry = registry
        self.cache = Cache(cache_size)
        self.max_retries = max_retries  # compare-and-set attempts per change
        self.idle_seconds = idle_seconds  # only to say why a match expired

    def games(self) -> list[GameInfo]:
        """The installed games, by name."""
        return [self.registry.games[name].info for name in sorted(self.registry.games)]

    def game(self, name: str) -> Game[Any, Any, Any]:
        try:
            return self.registry.games[name]
        except KeyError:
            known = ", ".join(sorted(self.registry.games)) or "none"
            raise GameNotFound(
                f"no game called {name!r}; installed games: {known} (ListGames lists them)"
            ) from None

    async def load(self, match_id: str) -> Entry:
        """The match as stored now: one round trip, and no decoding when the cached version is
        current. It only reads: an overdue clock is :meth:`serai.matches.clocks.Clocks.current`'s
        business."""
        requests.check_match_id(match_id)
        cached = self.cache.get(match_id)
        record = await self.store.load(match_id, cached.record.version if cached else None)
        if record is None:
            await self.raise_missing(match_id)
        if record is UNCHANGED and cached is not None:
            return cached
        assert isinstance(record, MatchRecord)
        return self.remember(record)

    def remember(self, record: MatchRecord) -> Entry:
        """Decode the record's state and cache the entry."""
        game = self.game(record.game)
        entry = Entry(record, game, game.decode_state(record.state))
        self.cache.put(entry)
        return entry

    async def raise_missing(self, match_id: str) -> NoReturn:
        """Raise MatchExpired or MatchNotFound for a match the store does not have."""
        self.cache.drop(match_id)
        if await self.store.existed(match_id):
            idle = f"{self.idle_seconds} " if self.idle_seconds else ""
            raise MatchExpired(
                f"match {match_id} expired after {idle}idle seconds (nobody moved): it is gone; "
                "create a new match"
            )
        raise MatchNotFound(
            f"no match {match_id!r}: check the id (CreateMatch and ListMatches give them)"
        )

    async def index_again(self, record: MatchRecord) -> None:
        """Index (and, finished, fold) the match as its status says, for a retried request: the
        first call wrote the match, then may have failed before its indexes. Idempotent."""
        await self.store.index(record, None, record.status)

    async def after_conflict(self, match_id: str, result: Conflict | Duplicate) -> Entry:
        """The entry to plan on again after a commit lost its compare-and-set."""
        if isinstance(result, Duplicate):
            raise MatchNotFound(f"match {match_id!r} disappeared from the store")
        if result.current is None:
            await self.raise_missing(match_id)
        return self.remember(result.current)

    async def forfeit(
        self, entry: Entry, losers: tuple[Seat, ...], *, timed_out: bool
    ) -> Entry | Conflict | Duplicate:
        """End the match with ``losers`` last, tied (a resignation, or a loss on time); one
        commit (see :func:`serai.matches.planning.plan_forfeit`).

        The entry after it, or what the store answered instead (the version moved on)."""
        record = entry.record
        commit = planning.plan_forfeit(record, losers, timed_out=timed_out)
        result = await self.store.commit(record.match_id, record.version, commit)
        if not isinstance(result, Committed):
            return result
        record = record_after(record, commit, result)
        done = Entry(record, entry.game, entry.state)
        self.cache.put(done)
        await self.store.index(record, "running", "finished")
        return done


def record_after(record: MatchRecord, commit: Commit, result: Committed) -> MatchRecord:
    """The record once ``commit`` was written on it: as :class:`Commit` says, the fields the
    commit sets replace the record's, the others stay; the store gave the version and event id."""
    return evolved(
        record,
        state=record.state if commit.state is None else commit.state,
        status=commit.status or record.status,
        seats=record.seats if commit.seats is None else commit.seats,
        outcome=record.outcome if commit.outcome is None else commit.outcome,
        deadline_ms=record.deadline_ms if commit.deadline_ms is None else commit.deadline_ms,
        version=result.version,
        last_event_id=result.last_event_id,
    )


def evolved(record: MatchRecord, **changes: Any) -> MatchRecord:
    """``dataclasses.replace(record, **changes)`` for the path of every move, at a quarter of the
    CPU: the frozen record's fields are copied as its instance dict (``replace`` goes through
    ``fields()`` and ``__init__``, which sets each of the 15 through ``object.__setattr__``).
    MatchRecord has no ``__post_init__`` to skip; ``changes`` must name its fields."""
    evolved = object.__new__(MatchRecord)
    values = vars(evolved)
    values.update(vars(record))
    values.update(changes)
    return evolved
