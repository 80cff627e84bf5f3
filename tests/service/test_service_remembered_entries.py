"""A record read back that the cache already holds (the watch hub's read of a commit this process
made) keeps its cached entry: its state is not decoded again, and what was computed at it (the
views, the bytes) stays; a record the cache does not hold (another replica's commit) is decoded.

In-process :class:`serai.matches.Matches` over the tests' real Redis, so that the record read
back is parsed from the stored fields as the hub's shared read parses it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from serai.matches import Matches
from serai.store import MatchRecord
from serai.store.redis.store import open_store
from tiny_game import tiny_registry


def _counting_decodes(game: Any) -> list[bytes]:
    decoded: list[bytes] = []
    decode = game.decode_state

    def counted(data: bytes) -> Any:
        decoded.append(data)
        return decode(data)

    game.decode_state = counted
    return decoded


def test_a_record_the_cache_holds_keeps_its_entry_and_another_is_decoded(redis_url):
    async def main() -> None:
        store = open_store(redis_url)
        try:
            matches = Matches(store, tiny_registry())
            created = await matches.create("tiny", seats=2, options={"hand": "4"}, seed=3)
            match_id = created.match_id
            tokens = [(await matches.join(match_id, seat)).token for seat in range(2)]
            seat = (await matches.get(match_id)).to_act[0]
            listed = await matches.legal_moves(match_id, tokens[seat])
            await matches.submit(match_id, tokens[seat], move_id=listed.moves[0].id)
            entries = matches._clocks.entries
            entry = matches._cache.get(match_id)
            assert entry is not None
            entry.view_for(seat)  # computed once at this version
            decoded = _counting_decodes(entry.game)

            read_back = await store.load(match_id)
            assert isinstance(read_back, MatchRecord) and read_back is not entry.record
            assert entries.remember(read_back) is entry
            assert decoded == [] and seat in entry.views

            matches._cache.drop(match_id)  # as on a replica that did not make the move
            other = entries.remember(read_back)
            assert other is not entry and other.record == entry.record
            assert decoded == [read_back.state] and other.views == {}
        finally:
            await store.close()

    asyncio.run(main())
