"""ListMatches' pages: how large one may be, and the page token that says where the next starts.

A listing is newest first, ordered by (created ms, match id). A token names the last match of a
page by that position, and the listing it belongs to (status and game); the next page is the
matches after that position. So matches created meanwhile (they sort first) neither come back
nor shift a page, as they would with an offset. The token is opaque to clients (base64 of a
versioned text) and checked whole: a damaged one, or one passed with another status or game, is
INVALID_ARGUMENT. Nothing in it is secret and it needs no key: a forged position only starts a
listing elsewhere, and a listing shows what ListMatches shows anyone. Example::

    token = page_token("open", None, record.created_ms, record.match_id)
    read_page_token(token, "open", None)          # (record.created_ms, record.match_id)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from serai.matches import requests
from serai.matches.errors import BadRequest
from serai.matches.requests import MATCH_ID, quoted
from serai.store import Status

DEFAULT_PAGE = 50  # ListMatchesRequest.limit 0
MAX_PAGE = 100  # a larger limit is served as this many (documented in the .proto)

_VERSION = "1"
_MAX_TOKEN = 160  # characters; the longest token made is about 130
# Not a secret (see above): it only makes the checksum differ from other formats' hashes.
_CHECKSUM_KEY = b"serai.v1.ListMatches.page_token"


def page_size(limit: int) -> int:
    """The matches one page holds for ``limit`` (0: the default; more than MAX_PAGE: MAX_PAGE)."""
    requests.check_list_limit(limit)
    return min(limit or DEFAULT_PAGE, MAX_PAGE)


def page_token(status: Status | None, game: str | None, created_ms: int, match_id: str) -> str:
    """The token of the page that starts after the match ``(created_ms, match_id)``."""
    body = f"{_VERSION}.{created_ms}.{match_id}"
    text = f"{body}.{_checksum(body, status, game)}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_page_token(token: str, status: Status | None, game: str | None) -> tuple[int, str] | None:
    """The position a token names (None for "": the first page); BadRequest if it is not one
    :func:`page_token` made for this status and game."""
    if not token:
        return None
    fields = _fields(token)
    if fields is None:
        raise BadRequest(
            f"page_token {quoted(token)} is not a token ListMatches gave: pass next_page_token "
            "from the previous answer unchanged, or nothing for the first page"
        )
    body, checksum = fields[:3], fields[3]
    if not hmac.compare_digest(checksum, _checksum(".".join(body), status, game)):
        raise BadRequest(
            "page_token was damaged, or given for another listing: pass next_page_token "
            "unchanged, with the same status and game as the call that gave it"
        )
    return int(body[1]), body[2]


def _fields(token: str) -> list[str] | None:
    """A token's four fields (version, created ms, match id, checksum), if it has their form."""
    if len(token) > _MAX_TOKEN:
        return None
    try:
        text = base64.b64decode(token + "=" * (-len(token) % 4), b"-_", validate=True).decode()
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        return None
    fields = text.split(".")
    if len(fields) != 4 or fields[0] != _VERSION:
        return None
    created, match_id = fields[1], fields[2]
    if not (created.isascii() and created.isdigit() and len(created) <= 15):
        return None
    if not MATCH_ID.fullmatch(match_id):
        return None
    return fields


def _checksum(body: str, status: Status | None, game: str | None) -> str:
    listing = f"{body}\n{status or ''}\n{game or ''}".encode()
    return hashlib.blake2b(listing, digest_size=8, key=_CHECKSUM_KEY).hexdigest()
