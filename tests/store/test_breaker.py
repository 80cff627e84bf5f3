"""The store's breaker (serai.store.redis.breaker): one ping with no reply in time is asked again
before Redis counts as down, so a late reply on a busy machine is no outage; a silent Redis is
down after two. (Real Redis hung and killed: tests/reliability/test_reliability_store_health.py.)"""

from __future__ import annotations

import asyncio

from serai.store.redis.breaker import Breaker
from waiting import eventually


class Pings:
    """A probe whose listed calls (1 = the first) never answer; the others answer at once."""

    def __init__(self, silent: set[int] | None = None, *, always_silent: bool = False) -> None:
        self.calls = 0
        self._silent = silent or set()
        self._always_silent = always_silent

    async def __call__(self) -> None:
        self.calls += 1
        if self._always_silent or self.calls in self._silent:
            await asyncio.Event().wait()  # no reply: the breaker's timeout ends it


def _watch(breaker: Breaker) -> list[bool]:
    changes: list[bool] = []
    breaker.on_change(changes.append)
    return changes


def test_one_missed_ping_is_asked_again_and_redis_stays_up():
    async def scenario() -> tuple[list[bool], int]:
        pings = Pings({1})
        breaker = Breaker(pings, interval=0.05)
        changes = _watch(breaker)
        breaker.start()
        await eventually(lambda: pings.calls >= 5, "five pings")
        await breaker.stop()
        return changes, pings.calls

    changes, calls = asyncio.run(scenario())
    assert changes == [], f"a single missed ping took Redis down ({calls} pings)"


def test_a_silent_redis_is_down_after_two_missed_pings_and_says_so():
    async def scenario() -> tuple[list[bool], int, str]:
        pings = Pings(always_silent=True)
        breaker = Breaker(pings, interval=0.05)
        changes = _watch(breaker)
        breaker.start()
        await eventually(lambda: not breaker.up, "Redis counted down")
        calls = pings.calls
        await breaker.stop()
        return changes, calls, str(breaker.unavailable())

    changes, calls, said = asyncio.run(scenario())
    assert changes == [False] and calls >= 2
    assert "2 times in a row" in said, said


def test_a_refused_ping_is_down_at_once_and_an_answer_brings_it_back():
    async def scenario() -> tuple[list[bool], int]:
        state = {"calls": 0}

        async def probe() -> None:
            state["calls"] += 1
            if state["calls"] == 1:
                raise ConnectionRefusedError("connection refused")

        breaker = Breaker(probe, interval=0.05)
        changes = _watch(breaker)
        breaker.start()
        await eventually(lambda: changes == [False, True], "down, then up again")
        await breaker.stop()
        return changes, state["calls"]

    changes, calls = asyncio.run(scenario())
    assert changes == [False, True] and calls >= 2
