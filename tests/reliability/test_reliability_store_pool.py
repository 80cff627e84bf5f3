"""The store's connections to one Redis: bounded, callers wait for a free one, and scripts are
loaded again when Redis has forgotten them."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis
from serai.store import Commit, Committed, LogEntry, StoreUnavailable
from serai.store.redis.store import RedisStore
from store_records import running_record


def _named(redis_url: str, name: str) -> str:
    return f"{redis_url}?client_name={name}"


def _clients_named(redis_url: str, name: str) -> int:
    with redis.Redis.from_url(redis_url) as admin:
        return sum(1 for client in admin.client_list() if client.get("name") == name)


def test_twenty_concurrent_commits_share_one_connection_and_all_apply(redis_url: str) -> None:
    name = f"pool-{secrets.token_hex(4)}"
    ids = [secrets.token_hex(8) for _ in range(20)]

    async def scenario() -> list[object]:
        store = RedisStore.from_url(_named(redis_url, name), max_connections=2)
        try:
            await store.create(running_record("warm-up"), [])  # its scripts loaded through the pool
            await store.commit("warm-up", 0, Commit(state=b"moved"))
            await store.client.connection_pool.disconnect()
            await asyncio.gather(*(store.create(running_record(i), []) for i in ids))
            results = await asyncio.gather(
                *(
                    store.commit(i, 0, Commit(state=b"moved", log=[LogEntry(1, 0, b"m")]))
                    for i in ids
                )
            )
            assert _clients_named(redis_url, name) == 1  # the shared one, no pooled one
            return results
        finally:
            await store.close()

    results = asyncio.run(scenario())
    assert [type(r) for r in results] == [Committed] * 20
    assert {r.version for r in results} == {1}  # type: ignore[attr-defined]


def test_a_caller_finding_every_connection_busy_waits_then_answers_unavailable(
    redis_url: str,
) -> None:
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        store = RedisStore.from_url(redis_url, max_connections=1, timeout=0.3)
        try:
            await store.create(running_record(match_id), [])
            pool = store.client.connection_pool
            held = await pool.get_connection()
            waiting = asyncio.create_task(store.read_log(match_id))
            await asyncio.sleep(0.1)
            assert not waiting.done()  # waits for the connection, does not fail at once
            await pool.release(held)
            assert await waiting == []

            held = await pool.get_connection()
            with pytest.raises(StoreUnavailable):
                await store.read_log(match_id)
            # load and commit do not take pooled connections: see multiplexed.py
            assert isinstance(await store.commit(match_id, 0, Commit(state=b"x")), Committed)
            await pool.release(held)
            assert await store.read_log(match_id) == []
        finally:
            await store.close()

    asyncio.run(scenario())


def test_commit_and_load_load_their_scripts_again_after_a_script_flush(redis_url: str) -> None:
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        store = RedisStore.from_url(redis_url)
        try:
            await store.create(running_record(match_id), [])
            await store.client.script_flush()
            assert isinstance(await store.commit(match_id, 0, Commit(state=b"x")), Committed)
            await store.client.script_flush()
            record = await store.load(match_id)
            assert (record.version, record.state) == (1, b"x")  # type: ignore[union-attr]
        finally:
            await store.close()

    asyncio.run(scenario())


def test_commands_are_packed_to_the_same_bytes_as_redis_py_packs_them() -> None:
    from redis.asyncio.connection import Connection
    from redis.exceptions import DataError
    from serai.store.redis.pools import BoundedPool

    ours = BoundedPool.from_url("redis://127.0.0.1:1/0").make_connection()
    theirs = Connection()
    commands = [
        ("EVALSHA", "a" * 40, 2, "k1", "k2", -5, 0, "ünï", b"\x00\r\n" * 3000, "x" * 7000),
        # around the numbers and lengths _QuickSend formats once
        ("SET", 1023, 1024, -1024, 10**12, b"y" * 1023, b"y" * 1024, "", b""),
        ("CONFIG GET", "maxmemory"),
        (b"GET", b"k"),
        ("SET", "k", 1.5),
        ("SET", "k", memoryview(b"abc")),
        ("PING",),
    ]
    for command in commands:
        assert b"".join(ours.pack_command(*command)) == b"".join(theirs.pack_command(*command))
    for refused in (("SET", "k", True), ("SET", "k", None)):
        for connection in (ours, theirs):
            with pytest.raises(DataError):
                connection.pack_command(*refused)
    latin = BoundedPool.from_url("redis://127.0.0.1:1/0", encoding="latin-1").make_connection()
    command = ("SET", "café", "ünï", 7)
    assert b"".join(latin.pack_command(*command)) == b"".join(
        Connection(encoding="latin-1").pack_command(*command)
    )


def test_the_redis_py_internals_the_lean_pool_and_send_path_use_are_still_there() -> None:
    """BoundedPool, multiplexed.Multiplexed and _QuickSend lean on redis-py internals (pinned to
    8.1.x): an upgrade that moves any of them fails here, not in production."""
    import inspect

    from redis.asyncio.connection import AbstractConnection, ConnectionPool
    from serai.store.redis.pools import BoundedPool

    pool = BoundedPool.from_url("redis://127.0.0.1:1/0", max_connections=3)
    assert isinstance(pool._available_connections, list)
    assert isinstance(pool._in_use_connections, set)
    assert isinstance(pool._lock, asyncio.Lock)
    # The lock redis-py's maintenance notification handlers hold while they change the pool.
    assert pool._get_pool_lock() is pool._lock
    assert callable(pool.maint_notifications_enabled)
    assert pool.max_connections == 3

    connection = pool.get_available_connection()  # made, and counted in use, not connected
    assert isinstance(connection, AbstractConnection)
    assert connection in pool._in_use_connections and not pool._available_connections
    assert connection._writer is None
    assert connection.should_reconnect() is False
    assert isinstance(connection.encoder.encoding, str)
    assert isinstance(connection.encoder.encoding_errors, str)
    assert connection.health_check_interval == 0
    assert connection.retry.get_retries() == 0
    assert inspect.iscoroutinefunction(pool.ensure_connection)
    assert "connection" in inspect.signature(pool.ensure_connection).parameters
    assert "nowait" in inspect.signature(connection.disconnect).parameters
    assert "check_health" in inspect.signature(connection.send_packed_command).parameters
    assert inspect.iscoroutinefunction(connection.read_response)
    # What redis-py's own release does, which BoundedPool.release mirrors (or leaves to
    # redis-py's BlockingConnectionPool, with a credential provider).
    release = inspect.getsource(ConnectionPool.release)
    for step in ("self._lock", "_in_use_connections.remove", "should_reconnect", "disconnect",
                 "_available_connections.append", "AsyncAfterConnectionReleasedEvent"):  # fmt: skip
        assert step in release, step


def test_a_credential_provider_takes_redis_py_s_own_pool_and_command_path() -> None:
    from redis.asyncio import BlockingConnectionPool
    from redis.credentials import UsernamePasswordCredentialProvider
    from serai.store.redis.pools import BoundedPool

    lean = RedisStore.from_url("redis://127.0.0.1:1/0")
    assert type(lean.client.connection_pool) is BoundedPool
    assert lean._shared is not None  # load and commit on one shared connection
    provider = UsernamePasswordCredentialProvider("user", "secret")
    store = RedisStore.from_url(
        "redis://127.0.0.1:1/0", max_connections=7, credential_provider=provider
    )
    pool = store.client.connection_pool
    assert type(pool) is BlockingConnectionPool and pool.max_connections == 7
    assert pool.connection_kwargs["credential_provider"] is provider
    assert store._shared is None  # EVALSHA through Redis.execute_command


def test_the_lean_pool_waits_for_the_lock_a_maintenance_handler_holds(redis_url: str) -> None:
    async def scenario() -> None:
        store = RedisStore.from_url(redis_url, max_connections=2)
        pool = store.client.connection_pool
        try:
            async with pool._lock:  # as a MOVING notification's handler holds it across awaits
                getting = asyncio.create_task(pool.get_connection())
                await asyncio.sleep(0.05)
                assert not getting.done() and not pool._in_use_connections
            connection = await getting
            assert connection in pool._in_use_connections

            async with pool._lock:
                releasing = asyncio.create_task(pool.release(connection))
                await asyncio.sleep(0.05)
                assert not releasing.done() and connection in pool._in_use_connections
            await releasing
            assert connection in pool._available_connections

            connection = await pool.get_connection()
            connection.mark_for_reconnect()  # as a maintenance notification marks it
            await pool.release(connection)
            assert connection in pool._available_connections
            assert not connection.should_reconnect() and connection._writer is None
            await store.ping()  # connects again
        finally:
            await store.close()

    asyncio.run(scenario())


def test_releasing_a_connection_the_pool_no_longer_counts_frees_its_slot(redis_url: str) -> None:
    async def scenario() -> None:
        store = RedisStore.from_url(redis_url, max_connections=1, timeout=0.3)
        pool = store.client.connection_pool
        try:
            held = await pool.get_connection()
            pool.reset()  # redis-py forgets the connections it lent
            with pytest.raises(KeyError):
                await pool.release(held)
            assert held not in pool._available_connections
            await held.disconnect()
            await store.ping()  # its slot is free again: this does not wait for ever
        finally:
            await store.close()

    asyncio.run(scenario())
