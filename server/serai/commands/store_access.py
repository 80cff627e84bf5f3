"""Where a command finds the matches: ``--redis-url``, or the embedded Redis of ``--data-dir``,
as ``serai serve`` keeps them (shared by replay, export and keys); and the finished ones that
left Redis: ``--archive-url``, or the SQLite archive of ``--data-dir``."""

from __future__ import annotations

import argparse
from pathlib import Path

from serai.archive import SQLITE_FILE, Archive
from serai.archive.opening import open_archive
from serai.store.embedded import EmbeddedRedis, EmbeddedRedisError, running_in


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """--redis-url or --data-dir: where the matches are, as `serai serve` keeps them."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--redis-url",
        help=(
            "the Redis `serai serve` uses: redis://host:port/db, unix://path, "
            "redis+sentinel://h:p,.../service or redis+cluster://h:p,... (as `serai serve`)"
        ),
    )
    where.add_argument(
        "--data-dir",
        type=Path,
        default=Path("data"),
        help="the data folder of `serai serve`'s embedded Redis and SQLite archive (default "
        "./data)",
    )


def add_archive_argument(parser: argparse.ArgumentParser) -> None:
    """--archive-url: where `serai serve` keeps finished matches once they leave Redis."""
    parser.add_argument(
        "--archive-url",
        help="the archive of finished matches `serai serve` uses (its --archive-url): "
        "postgresql://user:password@host:port/database or sqlite:///path (default: the SQLite "
        "archive in --data-dir, if there is one)",
    )


def archive_of(args: argparse.Namespace) -> Archive | None:
    """The archive ``--archive-url`` names, else the SQLite archive in ``--data-dir`` when that
    folder has one (None: none; a reading command makes no new file). ValueError for a URL of
    another kind."""
    url, data_dir = getattr(args, "archive_url", None), args.data_dir
    if url:
        return open_archive(url, data_dir or Path("data"))
    if data_dir is not None and (data_dir / SQLITE_FILE).exists():
        return open_archive(None, data_dir)
    return None


def store_url(
    args: argparse.Namespace, command: str, *, new_data: bool = False
) -> tuple[str, EmbeddedRedis | None]:
    """The URL of the Redis that ``--redis-url`` or ``--data-dir`` names, and the embedded Redis
    started on that folder when none serves it yet (the caller stops it); EmbeddedRedisError,
    its message for the user, when there is no such data (``new_data``: start one on an empty
    folder, for what may come before the first ``serve``, such as an API key)."""
    url = args.redis_url
    if url is not None:
        return url, None
    url = running_in(args.data_dir)
    if url is not None:
        return url, None
    # appendonly.aof before Redis 7, the appendonlydir folder since
    aof = ("appendonly.aof", "appendonlydir")
    if not new_data and not any((args.data_dir / name).exists() for name in aof):
        raise EmbeddedRedisError(f"serai {command}: no serai data in {args.data_dir}")
    embedded = EmbeddedRedis(args.data_dir)
    try:
        return embedded.start().url, embedded
    except EmbeddedRedisError as error:
        raise EmbeddedRedisError(f"serai {command}: {error}") from None
