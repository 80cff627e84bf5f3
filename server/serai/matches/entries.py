"""The cached entries and the store kept consistent: each read, write and lost race goes through
here, so that what this process caches of a match is never newer than what the store holds.

An :class:`~serai.matches.cache.Entry` is a record with its state decoded. The cache is a hint:
every commit names the version it was planned at, and the store refuses it (with the current
record) when that version has moved on, so a stale entry costs one more round trip, never a
wrong move. Every change is made through one such compare-and-set loop, :meth:`Entries.change`,
which keeps the cache and the status indexes up after each commit.

A finished match that has left the store is read from the archive, when there is one
(:mod:`serai.archive`): :meth:`Entries.load` and :meth:`Entries.read_log` look there once the
store no longer has it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, NoReturn, TypeVar

from serai.archive import Archive
from serai.game import Game, GameError, GameInfo
from serai.matches import requests
from serai.matches.cache import Cache, Entry
from serai.matches.errors import (
    GameNotFound,
    MatchError,
    MatchExpired,
    MatchLost,
    MatchNotFound,
    StaleVersion,
)
from serai.matches.match_ids import issued
from serai.matches.requests import quoted
from serai.metrics import CAS_RETRIES
from serai.registry import Registry
from serai.store import (
    UNCHANGED,
    Answer,
    Commit,
    Committed,
    Conflict,
    Duplicate,
    LogEntry,
    MatchRecord,
    Store,
)

T = TypeVar("T")


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
        archive: Archive | None = None,
    ) -> None:
        self.store = store
        self.archive = archive  # where finished matches are once the store let them go
        self.registry = registry
        self.cache = Cache(cache_size)
        self.max_retries = max_retries  # compare-and-set attempts per change
        self.idle_seconds = idle_seconds  # only to say why a match expired
        # Told of each match before it is stored and after each commit (the webhooks follow
        # their matches so: serai.webhooks.dispatch); None: nobody listens.
        self.follow: Callable[[MatchRecord], Awaitable[None]] | None = None

    def games(self) -> list[GameInfo]:
        """The installed games, by name."""
        return [self.registry.games[name].info for name in sorted(self.registry.games)]

    def game(self, name: str) -> Game[Any, Any, Any]:
        try:
            return self.registry.games[name]
        except KeyError:
            known = ", ".join(sorted(self.registry.games)) or "none"
            raise GameNotFound(
                f"no game called {quoted(name)}; installed games: {known} (ListGames lists them)"
            ) from None

    async def load(self, match_id: str) -> Entry:
        """The match as stored now: one round trip, and no decoding when the cached version is
        current. It only reads: an overdue clock is :meth:`serai.matches.clocks.Clocks.current`'s
        business."""
        requests.check_match_id(match_id)
        cached = self.cache.get(match_id)
        record = await self.store.load(match_id, cached.record.version if cached else None)
        if record is None:
            archived = await self.archive.get(match_id) if self.archive is not None else None
            if archived is None:
                await self.raise_missing(match_id)
            return self.remember(archived.record, archived=True)
        if record is UNCHANGED and cached is not None:
            return cached
        assert isinstance(record, MatchRecord)
        return self.remember(record)

    def remember(self, record: MatchRecord, *, archived: bool = False) -> Entry:
        """Decode the record's state and cache the entry (``archived``: read from the archive).
        A record the cache holds already (the watch hub's read of a commit this process made)
        keeps its entry: no decoding, and the views and bytes computed at it stay."""
        known = self.cache.get(record.match_id)
        if known is not None and known.archived == archived and known.record == record:
            return known
        game = self.game(record.game)
        entry = Entry(record, game, game.decode_state(record.state), archived=archived)
        self.cache.put(entry)
        return entry

    async def read_log(self, record: MatchRecord) -> list[LogEntry]:
        """The match's log entries up to ``record``'s version, oldest first (the log may have
        grown since the record was read); a finished match's from the archive once the store
        no longer has them."""
        found = await self.store.read_log(record.match_id)
        if not found and record.status == "finished" and self.archive is not None:
            archived = await self.archive.get(record.match_id)
            found = list(archived.log) if archived is not None else []
        return [entry for entry in found if entry.version <= record.version]

    async def raise_missing(self, match_id: str) -> NoReturn:
        """Raise MatchExpired or MatchNotFound for a match the store does not have."""
        self.cache.drop(match_id)
        if await self.store.existed(match_id):
            idle = f"{self.idle_seconds} " if self.idle_seconds else ""
            raise MatchExpired(
                f"match {match_id} expired after {idle}idle seconds (nobody moved): it is gone; "
                "create a new match"
            )
        if issued(match_id):
            raise MatchLost(
                f"match {match_id} was made by this service, but its store no longer has it: "
                "lost in a store failover or restart (the moves Redis had not yet copied to a "
                "replica are lost with it; see deploy/README.md, durability); create a new match"
            )
        raise MatchNotFound(
            f"no match {quoted(match_id)}: check the id (CreateMatch and ListMatches give them)"
        )

    async def index_again(self, record: MatchRecord) -> None:
        """Index (and, finished, fold) the match as its status says, for a retried request: the
        first call wrote the match, then may have failed before its indexes. Idempotent."""
        await self.store.index(record, None, record.status)

    async def after_conflict(self, match_id: str, result: Conflict | Duplicate) -> Entry:
        """The entry to plan on again after a commit lost its compare-and-set."""
        if isinstance(result, Duplicate):
            raise MatchNotFound(f"match {quoted(match_id)} disappeared from the store")
        if result.current is None:
            await self.raise_missing(match_id)
        return self.remember(result.current)

    async def change(
        self,
        entry: Entry,
        change: Change[T],
        look_again: Callable[[str], Awaitable[Entry]] | None = None,
    ) -> T:
        """The one compare-and-set loop: plan ``change`` on ``entry``, commit it at the entry's
        version, and on a lost race plan it again on the record the store answered, at most
        ``max_retries`` times. A commit written is cached, and indexed when it changed the
        status, before ``change.done`` makes the answer.

        ``look_again``: the entry came from the cache and may be behind another replica, so a
        refusal sends for the match once (with it) and plans again before it counts. The change
        object carries its request from attempt to attempt; the loop allocates nothing of its own.
        """
        match_id = entry.record.match_id
        lost_race_at = 0  # the version a commit found instead of ours, once a race is lost
        for _attempt in range(self.max_retries):
            try:
                planned = change.plan(entry)
            except (MatchError, GameError) as error:
                if look_again is not None:
                    entry, look_again = await look_again(match_id), None
                    continue
                return await change.refused(entry, error, lost_race_at)
            if planned is None:
                return await change.settled(entry)
            commit, state = planned
            before = entry.record.status
            # A move to another unfinished status (the start) is indexed by the commit itself
            # (one round trip); the end once written (the store folds the match then).
            listed = entry.record if commit.status not in (None, "finished", before) else None
            result = await self.store.commit(match_id, entry.record.version, commit, listed=listed)
            if isinstance(result, Committed):
                change.written(result)
                entry = Entry(record_after(entry.record, commit, result), entry.game, state)
                self.cache.put(entry)
                if entry.record.status != before and listed is None:
                    await self.store.index(entry.record, before, entry.record.status)
                if self.follow is not None:
                    await self.follow(entry.record)
                answer = change.done(entry, commit)
                if answer is not None:
                    return answer
                continue  # the change goes on from the entry it made (a clock's next late seat)
            if isinstance(result, Duplicate):
                return await change.repeated(entry, result.first)
            CAS_RETRIES.inc()
            entry, look_again = await self.after_conflict(match_id, result), None
            lost_race_at = entry.record.version
        return change.exhausted(entry)


class Change(Generic[T]):
    """One kind of change to a match in :meth:`Entries.change`: a join, a move, a resignation,
    a clock's enforcement. An instance carries one request through every attempt."""

    __slots__ = ()

    def plan(self, entry: Entry) -> tuple[Commit, Any] | None:
        """The commit to write on ``entry`` and the state after it; None when there is nothing
        to write (:meth:`settled` answers). Raises when the change cannot be made there."""
        raise NotImplementedError

    def written(self, result: Committed) -> None:
        """Told what the store answered a commit of this change's (its version and event ids),
        before :meth:`done`."""

    def done(self, entry: Entry, commit: Commit) -> T | None:
        """The answer once ``commit`` was written and ``entry`` is the match after it; None to
        plan again on ``entry``."""
        raise NotImplementedError

    async def settled(self, entry: Entry) -> T:
        """The answer when :meth:`plan` found nothing to write (a retry of a change made)."""
        raise NotImplementedError

    async def refused(self, entry: Entry, error: MatchError | GameError, lost_race_at: int) -> T:
        """The answer (or the error) when :meth:`plan` refused; ``lost_race_at`` is the version
        another change made first when this one lost a race (0: it did not)."""
        raise error

    async def repeated(self, entry: Entry, first: Answer) -> T:
        """The answer when the store already holds this request's commit (its request id)."""
        raise MatchNotFound(f"match {quoted(entry.record.match_id)} disappeared from the store")

    def exhausted(self, entry: Entry) -> T:
        """The answer when the match changed under every attempt."""
        raise StaleVersion(f"match {entry.record.match_id} changed too often; try again")


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
        seed=record.seed if commit.seed is None else commit.seed,
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
