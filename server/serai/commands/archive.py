"""``serai archive stats``: what the archive of finished matches holds (how many matches, of how
many tenants, the bytes they take, the oldest and newest), from ``--archive-url`` or the SQLite
archive in ``--data-dir``, as ``serai serve`` keeps it."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
from pathlib import Path

from serai.archive import Archive, ArchiveError, ArchiveStats
from serai.commands.store_access import add_archive_argument, archive_of


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "archive",
        help="the archive of finished matches (`serai archive stats`)",
        description=__doc__,
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    stats = actions.add_parser(
        "stats", help="counts, sizes, and the oldest and newest match archived"
    )
    stats.add_argument(
        "--data-dir",
        type=Path,
        default=Path("data"),
        help="the data folder of `serai serve`, whose SQLite archive to read (default ./data)",
    )
    add_archive_argument(stats)
    stats.set_defaults(run=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    """Print the archive's figures; 0 when read."""
    try:
        archive = archive_of(args)
    except ValueError as error:
        print(f"serai archive stats: --archive-url: {error}", file=sys.stderr)
        return 1
    if archive is None:
        print(
            f"serai archive stats: no archive in {args.data_dir} (give --data-dir or "
            "--archive-url)",
            file=sys.stderr,
        )
        return 1
    try:
        stats = asyncio.run(_stats(archive))
    except ArchiveError as error:
        print(f"serai archive stats: {error}", file=sys.stderr)
        return 1
    print(describe(stats))
    return 0


async def _stats(archive: Archive) -> ArchiveStats:
    try:
        return await archive.stats()
    finally:
        await archive.close()


def describe(stats: ArchiveStats) -> str:
    """The figures as lines of ``name: value``."""
    per_match = stats.body_bytes // stats.matches if stats.matches else 0
    return "\n".join(
        [
            f"matches: {stats.matches}",
            f"tenants: {stats.tenants}",
            f"player seats: {stats.player_seats}",
            f"match bytes: {stats.body_bytes} ({per_match} per match)",
            f"archive bytes: {stats.total_bytes} (tables and indexes)",
            f"oldest: {_when(stats.oldest_ms)}",
            f"newest: {_when(stats.newest_ms)}",
        ]
    )


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return moment.isoformat(timespec="seconds")
