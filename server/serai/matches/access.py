"""Who is asking: a seat token names a seat of one match, or nobody (a spectator).

The store keeps only a hash of each seat's token (and, for a join with a request id, a hash of
the id and the token sealed with it: see :mod:`.request_ids`), so a token is checked by hashing
it and comparing in constant time.
"""

from __future__ import annotations

import hashlib
import hmac

import structlog

from serai.game import Seat
from serai.matches.cache import Entry
from serai.matches.errors import MatchNotFound, Unauthenticated, WrongToken
from serai.matches.request_ids import unseal
from serai.matches.requests import MAX_TOKEN, quoted
from serai.matches.values import Joined
from serai.store import MatchRecord


def token_hash(token: str) -> str:
    """What a seat stores of its token."""
    return hashlib.sha256(token.encode()).hexdigest()


def player_key(player_id: str) -> str:
    """What a seat (and the index of "my matches") stores of the player id an app's player token
    vouched for: a hash, so that the store never holds an app's user ids as such, and every key
    it names is short and plain."""
    return hashlib.sha256(b"serai player\n" + player_id.encode()).hexdigest()[:32]


def player_seat(record: MatchRecord, player: str) -> Seat | None:
    """The seat of the player whose :func:`player_key` is ``player``, if it holds one."""
    for i, stored in enumerate(record.seats):
        if stored.player and hmac.compare_digest(stored.player, player):
            return i
    return None


def check_tenant(entry: Entry, tenant: str | None) -> None:
    """Nothing, if the match belongs to ``tenant`` (the caller's API key's name; "" without a
    key; None: a call from inside the process, which sees every match). Else MatchNotFound, in
    the very words a match that never existed gets: another tenant's match is not there."""
    if tenant is not None and entry.record.tenant != tenant:
        match_id = entry.record.match_id
        raise MatchNotFound(
            f"no match {quoted(match_id)}: check the id (CreateMatch and ListMatches give them)"
        )


def authenticate(entry: Entry, token: str) -> Seat | None:
    """The token's seat, or None without a token (a spectator); WrongToken for another match's."""
    if not token:
        return None
    # Longer than any token the server makes: wrong, without hashing all of it.
    digest = token_hash(token) if len(token) <= MAX_TOKEN else ""
    seat: Seat | None = None
    for i, stored in enumerate(entry.record.seats):
        if stored.token_hash and hmac.compare_digest(stored.token_hash, digest):
            seat = i
    if seat is None:
        for i, stored in enumerate(entry.record.seats):
            if stored.replaced_token and hmac.compare_digest(stored.replaced_token, digest):
                raise WrongToken(
                    f"this seat token of seat {i} of match {entry.record.match_id} was replaced: "
                    "the seat's player took it back on another device (ReclaimSeat), which has "
                    "the new token; ReclaimSeat again to play here"
                )
        raise WrongToken(
            f"this seat token does not belong to match {entry.record.match_id}: use the token "
            "JoinMatch returned for this match (or none, to look on as a spectator)"
        )
    structlog.contextvars.bind_contextvars(seat=seat)
    return seat


def require_seat(entry: Entry, token: str) -> Seat:
    """The token's seat, for a request that acts for one (Unauthenticated without a token)."""
    seat = authenticate(entry, token)
    if seat is None:
        raise Unauthenticated(
            "this request acts for a seat: pass the seat_token JoinMatch returned"
        )
    return seat


def joined_by(record: MatchRecord, join_id: str, request_id: str) -> Joined | None:
    """The answer a join with this request id already got, if one did."""
    for index, stored in enumerate(record.seats):
        if stored.join_id and hmac.compare_digest(stored.join_id, join_id):
            token = unseal(stored.sealed_token, record.match_id, request_id)
            return Joined(index, token, record, replayed=True)
    return None
