"""The embedded archive: one SQLite file in the data folder (``archive.sqlite3``), made on first
use, nothing to set up. sqlite3 is blocking, so every call runs on one thread of its own (one
connection, used by that thread alone), never on the event loop.

The file is in WAL mode, so readers never wait for the writer, and several processes (``serve
--workers``, ``serai export`` beside a running serve) share it; each waits up to 30 s for
another's write lock. It suits one host; replicas on several hosts share a PostgreSQL instead.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from serai.archive import (
    ArchivedMatch,
    ArchiveError,
    ArchiveStats,
    ArchiveUnavailable,
    codec,
    schema,
)
from serai.archive.schema import CREATE_VERSION_TABLE, VERSION_TABLE, pending
from serai.store import MatchRecord

T = TypeVar("T")


class SqliteArchive:
    """An :class:`serai.archive.Archive` in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="serai-archive")
        self._db: sqlite3.Connection | None = None

    async def _call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` on the archive's thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._run, work)

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return work(self._connection())
        except sqlite3.OperationalError as error:  # locked, unopenable, disk full
            raise ArchiveUnavailable(f"the archive {self.path}: {error}") from error
        except sqlite3.Error as error:
            raise ArchiveError(f"the archive {self.path}: {error}") from error

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # isolation_level None: no implicit transactions; each write says BEGIN itself
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA foreign_keys=ON")
                _migrate(db)
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    async def put(self, match: ArchivedMatch) -> bool:
        record = match.record
        body = codec.encode(match)
        players = sorted({seat.player for seat in record.seats if seat.player})

        def write(db: sqlite3.Connection) -> bool:
            db.execute("BEGIN IMMEDIATE")
            try:
                written = db.execute(
                    "INSERT INTO archived_matches"
                    " (match_id, tenant, game, created_ms, archived_ms, body)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (match_id) DO NOTHING",
                    (
                        record.match_id,
                        record.tenant,
                        record.game,
                        record.created_ms,
                        match.archived_ms,
                        body,
                    ),
                ).rowcount
                if written:
                    db.executemany(
                        "INSERT INTO archived_seats (tenant, player, created_ms, match_id)"
                        " VALUES (?, ?, ?, ?)",
                        [(record.tenant, p, record.created_ms, record.match_id) for p in players],
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return bool(written)

        return await self._call(write)

    async def get(self, match_id: str) -> ArchivedMatch | None:
        row = await self._call(
            lambda db: db.execute(
                "SELECT body, archived_ms FROM archived_matches WHERE match_id = ?", (match_id,)
            ).fetchone()
        )
        return None if row is None else codec.decode(row[0], row[1])

    async def tenant_matches(
        self,
        tenant: str,
        limit: int,
        *,
        game: str | None = None,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        query, args = schema.page(
            schema.TENANT_MATCHES, [tenant], limit, game=game, after=after, mark=_question
        )
        rows = await self._call(lambda db: db.execute(query, args).fetchall())
        return [codec.listed(body, at) for body, at in rows]

    async def player_matches(
        self,
        tenant: str,
        player: str,
        limit: int,
        *,
        game: str | None = None,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        query, args = schema.page(
            schema.PLAYER_MATCHES, [tenant, player], limit, game=game, after=after, mark=_question
        )
        rows = await self._call(lambda db: db.execute(query, args).fetchall())
        return [codec.listed(body, at) for body, at in rows]

    async def prune(self, created_before_ms: int, tenant: str | None = None) -> int:
        query = "DELETE FROM archived_matches WHERE created_ms < ?"
        args: list[Any] = [created_before_ms]
        if tenant is not None:
            query += " AND tenant = ?"
            args.append(tenant)

        def delete(db: sqlite3.Connection) -> int:
            db.execute("BEGIN IMMEDIATE")
            try:
                deleted = db.execute(query, args).rowcount  # their seats by ON DELETE CASCADE
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return int(deleted)

        return await self._call(delete)

    async def stats(self) -> ArchiveStats:
        def read(db: sqlite3.Connection) -> ArchiveStats:
            matches, tenants, body, oldest, newest = db.execute(
                "SELECT count(*), count(DISTINCT tenant), coalesce(sum(length(body)), 0),"
                " min(created_ms), max(created_ms) FROM archived_matches"
            ).fetchone()
            (seats,) = db.execute("SELECT count(*) FROM archived_seats").fetchone()
            pages, page_size = (
                db.execute("PRAGMA page_count").fetchone()[0],
                db.execute("PRAGMA page_size").fetchone()[0],
            )
            return ArchiveStats(matches, tenants, seats, body, pages * page_size, oldest, newest)

        return await self._call(read)

    async def close(self) -> None:
        def shut(_db: Any) -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, shut, None)
        self._thread.shutdown(wait=False)


def _migrate(db: sqlite3.Connection) -> None:
    """Bring the file's schema to the latest version (see schema.py), once, under the write lock."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(CREATE_VERSION_TABLE)
        row = db.execute(f"SELECT max(version) FROM {VERSION_TABLE}").fetchone()
        steps = pending(row[0], "sqlite")
        for _version, statements in steps:
            for statement in statements:
                db.execute(statement)
        if steps:
            db.execute(f"DELETE FROM {VERSION_TABLE}")
            db.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (?)", (steps[-1][0],))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _question(_n: int) -> str:
    return "?"
