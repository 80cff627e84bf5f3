"""Rematch: each seat of a finished match asks with its token and all land in one new match of
the same game and settings, a committed deal of its own, the seats rotated by one, names and
player bindings kept; a repeated ask answers the same seat and token. On the memory store and a
real Redis (the core), and through gRPC with the SDK."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from serai import registry
from serai.matches import Matches
from serai.matches.access import player_key
from serai.matches.errors import MatchNotRunning, Unauthenticated, WrongToken
from serai.store import Store
from serai.store.memory import MemoryStore
from serai.store.redis import RedisStore
from serai_client import SeraiClient
from serai_client.errors import IllegalMoveError

GAMES = registry.load()


@pytest.fixture(params=["memory", "redis"])
def open_store(request: pytest.FixtureRequest) -> Callable[[], Store]:
    if request.param == "memory":
        return MemoryStore
    url = request.getfixturevalue("redis_url")
    return lambda: RedisStore.from_url(url)


def _run(open_store: Callable[[], Store], scenario: Callable[[Matches], Any]) -> Any:
    async def main() -> Any:
        store = open_store()
        try:
            return await scenario(Matches(store, GAMES))
        finally:
            await store.close()

    return asyncio.run(main())


def test_both_seats_land_in_one_new_match_with_the_seats_rotated(open_store):
    async def scenario(matches: Matches) -> Any:
        old = await matches.create("nile", seats=3, move_seconds=600, bank_seconds=60)
        joined = [
            await matches.join(old.match_id, seat, name, player_id=name)
            for seat, name in enumerate(["ada", "bo", "cy"])
        ]
        with pytest.raises(MatchNotRunning, match="not finished"):
            await matches.rematch(old.match_id, joined[0].token)
        await matches.resign(old.match_id, joined[0].token)
        with pytest.raises(Unauthenticated):
            await matches.rematch(old.match_id, "")
        with pytest.raises(WrongToken):
            await matches.rematch(old.match_id, "x" * 32)
        again = [await matches.rematch(old.match_id, j.token) for j in joined]
        repeat = await matches.rematch(old.match_id, joined[1].token)
        new = await matches.get(again[0].record.match_id)
        return old, again, repeat, new.record

    old, again, repeat, new = _run(open_store, scenario)
    assert len({j.record.match_id for j in again}) == 1 and new.match_id != old.match_id
    assert [j.seat for j in again] == [1, 2, 0]
    assert [seat.name for seat in new.seats] == ["cy", "ada", "bo"]
    assert [seat.player for seat in new.seats] == [player_key(n) for n in ["cy", "ada", "bo"]]
    assert new.status == "running" and new.server_seed and not new.seed_chosen
    assert (new.game, new.move_seconds, new.bank_seconds) == ("nile", 600, 60)
    assert (repeat.seat, repeat.token, repeat.replayed) == (again[1].seat, again[1].token, True)


def test_the_sdk_asks_for_a_rematch_through_the_server(service):
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur")
        seats = [client.join(match.match_id, seat, name) for seat, name in enumerate("AB")]
        with pytest.raises(IllegalMoveError):
            client.rematch(seats[0])
        client.resign(seats[1])
        new = [client.rematch(seat) for seat in seats]
        assert new[0].match_id == new[1].match_id != match.match_id
        assert [seat.seat for seat in new] == [1, 0]
        started = client.get_match(new[0].match_id)
        assert [s.player_name for s in started.proto.match.seats] == ["B", "A"]
        assert started.proto.match.seed_commitment
