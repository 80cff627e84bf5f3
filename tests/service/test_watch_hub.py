"""The watch hub: thousands of watchers on a few Redis connections, every event to each of them
once and in order, slow watchers ended and resumed, replicas, watch limits, and batch snapshots
that are never newer than their batch's last event.

In-process :class:`serai.matches.Matches` with the process hub, over the tests' real Redis (and
the in-memory store, where the pushed commits are tested on both).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
import redis
from serai.api import match_service_pb2 as pb
from serai.matches import LimitExceeded, Matches, WatchBatch, WatchBehind
from serai.matches import hub as hub_module
from serai.matches.hub import WatchHub
from serai.matches.limits import Limits
from serai.store.memory import MemoryStore
from serai.store.redis.keys import match_keys
from serai.store.redis.store import RedisStore, open_store
from serai.store.redis.streams import CLIENT_NAME
from service_helpers import create, join_all, status_of
from tiny_game import tiny_registry
from waiting import eventually

Scenario = Callable[[Matches, WatchHub, RedisStore], Awaitable[Any]]


def _run(redis_url: str, scenario: Scenario, **options: Any) -> Any:
    async def main() -> Any:
        # Long timeouts: these scenarios are about what each watcher receives; on a loaded
        # machine, thousands of deliveries can hold the loop past the 2 s connect default.
        store = open_store(redis_url, timeout=30, connect_timeout=30)
        matches = Matches(store, tiny_registry(), watch_block_ms=500, **options)
        hub = matches.use_watch_hub(store.event_feed())
        try:
            return await asyncio.wait_for(scenario(matches, hub, store), 120)
        finally:
            await hub.close()
            await store.close()

    return asyncio.run(main())


async def _started(matches: Matches, game: str = "tiny", **options: str) -> tuple[str, list[str]]:
    """A running two-seat match (tiny: 4 cards each, 4 plays: 8 moves), and its seat tokens."""
    if game == "tiny":
        options = {"hand": "4", "plays": "4", **options}
    record = await matches.create(game, seats=2, options=options, seed=3)
    tokens = [(await matches.join(record.match_id, seat)).token for seat in range(2)]
    return record.match_id, tokens


async def _move(matches: Matches, match_id: str, tokens: list[str]) -> bool:
    """A legal move of the seat to act (picked by the version, so that a match ends: always
    the first one can go round in circles); False once the match is over."""
    now = await matches.get(match_id)
    if now.record.status != "running":
        return False
    seat = now.to_act[0]
    listed = await matches.legal_moves(match_id, tokens[seat])
    pick = listed.moves[now.record.version * 7919 % len(listed.moves)]
    await matches.submit(match_id, tokens[seat], move_id=pick.id)
    return True


async def _play_out(matches: Matches, match_id: str, tokens: list[str]) -> None:
    while await _move(matches, match_id, tokens):
        pass


async def _all_events(store: RedisStore, match_id: str) -> list[str]:
    return [e.event_id for e in await store.read_events(match_id, "", count=100_000)]


def _ids(batches: list[WatchBatch]) -> list[str]:
    return [e.event_id for batch in batches for e in batch.events]


async def _collect(
    matches: Matches, match_id: str, token: str = "", after: str = "", peer: str = ""
) -> list[WatchBatch]:
    got: list[WatchBatch] = []
    async for batch in matches.watch(match_id, token, after, peer=peer):
        got.append(batch)
    return got


def _hub_connections(redis_url: str) -> tuple[int, int]:
    """(the hub's connections, every connection) that the test Redis lists now."""
    client = redis.Redis.from_url(redis_url)
    try:
        listed = client.client_list()
    finally:
        client.close()
    return sum(1 for c in listed if c.get("name") == CLIENT_NAME), len(listed)


def test_two_thousand_watchers_on_three_connections(redis_url):
    """2,000 watchers of 100 matches, on one process: the hub reads through three connections
    (a reader, its waker and the listener to pushed commits), and each watcher gets every
    event of its match once, in order."""
    matches_count, per_match = 100, 20

    async def scenario(matches: Matches, hub: WatchHub, store: RedisStore) -> Any:
        started = [await _started(matches) for _ in range(matches_count)]
        first_batches: list[asyncio.Event] = []

        async def watcher(match_id: str, token: str) -> list[WatchBatch]:
            seen = asyncio.Event()
            first_batches.append(seen)
            got: list[WatchBatch] = []
            async for batch in matches.watch(match_id, token, peer=""):
                got.append(batch)
                seen.set()
            return got

        tasks = [
            asyncio.create_task(watcher(match_id, tokens[i % 2] if i < 2 else ""))
            for match_id, tokens in started
            for i in range(per_match)
        ]
        while len(first_batches) < len(tasks) or not all(s.is_set() for s in first_batches):
            # a watch that ended before its first batch says why here, instead of a long hang
            for task in tasks:
                if task.done():
                    raise AssertionError(f"a watch ended before its first batch: {task.result()}")
            await asyncio.sleep(0.01)
        while hub.followed < matches_count:  # every watcher has joined the shared feed
            await asyncio.sleep(0.01)
        open_watches = matches.watching
        during = await asyncio.to_thread(_hub_connections, redis_url)
        await asyncio.gather(*(_play_out(matches, m, t) for m, t in started))
        results = await asyncio.gather(*tasks)
        expected = {m: await _all_events(store, m) for m, _ in started}
        return open_watches, during, started, results, expected

    open_watches, during, started, results, expected = _run(redis_url, scenario)
    assert open_watches == matches_count * per_match
    hub_connections, every_connection = during
    assert hub_connections == 3
    assert every_connection < 100  # nothing like a connection per watcher
    for index, got in enumerate(results):
        match_id = started[index // per_match][0]
        assert _ids(got) == expected[match_id]
        assert got[-1].events[-1].kind == "finished"


def test_a_batch_snapshot_is_the_match_at_its_last_event(redis_url):
    """Catching up on a long match (over 100 events), then live: each batch's snapshot is at
    its last event's version, so no version's snapshot ("your turn") comes twice."""

    async def scenario(matches: Matches, hub: WatchHub, store: RedisStore) -> Any:
        match_id, tokens = await _started(matches, "jaipur")
        for _ in range(60):
            await _move(matches, match_id, tokens)
        watchers = [asyncio.create_task(_collect(matches, match_id, t)) for t in tokens]
        watchers.append(asyncio.create_task(_collect(matches, match_id)))
        await _play_out(matches, match_id, tokens)
        return await asyncio.gather(*watchers), await _all_events(store, match_id)

    results, expected = _run(redis_url, scenario)
    assert len(expected) > 100
    for got in results:
        assert _ids(got) == expected
        for batch in got:
            assert batch.snapshot.version == batch.events[-1].version
        versions = [batch.snapshot.version for batch in got]
        assert versions == sorted(set(versions))


def test_polling_watch_snapshot_is_the_match_at_its_last_event(redis_url):
    """The same without the hub (a watch reading for itself): the first batch of a long match
    once ended at event 100 with the match's newest snapshot."""

    async def main() -> Any:
        # Long timeouts: these scenarios are about what each watcher receives; on a loaded
        # machine, thousands of deliveries can hold the loop past the 2 s connect default.
        store = open_store(redis_url, timeout=30, connect_timeout=30)
        matches = Matches(store, tiny_registry(), watch_block_ms=200)
        try:
            match_id, tokens = await _started(matches, "jaipur")
            await _play_out(matches, match_id, tokens)
            return await _collect(matches, match_id, tokens[0]), await _all_events(store, match_id)
        finally:
            await store.close()

    got, expected = asyncio.run(main())
    assert len(expected) > 100 and _ids(got) == expected
    for batch in got:
        assert batch.snapshot.version == batch.events[-1].version


def test_a_slow_watcher_is_ended_and_resumes_without_loss(redis_url):
    """A watcher that lets more than ``watch_queue`` batches wait is ended with WatchBehind,
    which names the event to resume after; resuming there misses nothing and repeats nothing."""

    async def scenario(matches: Matches, hub: WatchHub, store: RedisStore) -> Any:
        match_id, tokens = await _started(matches)
        pacer = matches.watch(match_id)  # reads everything at once: shows each batch is out
        slow = matches.watch(match_id, tokens[0])
        received: list[WatchBatch] = [await anext(slow)]  # caught up
        await anext(pacer)
        next_live = asyncio.create_task(anext(slow))  # waits in the shared feed
        await _move(matches, match_id, tokens)
        await anext(pacer)
        received.append(await next_live)
        for _ in range(4):  # more batches than its queue holds, while it reads none
            await _move(matches, match_id, tokens)
            await anext(pacer)
        with pytest.raises(WatchBehind) as behind:
            while True:
                received.append(await anext(slow))
        resume_after = received[-1].events[-1].event_id
        assert f"resume after event {resume_after}" in str(behind.value)
        rest = asyncio.create_task(_collect(matches, match_id, tokens[0], resume_after))
        await _play_out(matches, match_id, tokens)
        received += await rest
        await pacer.aclose()  # type: ignore[attr-defined]
        return received, await _all_events(store, match_id)

    received, expected = _run(redis_url, scenario, watch_queue=2)
    assert _ids(received) == expected


def test_a_move_through_replica_a_reaches_a_watcher_on_replica_b(redis_url):
    """Two processes' worth of Matches, each with its own hub, on one Redis."""

    async def main() -> Any:
        stores = [open_store(redis_url), open_store(redis_url)]
        a, b = (Matches(s, tiny_registry(), watch_block_ms=500) for s in stores)
        hubs = [a.use_watch_hub(stores[0].event_feed()), b.use_watch_hub(stores[1].event_feed())]
        try:
            match_id, tokens = await _started(a)
            on_b = asyncio.create_task(_collect(b, match_id, tokens[1]))
            await _play_out(a, match_id, tokens)
            got = await asyncio.wait_for(on_b, 60)
            return got, await _all_events(stores[0], match_id)
        finally:
            for hub in hubs:
                await hub.close()
            for store in stores:
                await store.close()

    got, expected = asyncio.run(main())
    assert _ids(got) == expected and got[-1].events[-1].kind == "finished"


def test_closing_the_hub_ends_every_watch_at_once(redis_url):
    async def scenario(matches: Matches, hub: WatchHub, store: RedisStore) -> Any:
        match_id, _tokens = await _started(matches)
        watches = [matches.watch(match_id) for _ in range(50)]
        for watch in watches:
            await anext(watch)
        waiting = [asyncio.create_task(_rest(watch)) for watch in watches]
        await asyncio.sleep(0)
        await hub.close()
        done = await asyncio.wait_for(asyncio.gather(*waiting), 5)  # not after a read's block
        return done, matches.watching

    ended, still_open = _run(redis_url, scenario)
    assert ended == [[]] * 50 and still_open == 0


async def _rest(watch: AsyncIterator[WatchBatch]) -> list[WatchBatch]:
    return [batch async for batch in watch]


def test_watches_per_peer_and_per_match_are_bounded(redis_url):
    """One peer (whatever its connection's port) cannot open more than its share, and one match
    no more than its own; other peers and other matches are still served."""

    async def scenario(matches: Matches, hub: WatchHub, store: RedisStore) -> Any:
        crowded, _ = await _started(matches)
        other, _ = await _started(matches)
        opened: list[AsyncIterator[WatchBatch]] = []

        async def watch(match_id: str, peer: str) -> None:
            stream = matches.watch(match_id, peer=peer)
            await anext(stream)
            opened.append(stream)

        await watch(crowded, "ipv4:10.0.0.1:1000")
        await watch(other, "ipv4:10.0.0.1:1001")
        refused = []
        with pytest.raises(LimitExceeded) as per_peer:
            await watch(other, "ipv4:10.0.0.1:1002")  # a new connection of the same host
        refused.append(str(per_peer.value))
        await watch(crowded, "ipv4:10.0.0.2:1000")
        await watch(crowded, "ipv6:[::1]:1000")
        with pytest.raises(LimitExceeded) as per_match:
            await watch(crowded, "ipv4:10.0.0.3:1000")
        refused.append(str(per_match.value))
        await watch(other, "ipv4:10.0.0.3:1000")  # another match still has room
        for stream in opened:
            await stream.aclose()  # type: ignore[attr-defined]
        await watch(crowded, "ipv4:10.0.0.1:1003")  # room again once they closed
        await opened[-1].aclose()  # type: ignore[attr-defined]
        return refused, matches.watching

    refused, still_open = _run(
        redis_url, scenario, limits=Limits(max_watches_per_peer=2, max_watches_per_match=3)
    )
    assert "2 watches open" in refused[0] and "already has 3 watchers" in refused[1]
    assert still_open == 0


def test_the_per_peer_watch_limit_answers_resource_exhausted(start_service):
    service = start_service(registry=tiny_registry(), limits=Limits(max_watches_per_peer=1))
    stub = service.stub()
    match_id = create(stub, hand="4", plays="4")
    tokens = join_all(stub, match_id, 2)
    first = stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=tokens[0]), timeout=60)
    next(first)
    second = service.stub()  # another connection from the same host
    code, details = status_of(
        lambda: next(second.Watch(pb.WatchRequest(match_id=match_id), timeout=60))
    )
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "the most one client may" in details
    first.cancel()


