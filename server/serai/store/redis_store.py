"""The Redis store: one hash, one list, one stream and one hash of answers per match (and an
event archive once it is finished).

Keys of match ``M`` (the braces are a Redis Cluster hash tag: one match, one slot)::

    serai:{M}:match      hash    game, options, seed, created, status, version, seats, state,
                                 outcome, last_event
    serai:{M}:log        list    one entry per move or resignation, for replay
    serai:{M}:events     stream  public events (v: version, k: kind, d: data), for Watch
    serai:{M}:requests   hash    "<seat>:<slot>" -> "request_id\\nversion\\nlast_event_id\\nanswer"
                                 for the seat's REQUEST_WINDOW latest requests; "<seat>:n" counts
    serai:{M}:archive    string  once finished and indexed so: every event, compactly, in place of
                                 the stream (same ids; move labels rebuilt from the log when read);
                                 request answers then keep each seat's latest

Global indexes are sorted sets scored by creation time (``serai:index:<status>`` and
``serai:index:<status>:<game>``, status ``all`` included; ``serai:clocks``, the unfinished matches
with a turn clock; ``serai:client:<client_id>``, each client's unfinished matches); they are
updated with single-key commands after a commit and repaired when a reader finds them stale, so a
cluster never needs a cross-slot script.

Idle expiry: with ``idle_ms``, every key of an unfinished match gets that TTL, renewed by each
commit; the commit that finishes a match removes it. The index of all matches keeps the id, which
is how an expired match is told from one that never existed.

Connections (:func:`open_store`): one Redis (``redis://``, ``rediss://``, ``unix://``), a Sentinel
group (``redis+sentinel://[:password@]host:port[,host:port...]/service_name[/db]``) or a Redis
Cluster (``redis+cluster://[:password@]host:port[,host:port...]``, or the ``cluster`` argument).

Every change is one Lua script (one round trip): it checks the version, and on a mismatch returns
the current record in the same reply.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import unquote

import redis.asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import ExponentialWithJitterBackoff

from serai.store import (
    REQUEST_WINDOW,
    STATUSES,
    UNCHANGED,
    Answer,
    Commit,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    MatchRecord,
    NewEvent,
    SeatRecord,
    Status,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    Unchanged,
)

# Once a match is finished (and its last events delivered to the watchers blocked on its stream),
# its events are folded into one archive string (see _unpack_archive) and the stream is deleted;
# only each seat's latest request answer is kept (a retry of a finished match's last move still
# gets its first answer). One script, so a reader finds either the stream or the archive.
_ARCHIVE = """
local function varint(n)
  local out = {}
  while n >= 128 do
    out[#out + 1] = string.char(n % 128 + 128)
    n = math.floor(n / 128)
  end
  out[#out + 1] = string.char(n)
  return table.concat(out)
end
local function read_varint(raw, at)
  local value, scale = 0, 1
  while true do
    local byte = string.byte(raw, at)
    at = at + 1
    if byte < 128 then return value + byte * scale, at end
    value = value + (byte - 128) * scale
    scale = scale * 128
  end
end
local function archive_events(events, archive, log)
  local entries = redis.call('XRANGE', events, '-', '+')
  if #entries == 0 then return nil end
  local mover = {}  -- version -> the seat whose move the log holds at it (compact entries)
  for _, entry in ipairs(redis.call('LRANGE', log, 0, -1)) do
    if string.byte(entry, 1) == 1 then
      local version, at = read_varint(entry, 2)
      mover[version] = read_varint(entry, at)
    end
  end
  local parts = {'\\2'}
  local pms, pv = 0, 0
  for _, entry in ipairs(entries) do
    local id = entry[1]
    local dash = string.find(id, '-', 1, true)
    local ms, seq = tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
    local f, v, k, d = entry[2], 0, '', ''
    for j = 1, #f, 2 do
      if f[j] == 'v' then v = tonumber(f[j + 1])
      elseif f[j] == 'k' then k = f[j + 1]
      elseif f[j] == 'd' then d = f[j + 1] end
    end
    if k == '\\4' and string.byte(d, 1) == 1 then  -- a move's label: rebuilt from the log
      local seat = read_varint(d, 2)
      if mover[v] == seat then d = '\\3' .. varint(seat) end
    end
    local dv = v - pv
    if dv >= 0 then dv = dv * 2 else dv = -dv * 2 - 1 end
    parts[#parts + 1] = varint(ms - pms) .. varint(seq) .. varint(dv) .. varint(#k) .. k
      .. varint(#d) .. d
    pms, pv = ms, v
  end
  redis.call('SET', archive, table.concat(parts))
  redis.call('DEL', events)
  return entries[#entries][1]
end
local function keep_latest_answers(requests, window)
  local flat = redis.call('HGETALL', requests)
  local latest, stale = {}, {}
  for j = 1, #flat, 2 do
    local seat, what = string.match(flat[j], '^(.-):(.*)$')
    if what == 'n' then latest[seat .. ':' .. ((tonumber(flat[j + 1]) - 1) % window)] = true end
  end
  for j = 1, #flat, 2 do
    local seat, what = string.match(flat[j], '^(.-):(.*)$')
    if what ~= 'n' and not latest[flat[j]] then stale[#stale + 1] = flat[j] end
  end
  if #stale > 0 then redis.call('HDEL', requests, unpack(stale)) end
end
local meta, events, requests, archive, log = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('HGET', meta, 'status') ~= 'finished' then return 0 end
if redis.call('EXISTS', archive) == 1 then return 0 end
keep_latest_answers(requests, tonumber(ARGV[1]))
if archive_events(events, archive, log) then return 1 end
return 0
"""

_COMMIT = """
local meta, log, events, requests = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local expected, rid, answer = ARGV[1], ARGV[2], ARGV[3]
local nf, nl, ne = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local seat, window = ARGV[7], tonumber(ARGV[8])
local idle, finishing = tonumber(ARGV[9]), ARGV[10]
if rid ~= '' then
  local prefix = rid .. '\\n'
  for slot = 0, window - 1 do
    local prior = redis.call('HGET', requests, seat .. ':' .. slot)
    if prior and string.sub(prior, 1, #prefix) == prefix then
      return {'duplicate', string.sub(prior, #prefix + 1)}
    end
  end
end
local current = redis.call('HGET', meta, 'version')
if not current then return {'missing'} end
if current ~= expected then return {'conflict', redis.call('HGETALL', meta)} end
local version = tostring(tonumber(current) + 1)
local i = 11
local sets = {'version', version}
for _ = 1, nf do
  sets[#sets + 1] = ARGV[i]
  sets[#sets + 1] = ARGV[i + 1]
  i = i + 2
end
if nl > 0 then
  local entries = {}
  for _ = 1, nl do
    entries[#entries + 1] = ARGV[i]
    i = i + 1
  end
  redis.call('RPUSH', log, unpack(entries))
end
local ids = {}
for _ = 1, ne do
  ids[#ids + 1] = redis.call('XADD', events, '*', 'v', version, 'k', ARGV[i], 'd', ARGV[i + 1])
  i = i + 2
end
if #ids > 0 then
  sets[#sets + 1] = 'last_event'
  sets[#sets + 1] = ids[#ids]
end
redis.call('HSET', meta, unpack(sets))
if rid ~= '' then
  local n = redis.call('HINCRBY', requests, seat .. ':n', 1)
  local slot = seat .. ':' .. ((n - 1) % window)
  local last = ids[#ids] or ''
  redis.call('HSET', requests, slot, rid .. '\\n' .. version .. '\\n' .. last .. '\\n' .. answer)
end
if finishing == '1' then
  for _, key in ipairs(KEYS) do redis.call('PERSIST', key) end
elseif idle > 0 then
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, idle) end
end
local reply = {'ok', version}
for _, id in ipairs(ids) do reply[#reply + 1] = id end
return reply
"""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local version = ARGV[1]
local nf, ne, idle = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local i = 5
local sets = {}
for _ = 1, nf do
  sets[#sets + 1] = ARGV[i]
  sets[#sets + 1] = ARGV[i + 1]
  i = i + 2
end
local last = ''
for _ = 1, ne do
  last = redis.call('XADD', KEYS[2], '*', 'v', version, 'k', ARGV[i], 'd', ARGV[i + 1])
  i = i + 2
end
sets[#sets + 1] = 'last_event'
sets[#sets + 1] = last
redis.call('HSET', KEYS[1], unpack(sets))
if idle > 0 then
  redis.call('PEXPIRE', KEYS[1], idle)
  redis.call('PEXPIRE', KEYS[2], idle)
end
return last
"""

_LOAD = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return false end
if version == ARGV[1] then return 'unchanged' end
return redis.call('HGETALL', KEYS[1])
"""

_SUMMARY_FIELDS = (
    "game",
    "options",
    "seed",
    "created",
    "status",
    "version",
    "seats",
    "outcome",
    "last_event",
    "client",
    "move_s",
    "policy",
    "deadline",
)


def match_keys(match_id: str) -> tuple[str, str, str, str, str]:
    """The five keys of one match: record, log, events, requests, archive."""
    base = f"serai:{{{match_id}}}"
    return (
        f"{base}:match",
        f"{base}:log",
        f"{base}:events",
        f"{base}:requests",
        f"{base}:archive",
    )


def index_key(status: Status | None, game: str | None) -> str:
    key = f"serai:index:{status or 'all'}"
    return f"{key}:{game}" if game else key


CLOCKS_KEY = "serai:clocks"
DEFAULT_MAX_CONNECTIONS = 1000


def client_key(client_id: str) -> str:
    return f"serai:client:{client_id}"


def open_store(
    url: str,
    *,
    cluster: str | None = None,
    timeout: float = 10.0,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> RedisStore:
    """A store on ``url`` (see the module docstring for the forms), or on the Redis Cluster whose
    nodes ``cluster`` lists ("host:port,host:port,..."; ``url`` is then ignored).

    ``max_connections`` bounds this process's connections (per node of a cluster). Each request
    in flight and each Watch waiting for events holds one.
    """
    pool: dict[str, Any] = {"timeout": timeout, "max_connections": max_connections}
    if cluster:
        return RedisStore.for_cluster(_nodes(cluster), **pool)
    if url.startswith("redis+cluster://"):
        password, hosts, _path = _split_multi_host(url, "redis+cluster://")
        return RedisStore.for_cluster(_nodes(hosts), password=password, **pool)
    if url.startswith("redis+sentinel://"):
        return RedisStore.for_sentinel(url, **pool)
    return RedisStore.from_url(url, **pool)


def _split_multi_host(url: str, scheme: str) -> tuple[str | None, str, str]:
    """(password, "h:p,h:p", path) of ``scheme[:password@]h:p,h:p[/path]``."""
    rest = url[len(scheme) :]
    hosts, _, path = rest.partition("/")
    password: str | None = None
    if "@" in hosts:
        credentials, _, hosts = hosts.rpartition("@")
        password = unquote(credentials.partition(":")[2] or credentials) or None
    return password, hosts, path


def _nodes(text: str) -> list[tuple[str, int]]:
    nodes = []
    for item in text.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not (sep and host and port.isdigit()):
            raise ValueError(f"{item.strip()!r} is not host:port (give host:port,host:port,...)")
        nodes.append((host.strip("[]"), int(port)))
    return nodes


def parse_sentinel_url(url: str) -> tuple[list[tuple[str, int]], str, int, str | None]:
    """(sentinels, service name, db, password) of a ``redis+sentinel://`` URL.

    >>> parse_sentinel_url("redis+sentinel://:pw@h1:26379,h2:26379/mymaster/2")
    ([('h1', 26379), ('h2', 26379)], 'mymaster', 2, 'pw')
    """
    password, hosts, path = _split_multi_host(url, "redis+sentinel://")
    service, _, db = path.strip("/").partition("/")
    if not service:
        raise ValueError(
            f"{url!r} names no service: redis+sentinel://host:port[,host:port]/service_name[/db]"
        )
    if db and not db.isdigit():
        raise ValueError(f"{url!r}: the database after the service name must be a number")
    return _nodes(hosts), service, int(db or 0), password


class RedisStore:
    """A :class:`serai.store.Store` on one Redis (or a proxy to a cluster), via redis.asyncio."""

    def __init__(self, client: aioredis.Redis | RedisCluster) -> None:
        self._redis: Any = client  # redis-py's reply types are unions; the replies are known here
        self._commit = client.register_script(_COMMIT)
        self._create = client.register_script(_CREATE)
        self._load = client.register_script(_LOAD)

    @classmethod
    def from_url(
        cls, url: str, *, timeout: float = 10.0, max_connections: int = DEFAULT_MAX_CONNECTIONS
    ) -> RedisStore:
        """``redis://host:port/db``, ``rediss://…`` or ``unix:///path/to/redis.sock``.

        ``timeout`` bounds every command (a hung Redis answers UNAVAILABLE instead of holding
        requests for ever); Watch blocks for less than that at a time. At most
        ``max_connections`` are open; a request finding them all busy waits up to ``timeout``
        for one (redis-py's default pool would fail it at once beyond 100).
        """
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=timeout,
            decode_responses=False,
            socket_timeout=timeout,
            socket_connect_timeout=min(timeout, 5.0),
        )
        return cls(aioredis.Redis.from_pool(pool))

    @classmethod
    def for_cluster(
        cls,
        nodes: Sequence[tuple[str, int]],
        *,
        password: str | None = None,
        timeout: float = 10.0,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> RedisStore:
        """A Redis Cluster, found from any of its ``nodes``. Each match lives in one slot (its
        keys share a hash tag), so every script runs on one node."""
        client = RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in nodes],
            password=password,
            max_connections=max_connections,
            decode_responses=False,
            socket_timeout=timeout,
            socket_connect_timeout=min(timeout, 5.0),
            # A moved slot or a failover is retried briefly; a cluster that stays down answers
            # UNAVAILABLE within about a second instead of holding the request.
            retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries=2),
        )
        return cls(client)

    @classmethod
    def for_sentinel(
        cls, url: str, *, timeout: float = 10.0, max_connections: int = DEFAULT_MAX_CONNECTIONS
    ) -> RedisStore:
        """The master a Sentinel group names (``redis+sentinel://…``); a failover is followed:
        the next command after it goes to the new master."""
        sentinels, service, db, password = parse_sentinel_url(url)
        sentinel = Sentinel(
            sentinels,
            sentinel_kwargs={"password": password, "socket_timeout": min(timeout, 5.0)},
            password=password,
            socket_timeout=timeout,
            socket_connect_timeout=min(timeout, 5.0),
        )
        return cls(
            sentinel.master_for(
                service, db=db, decode_responses=False, max_connections=max_connections
            )
        )

    @property
    def client(self) -> Any:
        return self._redis

    async def close(self) -> None:
        await self._redis.aclose()

    async def ping(self) -> None:
        async with _errors():
            await self._redis.ping()

    async def create(
        self, record: MatchRecord, events: Sequence[NewEvent], *, idle_ms: int = 0
    ) -> str:
        meta, _, stream, _, _ = match_keys(record.match_id)
        fields = _record_fields(record)
        args: list[Any] = [record.version, len(fields), len(events), idle_ms]
        for name, value in fields.items():
            args += [name, value]
        args += _event_args(events)
        async with _errors():
            last = await self._create(keys=[meta, stream], args=args)
        if last is None:
            raise StoreError(f"match id {record.match_id} is already taken")
        return _text(last)

    async def load(
        self, match_id: str, unless_version: int | None = None
    ) -> MatchRecord | Unchanged | None:
        meta = match_keys(match_id)[0]
        known = "" if unless_version is None else str(unless_version)
        async with _errors():
            reply = await self._load(keys=[meta], args=[known])
        if reply is None:
            return None
        if reply == b"unchanged":
            return UNCHANGED
        return _record(match_id, _pairs(reply))

    async def commit(self, match_id: str, expected_version: int, commit: Commit) -> CommitResult:
        fields: dict[str, bytes | str] = {}
        if commit.state is not None:
            fields["state"] = commit.state
        if commit.status is not None:
            fields["status"] = commit.status
        if commit.seats is not None:
            fields["seats"] = _dump_seats(commit.seats)
        if commit.outcome is not None:
            fields["outcome"] = json.dumps(commit.outcome, separators=(",", ":"))
        if commit.deadline_ms is not None:
            fields["deadline"] = str(commit.deadline_ms)
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
        args += [_pack_log(entry) for entry in commit.log]
        args += _event_args(commit.events)
        async with _errors():
            reply = await self._commit(keys=list(match_keys(match_id)[:4]), args=args)
        tag = reply[0]
        if tag == b"ok":
            return Committed(int(reply[1]), tuple(_text(i) for i in reply[2:]))
        if tag == b"duplicate":
            return Duplicate(_answer(reply[1]))
        if tag == b"conflict":
            return Conflict(_record(match_id, _pairs(reply[1])))
        return Conflict(None)

    async def request_answer(self, match_id: str, seat: int, request_id: str) -> Answer | None:
        slots = [f"{seat}:{slot}" for slot in range(REQUEST_WINDOW)]
        async with _errors():
            values = await self._redis.hmget(match_keys(match_id)[3], slots)
        prefix = request_id.encode() + b"\n"
        for raw in values:
            if raw is not None and raw.startswith(prefix):
                return _answer(raw[len(prefix) :])
        return None

    async def read_log(self, match_id: str) -> list[bytes]:
        async with _errors():
            raw = await self._redis.lrange(match_keys(match_id)[1], 0, -1)
        return [_unpack_log(entry) for entry in raw]

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]:
        keys = match_keys(match_id)
        after = after_event_id or "0-0"
        async with _errors():
            if block_ms:
                reply = await self._redis.xread({keys[2]: after}, count=count, block=block_ms)
                archive = None if reply else await self._redis.get(keys[4])
            else:
                pipe = self._redis.pipeline(transaction=False)
                pipe.xread({keys[2]: after}, count=count)
                pipe.get(keys[4])
                reply, archive = await pipe.execute()
        events = [
            _stored_event(_text(event_id), data[b"v"], data[b"k"], data[b"d"])
            for _key, entries in reply or ()
            for event_id, data in entries
        ]
        if not events and archive is not None:  # a finished match: its events are archived
            start = _id_key(after)
            found = [e for e in _unpack_archive(archive) if _id_key(e[0]) > start][:count]
            labels: dict[int, str] = {}
            if label_of is not None and any(e[3][:1] == _DATA_SEAT_FROM_LOG for e in found):
                async with _errors():
                    entries = await self._redis.lrange(keys[1], 0, -1)
                for entry in entries:
                    if entry[:1] == _PACKED_MOVE:
                        version, at = _read_varint(entry, 1)
                        _seat, at = _read_varint(entry, at)
                        labels[version] = label_of(entry[at:])
            events = [_stored_event(*e, labels) for e in found]
        return events

    async def existed(self, match_id: str) -> bool:
        async with _errors():
            return await self._redis.zscore(index_key(None, None), match_id) is not None

    async def index(self, record: MatchRecord, previous: Status | None, current: Status) -> None:
        score = record.created_ms
        async with _errors():
            pipe = self._redis.pipeline(transaction=False)
            if current == "finished":
                pipe.zrem(CLOCKS_KEY, record.match_id)
                if record.client_id:
                    pipe.zrem(client_key(record.client_id), record.match_id)
            else:
                if record.move_seconds:
                    pipe.zadd(CLOCKS_KEY, {record.match_id: score})
                if record.client_id:
                    pipe.zadd(client_key(record.client_id), {record.match_id: score})
            for status in STATUSES:
                if status != current:
                    pipe.zrem(index_key(status, None), record.match_id)
                    pipe.zrem(index_key(status, record.game), record.match_id)
            pipe.zadd(index_key(None, None), {record.match_id: score})
            pipe.zadd(index_key(None, record.game), {record.match_id: score})
            pipe.zadd(index_key(current, None), {record.match_id: score})
            pipe.zadd(index_key(current, record.game), {record.match_id: score})
            if current == "finished":  # its last events are delivered: archive them
                keys = match_keys(record.match_id)
                # EVAL, not EVALSHA: a cluster pipeline cannot load scripts; once per match.
                pipe.eval(_ARCHIVE, 5, keys[0], keys[2], keys[3], keys[4], keys[1], REQUEST_WINDOW)
            await pipe.execute()

    async def list_matches(
        self, status: Status | None, game: str | None, limit: int
    ) -> list[MatchRecord]:
        async with _errors():
            ids = [
                _text(i) for i in await self._redis.zrevrange(index_key(status, game), 0, limit - 1)
            ]
            pipe = self._redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.hmget(match_keys(match_id)[0], _SUMMARY_FIELDS)
            rows = await pipe.execute()
        records: list[MatchRecord] = []
        for match_id, values in zip(ids, rows, strict=True):
            if values[0] is None:  # deleted behind the index's back
                continue
            record = _record(match_id, dict(zip(_SUMMARY_FIELDS, values, strict=True)))
            if status is not None and record.status != status:
                await self.index(record, status, record.status)  # a stale index entry: repair it
                continue
            records.append(record)
        return records

    async def open_matches(self, client_id: str) -> int:
        key = client_key(client_id)
        async with _errors():
            ids = [_text(i) for i in await self._redis.zrange(key, 0, -1)]
            if not ids:
                return 0
            pipe = self._redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.hget(match_keys(match_id)[0], "status")
            statuses = await pipe.execute()
            gone = [i for i, st in zip(ids, statuses, strict=True) if st in (None, b"finished")]
            if gone:  # expired, or finished behind the index's back
                await self._redis.zrem(key, *gone)
        return len(ids) - len(gone)

    async def deadlines(self, limit: int) -> list[tuple[str, int]]:
        async with _errors():
            ids = [_text(i) for i in await self._redis.zrange(CLOCKS_KEY, 0, limit - 1)]
            if not ids:
                return []
            pipe = self._redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.hmget(match_keys(match_id)[0], ["deadline", "status"])
            rows = await pipe.execute()
            found, gone = [], []
            for match_id, (deadline, status) in zip(ids, rows, strict=True):
                if status is None or status == b"finished":
                    gone.append(match_id)
                elif deadline:
                    found.append((match_id, int(deadline)))
            if gone:
                await self._redis.zrem(CLOCKS_KEY, *gone)
        return found

    async def memory_usage(self, match_id: str) -> int:
        total = 0
        async with _errors():
            for key in match_keys(match_id):
                total += int(await self._redis.memory_usage(key, samples=0) or 0)
        return total


# Failures that pass: a server down or loading, a cluster resharding or electing, a failover.
_UNAVAILABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.MasterDownError,
    redis_errors.ReadOnlyError,
    redis_errors.RedisClusterException,  # no node of the cluster answers
    OSError,
)


@asynccontextmanager
async def _errors() -> AsyncIterator[None]:
    try:
        yield
    except _UNAVAILABLE as error:
        raise StoreUnavailable(f"Redis cannot be reached: {error}") from error
    except redis_errors.RedisError as error:
        raise StoreError(f"Redis refused a command: {error}") from error


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _pairs(flat: Sequence[bytes]) -> dict[str, bytes]:
    return {_text(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


def _id_key(event_id: str) -> tuple[int, int]:
    ms, _, seq = event_id.partition("-")
    return int(ms or 0), int(seq or 0)


def _stored_event(
    event_id: str,
    version: bytes | int,
    kind: bytes,
    data: bytes,
    labels: Mapping[int, str] | None = None,
) -> StoredEvent:
    if data[:1] == _DATA_SEAT_FROM_LOG:
        seat, _ = _read_varint(data, 1)
        unpacked = {"seat": seat, "label": (labels or {}).get(int(version), "")}
    else:
        unpacked = _unpack_data(data)
    return StoredEvent(
        event_id=event_id,
        version=int(version),
        kind=_KIND_NAMES.get(kind) or _text(kind),
        data=unpacked,
    )


def _unpack_archive(raw: bytes) -> list[tuple[str, int, bytes, bytes]]:
    """(event id, version, stored kind, stored data) of each event of an archive (``_ARCHIVE``).

    0x02 (0x01: no data of the next form), then per event: varint ms (minus the previous
    event's), varint sequence number, varint version change (zigzag), varint length + the stored
    kind, varint length + the stored data. The data of a move whose move the log holds at the
    same version, by the same seat, is 0x03, varint seat: its label is rebuilt from the log.
    """
    if raw[:1] not in (b"\x01", b"\x02"):
        raise StoreError("an event archive in an unknown format")
    events: list[tuple[str, int, bytes, bytes]] = []
    at, ms, version = 1, 0, 0
    while at < len(raw):
        delta, at = _read_varint(raw, at)
        seq, at = _read_varint(raw, at)
        change, at = _read_varint(raw, at)
        ms += delta
        version += -((change + 1) >> 1) if change & 1 else change >> 1
        size, at = _read_varint(raw, at)
        kind, at = raw[at : at + size], at + size
        size, at = _read_varint(raw, at)
        data, at = raw[at : at + size], at + size
        events.append((f"{ms}-{seq}", version, kind, data))
    return events


def _answer(raw: bytes) -> Answer:
    version, last_event, answer = raw.split(b"\n", 2)
    return Answer(int(version), _text(last_event), _text(answer))


def _event_args(events: Sequence[NewEvent]) -> list[bytes | str]:
    args: list[bytes | str] = []
    for event in events:
        args += [_KIND_CODES.get(event.kind, event.kind), _pack_data(event.data)]
    return args


# --- compact entries ------------------------------------------------------------------------------
#
# A finished Jaipur match has about 200 log entries and 200 events, so their bytes are most of its
# memory. The store keeps the common shapes in a compact binary form and gives back exactly what it
# was given; anything else (and every entry written before) is kept, and read, as it was. A compact
# value starts with a byte below 0x20, which no JSON text starts with.

_LOG_MOVE = re.compile(rb'\{"v":(\d{1,18}),"s":(\d{1,9}),"m":"([A-Za-z0-9+/]*={0,2})"\}')
_LOG_FLAG = re.compile(rb'\{"v":(\d{1,18}),"s":(\d{1,9}),"([rt])":1\}')
_PACKED_MOVE, _PACKED_FLAG = b"\x01", b"\x02"
_DATA_SEAT_LABEL, _DATA_TEXT, _DATA_SEAT_FROM_LOG = b"\x01", b"\x02", b"\x03"
# The event kinds serai writes, each as one byte in the stream; other kinds are stored as named.
_KIND_CODES = {
    kind: chr(code)
    for code, kind in enumerate(
        (
            "created",
            "joined",
            "started",
            "move",
            "announcement",
            "resigned",
            "finished",
            "timed_out",
        ),
        start=1,
    )
}
_KIND_NAMES = {code.encode(): kind for kind, code in _KIND_CODES.items()}


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_varint(raw: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = raw[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def _pack_log(entry: bytes) -> bytes:
    """``{"v":12,"s":0,"m":"<base64>"}`` as 0x01, varint v, varint s, the raw move bytes;
    ``{"v":12,"s":0,"r":1}`` (or "t") as 0x02, r|t, varint v, varint s; else unchanged."""
    found = _LOG_MOVE.fullmatch(entry)
    if found:
        move = base64.b64decode(found[3])
        if base64.b64encode(move) == found[3]:  # canonical base64 only: read back byte for byte
            return _PACKED_MOVE + _varint(int(found[1])) + _varint(int(found[2])) + move
        return entry
    found = _LOG_FLAG.fullmatch(entry)
    if found:
        return _PACKED_FLAG + found[3] + _varint(int(found[1])) + _varint(int(found[2]))
    return entry


def _unpack_log(raw: bytes) -> bytes:
    if raw[:1] == _PACKED_MOVE:
        version, at = _read_varint(raw, 1)
        seat, at = _read_varint(raw, at)
        move = base64.b64encode(raw[at:]).decode()
        return f'{{"v":{version},"s":{seat},"m":"{move}"}}'.encode()
    if raw[:1] == _PACKED_FLAG:
        version, at = _read_varint(raw, 2)
        seat, at = _read_varint(raw, at)
        return f'{{"v":{version},"s":{seat},"{raw[1:2].decode()}":1}}'.encode()
    return raw


def _pack_data(data: Mapping[str, Any]) -> bytes | str:
    """Event data ``{"seat": n, "label": text}`` as 0x01, varint n, text; ``{"text": text}`` as
    0x02, text; anything else as JSON."""
    if len(data) == 2:
        seat, label = data.get("seat"), data.get("label")
        if type(seat) is int and seat >= 0 and type(label) is str:
            return _DATA_SEAT_LABEL + _varint(seat) + label.encode()
    elif len(data) == 1:
        text = data.get("text")
        if type(text) is str:
            return _DATA_TEXT + text.encode()
    return json.dumps(dict(data), separators=(",", ":"))


def _unpack_data(raw: bytes) -> dict[str, Any]:
    if raw[:1] == _DATA_SEAT_LABEL:
        seat, at = _read_varint(raw, 1)
        return {"seat": seat, "label": raw[at:].decode()}
    if raw[:1] == _DATA_TEXT:
        return {"text": raw[1:].decode()}
    result: dict[str, Any] = json.loads(raw)
    return result


def _dump_seats(seats: Sequence[SeatRecord]) -> str:
    rows = [
        {"n": s.name, "j": int(s.joined), "r": int(s.resigned), "t": s.token_hash} for s in seats
    ]
    return json.dumps(rows, separators=(",", ":"))


def _load_seats(raw: bytes) -> tuple[SeatRecord, ...]:
    return tuple(
        SeatRecord(
            name=row["n"], joined=bool(row["j"]), resigned=bool(row["r"]), token_hash=row["t"]
        )
        for row in json.loads(raw)
    )


def _record_fields(record: MatchRecord) -> dict[str, bytes | str]:
    fields: dict[str, bytes | str] = {
        "game": record.game,
        "options": json.dumps(dict(record.options), separators=(",", ":")),
        "seed": str(record.seed),
        "created": str(record.created_ms),
        "status": record.status,
        "version": str(record.version),
        "seats": _dump_seats(record.seats),
        "state": record.state,
    }
    if record.outcome is not None:
        fields["outcome"] = json.dumps(dict(record.outcome), separators=(",", ":"))
    if record.client_id:
        fields["client"] = record.client_id
    if record.move_seconds:
        fields["move_s"] = str(record.move_seconds)
        fields["policy"] = record.timeout_policy
        fields["deadline"] = str(record.deadline_ms)
    return fields


def _record(match_id: str, fields: Mapping[str, bytes | None]) -> MatchRecord:
    def get(name: str) -> bytes:
        value = fields.get(name)
        if value is None:
            raise StoreError(f"match {match_id} has no {name!r} field: the record is damaged")
        return value

    outcome = fields.get("outcome")
    status = _text(get("status"))
    if status not in STATUSES:
        raise StoreError(f"match {match_id} has an unknown status {status!r}")
    return MatchRecord(
        match_id=match_id,
        game=_text(get("game")),
        options=json.loads(get("options")),
        seed=int(get("seed")),
        created_ms=int(get("created")),
        status=status,  # type: ignore[arg-type]
        version=int(get("version")),
        seats=_load_seats(get("seats")),
        state=fields.get("state") or b"",
        outcome=json.loads(outcome) if outcome else None,
        last_event_id=_text(fields.get("last_event") or b""),
        client_id=_text(fields.get("client") or b""),
        move_seconds=int(fields.get("move_s") or 0),
        timeout_policy="default_move" if fields.get("policy") == b"default_move" else "lose",
        deadline_ms=int(fields.get("deadline") or 0),
    )
