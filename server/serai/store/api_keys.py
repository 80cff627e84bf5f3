"""API keys as a store keeps them: only a SHA-256 of each key's secret, so that neither a copy of
the store nor its operator can call as an app; and :class:`ApiKeyStore`, the part of
:class:`serai.store.Store` that keeps them (``store.api_keys``).

A key is ``sk_<name>.<secret>``: the name says which key to read (one look-up, no scan), the
secret is checked against the hash in constant time (see :mod:`serai.rpc.auth`). Revoking keeps
the key, marked, so that a revoked name is never handed out again to another app.

A key may also say how the app's *player tokens* are checked (see :mod:`serai.rpc.player_tokens`):
an HS256 signing secret serai made (stored as such: HMAC needs the secret itself to check a
signature, unlike the key, whose hash is enough; shown once, like the key), or a PEM public key
or JWKS URL (RS256/ES256), with the issuer and audience the tokens must carry. Example::

    made = await store.api_keys.create("acme", max_open_matches=100,
                                       players=PlayerTokenRules(secret=True))
    print(made.token, made.player_secret)  # shown once: only the key's hash is stored
    await store.api_keys.revoke("acme")

A key may register a *webhook* URL (see :mod:`serai.webhooks`): serai makes a signing secret for
it (``whsec_...``, as the Standard Webhooks spec writes them), stored as such (the receiver checks
an HMAC with it) and shown once. Which hosts a URL may name is the operator's choice
(:mod:`serai.webhooks.urls`); here a URL is only checked to be http(s), with a host.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import urllib.parse
from dataclasses import dataclass, replace
from typing import Protocol

NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
TOKEN_PREFIX = "sk_"


class KeyExists(Exception):
    """A key of that name exists (or existed: revoked names are not reused)."""


def secret_hash(secret: str) -> str:
    """What a key stores of its secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def split_token(token: str) -> tuple[str, str] | None:
    """(name, secret) of a token shaped as :meth:`ApiKeyStore.create` makes them, or None if it
    is not one. The name is not checked against :data:`NAME` here (the caller does, before it
    reads the store for a name it has not seen)."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    name, dot, secret = token[3:].partition(".")  # 3: len(TOKEN_PREFIX)
    if not dot or not secret or not name:
        return None
    return name, secret


@dataclass(frozen=True, slots=True)
class PlayerTokenRules:
    """How an app's player tokens are checked: by ``secret`` (HS256; as asked for, True makes
    one, and as read, the secret), a ``public_key`` (PEM text) or a ``jwks_url`` (RS256, ES256),
    one of them; the ``issuer`` and ``audience`` they must name ("": not checked)."""

    secret: str | bool = ""
    public_key: str = ""
    jwks_url: str = ""
    issuer: str = ""
    audience: str = ""

    @property
    def method(self) -> str:
        """How tokens are verified, in words for ``serai keys list`` ("" for not at all)."""
        if self.secret:
            return "HS256 secret"
        if self.public_key:
            return "public key"
        if self.jwks_url:
            return f"JWKS {self.jwks_url}"
        return ""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One app's key as stored: its name (the tenant), its secret's hash and its limits (0: the
    server's own), when it was made and revoked (0: it is not)."""

    name: str
    secret_hash: str
    created_ms: int
    revoked_ms: int = 0
    max_open_matches: int = 0
    move_rate: float = 0.0
    move_burst: float = 0.0
    players: PlayerTokenRules | None = None  # None: the key takes no player tokens
    webhook_url: str = ""  # "": no webhook
    webhook_secret: str = ""  # whsec_...: what its webhooks are signed with
    webhook_since_ms: int = 0  # when the URL was set: earlier events are not told to it


@dataclass(frozen=True, slots=True)
class CreatedKey:
    """A key just made, with the token to hand the app (it is never shown again), and the
    player-token and webhook signing secrets when they were asked for ("" otherwise; shown once
    too)."""

    key: ApiKey
    token: str
    player_secret: str = ""
    webhook_secret: str = ""  # made with a webhook URL; shown once


