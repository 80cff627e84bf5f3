"""What every bot shares: the strategy interface and the loop that plays a seat to the end.

A strategy only chooses: given the snapshot its seat received and the legal moves, it returns
one of those moves. The loop does the rest — waits until ``to_act`` names the seat, asks the
strategy, submits with the version it chose at, and on ABORTED asks again on the fresh view. A
move refused because the match ended meanwhile (a resignation, a clock) ends the loop, not
the bot: the match is over, as it would have been a moment earlier.
It plays over one Play stream (events, legal moves and answers on one connection) where the
server offers it, else (UNIMPLEMENTED) by Watch + SubmitMove, or by polling GetMatch. ``to_act``
can name the seat mid-turn in games where another seat is asked to choose, so the loop never
assumes turns alternate.

Example::

    seat = client.join(match_id, player_name="random")
    final = play_seat(client, seat, RandomStrategy(seed=1))
    print(final.outcome.summary)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

import grpc

from serai_client.client import SeraiClient
from serai_client.errors import IllegalMoveError, SeraiError, StaleVersionError
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

    Waits on a Play stream (``poll=None``; Watch + SubmitMove on a server without Play) or by
    polling GetMatch every ``poll`` seconds. ``on_move`` is told each move this seat played
    (snapshot after it, label).
    """
    if poll is None:
        try:
            return play_seat_streaming(client, seat, strategy, on_move=on_move)
        except SeraiError as error:
            if error.code != grpc.StatusCode.UNIMPLEMENTED:
                raise
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


def play_seat_streaming(
    client: SeraiClient,
    seat: SeatHandle,
    strategy: Strategy,
    *,
    on_move: Callable[[Snapshot, str], None] | None = None,
) -> Snapshot:
    """:func:`play_seat` over one Play stream: moves when an event offers the seat its legal
    moves; a move refused as stale (someone moved first) waits for the next offer. Raises a
    SeraiError with ``code`` UNIMPLEMENTED, before any move, where the server has no Play."""
    final: Snapshot | None = None
    with client.open_play(seat) as session:
        for update in session:
            answer = update.answer
            if answer is not None:
                if isinstance(answer.error, StaleVersionError):
                    continue  # the next offer comes with the event that made it stale
                if isinstance(answer.error, IllegalMoveError) and client.get_match(seat).finished:
                    continue  # it lost to the match's end: the last events come next
                if answer.error is not None:
                    raise answer.error
                if answer.submitted is not None and on_move is not None:
                    on_move(answer.submitted.snapshot, answer.submitted.label)
                continue
            snapshot = update.snapshot
            if snapshot is None:
                continue
            final = snapshot
            if not snapshot.acts(seat.seat) or snapshot.finished:
                continue
            moves = update.moves
            if moves is None or not moves.moves:
                raise IllegalMoveError(
                    f"seat {seat.seat} must act at version {snapshot.version} but has no move"
                )
            chosen = strategy.choose(snapshot, moves)
            session.move(chosen, expected_version=moves.version)
    if final is not None and final.finished:
        return final
    return client.get_match(seat)


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
    except IllegalMoveError:
        fresh = client.get_match(seat)
        if fresh.finished:
            return fresh  # the move lost to the match's end (a resignation, a clock)
        raise
    if on_move is not None:
        on_move(result.snapshot, result.label)
    return result.snapshot
