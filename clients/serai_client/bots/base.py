"""What every bot shares: the strategy interface and the loop that plays a seat to the end.

A strategy only chooses: given the snapshot its seat received and the legal moves, it returns
one of those moves. The loop does the rest — waits (watching, or polling) until ``to_act`` names
the seat, asks the strategy, submits with the version it chose at, and on ABORTED asks again on
the fresh view. ``to_act`` can name the seat mid-turn in games where another seat is asked to
choose, so the loop never assumes turns alternate.

Example::

    seat = client.join(match_id, player_name="random")
    final = play_seat(client, seat, RandomStrategy(seed=1))
    print(final.outcome.summary)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from serai_client.client import SeraiClient
from serai_client.errors import IllegalMoveError, StaleVersionError
from serai_client.types import LegalMove, LegalMoves, SeatHandle, Snapshot


class Strategy(Protocol):
    """Chooses a move; it sees the seat's snapshot (with its decoded view) and nothing else."""

    name: str

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove: ...


def play_seat(
    client: SeraiClient,
    seat: SeatHandle,
    strategy: Strategy,
    *,
    poll: float | None = None,
    on_move: Callable[[Snapshot, str], None] | None = None,
) -> Snapshot:
    """Play ``seat`` with ``strategy`` until the match is over; the final snapshot.

    Waits by watching the match (``poll=None``) or by polling GetMatch every ``poll`` seconds.
    ``on_move`` is told each move this seat played (snapshot after it, label).
    """
    snapshot = client.get_match(seat)
    while not snapshot.finished:
        if snapshot.acts(seat.seat):
            snapshot = _act(client, seat, strategy, snapshot, on_move)
        elif poll is not None:
            time.sleep(poll)
            snapshot = client.get_match(seat)
        else:
            snapshot = wait_for_turn(client, seat, snapshot)
    return snapshot


def wait_for_turn(client: SeraiClient, seat: SeatHandle, snapshot: Snapshot) -> Snapshot:
    """Watch from ``snapshot`` until the seat must act or the match ends; the newest snapshot."""
    events = client.watch(seat, snapshot.last_event_id)
    try:
        for event in events:
            fresh = event.snapshot
            if fresh is None or fresh.version < snapshot.version:
                continue
            snapshot = fresh
            if snapshot.finished or snapshot.acts(seat.seat):
                return snapshot
    finally:
        events.close()
    return client.get_match(seat)  # the watch ended with the match


def _act(
    client: SeraiClient,
    seat: SeatHandle,
    strategy: Strategy,
    snapshot: Snapshot,
    on_move: Callable[[Snapshot, str], None] | None,
) -> Snapshot:
    moves = client.legal_moves(seat)
    if moves.version != snapshot.version:
        return client.get_match(seat)  # the match moved between the two calls: look again
    if not moves.moves:
        raise IllegalMoveError(
            f"seat {seat.seat} must act at version {moves.version} but has no move"
        )
    chosen = strategy.choose(snapshot, moves)
    try:
        result = client.submit(
            seat, chosen.id, expected_version=moves.version, choose=strategy.choose
        )
    except StaleVersionError:
        return client.get_match(seat)  # no longer this seat's turn: wait again
    if on_move is not None:
        on_move(result.snapshot, result.label)
    return result.snapshot
