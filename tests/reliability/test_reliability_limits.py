"""Limits that protect the service, each set by a flag of ``serai serve``: message size, SubmitMove
rate per connection, unfinished matches per client id, idle expiry. Each answers its status with a
message that says what to do."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import grpc
import pytest
import redis
from reliability_helpers import poll
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.matches import Matches
from serai.rpc.limits import RateLimiter
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.keys import index_key, match_keys
from serai.store.redis.store import RedisStore
from serai.transports.grpc.servicer import status_of
from store_records import running_record
from waiting import eventually

Code = grpc.StatusCode


def _stub(address):
    channel = grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
    return pb_grpc.MatchServiceStub(channel), channel


def _fails(call):
    with pytest.raises(grpc.RpcError) as failure:
        call()
    return failure.value.code(), failure.value.details()


def test_a_token_bucket_allows_bursts_then_the_rate():
    now = [0.0]
    limiter = RateLimiter(rate=2, burst=3, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b")  # another connection has its own bucket
    now[0] += 0.5  # one more token
    assert limiter.allow("a") and not limiter.allow("a")
    assert all(RateLimiter(rate=0, burst=0).allow("a") for _ in range(1000))


def test_message_size_move_rate_and_open_matches_per_client_are_limited(start_serve, redis_url):
    server = start_serve(
        "--redis-url", redis_url,
        "--max-message-bytes", "4096",
        "--move-rate", "1",
        "--move-burst", "3",
        "--max-open-matches", "2",
    )  # fmt: skip
    stub, channel = _stub(server.address)

    big = pb.CreateMatchRequest(game="jaipur", options={"x": "y" * 10_000})
    code, details = _fails(lambda: stub.CreateMatch(big))
    assert code == Code.RESOURCE_EXHAUSTED, details

    bogus = pb.SubmitMoveRequest(match_id="nothing-here", seat_token="t", move_id="1.0")
    codes = []
    for _ in range(6):
        try:
            stub.SubmitMove(bogus)
        except grpc.RpcError as error:
            codes.append(error.code())
            if error.code() == Code.RESOURCE_EXHAUSTED:
                assert "moves per second" in error.details() and "retry" in error.details()
    assert codes[:3] == [Code.NOT_FOUND] * 3 and Code.RESOURCE_EXHAUSTED in codes[3:]
    other, other_channel = _stub(server.address)  # another connection is not held back
    assert _fails(lambda: other.SubmitMove(bogus))[0] == Code.NOT_FOUND

    made = [
        stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", client_id="bot-7")).match.match_id
        for _ in range(2)
    ]
    code, details = _fails(
        lambda: stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", client_id="bot-7"))
    )
    assert code == Code.RESOURCE_EXHAUSTED and "bot-7" in details and "finish or resign" in details
    stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", client_id="bot-8"))  # someone else
    # finishing one frees a place
    tokens = [stub.JoinMatch(pb.JoinMatchRequest(match_id=made[0])).seat_token for _ in range(2)]
    stub.Resign(pb.ResignRequest(match_id=made[0], seat_token=tokens[0]))
    stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", client_id="bot-7"))
    channel.close()
    other_channel.close()


def test_an_idle_match_expires_with_a_clear_status_and_a_finished_one_is_kept(
    start_serve, redis_url
):
    server = start_serve("--redis-url", redis_url, "--idle-seconds", "1")
    stub, channel = _stub(server.address)
    finished = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id
    tokens = [stub.JoinMatch(pb.JoinMatchRequest(match_id=finished)).seat_token for _ in range(2)]
    stub.Resign(pb.ResignRequest(match_id=finished, seat_token=tokens[1]))
    idle = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id
    stub.JoinMatch(pb.JoinMatchRequest(match_id=idle))

    def expired():
        try:
            stub.GetMatch(pb.GetMatchRequest(match_id=idle))
        except grpc.RpcError as error:
            return error.code(), error.details()
        return None

    code, details = poll(expired)
    assert code == Code.NOT_FOUND and "expired after 1 idle seconds" in details
    request = pb.JoinMatchRequest(match_id=idle)
    assert "expired" in _fails(lambda: stub.JoinMatch(request))[1]
    unknown = pb.GetMatchRequest(match_id="0123456789abcdef")
    assert "expired" not in _fails(lambda: stub.GetMatch(unknown))[1]
    snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=finished))
    assert snapshot.match.status == pb.MATCH_STATUS_FINISHED
    client = redis.Redis.from_url(redis_url)
    assert client.ttl(f"serai:{{{finished}}}:match") == -1  # kept for ever, for replay
    assert client.ttl(f"serai:{{{finished}}}:archive") == -1  # its log, folded in once finished
    client.close()
    channel.close()


def test_expired_matches_leave_the_status_indexes_instead_of_crowding_out_live_ones(redis_url):
    """200 newer matches expire (more than a page of the index); ListMatches of two must still
    find the older live one, with or without a status, at the first call, and the expired ones
    leave the status indexes as they are met."""

    async def scenario() -> tuple[list[str], list[str], list[str], list[bytes]]:
        store = RedisStore.from_url(redis_url)
        try:
            live = replace(running_record("live"), status="open", created_ms=1)
            await store.create(live, [])
            await store.index(live, None, "open")
            running = replace(running_record("running"), created_ms=2)
            await store.create(running, [])
            await store.index(running, None, "running")
            for n in range(200):
                idle = replace(running_record(f"idle{n}"), status="open", created_ms=10 + n)
                await store.create(idle, [], idle_ms=300)
                await store.index(idle, None, "open")
            idle_records = [match_keys(f"idle{n}")[0] for n in range(200)]
            await eventually(lambda: _none_left(store, idle_records), "the idle matches expired")
            everything = [r.match_id for r in await store.list_matches(None, "tiny", 2)]
            listed = [r.match_id for r in await store.list_matches("open", None, 2)]
            in_game = [r.match_id for r in await store.list_matches("open", "tiny", 2)]
            left = await store.client.zrange(index_key("open", None), 0, -1)
            return listed, in_game, everything, left
        finally:
            await store.close()

    listed, in_game, everything, left = asyncio.run(scenario())
    assert listed == ["live"] and in_game == ["live"]
    assert everything == ["running", "live"]  # newest first, past the expired ones
    assert left == [b"live"]


def test_a_listing_does_not_show_a_match_twice_when_a_create_lands_between_its_pages(redis_url):
    """The index is read newest first in pages (a second one here, past ten expired matches);
    a match created between two pages moves the rest one place back, so the next page starts
    with the last one already read."""

    async def scenario() -> list[str]:
        store = RedisStore.from_url(redis_url)
        try:
            for n in range(110):
                record = replace(running_record(f"m{n:03}"), status="open", created_ms=n)
                await store.create(record, [], idle_ms=300 if n >= 100 else 0)
                await store.index(record, None, "open")
            newest = [match_keys(f"m{n:03}")[0] for n in range(100, 110)]
            await eventually(lambda: _none_left(store, newest), "the ten newest expired")
            read_rows = store._listed_rows
            pages: list[int] = []

            async def rows_then_a_create(ids):  # the first page read, then a new match
                rows = await read_rows(ids)
                pages.append(len(ids))
                if len(pages) == 1:
                    late = replace(running_record("late"), status="open", created_ms=1_000)
                    await store.create(late, [])
                    await store.index(late, None, "open")
                return rows

            store._listed_rows = rows_then_a_create  # type: ignore[method-assign]
            listed = [r.match_id for r in await store.list_matches("open", None, 100)]
            assert len(pages) >= 2  # the listing did span pages
            return listed
        finally:
            await store.close()

    listed = asyncio.run(scenario())
    assert len(listed) == len(set(listed)) == 100


def test_a_full_redis_answers_resource_exhausted_and_writes_nothing(tmp_path):
    """With maxmemory and noeviction (as deploy/ configures Redis), a full Redis refuses writes:
    RESOURCE_EXHAUSTED (issue 18: the server is out of room), not INTERNAL."""
    with EmbeddedRedis(tmp_path, persistent=False, private=False) as full:
        admin = redis.Redis(port=full.port)
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + 200_000)
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            for n in range(10_000):
                admin.set(f"filler:{n}", b"x" * 1000)
        keys_before = admin.dbsize()

        async def create() -> Exception:
            store = RedisStore.from_url(full.url)
            try:
                await Matches(store, registry.load()).create("jaipur")
            except Exception as error:
                return error
            finally:
                await store.close()
            raise AssertionError("a full Redis took a new match")

        error = asyncio.run(create())
        assert status_of(error)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED, error
        assert "full" in str(error)
        assert admin.dbsize() == keys_before  # nothing half-written
        admin.close()


async def _none_left(store: RedisStore, keys: list[str]) -> bool:
    return await store.client.exists(*keys) == 0
