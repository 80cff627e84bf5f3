"""``serai replay MATCH_ID``: check that a stored match is reproduced by its seed and log.

The match's moves are applied again, from the seed, by the game plugin; the result must equal the
stored state (and outcome). Exit 0 when it does, 1 when it does not or the match cannot be read.
With --data-dir, an embedded Redis already serving that folder is used, else one is started on it;
a finished match that has left Redis is read from the archive (--archive-url, or the SQLite
archive in --data-dir).
The seed is printed only for a finished match (or with --show-seed): with it and the game's open
code, anyone can work out every hand and the deck order of a match still being played.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from serai import registry
from serai.archive import Archive, ArchiveError
from serai.commands.store_access import (
    add_archive_argument,
    add_store_arguments,
    archive_of,
    store_url,
)
from serai.matches import MatchError, Matches
from serai.registry import Registry
from serai.store import MatchRecord, StoreError
from serai.store.embedded import EmbeddedRedisError
from serai.store.redis import open_store


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="re-apply a stored match's log from its seed and check the result",
        description=__doc__,
    )
    parser.add_argument("match_id", metavar="MATCH_ID", help="the match to check")
    add_store_arguments(parser)
    add_archive_argument(parser)
    parser.add_argument(
        "--show-seed",
        action="store_true",
        help="print the seed of a match not finished too (it gives away every hand and the deck "
        "order to whoever reads it)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, games: Registry | None = None) -> int:
    """Replay with the installed games (or ``games``, for tests); 0 if the state is reproduced."""
    try:
        archive = archive_of(args)
        url, embedded = store_url(args, "replay")
    except EmbeddedRedisError as error:
        print(error, file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"serai replay: --archive-url: {error}", file=sys.stderr)
        return 1
    try:
        games = games or registry.load()
        return asyncio.run(_replay(url, args.match_id, games, args.show_seed, archive))
    finally:
        if embedded is not None:
            embedded.stop()


async def _replay(
    url: str, match_id: str, games: Registry, show_seed: bool, archive: Archive | None
) -> int:
    store = open_store(url)
    try:
        report = await Matches(store, games, cache_size=0, archive=archive).replay(match_id)
        record = await store.load(match_id)  # as it is now: finished during the replay counts
        if record is None and archive is not None:  # archived, so finished
            archived = await archive.get(match_id)
            record = archived.record if archived is not None else None
    except (MatchError, StoreError, ArchiveError) as error:
        print(f"serai replay: {error}", file=sys.stderr)
        return 1
    finally:
        await store.close()
        if archive is not None:
            await archive.close()
    finished = isinstance(record, MatchRecord) and record.status == "finished"
    if finished or show_seed:
        seed = f"seed {report.seed}"
    else:
        seed = "seed hidden until the match is finished (--show-seed prints it)"
    print(f"match {match_id}: {'OK' if report.ok else 'MISMATCH'}: {report.message}; {seed}")
    return 0 if report.ok else 1
