"""The greedy Jaipur bot: the move with the best immediate value, judged on its own view.

No lookahead and no sampling: each legal move is scored by
:func:`~serai_client.bots.jaipur_heuristics.move_value` (sell timing, bonus sizes, camel
control) from the seat's hand, herd and the public table. Ties go to a seeded coin.
"""

from __future__ import annotations

import random

from serai_jaipur.moves import Move

from serai_client.bots.jaipur_heuristics import bonus_means, move_value
from serai_client.jaipur_view import view_from_proto
from serai_client.types import LegalMove, LegalMoves, Snapshot


class GreedyStrategy:
    """Best immediate move for Jaipur by a hand-written heuristic."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        scored = score_moves(snapshot, moves)
        best = max(value for value, _ in scored)
        return self.rng.choice([move for value, move in scored if value >= best - 1e-9])


def score_moves(snapshot: Snapshot, moves: LegalMoves) -> list[tuple[float, LegalMove]]:
    """Each legal move with its heuristic value, for the seat the snapshot belongs to."""
    view = view_from_proto(jaipur_view(snapshot))
    seat = moves.seat
    me, other = view.players[seat], view.players[1 - seat]
    if me.hand is None:
        raise ValueError("the snapshot holds no hand: it is a spectator's, not a seat's")
    bonus = bonus_means(view.bonus_left, None)
    return [
        (
            move_value(
                plugin_move(move),
                hand=me.hand,
                herd=me.herd,
                other_herd=other.herd,
                market=view.market,
                stacks=view.stacks,
                bonus=bonus,
            ),
            move,
        )
        for move in moves.moves
    ]


def jaipur_view(snapshot: Snapshot):  # type: ignore[no-untyped-def]
    """The snapshot's view as a Jaipur View message; ValueError for any other game."""
    from serai_jaipur import jaipur_pb2

    if not isinstance(snapshot.view, jaipur_pb2.View):
        raise ValueError(f"this bot plays Jaipur only, not {snapshot.game!r}")
    return snapshot.view


def plugin_move(move: LegalMove) -> Move:
    """The plugin's move value for a legal move's typed payload."""
    from serai_jaipur import codec

    if move.payload is None:
        raise ValueError(f"legal move {move.id} ({move.label}) has no typed payload")
    return codec.move_from_proto(move.payload)
