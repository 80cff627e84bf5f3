"""``serai replay MATCH_ID``: check that a stored match is reproduced by its seed and log.

The match's moves are applied again, from the seed, by the game plugin; the result must equal the
stored state (and outcome). Exit 0 when it does, 1 when it does not or the match cannot be read.
With --data-dir, an embedded Redis already serving that folder is used, else one is started on it.
The seed is printed only for a finished match (or with --show-seed): with it and the game's open
code, anyone can work out every hand and the deck order of a match still being played.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from serai import registry
from serai.commands.store_access import add_store_arguments, store_url
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
        url, embedded = store_url(args, "replay")
    except EmbeddedRedisError as error:
        print(error, file=sys.stderr)
        return 1
    try:
        return asyncio.run(_replay(url, args.match_id, games or registry.load(), args.show_seed))
    finally:
        if embedded is not None:
            embedded.stop()


async def _replay(url: str, match_id: str, games: Registry, show_seed: bool = False) -> int:
    store = open_store(url)
    try:
        report = await Matches(store, games, cache_size=0).replay(match_id)
        record = await store.load(match_id)  # as it is now: finished during the replay counts
    except (MatchError, StoreError) as error:
        print(f"serai replay: {error}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    finished = isinstance(record, MatchRecord) and record.status == "finished"
    if finished or show_seed:
        seed = f"seed {report.seed}"
    else:
        seed = "seed hidden until the match is finished (--show-seed prints it)"
    print(f"match {match_id}: {'OK' if report.ok else 'MISMATCH'}: {report.message}; {seed}")
    return 0 if report.ok else 1
