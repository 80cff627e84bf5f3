"""The values the store keeps for the community (matchmaking queues and ratings), beside the
match records of :mod:`serai.store.records`: what :mod:`serai.community` hands the store and
gets back. Opaque where the store need not look (a waiting player's entry, an assignment).

A rating board is one (tenant, game, pool): its players' rows, the matches already applied to
it (so that a rated match moves ratings once, whatever the retries), a leaderboard for people and
one for bots, and each player's history. A queue is one (tenant, game, options, seats, pool):
the players waiting, each one's entry and rating, the assignments the pairing made, and how
long the last :data:`WAITS_KEPT` players seated had waited.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Applied = Literal["applied", "duplicate", "conflict"]
WAITS_KEPT = 20  # a queue's recent waits kept for its estimate
RATED_KEPT_MS = 86_400_000  # a rated match's registration is kept this long after it is rated


@dataclass(frozen=True)
class RatingBoard:
    """One rating scope: ``tenant`` (an API key's name, "" without one), ``game``, ``pool``."""

    tenant: str
    game: str
    pool: str

    @property
    def tag(self) -> str:
        """A short, plain name of the board for keys (a hash: tenants and pools are free text)."""
        text = f"{self.tenant}\n{self.game}\n{self.pool}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class RatingRow:
    """A player's rating on one board: Weng-Lin ``mu`` and ``sigma``, rated matches played,
    display name and whether the player is a bot (rated on the bots' leaderboard)."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    bot: bool = False
    updated_ms: int = 0

    @property
    def score(self) -> float:
        """What leaderboards order by: a rating the player is very likely above."""
        return self.mu - 3 * self.sigma

    def dumps(self) -> str:
        return json.dumps(
            [self.name, self.mu, self.sigma, self.games, self.bot, self.updated_ms],
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, text: str | bytes) -> RatingRow:
        name, mu, sigma, games, bot, updated_ms = json.loads(text)
        return cls(name, float(mu), float(sigma), int(games), bool(bot), int(updated_ms))


@dataclass(frozen=True)
class RatingUpdate:
    """One player's new row after a match, applied only if the stored row still has
    ``games_before`` games (else someone else's match moved it meanwhile: a conflict), and the
    history line (JSON) kept for it."""

    player: str
    row: RatingRow
    games_before: int
    history: str


@dataclass(frozen=True)
class RatedSeat:
    """A seat of a rated match: the player (a player id's hash), their name, bot or not."""

    player: str
    name: str
    bot: bool = False


@dataclass(frozen=True)
class RatedMatch:
    """A match that moves ratings once it finishes, registered when it is made (by the queue),
    so that any replica can rate it: its board and who holds each seat."""

    match_id: str
    board: RatingBoard
    seats: tuple[RatedSeat, ...]
    registered_ms: int = 0

    def dumps(self) -> str:
        b = self.board
        seats = [[s.player, s.name, s.bot] for s in self.seats]
        return json.dumps(
            [self.match_id, b.tenant, b.game, b.pool, seats, self.registered_ms],
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, text: str | bytes) -> RatedMatch:
        match_id, tenant, game, pool, seats, registered_ms = json.loads(text)
        return cls(
            match_id,
            RatingBoard(tenant, game, pool),
            tuple(RatedSeat(p, n, bool(b)) for p, n, b in seats),
            int(registered_ms),
        )


@dataclass(frozen=True)
class QueueKey:
    """One queue: players are paired only with others of the same key."""

    tenant: str
    game: str
    options: Mapping[str, Any]
    seats: int
    pool: str

    @property
    def tag(self) -> str:
        options = json.dumps(sorted((k, str(v)) for k, v in self.options.items()))
        text = f"{self.tenant}\n{self.game}\n{options}\n{self.seats}\n{self.pool}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class PairingPolicy:
    """How the pairing groups players: a group's rating spread must fit every member's window,
    ``window`` wide at first and ``widen_per_second`` wider each second waited; a player not seen
    (its stream polling) for ``stale_ms`` is dropped."""

    window: float = 3.0
    widen_per_second: float = 1.0
    stale_ms: int = 15_000


DEFAULT_POLICY = PairingPolicy()


@dataclass(frozen=True)
class QueuePoll:
    """A waiting player's look at the queue: its assignment (the pairing's JSON) once paired;
    else its position (None: not waiting) among ``waiting`` players, and how long the last
    players seated from this queue had waited (ms, newest first: what its estimate is made of)."""

    assignment: str | None = None
    position: int | None = None
    waiting: int = 0
    since_ms: int = 0
    recent_waits: tuple[int, ...] = ()


@dataclass(frozen=True)
class QueueEntry:
    """A player joining a queue: its id (a player id's hash, or a guest's), the entry the
    pairing copies into the assignment (JSON), and its rating (what pairing sorts by)."""

    player: str
    entry: str
    rating: float
