"""The archive's schema, one list of versioned migrations for both backends, and the table that
records which have run.

Why not Alembic: it brings SQLAlchemy and an engine per backend (a sync one for the stdlib's
sqlite3, an async one for asyncpg) to run a handful of DDL statements; two tables and three
indexes do not need autogeneration. Instead each migration is a version number and its
statements per dialect, applied in order inside one transaction that also bumps
``serai_archive_schema.version`` (under an advisory lock on PostgreSQL, BEGIN IMMEDIATE on
SQLite, so replicas starting together migrate once). A migration is never edited once released:
a change is a new entry at the end. An archive migrated by a newer serai (a version above the
last here) is refused with a message, never written by an older one.

Tables::

    archived_matches   match_id (primary key: a put is idempotent on it), tenant, game,
                       created_ms, archived_ms, body (codec.py: the record and the move log)
                       indexed by (tenant, created_ms, match_id): "matches of a tenant by time",
                       by (tenant, game, created_ms, match_id), and by created_ms (the oldest
                       and newest; retention)
    archived_seats     (tenant, player, created_ms, match_id): "matches of a player", one row
                       per seat held by a player an app vouched for (SeatRecord.player)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from serai.archive import ArchiveError

Dialect = Literal["sqlite", "postgresql"]

VERSION_TABLE = "serai_archive_schema"
CREATE_VERSION_TABLE = f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER NOT NULL)"

_BLOB_TYPES: tuple[tuple[Dialect, str], ...] = (("sqlite", "BLOB"), ("postgresql", "BYTEA"))

# (version, {dialect: statements}); never edited once released: append.
MIGRATIONS: list[tuple[int, dict[Dialect, list[str]]]] = [
    (
        1,
        {
            dialect: [
                "CREATE TABLE archived_matches ("
                " match_id TEXT PRIMARY KEY,"
                " tenant TEXT NOT NULL,"
                " game TEXT NOT NULL,"
                " created_ms BIGINT NOT NULL,"
                " archived_ms BIGINT NOT NULL,"
                f" body {blob} NOT NULL)",
                "CREATE INDEX archived_matches_by_tenant"
                " ON archived_matches (tenant, created_ms DESC, match_id DESC)",
                "CREATE INDEX archived_matches_by_game"
                " ON archived_matches (tenant, game, created_ms DESC, match_id DESC)",
                "CREATE INDEX archived_matches_by_time ON archived_matches (created_ms)",
                "CREATE TABLE archived_seats ("
                " tenant TEXT NOT NULL,"
                " player TEXT NOT NULL,"
                " created_ms BIGINT NOT NULL,"
                " match_id TEXT NOT NULL"
                " REFERENCES archived_matches (match_id) ON DELETE CASCADE,"
                " PRIMARY KEY (tenant, player, created_ms, match_id))",
                "CREATE INDEX archived_seats_by_match ON archived_seats (match_id)",
            ]
            for dialect, blob in _BLOB_TYPES
        },
    ),
]

LATEST = MIGRATIONS[-1][0]


def pending(current: int | None, dialect: Dialect) -> list[tuple[int, list[str]]]:
    """The migrations to run on an archive at version ``current`` (None: a new one), in order;
    ArchiveError for an archive newer than this serai."""
    current = current or 0
    if current > LATEST:
        raise ArchiveError(
            f"the archive's schema is at version {current}, made by a newer serai (this one knows "
            f"up to {LATEST}): upgrade serai"
        )
    return [(version, steps[dialect]) for version, steps in MIGRATIONS if version > current]


TENANT_MATCHES = "SELECT body, archived_ms FROM archived_matches WHERE tenant = {0}"
PLAYER_MATCHES = (
    "SELECT m.body, m.archived_ms FROM archived_seats s"
    " JOIN archived_matches m ON m.match_id = s.match_id"
    " WHERE s.tenant = {0} AND s.player = {1}"
)


def page(
    select: str,
    args: list[Any],
    limit: int,
    *,
    game: str | None,
    after: tuple[int, str] | None,
    mark: Callable[[int], str],
) -> tuple[str, list[Any]]:
    """A listing query both backends run: ``select`` (:data:`TENANT_MATCHES` or
    :data:`PLAYER_MATCHES`, its ``{n}`` the n-th of ``args``) narrowed to ``game``, past
    ``after`` (created_ms, match_id), newest first, ``limit`` rows; ``mark(n)`` writes the n-th
    parameter ("?" for SQLite, "$n" for PostgreSQL). The query and its arguments."""
    query = select.format(*(mark(n) for n in range(1, len(args) + 1)))
    table = "s." if select is PLAYER_MATCHES else ""
    args = list(args)
    if game is not None:
        args.append(game)
        query += f" AND {'m.' if table else ''}game = {mark(len(args))}"
    if after is not None:
        args += after
        query += f" AND ({table}created_ms, {table}match_id) < ({mark(len(args) - 1)}, "
        query += f"{mark(len(args))})"
    args.append(limit)
    query += f" ORDER BY {table}created_ms DESC, {table}match_id DESC LIMIT {mark(len(args))}"
    return query, args
