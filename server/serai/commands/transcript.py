"""``serai export MATCH_ID`` and ``serai verify FILE``: a match's transcript out of the store, and
the offline check of one, so that a player can hold the server to the match it played.

``serai export`` writes the transcript (JSON) of a finished match (from the archive once it has
left Redis), or with ``--seat N`` what that seat saw of one still running, to standard output or
``-o FILE``. ``serai verify`` replays a
finished match's transcript with the installed game plugin: the server seed opens the commitment
published at the start, the seed is derived from it and every seat's entropy, each move is legal,
and each state hash agrees; it names the first move where transcript and plugin disagree. Exit 0
when all agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from pathlib import Path
from typing import Any

from serai import registry
from serai.archive import Archive, ArchiveError
from serai.commands.store_access import (
    add_archive_argument,
    add_store_arguments,
    archive_of,
    store_url,
)
from serai.matches import MatchError, Matches, transcripts
from serai.registry import Registry
from serai.store import StoreError
from serai.store.embedded import EmbeddedRedisError
from serai.store.redis import open_store


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = subparsers.add_parser(
        "export",
        help="write a match's transcript (JSON), for `serai verify`",
        description=__doc__,
    )
    export.add_argument("match_id", metavar="MATCH_ID", help="the match to export")
    export.add_argument(
        "--seat",
        type=int,
        help="what this seat saw of a match not finished (no seed, no hidden state); a finished "
        "match's transcript is whole either way",
    )
    export.add_argument(
        "-o", "--output", type=Path, help="the file to write (default: standard output)"
    )
    add_store_arguments(export)
    add_archive_argument(export)
    export.set_defaults(run=run_export)

    verify = subparsers.add_parser(
        "verify",
        help="replay a transcript offline and check its seed, every move and every hash",
        description=__doc__,
    )
    verify.add_argument("file", metavar="FILE", help="the transcript ('-': standard input)")
    verify.add_argument(
        "--commitment",
        help="the seed_commitment you saw when the match started (hex, or base64 as the JSON "
        "API shows it): the transcript must be the match with that one",
    )
    verify.set_defaults(run=run_verify)


def run_export(args: argparse.Namespace, games: Registry | None = None) -> int:
    """Export with the installed games (or ``games``, for tests); 0 when written."""
    try:
        archive = archive_of(args)
        url, embedded = store_url(args, "export")
    except EmbeddedRedisError as error:
        print(error, file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"serai export: --archive-url: {error}", file=sys.stderr)
        return 1
    try:
        games = games or registry.load()
        document = asyncio.run(_export(url, args.match_id, args.seat, games, archive))
    except (MatchError, StoreError, ArchiveError) as error:
        print(f"serai export: {error}", file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
    text = transcripts.dumps(document)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


async def _export(
    url: str, match_id: str, seat: int | None, games: Registry, archive: Archive | None
) -> dict[str, Any]:
    store = open_store(url)
    try:
        return await Matches(store, games, cache_size=0, archive=archive).export(match_id, seat)
    finally:
        await store.close()
        if archive is not None:
            await archive.close()


def run_verify(args: argparse.Namespace, games: Registry | None = None) -> int:
    """Verify with the installed games (or ``games``, for tests); 0 when everything agrees."""
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
        document = json.loads(text)
    except (OSError, ValueError) as error:
        print(f"serai verify: cannot read {args.file}: {error}", file=sys.stderr)
        return 1
    verdict = transcripts.verify(document, (games or registry.load()).games)
    if args.commitment is not None and verdict.ok:
        seen = _bytes_of(args.commitment)
        stated = str(document.get("seed_commitment", ""))
        if seen is None or seen.hex() != stated:
            print(
                f"{args.file}: FAILED at the seed: the transcript's commitment {stated[:16]}... is "
                "not the one given (--commitment): it is not the match you saw start"
            )
            return 1
    print(f"{args.file}: {verdict}")
    if verdict.ok and args.commitment is None:
        print(
            "note: the seed commitment was not checked: give --commitment (the one shown when "
            "the match started) to check that this transcript is the match you saw"
        )
    return 0 if verdict.ok else 1


def _bytes_of(text: str) -> bytes | None:
    """A commitment as hex (64 digits) or as base64 (how the JSON API shows bytes)."""
    try:
        return bytes.fromhex(text) if len(text) == 64 else base64.b64decode(text, validate=True)
    except ValueError:
        return None
