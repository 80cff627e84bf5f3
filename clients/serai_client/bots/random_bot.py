"""The random bot: a uniform choice among the legal moves. It knows no game, so it plays any."""

from __future__ import annotations

import random

from serai_client.types import LegalMove, LegalMoves, Snapshot


class RandomStrategy:
    """Uniform over the legal moves, by id; seeded for reproducible matches."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        return self.rng.choice(moves.moves)
