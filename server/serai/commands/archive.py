"""``serai archive stats``: what the archive of finished matches holds (how many matches, of how
many tenants, the bytes they take, the oldest and newest); ``serai archive prune --older-than
90d [--tenant NAME]``: a retention, for one tenant (an API key's name) or for all, run by hand
or from cron. Both on ``--archive-url`` or the SQLite archive in ``--data-dir``, as ``serai
serve`` keeps it."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from serai.archive import Archive, ArchiveError, ArchiveStats
from serai.commands.store_access import add_archive_argument, archive_of
from serai.flag_values import duration

T = TypeVar("T")


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

    prune = actions.add_parser(
        "prune", help="delete archived matches older than a retention, of one tenant or all"
    )
    prune.add_argument(
        "--older-than",
        required=True,
        type=duration,
        metavar="DURATION",
        help="delete the matches created longer ago than this: 90 (seconds), 30m, 12h, 90d",
    )
    prune.add_argument(
        "--tenant",
        help="only this tenant's matches (an API key's name; '' for those made without a key); "
        "default: every tenant's",
    )
    prune.add_argument(
        "--data-dir",
        type=Path,
        default=Path("data"),
        help="the data folder of `serai serve`, whose SQLite archive to prune (default ./data)",
    )
    add_archive_argument(prune)
    prune.set_defaults(run=run_prune)


def run_stats(args: argparse.Namespace) -> int:
    """Print the archive's figures; 0 when read."""
    stats = _on_archive(args, "stats", lambda archive: archive.stats())
    if stats is None:
        return 1
    print(describe(stats))
    return 0


def run_prune(args: argparse.Namespace) -> int:
    """Delete what is older than --older-than; 0 when done."""
    before_ms = int((time.time() - args.older_than) * 1000)
    deleted = _on_archive(args, "prune", lambda archive: archive.prune(before_ms, args.tenant))
    if deleted is None:
        return 1
    whose = "every tenant" if args.tenant is None else f"tenant {args.tenant!r}"
    print(f"pruned {deleted} matches of {whose} created before {_when(before_ms)}")
    return 0


def _on_archive(
    args: argparse.Namespace, action: str, work: Callable[[Archive], Awaitable[T]]
) -> T | None:
    """``work(archive)`` on the archive the arguments name; None (having said why) if none."""
    try:
        archive = archive_of(args)
    except ValueError as error:
        print(f"serai archive {action}: --archive-url: {error}", file=sys.stderr)
        return None
    if archive is None:
        print(
            f"serai archive {action}: no archive in {args.data_dir} (give --data-dir or "
            "--archive-url)",
            file=sys.stderr,
        )
        return None

    async def run() -> T:
        assert archive is not None
        try:
            return await work(archive)
        finally:
            await archive.close()

    try:
        return asyncio.run(run())
    except ArchiveError as error:
        print(f"serai archive {action}: {error}", file=sys.stderr)
        return None


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
