"""``serai keys create|set|list|revoke``: the API keys apps call with (see serai.rpc.auth).

A key's secret is printed once, by ``create``, and never stored: Redis keeps only its SHA-256.
Each key is an app (a tenant): it sees only the matches made with it, and its limits (open
matches, move rate) replace the server's for it. Creation and revocation are written to stderr
as structured audit lines naming the key (never its secret). Like ``serai replay``, a command
reaches the store by --redis-url, or by --data-dir for `serai serve`'s embedded Redis.

A key may also take *player tokens*: JWTs the app signs to say which of its players calls
(JoinMatch binds the seat to the player, who can ReclaimSeat it from another device and list
their matches). ``--player-token-secret`` makes an HS256 signing secret, printed once on the
line after the key: unlike the key, it is stored as such in Redis (checking an HMAC needs the
secret itself), so give the app this secret, never the API key, to sign with.
``--player-token-public-key FILE`` (a PEM RSA or EC P-256 key: RS256 or ES256) or
``--player-token-jwks-url URL`` register the app's public key instead, and nothing secret is
stored. ``set`` changes these on an existing key.

``--webhook-url URL`` (on ``create`` or ``set``) sends the app's webhooks there (see the README's
"Webhooks"): the URL must be http(s) on a host the operator allows (``--webhook-allow-host``, as
given to ``serai serve``). A signing secret (``whsec_...``) is made and printed once, on a line
of its own after the key and any player-token secret; the app checks each webhook's signature
with it (Standard Webhooks). ``set --webhook-url`` makes a new secret; ``set --no-webhook``
stops the webhooks.
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
from serai.rpc.player_tokens import public_key_algorithm
from serai.store import StoreError
from serai.store.api_keys import ApiKeyStore, KeyExists, PlayerTokenRules
from serai.store.embedded import EmbeddedRedisError
from serai.store.redis import open_store
from serai.webhooks.urls import add_allow_host_argument, allowed_hosts


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
    _add_player_token_arguments(create)
    _add_webhook_arguments(create)
    create.set_defaults(run=run, action=_create)
    change = actions.add_parser(
        "set",
        help="change how an existing key's player tokens are checked, or its webhook (a new "
        "secret is printed)",
    )
    change.add_argument("name", metavar="NAME", help="the key's name")
    _add_player_token_arguments(change)
    change.add_argument(
        "--no-player-tokens",
        action="store_true",
        help="the key takes no player tokens any more (its signing secret is deleted)",
    )
    _add_webhook_arguments(change, removable=True)
    change.set_defaults(run=run, action=_set)
    listing = actions.add_parser("list", help="list the keys (never their secrets)")
    listing.set_defaults(run=run, action=_list)
    revoke = actions.add_parser("revoke", help="revoke a key: refused within a second")
    revoke.add_argument("name", metavar="NAME", help="the key's name")
    revoke.set_defaults(run=run, action=_revoke)


def _add_player_token_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "player tokens", "how the app's player tokens (JWTs naming a player) are checked"
    )
    way = group.add_mutually_exclusive_group()
    way.add_argument(
        "--player-token-secret",
        action="store_true",
        help="make an HS256 signing secret, printed once on the line after the key; it is "
        "stored in Redis as such (an HMAC is checked with the secret itself), unlike the key",
    )
    way.add_argument(
        "--player-token-public-key",
        metavar="FILE",
        help="the app's PEM public key: RSA (RS256) or EC P-256 (ES256)",
    )
    way.add_argument(
        "--player-token-jwks-url",
        metavar="URL",
        help="the app's JWKS URL (RS256 or ES256 keys, chosen by the token's kid; read at most "
        "every 5 minutes)",
    )
    group.add_argument(
        "--player-token-issuer", default="", metavar="ISS", help="the iss tokens must carry"
    )
    group.add_argument(
        "--player-token-audience", default="", metavar="AUD", help="the aud tokens must carry"
    )


def _add_webhook_arguments(parser: argparse.ArgumentParser, *, removable: bool = False) -> None:
    group = parser.add_argument_group("webhooks", "where serai POSTs the app's webhooks")
    way = group.add_mutually_exclusive_group()
    way.add_argument(
        "--webhook-url",
        metavar="URL",
        help="send the app's webhooks (your turn, match finished, seat reclaimed) to this "
        "http(s) URL; a signing secret (whsec_...) is printed once",
    )
    if removable:
        way.add_argument(
            "--no-webhook",
            action="store_true",
            help="send the key no webhooks any more (its signing secret is deleted)",
        )
    add_allow_host_argument(group)


def _webhook_url(args: Any) -> str:
    """The webhook URL asked for ("" for none), if the allowed hosts take it; else ValueError."""
    url = args.webhook_url or ""
    if url:
        allowed_hosts(args).check(url)
    return url


def _player_rules(args: Any) -> PlayerTokenRules | None:
    """The rules the flags ask for (None: none); ValueError for a key that cannot check them."""
    public_key = ""
    if args.player_token_public_key:
        with open(args.player_token_public_key, encoding="ascii") as pem:
            public_key = pem.read()
        public_key_algorithm(public_key)  # an RSA or EC P-256 public key, or ValueError
    if not (args.player_token_secret or public_key or args.player_token_jwks_url):
        if args.player_token_issuer or args.player_token_audience:
            raise ValueError(
                "--player-token-issuer and --player-token-audience go with --player-token-secret, "
                "--player-token-public-key or --player-token-jwks-url"
            )
        return None
    return PlayerTokenRules(
        secret=bool(args.player_token_secret),
        public_key=public_key,
        jwks_url=args.player_token_jwks_url or "",
        issuer=args.player_token_issuer,
        audience=args.player_token_audience,
    )


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


async def _with_keys(url: str, action: Callable[[ApiKeyStore], Awaitable[int]]) -> int:
    store = open_store(url)
    try:
        return await action(store.api_keys)
    except (StoreError, KeyExists, ValueError, OSError) as error:
        print(f"serai keys: {error}", file=sys.stderr)
        return 1
    finally:
        await store.close()


_audit = structlog.get_logger("serai.audit")


async def _create(keys: ApiKeyStore, args: Any) -> int:
    players = _player_rules(args)
    webhook_url = _webhook_url(args)
    made = await keys.create(
        args.name,
        max_open_matches=args.max_open_matches,
        move_rate=args.rate,
        move_burst=args.burst,
        players=players,
        webhook_url=webhook_url,
    )
    _audit.info(
        "api key created",
        key=args.name,
        max_open_matches=args.max_open_matches,
        rate=args.rate,
        burst=args.burst,
        player_tokens=players.method if players is not None else "",
        webhook_url=webhook_url,
    )
    print(made.token)
    if made.player_secret:
        print(made.player_secret)
    if made.webhook_secret:
        print(made.webhook_secret)
    return 0


async def _set(keys: ApiKeyStore, args: Any) -> int:
    players = None if args.no_player_tokens else _player_rules(args)
    webhook = args.no_webhook or bool(args.webhook_url)
    if players is None and not args.no_player_tokens and not webhook:
        raise ValueError(
            "say how player tokens are checked (--player-token-secret, --player-token-public-key "
            "or --player-token-jwks-url) or --no-player-tokens, or give --webhook-url or "
            "--no-webhook"
        )
    url = "" if args.no_webhook else _webhook_url(args)  # checked before anything changes
    if players is not None or args.no_player_tokens:
        made = await keys.set_players(args.name, players)
        if made is None:
            return _no_key(args.name)
        _audit.info(
            "api key player tokens set",
            key=args.name,
            player_tokens=players.method if players is not None else "",
        )
        if made.player_secret:
            print(made.player_secret)
    if webhook:
        hooked = await keys.set_webhook(args.name, url)
        if hooked is None:
            return _no_key(args.name)
        _audit.info("api key webhook set", key=args.name, webhook_url=url)
        if hooked.webhook_secret:
            print(hooked.webhook_secret)
    return 0


def _no_key(name: str) -> int:
    print(f"serai keys: no active key named {name!r}", file=sys.stderr)
    return 1


async def _list(keys: ApiKeyStore, _args: Any) -> int:
    for key in await keys.list():
        state = f"revoked {_when(key.revoked_ms)}" if key.revoked_ms else "active"
        limits = (
            f"max_open_matches={key.max_open_matches or 'server'} "
            f"rate={key.move_rate:g} burst={key.move_burst:g}"
        )
        if key.players is not None:  # how, never the secret
            limits += f"\tplayer tokens: {key.players.method}"
        if key.webhook_url:
            limits += f"\twebhook: {key.webhook_url}"
        print(f"{key.name}\t{state}\tcreated {_when(key.created_ms)}\t{limits}")
    return 0


async def _revoke(keys: ApiKeyStore, args: Any) -> int:
    if not await keys.revoke(args.name):
        return _no_key(args.name)
    _audit.info("api key revoked", key=args.name)
    return 0


def _when(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
