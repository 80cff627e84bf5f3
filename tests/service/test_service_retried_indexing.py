"""A retried request repairs the indexes its first call did not reach.

A change that moves a match between statuses is written in two steps: the match (one script),
then the indexes (ListMatches' sets, a client's unfinished matches, the clocks the sweeper reads)
and, for a finished match, its folding (where one Redis holds every key, a create and a start
are one script each). When the first call fails between the two, the client
retries (with the same request id, where the call has one) and gets the first answer back; that
retry also indexes the match again (indexing is idempotent), so nothing is left half-written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from serai import registry
from serai.matches import Matches
from serai.store import StoreUnavailable
from serai.store.redis.store import RedisStore
from tiny_game import tiny_registry


class IndexFailsWhenArmed(RedisStore):
    """A real store whose next ``index`` fails, once ``armed``, as a dropped connection would."""

    armed = False

    async def index(self, *args: Any) -> None:
        if self.armed:
            self.armed = False
            raise StoreUnavailable("Redis cannot be reached: connection reset")
        await super().index(*args)


REQUEST_ID = "create-0123456789abcdef"


def run(redis_url: str, games: registry.Registry, scenario: Callable[..., Awaitable[None]]) -> None:
    async def main() -> None:
        store = IndexFailsWhenArmed.from_url(redis_url)
        try:
            await scenario(store, Matches(store, games))
        finally:
            await store.close()

    asyncio.run(main())


def test_a_create_on_one_redis_is_listed_in_its_own_step(redis_url):
    """Where one Redis holds every key the create script lists the match itself: no index()
    call to fail between the two."""

    async def scenario(store: IndexFailsWhenArmed, matches: Matches) -> None:
        store.armed = True
        record = await matches.create("jaipur", client_id="ada", request_id=REQUEST_ID)
        assert store.armed  # index() was not called
        listed = await store.list_matches("open", None, 10)
        assert [m.match_id for m in listed] == [record.match_id]

    run(redis_url, registry.load(), scenario)


def test_a_retried_create_lists_the_match_its_first_call_did_not_index(redis_url):
    """Where the keys may lie apart (a cluster: no shared connection), the create lists the
    match by index() after its script."""
    request_id = REQUEST_ID

    async def scenario(store: IndexFailsWhenArmed, matches: Matches) -> None:
        store._shared = None  # as on a cluster
        store.armed = True
        with pytest.raises(StoreUnavailable):
            await matches.create("jaipur", client_id="ada", request_id=request_id)
        assert await store.list_matches(None, None, 10) == []
        record = await matches.create("jaipur", client_id="ada", request_id=request_id)
        listed = await store.list_matches("open", None, 10)
        assert [m.match_id for m in listed] == [record.match_id]
        assert await store.open_matches("ada") == 1

    run(redis_url, registry.load(), scenario)


def test_the_start_on_one_redis_is_listed_by_its_own_commit(redis_url):
    """Where one Redis holds every key the last seat's join (the start) lists the match as
    running in its commit script: no index() call to fail between the two."""

    async def scenario(store: IndexFailsWhenArmed, matches: Matches) -> None:
        record = await matches.create("jaipur", move_seconds=60)
        await matches.join(record.match_id)
        store.armed = True
        await matches.join(record.match_id)
        assert store.armed  # index() was not called
        running = await store.list_matches("running", None, 10)
        assert [m.match_id for m in running] == [record.match_id]
        assert await store.list_matches("open", None, 10) == []
        clocked, _next = await store.deadlines(10)
        assert [m for m, _deadline in clocked] == [record.match_id]

    run(redis_url, registry.load(), scenario)


def test_a_retried_join_indexes_the_match_its_first_call_started(redis_url):
    """The last seat's join starts the match: the running index, and the clocks' index; where
    the keys may lie apart (a cluster), by index() after the commit."""

    async def scenario(store: IndexFailsWhenArmed, matches: Matches) -> None:
        store._shared = None  # as on a cluster
        record = await matches.create("jaipur", move_seconds=60)
        await matches.join(record.match_id, request_id="first-0123456789abc")
        store.armed = True
        with pytest.raises(StoreUnavailable):
            await matches.join(record.match_id, request_id="last-0123456789abcd")
        assert await store.list_matches("running", None, 10) == []
        again = await matches.join(record.match_id, request_id="last-0123456789abcd")
        assert (again.seat, again.replayed) == (1, True)
        running = await store.list_matches("running", None, 10)
        assert [m.match_id for m in running] == [record.match_id]
        clocked, _next = await store.deadlines(10)
        assert [m for m, _deadline in clocked] == [record.match_id]

    run(redis_url, registry.load(), scenario)


def test_a_retried_last_move_indexes_and_folds_the_match_it_finished(redis_url):
    async def scenario(store: IndexFailsWhenArmed, matches: Matches) -> None:
        record = await matches.create("tiny", seats=2, seed=3)
        tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
        store.armed = True  # from here only the move that finishes the match indexes it
        for n in range(1000):
            snapshot = await matches.get(record.match_id)
            token = tokens[snapshot.to_act[0]]
            listed = await matches.legal_moves(record.match_id, token)
            move_id, request_id = listed.moves[0].id, f"move-{n}"
            try:
                await matches.submit(record.match_id, token, move_id=move_id, request_id=request_id)
            except StoreUnavailable:
                break
        else:
            raise AssertionError("the match did not end")
        assert await store.list_matches("finished", None, 10) == []
        again = await matches.submit(record.match_id, token, move_id=move_id, request_id=request_id)
        assert again.replayed and again.snapshot.record.status == "finished"
        finished = await store.list_matches("finished", None, 10)
        assert [m.match_id for m in finished] == [record.match_id]
        assert await store.client.exists(f"serai:{{{record.match_id}}}:log") == 0  # folded

    run(redis_url, tiny_registry(), scenario)


def test_a_retried_resignation_answers_the_finished_match_and_indexes_it(redis_url):
    """A seat resigns once: a repeat (the first answer lost) answers the finished match again,
    where it used to fail as "not running", and indexes it if the first call did not."""

    async def scenario(store: IndexFailsWhenArmed, matches: Matches) -> None:
        record = await matches.create("jaipur")
        tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
        store.armed = True
        with pytest.raises(StoreUnavailable):
            await matches.resign(record.match_id, tokens[1])
        again = await matches.resign(record.match_id, tokens[1])
        assert again.record.status == "finished" and again.record.seats[1].resigned
        finished = await store.list_matches("finished", None, 10)
        assert [m.match_id for m in finished] == [record.match_id]
        assert (await matches.resign(record.match_id, tokens[1])).record == again.record

    run(redis_url, registry.load(), scenario)
