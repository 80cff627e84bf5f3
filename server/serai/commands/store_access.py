"""Where a command finds the matches: ``--redis-url``, or the embedded Redis of ``--data-dir``,
as ``serai serve`` keeps them (shared by replay, export and keys)."""

from __future__ import annotations

import argparse
from pathlib import Path

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
        help="the data folder of `serai serve`'s embedded Redis (default ./data)",
    )


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
