"""The watch hub reads no match it already holds: events read up to a version this process has
cached (its own commit) are completed with that entry, not with a load of the match; a version
it has not cached (another replica's commit) is loaded, as before.

In-process :class:`serai.matches.Matches` over the tests' real Redis; the store's loads are
counted by wrapping the real store's method.
"""

from __future__ import annotations

import asyncio
from typing import Any

from serai.matches import Matches
from serai.matches.watching import label_of, read_to_entry
from serai.store.redis.store import open_store
from tiny_game import tiny_registry


def _counting_loads(store: Any) -> list[str]:
    loads: list[str] = []
    load = store.load

    async def counted(match_id: str, unless_version: int | None = None) -> Any:
        loads.append(match_id)
        return await load(match_id, unless_version)

    store.load = counted
    return loads


async def _moved(matches: Matches) -> tuple[str, str]:
    """A running tiny match after one move; (match id, the event id before that move)."""
    record = await matches.create("tiny", seats=2, options={"hand": "4", "plays": "4"}, seed=3)
    tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
    before = (await matches.get(record.match_id)).record.last_event_id
    seat = (await matches.get(record.match_id)).to_act[0]
    listed = await matches.legal_moves(record.match_id, tokens[seat])
    await matches.submit(record.match_id, tokens[seat], move_id=listed.moves[0].id)
    return record.match_id, before


def test_events_of_a_cached_version_are_completed_without_a_load(redis_url):
    async def main() -> None:
        store = open_store(redis_url)
        try:
            matches = Matches(store, tiny_registry())
            match_id, before = await _moved(matches)
            clocks = matches._clocks
            entry = await clocks.current(match_id)
            game = entry.game
            events = await store.read_events(match_id, before)
            assert events and events[-1].version == entry.record.version
            loads = _counting_loads(store)

            async def caught() -> Any:
                return await read_to_entry(
                    store, clocks, match_id, label_of(game), list(events),
                    events[-1].event_id, None, read_first=False,
                )  # fmt: skip

            found = await caught()
            assert loads == []  # the move's own entry, cached by its commit
            assert found.entry is entry and found.events == events and found.rest == []

            matches._cache.drop(match_id)  # as on a replica that did not make the move
            found = await caught()
            assert loads == [match_id]
            assert found.entry.record == entry.record and found.events == events
        finally:
            await store.close()

    asyncio.run(main())


def test_a_cached_entry_behind_the_events_is_not_taken(redis_url):
    """A replica's entry from before the move: the hub loads the match, as it always did."""

    async def main() -> None:
        store = open_store(redis_url)
        try:
            matches = Matches(store, tiny_registry())
            match_id, before = await _moved(matches)
            clocks = matches._clocks
            events = await store.read_events(match_id, before)
            version = events[-1].version
            assert clocks.cached_at(match_id, version) is not None
            assert clocks.cached_at(match_id, version - 1) is None
            assert clocks.cached_at(match_id, version + 1) is None
        finally:
            await store.close()

    asyncio.run(main())
