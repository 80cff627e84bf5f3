"""What the request ids of JoinMatch and CreateMatch become, so that a repeated request can be
answered without the store holding the id (or, for a join, the seat token).

``created_match_id`` is the id of the match a CreateMatch with a request id makes: a hash of the
id and the client id, so a repeat finds the same match.

``rematch_request_id`` derives the request ids of a rematch (see ``Matches.rematch``) from
secrets only a match's seats' tokens give.

``join_id_of`` is a hash of the id; ``seal`` hides the token with a key derived from the id (XOR:
the token is 32 random characters, made once per seat, so no key is ever used on other data), and
``unseal`` gives it back to whoever has the id. Both keys also depend on the match, so one id on
two matches gives unrelated values.
"""

from __future__ import annotations

import hashlib

from serai.matches.match_ids import checked


def _key(purpose: bytes, match_id: str, request_id: str) -> bytes:
    """32 bytes only a join's request id gives (with its match: one id, unrelated keys)."""
    return hashlib.sha256(
        b"serai join %s\n%s\n%s" % (purpose, match_id.encode(), request_id.encode())
    ).digest()


def join_id_of(match_id: str, request_id: str) -> str:
    """How a seat records the request id it was joined with: a hash, not the id."""
    return _key(b"id", match_id, request_id).hex()


def seal(token: str, match_id: str, request_id: str) -> str:
    """The token (32 characters, as ``secrets.token_urlsafe(24)`` makes it) as hex, hidden from
    whoever lacks the request id."""
    key = _key(b"token", match_id, request_id)
    return bytes(a ^ b for a, b in zip(token.encode(), key, strict=True)).hex()


def unseal(sealed: str, match_id: str, request_id: str) -> str:
    """The token :func:`seal` hid, given the same match and request id."""
    key = _key(b"token", match_id, request_id)
    return bytes(a ^ b for a, b in zip(bytes.fromhex(sealed), key, strict=True)).decode()


def created_match_id(client_id: str, request_id: str, tenant: str = "") -> str:
    """32 hex characters: a hash (28), so no one without the request id can know it beforehand,
    and the check of issued ids (:mod:`serai.matches.match_ids`). Another tenant's create with
    the same client_id and request_id makes a match of its own (a newline cannot be in a
    client_id: the two never meet)."""
    owner = f"{tenant}\n{client_id}" if tenant else client_id
    digest = hashlib.sha256(b"serai create\n%s\n%s" % (owner.encode(), request_id.encode()))
    return checked(digest.hexdigest()[:28])


def rematch_request_id(purpose: str, match_id: str, secret: str) -> str:
    """A request id (64 hex characters) that only ``secret`` gives, for this purpose and match:
    the rematch's create (from every seat's token hash) and each seat's join (from its token)."""
    text = f"serai {purpose}\n{match_id}\n{secret}".encode()
    return hashlib.sha256(text).hexdigest()
