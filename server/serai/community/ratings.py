"""Ratings, exactly once: a finished rated match moves its players' ratings on its board (one
tenant, game and pool) once, whatever the retries, replicas or crashes.

The maths is openskill's Weng-Lin Plackett-Luce model, for two seats and for three to five
alike: with two players it is a Bayesian update of the same family as Glicko-2 (a skill and
its uncertainty, which shrinks with games), and one model per board keeps a player's ratings in
2- and 3-5-seat matches of a game on one scale; Plackett-Luce takes full rankings with ties (a
Nile table's places), where Glicko-2 knows only pairs. Ratings are computed in Python, then
written by :meth:`serai.store.Store.apply_ratings` in one step that checks each player's games
count (a concurrent match of the same player wins the race: this one is computed again on the
new rows) and the board's set of applied matches (a second update of the same match writes
nothing). Example::

    ratings = Ratings(store)
    await ratings.rate(rated_match, ranks=[0, 1], now_ms=now)   # "applied", or "duplicate"
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from serai.store import Store, StoreError
from serai.store.community import (
    Applied,
    RatedMatch,
    RatedSeat,
    RatingBoard,
    RatingRow,
    RatingUpdate,
)

POOLS = ("rated", "casual")
RATED_POOL = "rated"
PROVISIONAL_GAMES = 5  # a rating's uncertainty is still large before this many rated matches
HISTORY_SHOWN = 20
_CONFLICT_RETRIES = 16


@dataclass(frozen=True)
class RatingChange:
    """One line of a player's history: the match, the rating after it, the score before it and
    the player's place in the match (0: first)."""

    match_id: str
    mu: float
    sigma: float
    score: float
    score_before: float
    place: int
    at_ms: int

    def dumps(self) -> str:
        return json.dumps(
            [
                self.match_id,
                self.mu,
                self.sigma,
                self.score,
                self.score_before,
                self.place,
                self.at_ms,
            ],
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, text: str) -> RatingChange:
        m, mu, sigma, score, before, place, at = json.loads(text)
        return cls(m, float(mu), float(sigma), float(score), float(before), int(place), int(at))


class Ratings:
    """Reads and updates the rating boards of one store. ``people_vs_bots``: a match of people
    against bots moves everyone's rating (the host says so); by default it moves no one's, so
    people are rated among people and bots among bots."""

    def __init__(
        self,
        store: Store,
        *,
        people_vs_bots: bool = False,
        provisional_games: int = PROVISIONAL_GAMES,
    ) -> None:
        self.store = store
        self.model = PlackettLuce()
        self.people_vs_bots = people_vs_bots
        self.provisional_games = provisional_games

    def start(self, name: str, bot: bool) -> RatingRow:
        """The rating of a player with no rated match on a board yet."""
        return RatingRow(name, self.model.mu, self.model.sigma, 0, bot)

    def provisional(self, row: RatingRow) -> bool:
        return row.games < self.provisional_games

    async def row(self, board: RatingBoard, player: str, name: str, bot: bool) -> RatingRow:
        """The player's row on ``board``, or the starting one."""
        rows = await self.store.rating_rows(board, [player])
        return rows.get(player) or self.start(name, bot)

    async def history(self, board: RatingBoard, player: str) -> list[RatingChange]:
        lines = await self.store.rating_history(board, player, HISTORY_SHOWN)
        return [RatingChange.loads(line) for line in lines]

    async def leaderboard(
        self, board: RatingBoard, bots: bool, offset: int, limit: int
    ) -> list[RatingRow]:
        return [row for _, row in await self.store.leaderboard(board, bots, offset, limit)]

    async def rate(self, rated: RatedMatch, ranks: Sequence[int], now_ms: int) -> Applied:
        """Apply the finished match's ``ranks`` (per seat, 0 first) to its board, once: again on
        fresh rows while another match of the same players wins the race."""
        if len(ranks) != len(rated.seats):
            raise ValueError(f"{len(ranks)} ranks for {len(rated.seats)} seats")
        players = [s.player for s in rated.seats]
        for _ in range(_CONFLICT_RETRIES):
            rows = await self.store.rating_rows(rated.board, players)
            updates = self.updates(rated, ranks, rows, now_ms)
            answer = await self.store.apply_ratings(rated.board, rated.match_id, updates)
            if answer != "conflict":
                return answer
        raise StoreError(f"the ratings of match {rated.match_id} kept changing under it")

    def updates(
        self,
        rated: RatedMatch,
        ranks: Sequence[int],
        rows: dict[str, RatingRow],
        now_ms: int,
    ) -> list[RatingUpdate]:
        """The new rows of the match's players (none for a match of people against bots,
        unless the host rates those), computed from ``rows`` (their current ones)."""
        seats = rated.seats
        if not self._moves(seats):
            return []
        before = [rows.get(s.player) or self.start(s.name, s.bot) for s in seats]
        teams = [[self.model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
        after = self.model.rate(teams, ranks=[float(r) for r in ranks])
        updates = []
        for seat, old, (new,), place in zip(seats, before, after, ranks, strict=True):
            row = RatingRow(
                seat.name or old.name, new.mu, new.sigma, old.games + 1, seat.bot, now_ms
            )
            line = RatingChange(
                rated.match_id, row.mu, row.sigma, row.score, old.score, int(place), now_ms
            )
            updates.append(RatingUpdate(seat.player, row, old.games, line.dumps()))
        return updates

    def _moves(self, seats: Sequence[RatedSeat]) -> bool:
        kinds = {s.bot for s in seats}
        return len(kinds) == 1 or self.people_vs_bots
