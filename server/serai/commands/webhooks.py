"""``serai webhooks log NAME``: the latest attempts to deliver an API key's webhooks, newest
first, one a line: when, the outcome (delivered, failed: retried later, gave_up: failed for a
day, refused: the URL may not be called or the key has no webhook), the receiver's HTTP status
(- when none came), the webhook's type, match and id (its ``webhook-id``), the attempt's number,
and why it failed. A key's latest 1000 attempts are kept, in the store serve uses (reached as
``serai keys`` does: --redis-url, or --data-dir for the embedded Redis).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys

from serai.commands.store_access import add_store_arguments, store_url
from serai.store import StoreError
from serai.store.embedded import EmbeddedRedisError
from serai.store.redis import open_store
from serai.store.webhooks import LOG_LINES, DeliveryLine


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "webhooks", help="see how an API key's webhooks were delivered", description=__doc__
    )
    add_store_arguments(parser)
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    log = actions.add_parser(
        "log", help="the key's latest delivery attempts, newest first", description=__doc__
    )
    log.add_argument("name", metavar="NAME", help="the API key's name")
    log.add_argument(
        "--limit",
        type=int,
        default=50,
        metavar="N",
        help=f"show the latest N attempts (default 50; at most {LOG_LINES} are kept)",
    )
    log.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        print("serai webhooks: --limit must be at least 1", file=sys.stderr)
        return 2
    try:
        url, embedded = store_url(args, "webhooks")
    except EmbeddedRedisError as error:
        print(error, file=sys.stderr)
        return 1
    try:
        return asyncio.run(_show(url, args.name, args.limit))
    finally:
        if embedded is not None:
            embedded.stop()


async def _show(url: str, name: str, limit: int) -> int:
    store = open_store(url)
    try:
        if await store.api_keys.get(name) is None:
            print(
                f"serai webhooks: no key named {name!r} (serai keys list lists them)",
                file=sys.stderr,
            )
            return 1
        lines = await store.webhooks.delivery_log(name, limit)
    except StoreError as error:
        print(f"serai webhooks: {error}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    for line in lines:
        print(_shown(line))
    if not lines:
        print(f"no webhook of {name} was sent yet", file=sys.stderr)
    return 0


def _shown(line: DeliveryLine) -> str:
    when = datetime.datetime.fromtimestamp(line.at_ms / 1000, datetime.UTC)
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{line.at_ms % 1000:03d}Z"
    status = str(line.status) if line.status else "-"
    fields = [stamp, line.outcome, status, line.kind, line.match_id, line.webhook_id]
    fields.append(f"attempt {line.attempt}")
    if line.detail:
        fields.append(line.detail)
    return "\t".join(fields)