class ApiKeyStore(Protocol):
    """The API keys of a store. ``now_ms`` (None: the wall clock) dates a create or a revoke."""

    async def create(
        self,
        name: str,
        *,
        max_open_matches: int = 0,
        move_rate: float = 0.0,
        move_burst: float = 0.0,
        players: PlayerTokenRules | None = None,
        webhook_url: str = "",
        now_ms: int | None = None,
    ) -> CreatedKey:
        """Make a key (see :func:`new_key`); raises KeyExists if the name is or was taken, and
        ValueError for a bad name, bad player-token rules or a bad webhook URL."""

    async def set_players(self, name: str, players: PlayerTokenRules | None) -> CreatedKey | None:
        """Replace how the key's player tokens are checked (None: it takes none any more); the
        key with the new signing secret if one was asked for; None if there is no active key."""

    async def set_webhook(
        self, name: str, url: str, now_ms: int | None = None
    ) -> CreatedKey | None:
        """Send the key's webhooks to ``url`` ("": none any more) from ``now_ms`` on, signed
        with a new secret (in the answer); None if there is no active key. ValueError for a bad
        URL."""

    async def get(self, name: str) -> ApiKey | None:
        """The key of that name (revoked ones too), or None."""

    async def list(self) -> list[ApiKey]:
        """Every key, revoked ones too, by name."""

    async def revoke(self, name: str, now_ms: int | None = None) -> bool:
        """Mark the key revoked; False if there is no such key (or it was revoked already)."""


def new_key(
    name: str,
    created_ms: int,
    *,
    max_open_matches: int = 0,
    move_rate: float = 0.0,
    move_burst: float = 0.0,
    players: PlayerTokenRules | None = None,
    webhook_url: str = "",
) -> CreatedKey:
    """A key of ``name`` with a fresh secret, for a store to keep (``key``) and its caller to
    show once (``token``, ``player_secret``, ``webhook_secret``). Raises ValueError for a bad
    name, rules or webhook URL."""
    if NAME.fullmatch(name) is None:
        raise ValueError(
            f"bad key name {name!r}: 1 to 40 lower-case letters, digits and -, "
            "starting with a letter or digit"
        )
    secret = secrets.token_urlsafe(32)
    rules = stored_rules(players)
    key = ApiKey(
        name=name,
        secret_hash=secret_hash(secret),
        created_ms=created_ms,
        max_open_matches=max_open_matches,
        move_rate=move_rate,
        move_burst=move_burst,
        players=rules,
    )
    token = f"{TOKEN_PREFIX}{name}.{secret}"
    if not webhook_url:
        return CreatedKey(key, token, made_secret(rules))
    hooked = with_webhook(key, webhook_url, created_ms)
    return CreatedKey(hooked.key, token, made_secret(rules), hooked.webhook_secret)


def with_webhook(key: ApiKey, url: str, now_ms: int) -> CreatedKey:
    """``key`` sending its webhooks to ``url`` from ``now_ms`` on, with a new signing secret
    (""; none and no secret), and that secret to show once. Raises ValueError for a URL that is
    no http(s) URL with a host."""
    if not url:
        return CreatedKey(replace(key, webhook_url="", webhook_secret="", webhook_since_ms=0), "")
    check_webhook_url(url)
    made = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    hooked = replace(key, webhook_url=url, webhook_secret=made, webhook_since_ms=now_ms)
    return CreatedKey(hooked, "", webhook_secret=made)


def check_webhook_url(url: str) -> urllib.parse.SplitResult:
    """``url`` split, if it is an http(s) URL with a host, no user name or password and no
    fragment; else ValueError saying what is wrong."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number
    except ValueError as error:
        raise ValueError(f"bad webhook URL {url!r}: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"the webhook URL must start with https:// or http://: {url!r}")
    if not parts.hostname:
        raise ValueError(f"the webhook URL names no host: {url!r}")
    if parts.username or parts.password or parts.fragment:
        raise ValueError(f"the webhook URL may carry no user name, password or #fragment: {url!r}")
    return parts


def with_players(key: ApiKey, players: PlayerTokenRules | None) -> CreatedKey:
    """``key`` checking player tokens by ``players`` instead (see :func:`stored_rules`), and the
    signing secret made for it, if any (no token: the key's secret is unchanged)."""
    rules = stored_rules(players)
    return CreatedKey(replace(key, players=rules), "", made_secret(rules))


def stored_rules(players: PlayerTokenRules | None) -> PlayerTokenRules | None:
    """The rules as stored: checked (one way of three, an http(s) JWKS URL), with a signing
    secret made for ``secret=True``. Raises ValueError for bad rules."""
    if players is None:
        return None
    ways = sum(map(bool, (players.secret, players.public_key, players.jwks_url)))
    if ways != 1:
        raise ValueError(
            "player tokens are checked one way: a signing secret, a public key or a JWKS URL"
        )
    if players.jwks_url and not players.jwks_url.startswith(("https://", "http://")):
        raise ValueError(f"the JWKS URL must be http(s): {players.jwks_url!r}")
    secret = secrets.token_urlsafe(32) if players.secret is True else players.secret
    return replace(players, secret=str(secret or ""))


def made_secret(rules: PlayerTokenRules | None) -> str:
    """The signing secret of stored rules ("" for none), to show once."""
    return str(rules.secret) if rules is not None else ""
