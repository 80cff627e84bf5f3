"""Time banks on one Redis with a fake clock (no waiting): a move slower than move_seconds spends
the mover's bank, a quick one keeps it, the deadline of each turn is move_seconds plus the bank of
the seat to act, and a seat loses only once both are spent. Shown to everyone in SeatInfo."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.matches import Matches
from serai.store.redis.store import open_store

MOVE, BANK = 10, 60  # seconds


def _run(redis_url: str, scenario: Callable[[Matches, list[float]], Awaitable[Any]]) -> Any:
    now = [1_000_000.0]

    async def main() -> Any:
        store = open_store(redis_url)
        try:
            return await scenario(Matches(store, registry.load(), clock=lambda: now[0]), now)
        finally:
            await store.close()

    return asyncio.run(main())


async def _started(matches: Matches) -> tuple[str, list[str]]:
    record = await matches.create("jaipur", seed=3, move_seconds=MOVE, bank_seconds=BANK)
    tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
    return record.match_id, tokens


async def _move(matches: Matches, match_id: str, token: str) -> None:
    listed = await matches.legal_moves(match_id, token)
    await matches.submit(match_id, token, move_id=listed.moves[0].id)


def test_a_slow_move_spends_the_bank_and_a_quick_one_keeps_it(redis_url):
    async def scenario(matches: Matches, now: list[float]) -> Any:
        match_id, tokens = await _started(matches)
        first = await matches.get(match_id)
        seat = first.to_act[0]
        seen = [(first.record.deadline_ms, [s.bank_ms for s in first.record.seats])]
        now[0] += 25  # 15 s past move_seconds: drawn from the bank
        await _move(matches, match_id, tokens[seat])
        second = await matches.get(match_id)
        seen.append((second.record.deadline_ms, [s.bank_ms for s in second.record.seats]))
        now[0] += 3  # the other seat moves in time
        await _move(matches, match_id, tokens[1 - seat])
        third = await matches.get(match_id)
        seen.append((third.record.deadline_ms, [s.bank_ms for s in third.record.seats]))
        return seat, seen

    seat, seen = _run(redis_url, scenario)
    start_ms = 1_000_000_000
    (deadline0, banks0), (deadline1, banks1), (deadline2, banks2) = seen
    assert banks0 == [BANK * 1000, BANK * 1000]
    assert deadline0 == start_ms + (MOVE + BANK) * 1000
    assert banks1[seat] == (BANK - 15) * 1000 and banks1[1 - seat] == BANK * 1000
    assert deadline1 == start_ms + 25_000 + (MOVE + BANK) * 1000  # the other seat's full bank
    assert banks2 == banks1  # moved within move_seconds: nothing spent
    assert deadline2 == start_ms + 28_000 + (MOVE + BANK - 15) * 1000  # the slow seat's rest


def test_a_seat_loses_only_once_its_move_time_and_its_bank_are_spent(redis_url):
    async def scenario(matches: Matches, now: list[float]) -> Any:
        match_id, _tokens = await _started(matches)
        now[0] += MOVE + BANK - 1
        running = (await matches.get(match_id)).record.status
        now[0] += 2
        done = await matches.get(match_id)
        return running, done.record.status, done.outcome

    running, status, outcome = _run(redis_url, scenario)
    assert running == "running"
    assert status == "finished" and "ran out of time" in outcome["summary"]


def test_the_bank_is_shown_to_everyone_and_bad_banks_are_refused(stub):
    created = stub.CreateMatch(
        pb.CreateMatchRequest(game="jaipur", move_seconds=86_400, bank_seconds=7 * 86_400)
    ).match
    assert created.bank_seconds == 7 * 86_400
    joined = stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, seat=0))
    assert joined.match.seats[0].bank_ms == 7 * 86_400 * 1000
    for request, says in [
        (pb.CreateMatchRequest(game="jaipur", bank_seconds=60), "bank_seconds needs a clock"),
        (
            pb.CreateMatchRequest(game="jaipur", move_seconds=60, bank_seconds=10**8),
            "bank_seconds must be 0 (no time bank) to",
        ),
    ]:
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateMatch(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert says in refused.value.details()
