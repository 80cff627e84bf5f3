"""Match ids the server can recognise as its own: each ends in a check, so that a match the store
no longer has can be told from an id a client mistyped or made up.

The check is 4 hex characters of a hash of the rest of the id. It is no secret (anyone can work
it out): it only has to tell a typo or an invented id from one the server issued, which is all
an error message needs. An issued id the store does not know, and that neither expired nor went
to the archive, was lost by the store (a failover to a replica that had not received it yet, a
restart without persistence): :class:`serai.matches.errors.MatchLost` says so, instead of
"check the id". Ids made before the check (16 or 32 hex characters) read as before. Example::

    match_id = new_match_id()            # "9f2c41d07be3a5e6" + its check: 20 characters
    assert issued(match_id) and not issued("9f2c41d07be3a5e60000")
"""

from __future__ import annotations

import hashlib
import secrets

CHECK_CHARS = 4


def _check(body: str) -> str:
    return hashlib.sha256(b"serai match id\n%s" % body.encode()).hexdigest()[:CHECK_CHARS]


def checked(body: str) -> str:
    """``body`` with its check appended."""
    return body + _check(body)


def new_match_id() -> str:
    """A random match id: 64 random bits (16 hex characters) and the check."""
    return checked(secrets.token_hex(8))


def issued(match_id: str) -> bool:
    """Whether ``match_id`` ends in its check: made by this server (or crafted to look so), not
    mistyped (one typo in 65,536 passes) or made up."""
    body = match_id[:-CHECK_CHARS]
    return bool(body) and match_id[-CHECK_CHARS:] == _check(body)
