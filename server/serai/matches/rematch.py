"""Rematch: the same players again, a new committed deal, the seats rotated by one.

Each seat of a finished match asks with its own seat token; every call lands in the same new
match, because its id is derived (as a retried CreateMatch's is) from a request id that only the
match's seats' token hashes give, which no one outside the server knows: no one can make that
match first with other settings. The new match has the old one's game, seat count, options,
clocks, spectator delay and tenant, and a committed deal of its own. The player of seat ``s``
takes seat ``(s + 1) mod n`` (so the first seat rotates), with its name and player binding, by a
join whose request id is derived from the caller's own token: a repeated call by the same seat
answers the same seat and token, and no one else can take it.

Example::

    joined = await rematch(matches, old_match_id, my_seat_token, entropy=os.urandom(16))
    joined.record.match_id, joined.seat, joined.token   # the new match, my new seat, its token
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Protocol

from serai.game import Seat
from serai.matches import access
from serai.matches.cache import Entry
from serai.matches.errors import MatchNotRunning, Unauthenticated
from serai.matches.values import Joined
from serai.store import MatchRecord, TimeoutPolicy


class Lifecycle(Protocol):
    """What a rematch asks of :class:`serai.matches.Matches` (named here: it calls back)."""

    async def inspect(self, match_id: str) -> Entry: ...

    async def create(
        self,
        game: str,
        seats: int = 0,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        *,
        client_id: str = "",
        move_seconds: int = 0,
        timeout_policy: TimeoutPolicy = "lose",
        bank_seconds: int = 0,
        request_id: str = "",
        quota_key: str = "",
        tenant: str = "",
        max_open: int | None = None,
        spectator_delay_moves: int = 0,
    ) -> MatchRecord: ...

    async def join(
        self,
        match_id: str,
        seat: Seat | None = None,
        player_name: str = "",
        *,
        request_id: str = "",
        entropy: bytes = b"",
        tenant: str | None = None,
        player_key: str = "",
    ) -> Joined: ...


async def rematch(
    matches: Lifecycle,
    match_id: str,
    token: str,
    *,
    entropy: bytes = b"",
    tenant: str | None = None,
    quota_key: str = "",
    max_open: int | None = None,
) -> Joined:
    """Join the rematch of ``match_id`` in the seat after the one ``token`` holds."""
    entry = await matches.inspect(match_id)
    access.check_tenant(entry, tenant)
    seat = access.authenticate(entry, token)
    if seat is None:
        raise Unauthenticated("a rematch is asked for by a seat: send its seat_token")
    old = entry.record
    if old.status != "finished":
        raise MatchNotRunning(
            f"match {match_id} is not finished: a rematch is asked for once it is over"
        )
    secret = "".join(s.token_hash for s in old.seats)
    new = await matches.create(
        old.game,
        len(old.seats),
        {
            name: str(value).lower() if isinstance(value, bool) else str(value)
            for name, value in old.options.items()
        },
        client_id=old.client_id,
        move_seconds=old.move_seconds,
        timeout_policy=old.timeout_policy,
        bank_seconds=old.bank_seconds,
        spectator_delay_moves=old.spectator_delay_moves,
        request_id=_derived("rematch", old.match_id, secret),
        quota_key=quota_key,
        tenant=old.tenant,
        max_open=max_open,
    )
    mine = old.seats[seat]
    return await matches.join(
        new.match_id,
        (seat + 1) % len(old.seats),
        mine.name,
        request_id=_derived("rematch seat", old.match_id, token),
        entropy=entropy,
        tenant=old.tenant,
        player_key=mine.player,
    )


def _derived(purpose: str, match_id: str, secret: str) -> str:
    """A request id (64 hex characters) only ``secret`` gives, for this purpose and match."""
    text = f"serai {purpose}\n{match_id}\n{secret}".encode()
    return hashlib.sha256(text).hexdigest()
