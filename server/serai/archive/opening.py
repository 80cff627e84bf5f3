"""Which archive a URL names: its own module, so that the archive package's protocol does not
import the backends that implement it (each imports only what it is asked for: asyncpg only for
PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from serai.archive import SQLITE_FILE, Archive


def open_archive(url: str | None, data_dir: Path) -> Archive:
    """The archive at ``url`` (postgresql://... or postgres://...; sqlite:///path for a file
    elsewhere), or the SQLite file ``archive.sqlite3`` in ``data_dir`` when None. Nothing is
    connected until first used. ValueError for a URL of another kind."""
    if url is None or url == "":
        from serai.archive.sqlite import SqliteArchive

        return SqliteArchive(data_dir / SQLITE_FILE)
    scheme = url.partition(":")[0].lower()
    if scheme in ("postgresql", "postgres"):
        from serai.archive.postgres import PostgresArchive

        return PostgresArchive(url)
    if scheme == "sqlite" and url.startswith("sqlite:///"):
        from serai.archive.sqlite import SqliteArchive

        return SqliteArchive(Path(url.removeprefix("sqlite://")))
    raise ValueError(
        f"an archive URL must be postgresql://user:password@host:port/database or "
        f"sqlite:///path/to/file, not {url.partition('://')[0]!r}://..."
    )
