"""The community on the server: matchmaking queues (:mod:`.queue`), ratings updated exactly once
per rated match (:mod:`.ratings`, and the loop that applies them, :mod:`.rater`) and their
leaderboards. It sits beside :mod:`serai.matches` (which it drives to make and join the matches
it pairs) and, like it, knows no transport and sees storage only through :class:`serai.store.Store`.

Example::

    community = Community(matches)
    async for update in community.matchmaking.wait(queue, seeker): ...
    await community.rater.drain()        # the runtime runs community.rater.run()
"""

from __future__ import annotations

import time

from serai.community.queue import HouseSeats, Matched, Matchmaking, Seeker, Waiting
from serai.community.rater import Rater
from serai.community.ratings import POOLS, RATED_POOL, RatingChange, Ratings
from serai.matches import Matches
from serai.store import MatchRecord
from serai.store.community import (
    DEFAULT_POLICY,
    PairingPolicy,
    RatedMatch,
    RatingBoard,
    RatingRow,
)


class Community:
    """The matchmaking, ratings and rater of one process's :class:`Matches`.

    ``people_vs_bots``: matches of people against bots move ratings (the host's choice);
    ``queue_move_seconds``: the turn clock of the matches the queue makes;
    ``provisional_games``: rated matches before a rating is no longer provisional."""

    def __init__(
        self,
        matches: Matches,
        *,
        people_vs_bots: bool = False,
        queue_move_seconds: int = 60,
        provisional_games: int = 5,
        policy: PairingPolicy = DEFAULT_POLICY,
    ) -> None:
        self.ratings = Ratings(
            matches.store, people_vs_bots=people_vs_bots, provisional_games=provisional_games
        )
        self.matchmaking = Matchmaking(
            matches, self.ratings, policy=policy, move_seconds=queue_move_seconds
        )
        self.rater = Rater(matches.store, self.ratings, time.time, archive=matches.archive)
        self.store = matches.store
        self.matches = matches

    async def match_ratings(
        self, match_id: str, tenant: str | None
    ) -> list[tuple[int, RatingRow, RatingChange]]:
        """What the finished match did to each seat's rating on its game's rated board: (seat,
        the rating now, the match's line of its history), for the seats it moved so far (none
        before it is rated, nor for a match that rates no one). MatchNotFound for another
        tenant's match, as anywhere."""
        record = (await self.matches.get(match_id, tenant=tenant)).record
        if record.status != "finished":
            return []
        board = RatingBoard(record.tenant, record.game, RATED_POOL)
        seated = [(i, seat.player) for i, seat in enumerate(record.seats) if seat.player]
        rows = await self.store.rating_rows(board, [player for _, player in seated])
        moved = []
        for seat, player in seated:
            if player not in rows:
                continue
            for change in await self.ratings.history(board, player):
                if change.match_id == match_id:
                    moved.append((seat, rows[player], change))
                    break
        return moved

    async def register_created(self, record: MatchRecord) -> None:
        """Rate a match made by CreateMatch (``rated``) once it finishes: its seats are read
        then (a seat without a player token's player leaves it unrated)."""
        board = RatingBoard(record.tenant, record.game, RATED_POOL)
        now_ms = int(time.time() * 1000)
        await self.store.register_rated(RatedMatch(record.match_id, board, (), now_ms), now_ms)

    async def rematched(self, old_match_id: str, record: MatchRecord) -> bool:
        """What a seat's Rematch does besides :meth:`serai.matches.Matches.rematch`: ``record``
        (the rematch of ``old_match_id``) rated as that match was (:meth:`register_rematch`),
        and the house bots the queue seated in it asking for the rematch too. Idempotent;
        whether the rematch is rated."""
        old = await self.store.load(old_match_id)
        if isinstance(old, MatchRecord):
            await self.matchmaking.rematch_house_bots(old, record)
        return await self.register_rematch(old_match_id, record)

    async def register_rematch(self, old_match_id: str, record: MatchRecord) -> bool:
        """Rate ``record``, the rematch of ``old_match_id``, as that match was rated: on the
        same board (a rated match's rematch is rated, a casual one's is not), each player in the
        seat :meth:`serai.matches.Matches.rematch` moved it to (old seat s: new seat s + 1).
        Idempotent, as every seat's Rematch calls it; whether the rematch is rated."""
        old = await self.store.rated_match(old_match_id)
        if old is None:
            return False
        count = len(old.seats)
        seats = tuple(old.seats[(seat - 1) % count] for seat in range(count))
        now_ms = int(time.time() * 1000)
        rematch = RatedMatch(record.match_id, old.board, seats, now_ms)
        await self.store.register_rated(rematch, now_ms)
        return True


__all__ = [
    "POOLS",
    "RATED_POOL",
    "Community",
    "HouseSeats",
    "Matched",
    "Matchmaking",
    "RatingChange",
    "Ratings",
    "Seeker",
    "Waiting",
]