def test_a_watch_ended_behind_is_aborted_and_the_sdk_resumes_it():
    """WatchBehind reaches a client as ABORTED, a code the Python SDK's watch resumes on."""
    from serai.rpc.status import Code, rpc_error
    from serai_client._core import RESUMABLE_CODES

    assert rpc_error(WatchBehind("behind")).code == Code.ABORTED
    assert grpc.StatusCode.ABORTED in RESUMABLE_CODES


class _HeldFeed:
    """A hub's feed whose shared reads' answers can be held back (:meth:`hold`) from the hub:
    what it delivers meanwhile came some other way."""

    def __init__(self, feed: Any) -> None:
        self._feed = feed
        self.released = asyncio.Event()
        self.released.set()
        self.answered = 0  # the shared reads' answers handed to the hub

    def hold(self) -> None:
        self.released.clear()

    async def read(self, *args: Any, **kwargs: Any) -> Any:
        got = await self._feed.read(*args, **kwargs)
        await self.released.wait()
        self.answered += 1
        return got

    def __getattr__(self, name: str) -> Any:
        return getattr(self._feed, name)


async def _listened(store: Any, feed: _HeldFeed, match_id: str) -> bool:
    """Whether the store pushes the match's commits to a listener now (Redis: subscribed)."""
    if not isinstance(store, RedisStore):
        return match_id in feed._feed._listening
    channel = match_keys(match_id)[2]
    return dict(await store._redis.pubsub_numsub(channel)).get(channel.encode(), 0) > 0


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_move_reaches_watchers_while_the_shared_read_is_held(kind, request, monkeypatch):
    """The store pushes each commit of a followed match to the hub (the record with its
    events), so a move reaches its watchers without waiting for the shared read to answer:
    half a round trip after the commit, where the next shared read can be one more round trip
    away. The shared read stays the lossless path: every event once, in order, after."""
    monkeypatch.setattr(hub_module, "_RECHECK_SECONDS", 600.0)  # no recheck delivers here

    async def main() -> Any:
        if kind == "memory":
            shared = MemoryStore()
            stores: list[Any] = [shared, shared]
        else:
            url = request.getfixturevalue("redis_url")
            stores = [open_store(url), open_store(url)]
        players = Matches(stores[0], tiny_registry())
        watchers = Matches(stores[1], tiny_registry(), watch_block_ms=500)
        feed = _HeldFeed(stores[1].event_feed())
        hub = watchers.use_watch_hub(feed)  # type: ignore[arg-type]
        try:
            match_id, tokens = await _started(players)
            got: list[WatchBatch] = []

            async def watch() -> None:
                async for batch in watchers.watch(match_id, "", peer=""):
                    got.append(batch)

            watching = asyncio.create_task(watch())
            await eventually(lambda: got and hub.followed == 1, "the watcher followed", 30)
            await eventually(lambda: _listened(stores[1], feed, match_id), "a listener", 30)
            feed.hold()
            answered = feed.answered
            seen = len(_ids(got))
            await _move(players, match_id, tokens)
            await eventually(lambda: len(_ids(got)) > seen, "the move delivered", 30)
            assert feed.answered == answered  # no shared read's answer brought it
            feed.released.set()
            await _play_out(players, match_id, tokens)
            await asyncio.wait_for(watching, 60)
            return got, await _all_events(stores[0], match_id)
        finally:
            await hub.close()
            for store in {id(s): s for s in stores}.values():
                await store.close()

    got, expected = asyncio.run(main())
    assert _ids(got) == expected and got[-1].events[-1].kind == "finished"


