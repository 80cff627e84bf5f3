"""Bots on the asyncio client: :func:`~serai_client.bots.base.play_seat`'s loop over one Play
stream, for a process that plays many seats at once without a thread each (``serai serve``'s
house bots).

The strategy's choice is awaited through ``think``: a search that takes a second runs in a
thread pool and the event loop goes on. Example::

    async with AsyncSeraiClient("localhost:50051") as client:
        seat = await client.join(match_id, player_name="greedy bot")
        final = await play_seat_async(client, seat, make_strategy("greedy", "jaipur"))
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from serai_client.aio import AsyncSeraiClient
from serai_client.bots.base import Strategy
from serai_client.errors import IllegalMoveError, StaleVersionError
from serai_client.types import LegalMove, LegalMoves, SeatHandle, Snapshot

Think = Callable[[Strategy, Snapshot, LegalMoves], Awaitable[LegalMove]]
"""How a choice is made: e.g. ``strategy.choose`` run in an executor."""


async def _choose_here(strategy: Strategy, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
    return strategy.choose(snapshot, moves)


async def play_seat_async(
    client: AsyncSeraiClient,
    seat: SeatHandle,
    strategy: Strategy,
    *,
    think: Think = _choose_here,
    on_move: Callable[[Snapshot, str], None] | None = None,
) -> Snapshot:
    """Play ``seat`` with ``strategy`` until the match is over; the final snapshot. A move
    refused as stale (someone moved first) waits for the next offer; any other refusal raises
    its SeraiError. ``on_move`` is told each move this seat played (snapshot after it, label)."""
    final: Snapshot | None = None
    async with client.open_play(seat) as session:
        async for update in session:
            answer = update.answer
            if answer is not None:
                if isinstance(answer.error, StaleVersionError):
                    continue  # the next offer comes with the event that made it stale
                ended = (
                    isinstance(answer.error, IllegalMoveError)
                    and (await client.get_match(seat)).finished
                )
                if ended:
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
            chosen = await think(strategy, snapshot, moves)
            session.move(chosen, expected_version=moves.version)
    if final is not None and final.finished:
        return final
    return await client.get_match(seat)
