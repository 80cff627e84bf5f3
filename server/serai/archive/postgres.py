"""The production archive: a PostgreSQL database that every replica shares
(``serve --archive-url postgresql://user:password@host:5432/serai``; a unix socket as
``postgresql:///serai?host=/run/postgresql``), through asyncpg's pool.

The pool is made on first use, and the schema migrated then (schema.py), under a transaction-level
advisory lock so that replicas starting together migrate once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

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

# pg_advisory_xact_lock's key for migrations: any fixed number no other user of the database takes
_MIGRATION_LOCK = 0x5E7A1A7C

# What asyncpg raises when the server is down, restarting or out of connections: try again later
_UNAVAILABLE = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.TooManyConnectionsError,
    asyncpg.exceptions.InterfaceError,
)


class PostgresArchive:
    """An :class:`serai.archive.Archive` in a PostgreSQL database."""

    def __init__(self, url: str, *, max_connections: int = 4, timeout: float = 10.0) -> None:
        self.url = url
        self._max_connections = max_connections
        self._timeout = timeout
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def _connected(self) -> asyncpg.Pool:
        if self._pool is not None:
            return self._pool
        async with self._opening:
            if self._pool is None:
                try:
                    pool = await asyncpg.create_pool(
                        self.url,
                        min_size=1,
                        max_size=self._max_connections,
                        timeout=self._timeout,
                        command_timeout=self._timeout,
                    )
                except _UNAVAILABLE as error:
                    raise ArchiveUnavailable(f"the archive's PostgreSQL: {error}") from error
                except asyncpg.PostgresError as error:
                    raise ArchiveError(f"the archive's PostgreSQL: {error}") from error
                try:
                    async with pool.acquire() as connection:
                        await _migrate(connection)
                except BaseException:
                    await pool.close()
                    raise
                self._pool = pool
        return self._pool

    async def _fetch(self, query: str, *args: Any) -> list[Any]:
        pool = await self._connected()
        try:
            return list(await pool.fetch(query, *args))
        except _UNAVAILABLE as error:
            raise ArchiveUnavailable(f"the archive's PostgreSQL: {error}") from error
        except asyncpg.PostgresError as error:
            raise ArchiveError(f"the archive's PostgreSQL: {error}") from error

    async def put(self, match: ArchivedMatch) -> bool:
        record = match.record
        body = codec.encode(match)
        players = sorted({seat.player for seat in record.seats if seat.player})
        pool = await self._connected()
        try:
            async with pool.acquire() as connection, connection.transaction():
                written = await connection.fetchval(
                    "INSERT INTO archived_matches"
                    " (match_id, tenant, game, created_ms, archived_ms, body)"
                    " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (match_id) DO NOTHING"
                    " RETURNING true",
                    record.match_id,
                    record.tenant,
                    record.game,
                    record.created_ms,
                    match.archived_ms,
                    body,
                )
                if written and players:
                    await connection.executemany(
                        "INSERT INTO archived_seats (tenant, player, created_ms, match_id)"
                        " VALUES ($1, $2, $3, $4)",
                        [(record.tenant, p, record.created_ms, record.match_id) for p in players],
                    )
        except _UNAVAILABLE as error:
            raise ArchiveUnavailable(f"the archive's PostgreSQL: {error}") from error
        except asyncpg.PostgresError as error:
            raise ArchiveError(f"the archive's PostgreSQL: {error}") from error
        return bool(written)

    async def get(self, match_id: str) -> ArchivedMatch | None:
        rows = await self._fetch(
            "SELECT body, archived_ms FROM archived_matches WHERE match_id = $1", match_id
        )
        return codec.decode(rows[0]["body"], rows[0]["archived_ms"]) if rows else None

    async def tenant_matches(
        self,
        tenant: str,
        limit: int,
        *,
        game: str | None = None,
        after: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        query, args = schema.page(
            schema.TENANT_MATCHES, [tenant], limit, game=game, after=after, mark=_dollar
        )
        rows = await self._fetch(query, *args)
        return [codec.listed(row["body"], row["archived_ms"]) for row in rows]

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
            schema.PLAYER_MATCHES, [tenant, player], limit, game=game, after=after, mark=_dollar
        )
        rows = await self._fetch(query, *args)
        return [codec.listed(row["body"], row["archived_ms"]) for row in rows]

    async def prune(self, created_before_ms: int, tenant: str | None = None) -> int:
        query = "DELETE FROM archived_matches WHERE created_ms < $1"
        args: list[Any] = [created_before_ms]
        if tenant is not None:
            query += " AND tenant = $2"
            args.append(tenant)
        rows = await self._fetch(query + " RETURNING 1", *args)  # seats by ON DELETE CASCADE
        return len(rows)

    async def stats(self) -> ArchiveStats:
        (row,) = await self._fetch(
            "SELECT count(*) AS matches, count(DISTINCT tenant) AS tenants,"
            " coalesce(sum(length(body)), 0) AS body, min(created_ms) AS oldest,"
            " max(created_ms) AS newest,"
            " (SELECT count(*) FROM archived_seats) AS seats,"
            " pg_total_relation_size('archived_matches')"
            " + pg_total_relation_size('archived_seats') AS total"
            " FROM archived_matches"
        )
        return ArchiveStats(
            row["matches"],
            row["tenants"],
            row["seats"],
            int(row["body"]),
            int(row["total"]),
            row["oldest"],
            row["newest"],
        )

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


async def _migrate(connection: asyncpg.Connection) -> None:
    """Bring the database's schema to the latest version (see schema.py), once."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        await connection.execute(CREATE_VERSION_TABLE)
        current = await connection.fetchval(f"SELECT max(version) FROM {VERSION_TABLE}")
        steps = pending(current, "postgresql")
        for _version, statements in steps:
            for statement in statements:
                await connection.execute(statement)
        if steps:
            await connection.execute(f"DELETE FROM {VERSION_TABLE}")
            await connection.execute(
                f"INSERT INTO {VERSION_TABLE} (version) VALUES ($1)", steps[-1][0]
            )


def _dollar(n: int) -> str:
    return f"${n}"
