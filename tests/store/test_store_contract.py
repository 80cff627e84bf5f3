"""The :class:`serai.store.Store` contract, run on both stores: the in-memory one the core's tests
use and Redis (a real redis-server, from the ``redis_url`` fixture), so that they cannot drift.

Each test is one scenario on a fresh store, run with :func:`scenario`; what the Redis store alone
does (its formats, scripts, pools, folding) is tested in tests/service/test_service_store_*.py
and tests/reliability.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from serai.store import (
    REQUEST_WINDOW,
    UNCHANGED,
    Commit,
    Committed,
    Conflict,
    Duplicate,
    FeedPush,
    LogEntry,
    MatchIdTaken,
    MatchRecord,
    NewEvent,
    SeatRecord,
    Status,
    Store,
    event_id_after,
)
from serai.store.api_keys import KeyExists, PlayerTokenRules, secret_hash, split_token
from serai.store.community import (
    WAITS_KEPT,
    PairingPolicy,
    QueueEntry,
    QueueKey,
    RatedMatch,
    RatedSeat,
    RatingBoard,
    RatingRow,
    RatingUpdate,
)
from serai.store.memory import MemoryStore
from serai.store.redis import RedisStore
from serai.store.webhooks import DeliveryLine
from store_records import running_record
from waiting import eventually

OpenStore = Callable[[], Store]


@pytest.fixture(params=["memory", "redis"])
def open_store(request: pytest.FixtureRequest) -> OpenStore:
    """Makes a store of each kind, empty (Redis: the test's redis-server, flushed)."""
    if request.param == "memory":
        return MemoryStore
    url = request.getfixturevalue("redis_url")
    return lambda: RedisStore.from_url(url)


def scenario(open_store: OpenStore, test: Callable[[Store], Awaitable[Any]]) -> Any:
    """Run ``test`` on a new store, in a loop of its own; the store is closed after."""

    async def main() -> Any:
        store = open_store()
        try:
            return await test(store)
        finally:
            await store.close()

    return asyncio.run(main())


def new_id() -> str:
    return secrets.token_hex(6)


def record(
    match_id: str,
    *,
    status: Status = "running",
    created_ms: int = 1,
    game: str = "tiny",
    tenant: str = "",
    **changes: Any,
) -> MatchRecord:
    base = running_record(match_id)
    return dataclasses.replace(
        base, status=status, created_ms=created_ms, game=game, tenant=tenant, **changes
    )


# --- one match --------------------------------------------------------------------------------


def test_a_created_match_loads_back_as_it_was_stored(open_store: OpenStore) -> None:
    """A record reads back field for field (JSON values as JSON gives them), with its last
    event's id; an unknown id is None, and the caller's current version is UNCHANGED."""

    async def test(store: Store) -> None:
        match_id = new_id()
        made = record(
            match_id,
            options={"rounds": 3, "names": ["a", "b"]},
            outcome={"ranks": [0, 1]},
            client_id="bot-7",
            move_seconds=30,
            timeout_policy="default_move",
            deadline_ms=123,
            seed_chosen=True,
            server_seed=b"\x01\x02",
            seats=(SeatRecord("a", True, token_hash="h", entropy=b"e", player="p"), SeatRecord()),
            spectator_delay_moves=2,
        )
        last = await store.create(made, [NewEvent("created"), NewEvent("joined", {"seat": 0})])
        loaded = await store.load(match_id)
        assert loaded == dataclasses.replace(made, last_event_id=last)
        assert await store.load(match_id, unless_version=made.version) is UNCHANGED
        assert await store.load(match_id, unless_version=made.version + 1) == loaded
        assert await store.load(new_id()) is None

    scenario(open_store, test)


def test_creating_a_taken_id_is_refused_and_changes_nothing(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        match_id = new_id()
        await store.create(record(match_id, state=b"first"), [NewEvent("created")])
        with pytest.raises(MatchIdTaken):
            await store.create(record(match_id, state=b"second"), [NewEvent("created")])
        loaded = await store.load(match_id)
        assert isinstance(loaded, MatchRecord) and loaded.state == b"first"
        assert len(await store.read_events(match_id, "")) == 1

    scenario(open_store, test)


def test_a_listed_create_is_indexed_as_index_would_and_a_taken_id_lists_nothing(
    open_store: OpenStore,
) -> None:
    """``create(listed=True)`` (one step on Redis) lists the match as create then index() do:
    by status and game for its tenant, among its client's unfinished matches; a refused create
    changes no listing."""

    async def test(store: Store) -> None:
        made = record("m-a", status="open", created_ms=5, client_id="bot", tenant="t")
        await store.create(made, [NewEvent("created")], listed=True)
        plain = record("m-b", status="open", created_ms=6, client_id="bot", tenant="t")
        await store.create(plain, [NewEvent("created")])
        await store.index(plain, None, "open")
        for status, game in (("open", None), ("open", "tiny"), (None, None)):
            listed = await store.list_matches(status, game, 10, tenant="t")
            assert [r.match_id for r in listed] == ["m-b", "m-a"]
        assert await store.list_matches("running", None, 10, tenant="t") == []
        assert await store.claim_open_slot("bot", "m-a", 7, 2) is None  # counted already
        assert await store.claim_open_slot("bot", "m-c", 7, 2) == 2
        with pytest.raises(MatchIdTaken):
            again = record("m-a", status="running", created_ms=9, client_id="bot", tenant="t")
            await store.create(again, [NewEvent("created")], listed=True)
        listed = await store.list_matches(None, None, 10, tenant="t")
        assert [(r.match_id, r.status) for r in listed] == [("m-b", "open"), ("m-a", "open")]
        assert await store.list_matches("running", None, 10, tenant="t") == []

    scenario(open_store, test)


def test_a_listed_commit_is_indexed_as_index_would_and_a_lost_one_lists_nothing(
    open_store: OpenStore,
) -> None:
    """``commit(listed=record)`` (the start: one step on Redis) moves the match between the
    status indexes as index() would once the commit is written; a commit that loses its
    compare-and-set changes no listing; the match stays among its client's unfinished ones."""

    async def test(store: Store) -> None:
        tenant, client, match_id = new_id(), new_id(), new_id()
        made = record(
            match_id, status="open", created_ms=5, client_id=client, tenant=tenant, version=1
        )
        await store.create(made, [NewEvent("created")], listed=True)
        start = Commit(status="running", events=[NewEvent("started")])
        lost = await store.commit(match_id, 7, start, listed=made)
        assert isinstance(lost, Conflict)
        assert [r.match_id for r in await store.list_matches("open", None, 10, tenant=tenant)] == [
            match_id
        ]
        won = await store.commit(match_id, 1, start, listed=made)
        assert isinstance(won, Committed)
        for status, game in (("running", None), ("running", "tiny"), (None, None)):
            listed = await store.list_matches(status, game, 10, tenant=tenant)
            assert [(r.match_id, r.status) for r in listed] == [(match_id, "running")]
        assert await store.list_matches("open", None, 10, tenant=tenant) == []
        assert await store.list_matches("open", "tiny", 10, tenant=tenant) == []
        assert await store.claim_open_slot(client, match_id, 7, 1) is None  # counted already
        assert await store.claim_open_slot(client, new_id(), 7, 1) == 1

    scenario(open_store, test)


def test_a_commit_applies_only_at_the_version_read(open_store: OpenStore) -> None:
    """The winner moves the version on; the loser gets the current record, not applied; a commit
    to an unknown match gets no record."""

    async def test(store: Store) -> None:
        match_id = new_id()
        await store.create(record(match_id), [])
        won = await store.commit(
            match_id,
            0,
            Commit(state=b"s1", events=[NewEvent("move", {"seat": 0, "label": "x"})], seed=9),
        )
        assert isinstance(won, Committed) and won.version == 1 and len(won.event_ids) == 1
        lost = await store.commit(match_id, 0, Commit(state=b"lost"))
        assert isinstance(lost, Conflict) and lost.current is not None
        assert lost.current.version == 1 and lost.current.state == b"s1"
        assert lost.current.last_event_id == won.last_event_id and lost.current.seed == 9
        assert await store.commit(new_id(), 0, Commit(state=b"x")) == Conflict(None)

    scenario(open_store, test)


def test_a_commit_changes_only_the_fields_it_names(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        match_id = new_id()
        made = record(match_id, move_seconds=10, deadline_ms=5)
        await store.create(made, [NewEvent("created")])
        seats = (SeatRecord("a", True, resigned=True), SeatRecord("b", True))
        result = await store.commit(
            match_id,
            0,
            Commit(status="finished", seats=seats, outcome={"winner": 1}, deadline_ms=0),
        )
        assert isinstance(result, Committed) and result.event_ids == ()
        loaded = await store.load(match_id)
        assert isinstance(loaded, MatchRecord)
        assert loaded == dataclasses.replace(
            made,
            version=1,
            status="finished",
            seats=seats,
            outcome={"winner": 1},
            deadline_ms=0,
            last_event_id=loaded.last_event_id,
        )
        assert loaded.last_event_id  # the created event's, kept by a commit without events

    scenario(open_store, test)


def test_a_repeated_request_id_is_answered_as_the_first_time(open_store: OpenStore) -> None:
    """Per seat, the last REQUEST_WINDOW request ids are remembered: a repeat (whatever version it
    read) gets the first answer and applies nothing; older ids and other seats' are not."""

    async def test(store: Store) -> None:
        match_id = new_id()
        await store.create(record(match_id), [])
        first = await store.commit(
            match_id,
            0,
            Commit(events=[NewEvent("started")], request_seat=1, request_id="r0", answer="A0"),
        )
        assert isinstance(first, Committed)
        again = await store.commit(
            match_id, 0, Commit(state=b"x", request_seat=1, request_id="r0", answer="other")
        )
        assert isinstance(again, Duplicate)
        assert (again.first.version, again.first.last_event_id, again.first.answer) == (
            1,
            first.last_event_id,
            "A0",
        )
        assert await store.request_answer(match_id, 1, "r0") == again.first
        assert await store.request_answer(match_id, 0, "r0") is None
        other_seat = await store.commit(match_id, 1, Commit(request_seat=0, request_id="r0"))
        assert isinstance(other_seat, Committed) and other_seat.version == 2
        for n in range(1, REQUEST_WINDOW + 1):
            done = await store.commit(match_id, n + 1, Commit(request_seat=1, request_id=f"r{n}"))
            assert isinstance(done, Committed)
        assert await store.request_answer(match_id, 1, "r0") is None  # out of the window
        answered = await store.request_answer(match_id, 1, f"r{REQUEST_WINDOW}")
        assert answered is not None and answered.version == REQUEST_WINDOW + 2
        assert answered.last_event_id == ""  # that commit added no event

    scenario(open_store, test)


def test_the_log_reads_back_byte_for_byte_in_order(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        match_id = new_id()
        await store.create(record(match_id), [])
        first = [LogEntry(1, 0, b"\x08\x01"), LogEntry(1, 1, b"")]
        then = [LogEntry(2, 1, None, "resigned"), LogEntry(2, 0, None, "timed_out")]
        ended = [LogEntry(3, 0, None, "ended")]  # an operator ended the match
        await store.commit(match_id, 0, Commit(log=first))
        await store.commit(match_id, 1, Commit(log=then))
        await store.commit(match_id, 2, Commit(log=ended))
        assert await store.read_log(match_id) == first + then + ended

    scenario(open_store, test)


def test_events_are_read_after_an_id_in_order_and_by_count(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        match_id = new_id()
        created = await store.create(record(match_id), [NewEvent("created")])
        kinds = [NewEvent("joined", {"seat": 0, "name": "ann"}), NewEvent("started")]
        result = await store.commit(match_id, 0, Commit(events=kinds))
        assert isinstance(result, Committed)
        events = await store.read_events(match_id, "")
        assert [e.event_id for e in events] == [created, *result.event_ids]
        assert [(e.version, e.kind, dict(e.data)) for e in events] == [
            (0, "created", {}),
            (1, "joined", {"seat": 0, "name": "ann"}),
            (1, "started", {}),
        ]
        assert all(event_id_after(b.event_id, a.event_id) for a, b in itertools.pairwise(events))
        assert await store.read_events(match_id, created) == events[1:]
        assert await store.read_events(match_id, "", count=2) == events[:2]
        assert await store.read_events(match_id, events[-1].event_id) == []

    scenario(open_store, test)


def test_a_blocking_read_answers_when_an_event_comes(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        match_id = new_id()
        last = await store.create(record(match_id), [NewEvent("created")])
        waiting = asyncio.ensure_future(store.read_events(match_id, last, block_ms=20_000))
        await asyncio.sleep(0)  # the read is on its way (it answers the event either way)
        await store.commit(match_id, 0, Commit(events=[NewEvent("started")]))
        got = await asyncio.wait_for(waiting, 15)
        assert [e.kind for e in got] == ["started"]

    scenario(open_store, test)


def test_a_finished_match_reads_back_the_same_once_indexed(open_store: OpenStore) -> None:
    """Indexing a finished match may compact it (Redis folds it): events, labels rebuilt from the
    log, the log and remembered answers read back the same."""

    async def test(store: Store) -> None:
        match_id = new_id()
        made = record(match_id)
        await store.create(made, [NewEvent("created")])
        move = b"\x08\x03"
        result = await store.commit(
            match_id,
            0,
            Commit(
                status="finished",
                log=[LogEntry(1, 0, move)],
                events=[NewEvent("move", {"seat": 0, "label": "take 3"}), NewEvent("finished")],
                request_seat=0,
                request_id="last",
                answer="done",
            ),
        )
        assert isinstance(result, Committed)
        before = (
            await store.read_events(match_id, ""),
            await store.read_log(match_id),
            await store.request_answer(match_id, 0, "last"),
            await store.load(match_id),
        )
        finished = dataclasses.replace(made, status="finished", version=1)
        await store.index(finished, "running", "finished")
        labels = {move: "take 3"}
        after = (
            await store.read_events(match_id, "", label_of=labels.__getitem__),
            await store.read_log(match_id),
            await store.request_answer(match_id, 0, "last"),
            await store.load(match_id),
        )
        assert after == before

    scenario(open_store, test)


def test_an_idle_unfinished_match_expires_but_is_known_to_have_existed(
    open_store: OpenStore,
) -> None:
    async def test(store: Store) -> None:
        match_id = new_id()
        made = record(match_id, status="open")
        await store.create(made, [NewEvent("created")], idle_ms=300)
        await store.index(made, None, "open")
        assert await store.load(match_id) is not None
        await eventually(lambda: _gone(store, match_id), "the match's keys are gone", 10)
        assert await store.existed(match_id)
        assert not await store.existed(new_id())
        assert await store.read_events(match_id, "") == []
        assert await store.commit(match_id, 0, Commit(state=b"x")) == Conflict(None)
        assert await store.list_matches(None, None, 10) == []

    scenario(open_store, test)


async def _gone(store: Store, match_id: str) -> bool:
    return await store.load(match_id) is None


def test_a_finished_match_is_leased_to_the_archive_and_expires_once_archived(
    open_store: OpenStore,
) -> None:
    """A finished match waits for the archive, each caller leasing it for a while (a caller that
    dies leaves it to the next after the lease); once archived it leaves the queue and its keys
    expire after the retention."""

    async def test(store: Store) -> None:
        match_id = new_id()
        made = record(match_id)
        await store.create(made, [NewEvent("created")])
        await store.commit(match_id, 0, Commit(status="finished", events=[NewEvent("finished")]))
        finished = dataclasses.replace(made, status="finished", version=1)
        await store.index(finished, "running", "finished")
        now = int(time.time() * 1000)
        assert match_id in await store.unarchived(now, 60_000, 1000)
        assert match_id not in await store.unarchived(now, 60_000, 1000)  # leased
        assert match_id in await store.unarchived(now + 60_001, 60_000, 1000)  # lease over
        await store.archived(finished, 300, now)
        assert match_id not in await store.unarchived(now + 200_000, 60_000, 1000)
        await eventually(lambda: _gone(store, match_id), "the match's keys are gone", 10)

    scenario(open_store, test)


def test_the_store_s_clock_is_the_wall_clock_give_or_take(open_store: OpenStore) -> None:
    """Deadlines are taken on it (serai.matches.clocks): milliseconds since the epoch."""

    async def test(store: Store) -> None:
        before = time.time() * 1000
        told = await store.time_ms()
        assert before - 5_000 < told < time.time() * 1000 + 5_000

    scenario(open_store, test)


# --- the indexes --------------------------------------------------------------------------------


def test_listings_are_newest_first_by_status_game_and_tenant(open_store: OpenStore) -> None:
    """Matches are listed once indexed, ordered by (created_ms, id) descending, without their
    state; ``after`` pages on from a position; each tenant sees only its own."""

    async def test(store: Store) -> None:
        made = [
            record("m-a", status="open", created_ms=10),
            record("m-b", status="running", created_ms=20, game="other"),
            record("m-c", status="open", created_ms=20),
            record("m-d", status="finished", created_ms=30),
            record("m-e", status="open", created_ms=40, tenant="acme"),
        ]
        for one in made:
            await store.create(one, [])
            await store.index(one, None, one.status)
        await store.create(record("m-unindexed", status="open", created_ms=50), [])

        async def ids(status: Status | None, game: str | None = None, **kw: Any) -> list[str]:
            return [r.match_id for r in await store.list_matches(status, game, 10, **kw)]

        assert await ids(None) == ["m-d", "m-c", "m-b", "m-a"]
        assert await ids("open") == ["m-c", "m-a"]
        assert await ids(None, "other") == ["m-b"]
        assert await ids(None, after=(20, "m-c")) == ["m-b", "m-a"]
        assert await ids(None, tenant="acme") == ["m-e"]
        assert [r.match_id for r in await store.list_matches(None, None, 2)] == ["m-d", "m-c"]
        listed = await store.list_matches("finished", None, 10)
        assert listed == [dataclasses.replace(made[3], state=b"")]

    scenario(open_store, test)


def test_a_match_indexed_under_an_old_status_is_listed_under_its_own(
    open_store: OpenStore,
) -> None:
    async def test(store: Store) -> None:
        made = record("m-x", status="open")
        await store.create(made, [])
        await store.index(made, None, "open")
        await store.commit("m-x", 0, Commit(status="running"))  # not indexed again
        assert await store.list_matches("open", None, 10) == []
        listed = await store.list_matches(None, None, 10)
        assert [(r.match_id, r.status) for r in listed] == [("m-x", "running")]
        assert [r.match_id for r in await store.list_matches("running", None, 10)] == ["m-x"]

    scenario(open_store, test)


def test_a_player_s_matches_are_listed_where_they_hold_a_seat(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        seated = (SeatRecord("a", True, player="p1"), SeatRecord("b", True))
        made = [
            record("m-1", created_ms=1, seats=seated, tenant="acme"),
            record("m-2", created_ms=2, seats=seated, tenant="acme", status="finished"),
            record("m-3", created_ms=3, tenant="acme"),  # no seat of p1: the index lies
        ]
        for one in made:
            await store.create(one, [])
            await store.index_player("acme", "p1", one.match_id, one.created_ms)

        async def ids(status: Status | None, **kw: Any) -> list[str]:
            found = await store.player_matches("acme", "p1", status, None, 10, **kw)
            return [r.match_id for r in found]

        assert await ids(None) == ["m-2", "m-1"]
        assert await ids("running") == ["m-1"]
        assert await ids(None, after=(2, "m-2")) == ["m-1"]
        assert await store.player_matches("other", "p1", None, None, 10) == []

    scenario(open_store, test)


def test_open_slots_are_claimed_up_to_the_limit_and_freed_by_finishing(
    open_store: OpenStore,
) -> None:
    async def test(store: Store) -> None:
        now = int(time.time() * 1000)
        for match_id in ("q-1", "q-2"):
            assert await store.claim_open_slot("bot", match_id, now, 2) is None
            assert await store.claim_quota_slot("peer", match_id, now, 2) is None
            made = record(match_id, status="open", client_id="bot", created_ms=now)
            await store.create(made, [])
            await store.index(made, None, "open")
        assert await store.open_matches("bot") == 2
        assert await store.claim_open_slot("bot", "q-3", now, 2) == 2
        assert await store.claim_quota_slot("peer", "q-3", now, 2) == 2
        assert await store.claim_open_slot("bot", "q-1", now, 2) is None  # counted already
        await store.commit("q-1", 0, Commit(status="finished"))
        await store.index(record("q-1", status="finished", client_id="bot"), "open", "finished")
        assert await store.open_matches("bot") == 1
        assert await store.claim_open_slot("bot", "q-3", now, 2) is None
        assert await store.claim_quota_slot("peer", "q-3", now, 2) is None  # q-1 pruned
        await store.release_open_slots("q-3", client_id="bot", quota_key="peer")
        assert await store.claim_open_slot("bot", "q-4", now, 2) is None
        assert await store.claim_quota_slot("peer", "q-4", now, 2) is None

    scenario(open_store, test)


def test_unfinished_slots_count_the_whole_store(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        now = int(time.time() * 1000)
        assert await store.claim_unfinished_slot("u-1", now, 2) is None
        assert await store.claim_unfinished_slot("u-2", now, 2) is None
        assert await store.claim_unfinished_slot("u-3", now, 2) == 2  # u-1, u-2: on their way
        await store.release_open_slots("u-1")
        assert await store.claim_unfinished_slot("u-3", now, 2) is None
        made = record("u-2", created_ms=now)
        await store.create(made, [])
        await store.index(made, None, "running")
        await store.index(dataclasses.replace(made, status="finished"), "running", "finished")
        assert await store.claim_unfinished_slot("u-4", now, 2) is None

    scenario(open_store, test)


def test_deadlines_page_through_the_unfinished_matches_with_a_clock(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        for n in range(5):
            made = record(f"c-{n}", created_ms=n, move_seconds=30, deadline_ms=1000 + n)
            await store.create(made, [])
            await store.index(made, None, "running")
        plain = record("c-none", created_ms=9)  # no clock: never among them
        await store.create(plain, [])
        await store.index(plain, None, "running")
        await store.commit("c-1", 0, Commit(status="finished"))  # gone from the clocks
        first, offset = await store.deadlines(2)
        assert first == [("c-0", 1000)] and offset == 1
        second, offset = await store.deadlines(2, offset)
        assert second == [("c-2", 1002), ("c-3", 1003)] and offset == 3
        third, offset = await store.deadlines(2, offset)
        assert third == [("c-4", 1004)] and offset == 0

    scenario(open_store, test)


def test_match_counts_count_every_tenant_by_status(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        await store.api_keys.create("acme")
        for match_id, status, tenant in [
            ("n-1", "open", ""),
            ("n-2", "running", ""),
            ("n-3", "running", "acme"),
            ("n-4", "finished", "acme"),
        ]:
            made = record(match_id, status=status, tenant=tenant)  # type: ignore[arg-type]
            await store.create(made, [])
            await store.index(made, None, made.status)
        assert await store.match_counts() == {"open": 1, "running": 2, "finished": 1}

    scenario(open_store, test)


# --- the event feed -------------------------------------------------------------------------------


def test_the_event_feed_reads_many_matches_and_waits_for_news(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        feed = store.event_feed()
        try:
            firsts = {}
            for match_id in ("f-1", "f-2"):
                firsts[match_id] = await store.create(record(match_id), [NewEvent("created")])
            shard = feed.shard_of("f-1")
            assert feed.shard_of("f-2") == shard
            got = await feed.read(shard, {"f-1": "", "f-2": ""}, block_ms=1000, count=10)
            assert {m: [e.event_id for e in events] for m, events in got.events.items()} == {
                m: [first] for m, first in firsts.items()
            }
            assert got.records == {}  # not asked for
            waiting = asyncio.ensure_future(feed.read(shard, firsts, block_ms=20_000, count=10))
            await asyncio.sleep(0)
            await store.commit("f-2", 0, Commit(events=[NewEvent("started")]))
            news = (await asyncio.wait_for(waiting, 15)).events
            assert list(news) == ["f-2"] and [e.kind for e in news["f-2"]] == ["started"]
        finally:
            await feed.close()

    scenario(open_store, test)


def test_the_event_feed_reads_the_records_of_matches_that_moved(open_store: OpenStore) -> None:
    """With the reader's versions, a feed read also answers the record of each match it names
    whose last event moved on since the read's start, at least as new as the events it read
    (UNCHANGED at the reader's version): the watch hub delivers with it, no load of its own.
    A match the versions leave out gets its events alone."""

    async def test(store: Store) -> None:
        feed = store.event_feed()
        try:
            firsts = {m: await store.create(record(m), [NewEvent("created")]) for m in "rst"}
            shard = feed.shard_of("r")
            waiting = asyncio.ensure_future(
                feed.read(
                    shard, firsts, block_ms=20_000, count=10, versions=dict.fromkeys("rst", 0)
                )
            )
            await asyncio.sleep(0)
            done = await store.commit("s", 0, Commit(events=[NewEvent("started")]))
            assert isinstance(done, Committed)
            got = await asyncio.wait_for(waiting, 15)
            assert list(got.events) == ["s"] and list(got.records) == ["s"]
            moved = got.records["s"]
            assert isinstance(moved, MatchRecord)
            assert moved.version == 1 and moved.last_event_id == got.events["s"][-1].event_id
            again = await feed.read(
                shard, {"s": "", "t": firsts["t"]}, block_ms=1000, count=10, versions={"s": 1}
            )
            assert list(again.events) == ["s"] and again.records == {"s": UNCHANGED}
            # A match the versions do not name (its record comes pushed) gets its events alone.
            await store.commit("t", 0, Commit(events=[NewEvent("started")]))
            unnamed = await feed.read(
                shard, {"s": "", "t": firsts["t"]}, block_ms=1000, count=10, versions={"s": 0}
            )
            assert sorted(unnamed.events) == ["s", "t"] and list(unnamed.records) == ["s"]
        finally:
            await feed.close()

    scenario(open_store, test)


def test_the_event_feed_finds_the_news_of_one_match_among_many(open_store: OpenStore) -> None:
    """1,100 followed matches (the Redis store asks which streams have news 500 at a time):
    only the ones that moved come back, each with its record."""

    async def test(store: Store) -> None:
        feed = store.event_feed()
        try:
            ids = [f"many-{i}" for i in range(1100)]
            lasts = await asyncio.gather(
                *(store.create(record(m), [NewEvent("created")]) for m in ids)
            )
            after = dict(zip(ids, lasts, strict=True))
            for moved in ("many-0", "many-1050"):
                await store.commit(moved, 0, Commit(events=[NewEvent("started")]))
            got = await feed.read(
                feed.shard_of(ids[0]),
                after,
                block_ms=1000,
                count=10,
                versions=dict.fromkeys(ids, 0),
            )
            assert sorted(got.events) == sorted(got.records) == ["many-0", "many-1050"]
            assert all(isinstance(r, MatchRecord) and r.version == 1 for r in got.records.values())
        finally:
            await feed.close()

    scenario(open_store, test)


def test_the_event_feed_is_pushed_the_commits_of_the_matches_it_listens_to(
    open_store: OpenStore,
) -> None:
    """A listening feed is handed each commit with events of its matches, in order: the events,
    the last event before them and the record just after them (the watch hub delivers with it,
    no read of its own); nothing of the matches it does not listen to, or no longer."""

    async def test(store: Store) -> None:
        feed = store.event_feed()
        try:
            firsts = {m: await store.create(record(m), [NewEvent("created")]) for m in "lmn"}
            shard = feed.shard_of("l")
            if not feed.pushes:
                return
            await feed.listen(shard, add=["l", "m"])
            await feed.listen(shard, drop=["m"])
            # A listen takes effect in its own time (a SUBSCRIBE on its way): commit to each
            # match, an event each, until a push comes.
            commits: list[Committed] = []
            pushes: list[FeedPush] = []
            deadline = time.monotonic() + 10
            while not pushes and time.monotonic() < deadline:
                version = len(commits)
                for match_id in "lmn":
                    started = Commit(events=[NewEvent("started", {"n": 1})])
                    done = await store.commit(match_id, version, started)
                    assert isinstance(done, Committed)
                    if match_id == "l":
                        commits.append(done)
                pushes = await feed.pushed(shard, timeout_ms=200)
            assert [p.match_id for p in pushes] == ["l"]
            (push,) = pushes
            assert [e.event_id for e in push.events] == list(commits[-1].event_ids)
            assert [(e.kind, e.version, e.data) for e in push.events] == [
                ("started", len(commits), {"n": 1})
            ]
            assert push.record == await store.load("l")
            assert push.after_event_id == (
                firsts["l"] if len(commits) == 1 else commits[-2].event_ids[-1]
            )
            # Two commits in a row: two pushes, in order, each after the one before.
            for _ in range(2):
                version = len(commits)
                done = await store.commit("l", version, Commit(events=[NewEvent("started")]))
                assert isinstance(done, Committed)
                commits.append(done)
            got: list[FeedPush] = []
            while len(got) < 2:
                more = await feed.pushed(shard, timeout_ms=10_000)
                assert more, "two commits, fewer pushes"
                got += more
            assert [p.events[-1].event_id for p in got] == [c.event_ids[-1] for c in commits[-2:]]
            assert got[1].after_event_id == got[0].events[-1].event_id
            assert [p.record.version for p in got] == [len(commits) - 1, len(commits)]
            assert await feed.pushed(shard, timeout_ms=50) == []
        finally:
            await feed.close()

    scenario(open_store, test)


def test_waking_the_feed_ends_its_waiting_read(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        feed = store.event_feed()
        try:
            last = await store.create(record("w-1"), [NewEvent("created")])
            shard = feed.shard_of("w-1")
            assert not await feed.wake(shard)  # nothing waits
            waiting = asyncio.ensure_future(
                feed.read(shard, {"w-1": last}, block_ms=20_000, count=10)
            )
            await eventually(lambda: feed.wake(shard), "a waiting read to wake", 10)
            assert (await asyncio.wait_for(waiting, 15)).events == {}
        finally:
            await feed.close()

    scenario(open_store, test)


# --- API keys -------------------------------------------------------------------------------------


def test_an_api_key_keeps_only_its_secret_s_hash(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        keys = store.api_keys
        made = await keys.create("acme", max_open_matches=5, move_rate=2.5, now_ms=1000)
        name_secret = split_token(made.token)
        assert name_secret is not None and name_secret[0] == "acme"
        key = await keys.get("acme")
        assert key == made.key and key.secret_hash == secret_hash(name_secret[1])
        assert (key.max_open_matches, key.move_rate, key.created_ms) == (5, 2.5, 1000)
        assert key.players is None and made.player_secret == ""
        assert await keys.get("nobody") is None

    scenario(open_store, test)


def test_a_revoked_key_s_name_is_never_given_again(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        keys = store.api_keys
        await keys.create("b-app")
        await keys.create("a-app")
        assert await keys.revoke("a-app", now_ms=77)
        assert not await keys.revoke("a-app")
        assert not await keys.revoke("nobody")
        with pytest.raises(KeyExists):
            await keys.create("a-app")
        listed = await keys.list()
        assert [(k.name, k.revoked_ms) for k in listed] == [("a-app", 77), ("b-app", 0)]
        with pytest.raises(ValueError):
            await keys.create("Not A Name")

    scenario(open_store, test)


def test_a_key_s_player_token_rules_are_set_and_replaced(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        keys = store.api_keys
        made = await keys.create("acme", players=PlayerTokenRules(secret=True, issuer="me"))
        assert made.player_secret and made.key.players is not None
        assert made.key.players.secret == made.player_secret
        assert await keys.get("acme") == made.key
        rules = PlayerTokenRules(jwks_url="https://example.com/jwks", audience="serai")
        changed = await keys.set_players("acme", rules)
        assert changed is not None and changed.player_secret == ""
        assert changed.key.players == rules
        assert await keys.get("acme") == changed.key
        cleared = await keys.set_players("acme", None)
        assert cleared is not None and (await keys.get("acme")) == cleared.key
        assert cleared.key.players is None
        with pytest.raises(ValueError):
            await keys.set_players("acme", PlayerTokenRules(secret=True, public_key="PEM"))
        assert await keys.set_players("nobody", None) is None

    scenario(open_store, test)


def test_a_key_s_webhook_is_set_replaced_and_removed(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        keys = store.api_keys
        made = await keys.create("acme", webhook_url="https://hooks.example.com/a", now_ms=7)
        assert made.webhook_secret.startswith("whsec_") and made.key.webhook_since_ms == 7
        assert made.key.webhook_secret == made.webhook_secret
        assert await keys.get("acme") == made.key
        changed = await keys.set_webhook("acme", "http://hooks.example.com:8080/b", now_ms=9)
        assert changed is not None and changed.webhook_secret not in ("", made.webhook_secret)
        assert changed.key.webhook_since_ms == 9
        assert await keys.get("acme") == changed.key
        removed = await keys.set_webhook("acme", "")
        assert removed is not None and removed.webhook_secret == ""
        key = await keys.get("acme")
        assert key is not None and (key.webhook_url, key.webhook_secret) == ("", "")
        assert key.webhook_since_ms == 0
        for bad in ("ftp://example.com/", "https:///no-host", "https://u:p@example.com/"):
            with pytest.raises(ValueError):
                await keys.set_webhook("acme", bad)
        assert await keys.set_webhook("nobody", "https://example.com/") is None

    scenario(open_store, test)


# --- the webhook outbox ---------------------------------------------------------------------------


def test_a_followed_match_is_claimed_by_one_caller_until_its_lease_ends(
    open_store: OpenStore,
) -> None:
    async def test(store: Store) -> None:
        outbox = store.webhooks
        await outbox.follow("m1", 100)
        await outbox.follow("m1", 500)  # later: it stays due at 100
        assert await outbox.claim(99, 1000, 10, "a") == []
        (claimed,) = await outbox.claim(100, 1000, 10, "a")
        assert (claimed.match_id, claimed.lease, claimed.progress) == ("m1", "a", "")
        assert await outbox.claim(1099, 1000, 10, "b") == []  # leased to a
        assert await outbox.keep("m1", "a", "p1", 2000)  # a goes on: its lease extended
        assert await outbox.claim(1500, 1000, 10, "b") == []
        (taken,) = await outbox.claim(2000, 1000, 10, "b")  # a's lease ran out: b takes it
        assert taken.progress == "p1"
        assert not await outbox.settle("m1", "a", "stale", 2001, 2100)  # a no longer holds it
        assert not await outbox.keep("m1", "a", "stale", 9000)
        assert not await outbox.drop("m1", "a")
        assert await outbox.settle("m1", "b", "p2", 2001, 5000)
        assert await outbox.claim(4999, 1000, 10, "c") == []
        (again,) = await outbox.claim(5000, 1000, 10, "c")
        assert again.progress == "p2"
        assert await outbox.drop("m1", "c")
        await outbox.follow("m2", 0)
        assert [c.match_id for c in await outbox.claim(10**9, 1000, 10, "d")] == ["m2"]

    scenario(open_store, test)


# --- the community: queues and rating boards ------------------------------------------------


def _queue(seats: int = 2, pool: str = "rated") -> QueueKey:
    return QueueKey("t", "tiny", {"rounds": 3}, seats, pool)


def _entry(player: str, rating: float = 25.0) -> QueueEntry:
    return QueueEntry(player, json.dumps({"p": player, "n": player.upper(), "b": False}), rating)


def test_a_pairing_seats_each_waiting_player_once_and_takes_them_out(
    open_store: OpenStore,
) -> None:
    """Four close players: pairing around "b" seats it with its closest neighbour ("a", 0.1
    away, not "c", 0.2 away); each gets one assignment naming its seat and the whole group, and
    leaves the queue; pairing around "c" then seats "c" and "d"; a paired player pairs no more."""

    async def test(store: Store) -> None:
        queue, policy = _queue(), PairingPolicy()
        for p, rating in zip("abcd", (25.0, 25.1, 25.3, 25.4), strict=True):
            assert await store.queue_enter(queue, _entry(p, rating), 1_000) is None
        assert (await store.queue_poll(queue, "c", 1_000)).position == 2
        assert await store.queue_pair(queue, "b", 1_000, policy, "g1")
        assert (await store.queue_poll(queue, "c", 1_000)).position == 0
        assert await store.queue_pair(queue, "c", 1_000, policy, "g2")
        assert not await store.queue_pair(queue, "a", 1_000, policy, "g3")
        groups: dict[str, list[tuple[int, str]]] = {}
        for p in "abcd":
            polled = await store.queue_poll(queue, p, 1_001)
            assert polled.assignment is not None and polled.position is None
            told = json.loads(polled.assignment.partition("\n")[2])
            assert told["players"][told["seat"]]["p"] == p
            groups.setdefault(told["pairing"], []).append((told["seat"], p))
        assert {k: sorted(p for _, p in g) for k, g in groups.items()} == {
            "g1": ["a", "b"],
            "g2": ["c", "d"],
        }
        assert all(sorted(s for s, _ in g) == [0, 1] for g in groups.values())
        assert not await store.queue_leave(queue, "a")  # paired: no longer waiting

    scenario(open_store, test)


def test_a_match_followed_while_leased_is_due_at_once_when_settled(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        outbox = store.webhooks
        await outbox.follow("m1", 0)
        await outbox.claim(10, 1000, 10, "a")
        await outbox.follow("m1", 20)  # a commit meanwhile: the holder is told, no one else
        assert await outbox.claim(20, 1000, 10, "b") == []
        assert await outbox.settle("m1", "a", "p", 30, 60_000)
        claimed = await outbox.claim(30, 1000, 10, "b")  # at once, not at 60_000
        assert [c.match_id for c in claimed] == ["m1"]
        assert await outbox.settle("m1", "b", "p", 40, 60_000)  # the mark was used up
        assert await outbox.claim(59_999, 1000, 10, "c") == []

    scenario(open_store, test)


def test_a_pairing_waits_for_the_window_to_reach_far_ratings(open_store: OpenStore) -> None:
    """Players 10 apart are not paired at first; once both waited long enough for their windows
    (3 + 1 per second) to cover it, they are."""

    async def test(store: Store) -> None:
        queue, policy = _queue(), PairingPolicy(window=3.0, widen_per_second=1.0)
        await store.queue_enter(queue, _entry("a", 20.0), 0)
        await store.queue_enter(queue, _entry("b", 30.0), 0)
        assert not await store.queue_pair(queue, "a", 5_000, policy, "g1")
        await store.queue_poll(queue, "a", 7_000)
        await store.queue_poll(queue, "b", 7_000)
        assert await store.queue_pair(queue, "b", 7_100, policy, "g1")

    scenario(open_store, test)


def test_a_delivery_log_keeps_the_newest_lines_first(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        outbox = store.webhooks
        for n in range(3):
            line = DeliveryLine(n, f"msg_{n}", "match.your_turn", "m1", "delivered", 204, 1)
            await outbox.record("acme", line)
        got = await outbox.delivery_log("acme", 2)
        assert [line.webhook_id for line in got] == ["msg_2", "msg_1"]
        assert got[0] == DeliveryLine(2, "msg_2", "match.your_turn", "m1", "delivered", 204, 1)
        assert await outbox.delivery_log("other", 10) == []

    scenario(open_store, test)


def test_players_not_seen_lately_leave_the_queue_and_leave_is_told(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        queue, policy = _queue(), PairingPolicy(stale_ms=1_000)
        await store.queue_enter(queue, _entry("a"), 0)
        await store.queue_enter(queue, _entry("b"), 0)
        await store.queue_poll(queue, "b", 5_000)
        assert not await store.queue_pair(queue, "b", 5_100, policy, "g1")  # a dropped: alone
        assert (await store.queue_poll(queue, "a", 5_200)).position is None
        assert await store.queue_leave(queue, "b")
        assert not await store.queue_leave(queue, "b")

    scenario(open_store, test)


def test_an_assigned_player_is_not_queued_again_until_it_clears_its_pairing(
    open_store: OpenStore,
) -> None:
    """Entering while assigned answers the assignment (no second match); entering with its
    pairing id cleared queues the player anew."""

    async def test(store: Store) -> None:
        queue = _queue()
        await store.queue_enter(queue, _entry("a"), 0)
        await store.queue_enter(queue, _entry("b"), 0)
        assert await store.queue_pair(queue, "b", 10, PairingPolicy(), "g1")
        held = await store.queue_enter(queue, _entry("a"), 20)
        assert held is not None and held.startswith("g1\n")
        assert await store.queue_enter(queue, _entry("a"), 30, clear="other") == held
        assert await store.queue_enter(queue, _entry("a"), 40, clear="g1") is None
        assert (await store.queue_poll(queue, "a", 50)).position == 0

    scenario(open_store, test)


def test_three_seat_queues_seat_three(open_store: OpenStore) -> None:
    async def test(store: Store) -> None:
        queue = _queue(seats=3)
        for p in "ab":
            await store.queue_enter(queue, _entry(p), 0)
        assert not await store.queue_pair(queue, "a", 1, PairingPolicy(), "g1")
        await store.queue_enter(queue, _entry("c"), 2)
        assert await store.queue_pair(queue, "a", 3, PairingPolicy(), "g1")
        told = json.loads((await store.queue_poll(queue, "c", 4)).assignment.partition("\n")[2])
        assert sorted(p["p"] for p in told["players"]) == ["a", "b", "c"]

    scenario(open_store, test)


def _update(player: str, mu: float, games_before: int, bot: bool = False) -> RatingUpdate:
    row = RatingRow(player.upper(), mu, 8.0, games_before + 1, bot, 5)
    return RatingUpdate(player, row, games_before, f"line {mu}")


def test_a_rated_match_applies_once_however_often_it_is_sent(open_store: OpenStore) -> None:
    """The second apply of the same match writes nothing ("duplicate"), even with other rows;
    the leaderboard orders by score, people and bots apart; history is newest first."""

    async def test(store: Store) -> None:
        board = RatingBoard("t", "tiny", "rated")
        first = [_update("a", 30.0, 0), _update("b", 20.0, 0), _update("r", 40.0, 0, bot=True)]
        assert await store.apply_ratings(board, "m1", first) == "applied"
        again = [_update("a", 99.0, 1), _update("b", 1.0, 1)]
        assert await store.apply_ratings(board, "m1", again) == "duplicate"
        rows = await store.rating_rows(board, ["a", "b", "zz"])
        assert {p: r.mu for p, r in rows.items()} == {"a": 30.0, "b": 20.0}
        people = await store.leaderboard(board, False, 0, 10)
        assert [p for p, _ in people] == ["a", "b"]
        assert [p for p, _ in await store.leaderboard(board, False, 1, 10)] == ["b"]
        assert [p for p, _ in await store.leaderboard(board, True, 0, 10)] == ["r"]
        assert await store.apply_ratings(board, "m2", [_update("a", 31.0, 1)]) == "applied"
        assert await store.rating_history(board, "a", 5) == ["line 31.0", "line 30.0"]
        other = RatingBoard("t", "tiny", "casual")
        assert await store.rating_rows(other, ["a"]) == {}

    scenario(open_store, test)


def test_a_rating_update_on_stale_rows_is_a_conflict_that_writes_nothing(
    open_store: OpenStore,
) -> None:
    """Two matches of one player computed from the same rows: the second to write is told
    "conflict" and changes nothing (not even the other players' rows)."""

    async def test(store: Store) -> None:
        board = RatingBoard("t", "tiny", "rated")
        assert await store.apply_ratings(board, "m1", [_update("a", 30.0, 0)]) == "applied"
        stale = [_update("b", 10.0, 0), _update("a", 28.0, 0)]
        assert await store.apply_ratings(board, "m2", stale) == "conflict"
        assert await store.rating_rows(board, ["b"]) == {}
        fresh = [_update("b", 10.0, 0), _update("a", 28.0, 1)]
        assert await store.apply_ratings(board, "m2", fresh) == "applied"

    scenario(open_store, test)


def test_rated_matches_are_leased_until_done(open_store: OpenStore) -> None:
    """A registered match is due from its time on, leased to one caller at a time, given again
    once the lease ran out (its caller died), and gone once done."""

    async def test(store: Store) -> None:
        rated = RatedMatch(
            "m1",
            RatingBoard("t", "tiny", "rated"),
            (RatedSeat("a", "A"), RatedSeat("b", "B", True)),
            7,
        )
        await store.register_rated(rated, 1_000)
        await store.register_rated(rated, 9_000)  # idempotent: the first due time stays
        assert await store.rated_due(500, 100, 10) == []
        assert await store.rated_due(1_000, 100, 10) == [rated]
        assert await store.rated_due(1_050, 100, 10) == []  # leased
        assert await store.rated_due(1_100, 100, 10) == [rated]  # the lease ran out
        await store.rated_done("m1")
        assert await store.rated_due(9_999, 100, 10) == []

    scenario(open_store, test)


def test_a_rated_match_s_registration_is_read_back_before_and_after_it_is_rated(
    open_store: OpenStore,
) -> None:
    """What a rematch asks: was the finished match rated, on which board and by whom; the answer
    outlives the rating (rated_done), and a match never registered has none."""

    async def test(store: Store) -> None:
        rated = RatedMatch("m1", RatingBoard("t", "tiny", "rated"), (RatedSeat("a", "A"),), 7)
        assert await store.rated_match("m1") is None
        await store.register_rated(rated, 1_000)
        assert await store.rated_match("m1") == rated
        assert await store.rated_due(1_000, 100, 10) == [rated]
        await store.rated_done("m1")
        assert await store.rated_match("m1") == rated
        assert await store.rated_due(99_999, 100, 10) == []
        assert await store.rated_match("m2") is None

    scenario(open_store, test)


def test_a_queue_keeps_the_last_waits_of_the_players_it_seated(open_store: OpenStore) -> None:
    """Each pairing keeps how long its players waited (what a waiting player's estimate is made
    of), newest first, the last WAITS_KEPT only; a player seated by a fill counts, its bots not."""

    async def test(store: Store) -> None:
        queue = _queue()
        await store.queue_enter(queue, _entry("a"), 1_000)
        await store.queue_enter(queue, _entry("b"), 1_500)
        await store.queue_enter(queue, _entry("c"), 3_000)
        assert (await store.queue_poll(queue, "c", 3_000)).recent_waits == ()
        assert await store.queue_pair(queue, "a", 4_000, PairingPolicy(), "g1")
        polled = await store.queue_poll(queue, "c", 4_000)
        assert polled.position == 0 and sorted(polled.recent_waits) == [2_500, 3_000]
        bot = json.dumps({"p": "house-1", "n": "bot", "b": True})
        assert await store.queue_fill(queue, "c", [bot], 10_000, "g2")
        for n in range(WAITS_KEPT):
            await store.queue_enter(queue, _entry(f"p{n}"), 20_000)
            assert await store.queue_fill(queue, f"p{n}", [bot], 20_000 + n, f"f{n}")
        await store.queue_enter(queue, _entry("z"), 30_000)
        waits = (await store.queue_poll(queue, "z", 30_000)).recent_waits
        assert list(waits) == [WAITS_KEPT - 1 - n for n in range(WAITS_KEPT)]

    scenario(open_store, test)


def test_a_fill_seats_a_waiting_player_with_bots_once(open_store: OpenStore) -> None:
    """A fill seats the waiting player with the entries given (not queued: house bots) in one
    assignment, as a pairing would, and takes the player out; a player not waiting (paired,
    or never queued) is not filled."""

    async def test(store: Store) -> None:
        queue = _queue(seats=3)
        bots = [json.dumps({"p": f"house-{n}", "n": "bot", "b": True}) for n in (1, 2)]
        await store.queue_enter(queue, _entry("a"), 0)
        assert not await store.queue_fill(queue, "nobody", bots, 5, "g0")
        assert await store.queue_fill(queue, "a", bots, 10, "g1")
        assert not await store.queue_fill(queue, "a", bots, 11, "g2")
        polled = await store.queue_poll(queue, "a", 12)
        assert polled.assignment is not None and polled.assignment.startswith("g1\n")
        told = json.loads(polled.assignment.partition("\n")[2])
        assert sorted(p["p"] for p in told["players"]) == ["a", "house-1", "house-2"]
        assert told["players"][told["seat"]]["p"] == "a"
        assert (await store.queue_poll(queue, "house-1", 12)).assignment is None  # no one to tell
        assert not await store.queue_leave(queue, "a")
        await store.queue_enter(queue, _entry("b"), 20)
        assert (await store.queue_poll(queue, "b", 20)).position == 0  # a waits no more

    scenario(open_store, test)