class _LossyFeed(_HeldFeed):
    """A feed that loses every other pushed commit (as a dropped connection would)."""

    came = 0  # pushes that came, lost or not

    async def pushed(self, shard: str, *, timeout_ms: int) -> Any:
        kept = []
        for push in await self._feed.pushed(shard, timeout_ms=timeout_ms):
            self.came += 1
            if self.came % 2:
                kept.append(push)
        return kept


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_lost_push_is_made_up_by_the_shared_read(kind, request, monkeypatch):
    """Pub/sub is at most once: with every other commit's push lost, a push after a lost one
    does not follow the hub's cursor and is left to the shared read (held back here, so only
    the first move is delivered meanwhile), and each watcher still gets every event once, in
    order."""
    monkeypatch.setattr(hub_module, "_RECHECK_SECONDS", 600.0)  # no recheck delivers here

    async def main() -> Any:
        if kind == "memory":
            stores: list[Any] = [MemoryStore()] * 2
        else:
            url = request.getfixturevalue("redis_url")
            stores = [open_store(url), open_store(url)]
        players = Matches(stores[0], tiny_registry())
        watchers = Matches(stores[1], tiny_registry(), watch_block_ms=500)
        feed = _LossyFeed(stores[1].event_feed())
        hub = watchers.use_watch_hub(feed)  # type: ignore[arg-type]
        try:
            match_id, tokens = await _started(players)
            got: list[list[WatchBatch]] = [[], [], []]

            async def watch(token: str, batches: list[WatchBatch]) -> None:
                async for batch in watchers.watch(match_id, token, peer=""):
                    batches.append(batch)

            watching = [
                asyncio.create_task(watch(token, batches))
                for token, batches in zip((*tokens, ""), got, strict=True)
            ]
            await eventually(lambda: all(got) and hub.followed == 1, "the watchers followed", 30)
            await eventually(lambda: _listened(stores[1], feed, match_id), "a listener", 30)
            feed.hold()
            for _ in range(4):
                await _move(players, match_id, tokens)
            await eventually(lambda: feed.came == 4, "every move pushed", 30)

            def moves() -> list[int]:
                return [sum(e.kind == "move" for b in mine for e in b.events) for mine in got]

            def settled() -> bool:  # the hub has handed on what it took
                followed = hub._matches[match_id]
                return not followed.inbox and (followed.task is None or followed.task.done())

            await eventually(lambda: min(moves()) >= 1 and settled(), "the first move", 30)
            moves_meanwhile = moves()
            feed.released.set()
            await _play_out(players, match_id, tokens)
            await asyncio.wait_for(asyncio.gather(*watching), 60)
            return got, await _all_events(stores[0], match_id), moves_meanwhile
        finally:
            await hub.close()
            for store in {id(s): s for s in stores}.values():
                await store.close()

    got, expected, moves_meanwhile = asyncio.run(main())
    assert moves_meanwhile == [1, 1, 1]  # the first push; the third does not follow the second
    assert all(_ids(batches) == expected for batches in got)


