"""Where the :class:`serai.store.Store` protocol meets Redis: :class:`RedisStore` runs each
operation on one match as one script or one pipelined round trip.

Reading events (streams.py), the global indexes (indexes.py) and the handoff of finished matches
to the archive (expiry.py) are its bases; the API keys (api_keys.py) and the watch hub's feed
(streams.py) are objects of their own. keys.py says what
is stored where, scripts.py how each change is made, connect.py how a URL becomes a store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from time import perf_counter
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection

from serai.metrics import observe_store
from serai.store import (
    REQUEST_WINDOW,
    UNCHANGED,
    Answer,
    Commit,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    LogEntry,
    MatchIdTaken,
    MatchRecord,
    NewEvent,
    Unchanged,
)
from serai.store.redis.api_keys import RedisApiKeys
from serai.store.redis.breaker import DEFAULT_PROBE_INTERVAL, Breaker
from serai.store.redis.community import Community
from serai.store.redis.connect import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_TIMEOUT,
    client_for,
    sentinel_client,
    url_client,
)
from serai.store.redis.encoding import (
    answer,
    dump_seats,
    event_args,
    pack_log,
    pairs,
    record_fields,
    record_from_fields,
    text,
    unpack_log,
)
from serai.store.redis.errors import REDIS_ERRORS, UNAVAILABLE, errors, store_error
from serai.store.redis.expiry import Expiry
from serai.store.redis.folding import FOLDED, joined, unfold
from serai.store.redis.indexes import Indexes, index_step
from serai.store.redis.keys import match_keys
from serai.store.redis.multiplexed import Multiplexed
from serai.store.redis.pools import BoundedPool
from serai.store.redis.replication import RESEND, ReplicaWait, not_replicated, run_and_wait
from serai.store.redis.scripts import COMMIT_SCRIPT, CREATE_SCRIPT, LOAD_SCRIPT, Script
from serai.store.redis.streams import EventReads, StreamFeed
from serai.store.redis.webhooks import RedisWebhookOutbox
from serai.store.redis.wire import packed


def open_store(
    url: str,
    *,
    cluster: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    probe_interval: float = DEFAULT_PROBE_INTERVAL,
    replica_wait: ReplicaWait | None = None,
) -> RedisStore:
    """A store on ``url`` (see :mod:`serai.store.redis.connect` for the forms), or on the Redis
    Cluster whose nodes ``cluster`` lists ("host:port,host:port,..."; ``url`` is then ignored).

    ``max_connections`` bounds this process's connections (per node of a cluster). Each request
    in flight and each Watch waiting for events holds one; with one Redis (not a Sentinel group
    nor a cluster), loads and commits share one more instead (see :mod:`.multiplexed`).
    ``timeout`` and ``connect_timeout`` bound a command's reply and a new connection; the store's
    :class:`~serai.store.redis.breaker.Breaker` pings every ``probe_interval`` s on a client of
    its own (two connections at most), so that a full pool is not taken for Redis down.
    ``replica_wait``: moves and new matches acknowledged only once that many replicas have them
    (see :mod:`.replication`); one Redis or a Sentinel group, not a cluster.
    """
    if replica_wait is not None and (cluster or url.startswith("redis+cluster://")):
        raise ValueError(
            "waiting for replicas (--redis-wait-replicas) needs one Redis or a Sentinel group, "
            "not a Redis Cluster"
        )
    timeouts = {"timeout": timeout, "connect_timeout": connect_timeout}
    client = client_for(url, cluster=cluster, max_connections=max_connections, **timeouts)
    probe = client_for(url, cluster=cluster, max_connections=2, **timeouts)
    breaker = Breaker(probe.ping, interval=probe_interval)
    return RedisStore(client, breaker, closing=(probe,), replica_wait=replica_wait)


class RedisStore(EventReads, Indexes, Expiry, Community):
    """A :class:`serai.store.Store` on one Redis (or a proxy to a cluster), via redis.asyncio."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        breaker: Breaker | None = None,
        *,
        closing: Sequence[Any] = (),
        replica_wait: ReplicaWait | None = None,
    ) -> None:
        """``breaker``: whether Redis answers (None: one pinging on ``client``); ``closing``:
        more clients to close with this store (the breaker's own); ``replica_wait``: see
        :func:`open_store`."""
        self._redis: Any = client  # redis-py's reply types are unions; the replies are known here
        self.breaker = breaker if breaker is not None else Breaker(client.ping)
        self._closing = tuple(closing)
        self.replica_wait = replica_wait
        self._api_keys = RedisApiKeys(client, self.breaker)
        self._webhooks = RedisWebhookOutbox(client, self._run)
        # commit and load (the hot path) share one connection made as the connections of a
        # BoundedPool whose connections make no retries (redis-py's default; a URL may ask for
        # some): see multiplexed.py. Its commands are packed as that pool's connections do.
        pool = getattr(client, "connection_pool", None)
        self._shared: Multiplexed | None = None
        self._packer: AbstractConnection | None = None
        if isinstance(pool, BoundedPool):
            packer = pool.make_connection()  # never connected: it only packs commands
            if packer.retry.get_retries() == 0:
                self._shared, self._packer = Multiplexed(pool), packer
        if self._shared is not None:
            self.breaker.on_change(self._store_changed)

    def _store_changed(self, up: bool) -> None:
        # The loads and commits waiting on a Redis that stopped answering fail now (UNAVAILABLE:
        # a retry with the same request id is applied once), not at the read timeout.
        if not up and self._shared is not None:
            reason = f"Redis stopped answering ({self.breaker.reason})"
            self._shared.drop(redis_errors.TimeoutError(reason))

    async def _run(self, script: Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """EVALSHA of ``script``, loading it first if Redis does not know it (a restarted or
        failed-over server). The hot path of load and commit: redis-py's Script object costs a
        few microseconds a call more, and an ``async with errors()`` a generator. Each run is
        timed, as the round trip of the script's name (see serai.metrics). Not sent while
        Redis is known down (see breaker.py)."""
        if not self.breaker.up:
            raise self.breaker.unavailable()
        start = perf_counter()
        try:
            try:
                reply = await self._evalsha(script.sha, keys, args)
            except redis_errors.NoScriptError:
                await self._load_script(script)
                reply = await self._evalsha(script.sha, keys, args)
        except REDIS_ERRORS as error:
            if isinstance(error, UNAVAILABLE):
                self.breaker.suspect()
            raise store_error(error) from error
        observe_store(script.name, perf_counter() - start)
        return reply

    async def _run_replicated(
        self, script: Script, keys: Sequence[str], args: Sequence[Any]
    ) -> tuple[Any, int]:
        """:meth:`_run` of a script that writes, and how many replicas confirmed its write
        (the replica wait's number when there is no wait: nothing is waited for)."""
        wait = self.replica_wait
        if wait is None:
            return await self._run(script, keys, args), 0
        self.breaker.check()
        start = perf_counter()
        try:
            # on a pooled connection, not the shared one: WAIT blocks the connection it is on
            done = await run_and_wait(self._redis, script.sha, script.text, [*keys], [*args], wait)
        except REDIS_ERRORS as error:
            if isinstance(error, UNAVAILABLE):
                self.breaker.suspect()
            raise store_error(error) from error
        observe_store(script.name, perf_counter() - start)
        return done

    async def _load_script(self, script: Script) -> None:
        shared, packer = self._shared, self._packer
        if shared is None or packer is None:
            await self._redis.script_load(script.text)
            return
        # On the shared connection, which has just answered NOSCRIPT: after a Redis restart a
        # pooled connection may still be the old server's, found dead only when used.
        await shared.execute(packed(packer, "SCRIPT", "LOAD", script.text))

    async def _evalsha(self, sha: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        shared, packer = self._shared, self._packer
        if shared is None or packer is None:  # Sentinel, Cluster, redis-py's own pool
            return await self._redis.execute_command("EVALSHA", sha, len(keys), *keys, *args)
        return await shared.execute(packed(packer, "EVALSHA", sha, len(keys), *keys, *args))

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        **connection: Any,
    ) -> RedisStore:
        """One Redis: see :func:`serai.store.redis.connect.url_client` (its breaker pings on
        the store's own pool; :func:`open_store` gives it a client of its own)."""
        return cls(url_client(url, timeout=timeout, max_connections=max_connections, **connection))

    @classmethod
    def for_sentinel(
        cls,
        url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> RedisStore:
        """A Sentinel group's master: see :func:`serai.store.redis.connect.sentinel_client`."""
        return cls(sentinel_client(url, timeout=timeout, max_connections=max_connections))

    @property
    def client(self) -> Any:
        """The redis-py client (for tests and benchmarks that look at Redis itself)."""
        return self._redis

    @property
    def api_keys(self) -> RedisApiKeys:
        return self._api_keys

    @property
    def webhooks(self) -> RedisWebhookOutbox:
        return self._webhooks

    @property
    def health(self) -> Breaker:
        return self.breaker

    def event_feed(self) -> StreamFeed:
        """A reader of many matches' streams at once, with connections of its own (close it)."""
        return StreamFeed(self._redis)

    async def close(self) -> None:
        await self.breaker.stop()
        if self._shared is not None:
            await self._shared.close()
        await self._redis.aclose()
        for client in self._closing:
            await client.aclose()

    async def ping(self) -> None:
        async with errors("ping"):
            await self._redis.ping()

    async def time_ms(self) -> int:
        async with errors("time", self.breaker):
            seconds, micros = await self._redis.time()
        return int(seconds) * 1000 + int(micros) // 1000

    async def create(
        self,
        record: MatchRecord,
        events: Sequence[NewEvent],
        *,
        idle_ms: int = 0,
        listed: bool = False,
    ) -> str:
        meta, _, stream, _, _ = match_keys(record.match_id)
        fields = record_fields(record)
        keys = [meta, stream]
        args: list[Any] = [record.version, len(fields), len(events), idle_ms]
        for name, value in fields.items():
            args += [name, value]
        args += event_args(events)
        # Listed in the same script where one Redis holds every key (as index() would then do
        # it: see _index_in_one_step); else by index() after.
        at_once = listed and self._shared is not None and record.status != "finished"
        if at_once:
            index_keys, index_args = index_step(record, record.status)
            keys += index_keys
            args += index_args
        last, confirmed = await self._run_replicated(CREATE_SCRIPT, keys, args)
        if last is None:
            raise MatchIdTaken(f"match id {record.match_id} is already taken")
        if listed and not at_once:
            await self.index(record, None, record.status)
        wait = self.replica_wait
        if wait is not None and confirmed < wait.replicas:
            then = "it may still be found by ListMatches; else create it again"
            raise not_replicated(f"match {record.match_id}", confirmed, wait, then)
        return text(last)

    async def load(
        self, match_id: str, unless_version: int | None = None
    ) -> MatchRecord | Unchanged | None:
        meta = match_keys(match_id)[0]
        known = "" if unless_version is None else str(unless_version)
        reply = await self._run(LOAD_SCRIPT, (meta,), (known,))
        if reply is None:
            return None
        if reply == b"unchanged":
            return UNCHANGED
        return record_from_fields(match_id, joined(pairs(reply)))

    async def commit(
        self,
        match_id: str,
        expected_version: int,
        commit: Commit,
        *,
        listed: MatchRecord | None = None,
    ) -> CommitResult:
        args = commit_args(expected_version, commit)
        keys: list[str] = list(match_keys(match_id)[:4])
        status = commit.status
        index_after: MatchRecord | None = None  # indexed by index() once the commit is written
        if listed is not None and status is not None:
            # In the same script where one Redis holds every key (as create() lists a new match)
            if self._shared is not None and status != "finished":
                index_keys, index_args = index_step(listed, status)
                keys += index_keys
                args += index_args
            else:
                index_after = listed
        reply, confirmed = await self._run_replicated(COMMIT_SCRIPT, keys, args)
        tag = reply[0]
        if tag == b"ok" and index_after is not None and status is not None:
            await self.index(index_after, index_after.status, status)
        wait = self.replica_wait
        if tag == b"ok" and wait is not None and confirmed < wait.replicas:
            what = "the change (a move, a seat taken, a resignation)"
            raise not_replicated(what, confirmed, wait, RESEND)
        if tag == b"ok":
            return Committed(int(reply[1]), tuple(text(i) for i in reply[2:]))
        if tag == b"duplicate":
            return Duplicate(answer(reply[1]))
        if tag == b"conflict":
            return Conflict(record_from_fields(match_id, joined(pairs(reply[1]))))
        return Conflict(None)

    async def request_answer(self, match_id: str, seat: int, request_id: str) -> Answer | None:
        slots = [f"{seat}:{slot}" for slot in range(REQUEST_WINDOW)]
        keys = match_keys(match_id)
        async with errors("request_answer", self.breaker):
            pipe = self._redis.pipeline(transaction=False)
            pipe.hmget(keys[3], slots)
            pipe.get(keys[4])
            values, archive = await pipe.execute()
        if archive is not None and archive[:1] == FOLDED:  # a folded match: its remembered answers
            values = [*values, *(raw for s, raw in unfold(archive).answers if s == seat)]
        prefix = request_id.encode() + b"\n"
        for raw in values:
            if raw is not None and raw.startswith(prefix):
                return answer(raw[len(prefix) :])
        return None

    async def read_log(self, match_id: str) -> list[LogEntry]:
        keys = match_keys(match_id)
        async with errors("read_log", self.breaker):
            pipe = self._redis.pipeline(transaction=False)
            pipe.lrange(keys[1], 0, -1)
            pipe.get(keys[4])
            raw, archive = await pipe.execute()
        if not raw and archive is not None and archive[:1] == FOLDED:
            raw = unfold(archive).log
        return [unpack_log(entry) for entry in raw]


def commit_args(expected_version: int, commit: Commit) -> list[Any]:
    """commit.lua's arguments (after its keys) for ``commit``, up to and with its events."""
    fields: dict[str, bytes | str] = {}
    if commit.state is not None:
        fields["state"] = commit.state
    if commit.status is not None:
        fields["status"] = commit.status
    if commit.seats is not None:
        fields["seats"] = dump_seats(commit.seats)
    if commit.outcome is not None:
        fields["outcome"] = json.dumps(commit.outcome, separators=(",", ":"))
    if commit.deadline_ms is not None:
        fields["deadline"] = str(commit.deadline_ms)
    if commit.seed is not None:
        fields["seed"] = str(commit.seed)
    args: list[Any] = [
        expected_version,
        commit.request_id,
        commit.answer,
        len(fields),
        len(commit.log),
        len(commit.events),
        commit.request_seat,
        REQUEST_WINDOW,
        commit.idle_ms,
        "1" if commit.status == "finished" else "0",
    ]
    for name, value in fields.items():
        args += [name, value]
    args += [pack_log(entry) for entry in commit.log]
    args += event_args(commit.events)
    return args
