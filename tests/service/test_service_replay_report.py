"""A replay report gives the seed as a field of its own and never in its message: the seed of a
match still being played gives away every hand, so the caller decides who may see it."""

from __future__ import annotations

import asyncio

from serai.matches import Matches
from serai.store.memory import MemoryStore
from tiny_game import tiny_registry


def test_the_report_holds_the_seed_and_its_message_does_not() -> None:
    seed = 987654321

    async def scenario() -> None:
        store = MemoryStore()
        try:
            matches = Matches(store, tiny_registry())
            record = await matches.create("tiny", seats=2, seed=seed)
            for seat in range(2):
                await matches.join(record.match_id, seat)
            report = await matches.replay(record.match_id)
            assert report.ok and report.seed == seed
            assert str(seed) not in report.message, report.message
        finally:
            await store.close()

    asyncio.run(scenario())
