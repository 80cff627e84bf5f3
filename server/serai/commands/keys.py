"""``serai keys create|list|revoke``: the API keys apps call with (see serai.rpc.auth).

A key's secret is printed once, by ``create``, and never stored: Redis keeps only its SHA-256.
Each key is an app (a tenant): it sees only the matches made with it, and its limits (open
matches, move rate) replace the server's for it. Creation and revocation are written to stderr
as structured audit lines naming the key (never its secret). Like ``serai replay``, a command
reaches the store by --redis-url, or by --data-dir for `serai serve`'s embedded Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from serai import logging as serai_logging
from serai.commands.store_access import add_store_arguments, store_url
from serai.store import StoreError
from serai.store.embedded import EmbeddedRedisError
from serai.store.redis import open_store
from serai.store.redis.api_keys import ApiKeys, KeyExists


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "keys", help="create, list and revoke the API keys apps call with", description=__doc__
    )
    add_store_arguments(parser)
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="make a key and print it (only this once)")
    create.add_argument("name", metavar="NAME", help="the app's name: a-z, 0-9 and -, up to 40")
    create.add_argument(
        "--max-open-matches",
        type=int,
        default=0,
        metavar="N",
        help="most unfinished matches the key's app may have made (0: the server's "
        "--max-open-per-peer)",
    )
    create.add_argument(
        "--rate",
        type=float,
        default=0.0,
        metavar="R",
        help="most SubmitMove calls per second for the whole app, per server process (0: the "
        "server's --move-rate per connection)",
    )
    create.add_argument(
        "--burst", type=float, default=0.0, metavar="B", help="bursts of up to B (0: 2 x R)"
    )
    create.set_defaults(run=run, action=_create)
    listing = actions.add_parser("list", help="list the keys (never their secrets)")
    listing.set_defaults(run=run, action=_list)
    revoke = actions.add_parser("revoke", help="revoke a key: refused within a second")
    revoke.add_argument("name", metavar="NAME")
    revoke.set_defaults(run=run, action=_revoke)


def run(args: argparse.Namespace) -> int:
    serai_logging.configure("json", stream=sys.stderr)
    try:
        url, embedded = store_url(args, "keys", new_data=True)
    except EmbeddedRedisError as error:
        print(error, file=sys.stderr)
        return 1
    try:
        return asyncio.run(_with_keys(url, lambda keys: args.action(keys, args)))
    finally:
        if embedded is not None:
            embedded.stop()


async def _with_keys(url: str, action: Callable[[ApiKeys], Awaitable[int]]) -> int:
    store = open_store(url)
    try:
        return await action(ApiKeys(store.client))
    except (StoreError, KeyExists, ValueError) as error:
        print(f"serai keys: {error}", file=sys.stderr)
        return 1
    finally:
        await store.close()


_audit = structlog.get_logger("serai.audit")


async def _create(keys: ApiKeys, args: Any) -> int:
    made = await keys.create(
        args.name,
        max_open_matches=args.max_open_matches,
        move_rate=args.rate,
        move_burst=args.burst,
    )
    _audit.info(
        "api key created",
        key=args.name,
        max_open_matches=args.max_open_matches,
        rate=args.rate,
        burst=args.burst,
    )
    print(made.token)
    return 0


async def _list(keys: ApiKeys, _args: Any) -> int:
    for key in await keys.list():
        state = f"revoked {_when(key.revoked_ms)}" if key.revoked_ms else "active"
        limits = (
            f"max_open_matches={key.max_open_matches or 'server'} "
            f"rate={key.move_rate:g} burst={key.move_burst:g}"
        )
        print(f"{key.name}\t{state}\tcreated {_when(key.created_ms)}\t{limits}")
    return 0


async def _revoke(keys: ApiKeys, args: Any) -> int:
    if not await keys.revoke(args.name):
        print(f"serai keys: no active key named {args.name!r}", file=sys.stderr)
        return 1
    _audit.info("api key revoked", key=args.name)
    return 0


def _when(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
