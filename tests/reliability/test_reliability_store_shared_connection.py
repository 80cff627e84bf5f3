"""Load and commit share one connection (serai.store.redis.multiplexed): every reply reaches its own
caller, whatever fails, and a lost, hung or killed connection answers UNAVAILABLE, then heals."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from serai.store import (
    Commit,
    Committed,
    LogEntry,
    StoreError,
    StoreUnavailable,
)
from serai.store.embedded import EmbeddedRedis
from serai.store.redis.store import RedisStore
from store_records import running_record


def _run(redis_url: str, scenario: Callable[[RedisStore], Awaitable[Any]], **options: Any) -> Any:
    async def main() -> Any:
        store = RedisStore.from_url(redis_url, **options)
        try:
            return await scenario(store)
        finally:
            await store.close()

    return asyncio.run(main())


def _shared_client_id(url: str, name: str) -> int:
    """The id of the connection named ``name`` that ran EVALSHA last (the shared one)."""
    with redis.Redis.from_url(url) as admin:
        (found,) = [
            c for c in admin.client_list() if c.get("name") == name and c["cmd"] == "evalsha"
        ]
        return int(found["id"])


def test_many_concurrent_commits_on_many_matches_all_land_in_order(redis_url: str) -> None:
    ids = [secrets.token_hex(8) for _ in range(40)]

    async def scenario(store: RedisStore) -> None:
        await asyncio.gather(*(store.create(running_record(i), []) for i in ids))

        async def play(match_id: str) -> list[int]:
            versions = []
            for n in range(10):
                result = await store.commit(
                    match_id, n, Commit(state=b"%d" % n, log=[LogEntry(n + 1, 0, b"m")])
                )
                assert isinstance(result, Committed)
                versions.append(result.version)
            return versions

        assert await asyncio.gather(*(play(i) for i in ids)) == [list(range(1, 11))] * 40
        for match_id in ids:
            record = await store.load(match_id)
            assert (record.version, record.state) == (10, b"9")  # type: ignore[union-attr]
            assert len(await store.read_log(match_id)) == 10

    _run(redis_url, scenario)


def test_concurrent_callers_all_recover_after_a_script_flush(redis_url: str) -> None:
    ids = [secrets.token_hex(8) for _ in range(30)]

    async def scenario(store: RedisStore) -> None:
        await asyncio.gather(*(store.create(running_record(i), []) for i in ids))
        await store.client.script_flush()
        results = await asyncio.gather(*(store.commit(i, 0, Commit(state=b"x")) for i in ids))
        assert {(type(r), r.version) for r in results} == {(Committed, 1)}  # type: ignore[union-attr]
        await store.client.script_flush()
        records = await asyncio.gather(*(store.load(i) for i in ids))
        assert {(r.version, r.state) for r in records} == {(1, b"x")}  # type: ignore[union-attr]

    _run(redis_url, scenario)


def test_an_error_reply_fails_only_its_own_caller(redis_url: str) -> None:
    ids = [secrets.token_hex(8) for _ in range(10)]

    async def scenario(store: RedisStore) -> None:
        await asyncio.gather(*(store.create(running_record(i, i.encode()), []) for i in ids))
        await store.client.set("not-a-hash", "x")
        calls = [store.load(i) for i in ids]
        calls.insert(5, store._run(_wrong_type_script(), ("not-a-hash",), ()))
        results = await asyncio.gather(*calls, return_exceptions=True)
        error = results.pop(5)
        assert type(error) is StoreError and "WRONGTYPE" in str(error)
        assert [r.state for r in results] == [i.encode() for i in ids]  # type: ignore[union-attr]

    _run(redis_url, scenario)


def _wrong_type_script() -> Any:
    from serai.store.redis.scripts import Script

    return Script("return redis.call('HGET', KEYS[1], 'f')")


def test_cancelled_callers_do_not_shift_the_replies_of_the_others(redis_url: str) -> None:
    ids = [secrets.token_hex(8) for _ in range(60)]

    async def scenario(store: RedisStore) -> None:
        await asyncio.gather(*(store.create(running_record(i, i.encode()), []) for i in ids))
        async with aioredis.Redis.from_url(redis_url) as admin:
            await admin.execute_command("CLIENT", "PAUSE", 300, "ALL")  # replies wait: all queue
            calls = [asyncio.create_task(store.load(i)) for i in ids]
            await asyncio.sleep(0.1)  # every command written, none answered
            assert not any(call.done() for call in calls)
            for call in calls[::3]:
                call.cancel()
            done = await asyncio.gather(*calls, return_exceptions=True)
        for n, (match_id, result) in enumerate(zip(ids, done, strict=True)):
            if n % 3 == 0:
                assert isinstance(result, asyncio.CancelledError)
            else:
                assert result.state == match_id.encode()  # type: ignore[union-attr]
        records = await asyncio.gather(*(store.load(i) for i in ids))  # the connection is in step
        assert [r.state for r in records] == [i.encode() for i in ids]  # type: ignore[union-attr]

    _run(redis_url, scenario)


def test_a_killed_connection_fails_the_pending_calls_unavailable_then_heals(
    redis_url: str,
) -> None:
    name = f"shared-{secrets.token_hex(4)}"
    url = f"{redis_url}?client_name={name}"
    ids = [secrets.token_hex(8) for _ in range(20)]

    async def scenario(store: RedisStore) -> None:
        await asyncio.gather(*(store.create(running_record(i), []) for i in ids))
        shared = _shared_client_id(redis_url, name)
        async with aioredis.Redis.from_url(redis_url) as admin:
            await admin.execute_command("CLIENT", "PAUSE", 500, "WRITE")  # commits wait
            calls = [asyncio.create_task(store.commit(i, 0, Commit(state=b"x"))) for i in ids]
            await asyncio.sleep(0.1)
            assert await admin.client_kill_filter(_id=shared) == 1
            results = await asyncio.gather(*calls, return_exceptions=True)
            assert {type(r) for r in results} == {StoreUnavailable}
            await admin.execute_command("CLIENT", "UNPAUSE")
        # The killed commands did not run (paused); the next ones connect again and apply.
        results = await asyncio.gather(*(store.commit(i, 0, Commit(state=b"x")) for i in ids))
        assert {(type(r), r.version) for r in results} == {(Committed, 1)}  # type: ignore[union-attr]
        assert _shared_client_id(redis_url, name) != shared

    _run(url, scenario)


def test_no_reply_within_the_timeout_fails_the_pending_calls_then_heals(redis_url: str) -> None:
    ids = [secrets.token_hex(8) for _ in range(10)]

    async def scenario(store: RedisStore) -> None:
        await asyncio.gather(*(store.create(running_record(i), []) for i in ids))
        async with aioredis.Redis.from_url(redis_url) as admin:
            await admin.execute_command("CLIENT", "PAUSE", 4000, "WRITE")
            started = time.monotonic()
            results = await asyncio.gather(
                *(store.commit(i, 0, Commit(state=b"x")) for i in ids), return_exceptions=True
            )
            waited = time.monotonic() - started
            assert {type(r) for r in results} == {StoreUnavailable}
            assert "Timeout" in str(results[0])
            assert 0.3 <= waited < 3.0  # the store's timeout (0.4 s), not the pause (4 s)
            await admin.execute_command("CLIENT", "UNPAUSE")
        # Redis ran the timed-out commits once unpaused (as with a pooled connection: a command
        # sent may have run); what follows is answered in step.
        versions = [r.version for r in await asyncio.gather(*(store.load(i) for i in ids))]  # type: ignore[union-attr]
        assert set(versions) <= {0, 1}
        results = await asyncio.gather(
            *(store.commit(i, v, Commit(state=b"y")) for i, v in zip(ids, versions, strict=True))
        )
        assert {type(r) for r in results} == {Committed}

    _run(redis_url, scenario, timeout=0.4)


class _Forwarder:
    """A TCP forwarder to Redis whose connections can be made to go silent (nothing through
    either way, nothing closed): what a NAT or a firewall that forgot a connection does."""

    def __init__(self, redis_url: str) -> None:
        self.target = redis_url.removeprefix("redis://").split("/")[0].rsplit(":", 1)
        self.silent: list[asyncio.Event] = []  # one a connection: set, it forwards no more
        self.writers: list[asyncio.StreamWriter] = []
        self.handlers: list[asyncio.Task[Any]] = []

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._forward, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handlers.append(asyncio.current_task())  # type: ignore[arg-type]
        host, port = self.target
        upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        silent = asyncio.Event()
        self.silent.append(silent)
        self.writers += [writer, upstream_writer]

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                if not silent.is_set():
                    sink.write(data)

        pumps = (pump(reader, upstream_writer), pump(upstream_reader, writer))
        await asyncio.gather(*pumps, return_exceptions=True)  # until close() ends them

    def silence_all(self) -> None:
        for silent in self.silent:
            silent.set()

    async def close(self) -> None:
        self.server.close()
        for writer in self.writers:
            writer.close()
        await asyncio.gather(*self.handlers)
        await self.server.wait_closed()


def test_a_connection_that_died_silently_is_checked_and_replaced_before_a_command(
    redis_url: str,
) -> None:
    """With ``health_check_interval``, a commit on a connection idle for longer than that goes
    out only after a PING answered: here the PING goes unanswered, so the commit goes on a new
    connection and lands, instead of waiting out the timeout and failing."""
    ids = [secrets.token_hex(8) for _ in range(5)]

    async def main() -> None:
        forwarder = _Forwarder(redis_url)
        url = await forwarder.start()
        store = RedisStore.from_url(url, timeout=0.5, health_check_interval=0.2)
        try:
            await asyncio.gather(*(store.create(running_record(i), []) for i in ids))
            forwarder.silence_all()
            await asyncio.sleep(0.3)  # idle for longer than the interval
            first = asyncio.create_task(store.commit(ids[0], 0, Commit(state=b"x")))
            await asyncio.sleep(0.1)  # its PING is on the wire: the others wait for its answer
            rest = await asyncio.gather(*(store.commit(i, 0, Commit(state=b"x")) for i in ids[1:]))
            results = [await first, *rest]
            assert {(type(r), r.version) for r in results} == {(Committed, 1)}  # type: ignore[union-attr]
            records = await asyncio.gather(*(store.load(i) for i in ids))
            assert {(r.version, r.state) for r in records} == {(1, b"x")}  # type: ignore[union-attr]
        finally:
            await store.close()
            await forwarder.close()

    asyncio.run(main())


def test_redis_down_then_back_on_its_port_answers_unavailable_then_heals(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis", persistent=True, private=False).start()
    port = server.port
    match_id = secrets.token_hex(8)

    async def scenario(store: RedisStore) -> None:
        nonlocal server
        await store.create(running_record(match_id), [])
        assert isinstance(await store.commit(match_id, 0, Commit(state=b"x")), Committed)
        server.stop()
        results = await asyncio.gather(
            *(store.load(match_id) for _ in range(5)), return_exceptions=True
        )
        assert {type(r) for r in results} == {StoreUnavailable}
        server = EmbeddedRedis(
            tmp_path / "redis", persistent=True, private=False, port=port
        ).start()
        # The restarted Redis has no scripts: the first load's NOSCRIPT loads the script on
        # the shared connection, just made again, so the first call after the restart works
        # (the pool's connection, still the old server's, is not used for it).
        record = await store.load(match_id)
        assert (record.version, record.state) == (1, b"x")  # type: ignore[union-attr]
        assert isinstance(await store.commit(match_id, 1, Commit(state=b"y")), Committed)

    try:
        _run(server.url, scenario)
    finally:
        server.stop()


def test_the_url_s_user_password_and_database_are_honoured(redis_url: str) -> None:
    user, password = f"serai-{secrets.token_hex(4)}", secrets.token_hex(8)
    match_id = secrets.token_hex(8)
    host = redis_url.split("//")[1].split("/")[0]
    with redis.Redis.from_url(redis_url) as admin:
        admin.acl_setuser(user, enabled=True, passwords=[f"+{password}"], keys=["*"],
                          commands=["+@all"])  # fmt: skip
        try:

            async def scenario(store: RedisStore) -> None:
                await store.create(running_record(match_id), [])
                assert isinstance(await store.commit(match_id, 0, Commit(state=b"x")), Committed)
                record = await store.load(match_id)
                assert record.state == b"x"  # type: ignore[union-attr]
                clients = [c for c in admin.client_list() if c.get("user") == user]
                assert ("3", "evalsha") in {(c["db"], c["cmd"]) for c in clients}

            _run(f"redis://{user}:{password}@{host}/3", scenario)
            assert admin.exists(f"serai:{{{match_id}}}:match") == 0
            admin.select(3)
            assert admin.hget(f"serai:{{{match_id}}}:match", "state") == b"x"
            admin.flushdb()
        finally:
            admin.select(0)
            admin.acl_deluser(user)


def test_a_unix_socket_url_shares_a_connection_on_that_socket_in_its_database(
    tmp_path: Path,
) -> None:
    match_id = secrets.token_hex(8)
    socket = tmp_path / "redis.sock"  # short: a Unix socket path has a length limit
    with EmbeddedRedis(
        tmp_path / "data", persistent=False, private=False, unix_socket=socket
    ) as server:

        async def scenario(store: RedisStore) -> None:
            await asyncio.gather(
                *(store.create(running_record(f"{match_id}{n}"), []) for n in range(5))
            )
            results = await asyncio.gather(
                *(store.commit(f"{match_id}{n}", 0, Commit(state=b"x")) for n in range(5))
            )
            assert {type(r) for r in results} == {Committed}

        _run(f"unix://{socket}?db=2", scenario)
        with redis.Redis(unix_socket_path=str(socket), db=2) as admin:
            assert admin.hget(f"serai:{{{match_id}0}}:match", "version") == b"1"
            assert server.url  # still running


def test_a_wrong_password_answers_a_store_error_not_a_hang(redis_url: str) -> None:
    host = redis_url.split("//")[1].split("/")[0]

    async def scenario(store: RedisStore) -> None:
        with pytest.raises(StoreError):
            await store.load("x")

    _run(f"redis://nobody:wrong@{host}/0", scenario)


def test_close_closes_the_shared_connection_and_leaves_no_task(redis_url: str) -> None:
    name = f"shared-{secrets.token_hex(4)}"

    async def main() -> None:
        before = asyncio.all_tasks()
        store = RedisStore.from_url(f"{redis_url}?client_name={name}")
        await asyncio.gather(*(store.load(secrets.token_hex(4)) for _ in range(10)))
        pending = asyncio.create_task(store.load("x"))
        await asyncio.sleep(0)
        await store.close()
        with pytest.raises(StoreUnavailable):
            await pending
        assert asyncio.all_tasks() == before
        with redis.Redis.from_url(redis_url) as admin:
            for _ in range(50):
                if not any(c.get("name") == name for c in admin.client_list()):
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("the shared connection is still open")

    asyncio.run(main())


def test_the_redis_py_internals_the_shared_connection_uses_are_still_there(
    redis_url: str,
) -> None:
    """Multiplexed makes its connection with redis-py's class and hands its transport to a
    Protocol of its own: an upgrade that moves what it uses fails here."""
    from redis._parsers.base import BaseParser
    from redis.exceptions import NoScriptError
    from serai.store.redis.pools import BoundedPool

    assert type(BaseParser.parse_error("NOSCRIPT No matching script.")) is NoScriptError

    async def main() -> None:
        pool = BoundedPool.from_url(redis_url)
        assert isinstance(pool.connection_kwargs, dict)
        connection = pool.connection_class(**{**pool.connection_kwargs, "protocol": 2})
        await connection.connect()
        try:
            assert isinstance(connection._reader, asyncio.StreamReader)
            assert isinstance(connection._reader._buffer, bytearray)
            assert isinstance(connection._writer.transport, asyncio.Transport)
            assert "127.0.0.1" in connection._host_error()
        finally:
            connection._close()
            assert connection._writer is None

    asyncio.run(main())