def test_a_watcher_that_caught_up_as_the_match_ended_reads_its_last_events(redis_url, monkeypatch):
    """A watcher whose catch-up read came just before the match's last move, and which looks
    for the hub's follow of the match just after the hub delivered that move and stopped
    following it: the match's stream is archived by then (the shared read would never bring
    the last events), so it reads them itself rather than following the match again (which
    left it waiting for a recheck, 5 s)."""
    monkeypatch.setattr(hub_module, "_RECHECK_SECONDS", 600.0)  # no recheck delivers here

    async def main() -> Any:
        stores = [open_store(redis_url), open_store(redis_url)]
        players = Matches(stores[0], tiny_registry())
        watchers = Matches(stores[1], tiny_registry(), watch_block_ms=500)
        hub = watchers.use_watch_hub(stores[1].event_feed())
        try:
            match_id, tokens = await _started(players)
            first = asyncio.create_task(_collect(watchers, match_id))
            await eventually(lambda: hub.followed == 1, "the first watcher followed", 30)
            await _play_out(players, match_id, tokens)
            await asyncio.wait_for(first, 60)  # the hub delivered the end and let the match go
            events = await stores[0].read_events(match_id, "", count=1000)
            last_version = events[-1].version
            reads = hub.reads
            truncated = []

            class ReadBeforeTheEnd:  # the late watcher's first read, as if sent before the end
                async def read_events(self, m: str, after: str, **options: Any) -> Any:
                    found = await reads.read_events(m, after, **options)
                    if not truncated:
                        truncated.append(True)
                        return [e for e in found if e.version < last_version]
                    return found

            hub.reads = ReadBeforeTheEnd()  # type: ignore[assignment]
            late = await asyncio.wait_for(_collect(watchers, match_id), 30)
            return late, [e.event_id for e in events], truncated
        finally:
            await hub.close()
            for store in stores:
                await store.close()

    late, every, truncated = asyncio.run(main())
    assert truncated and _ids(late) == every and late[-1].events[-1].kind == "finished"
