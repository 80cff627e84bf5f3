"""The Redis store: one hash, one list, one stream and one hash of answers per match; once it is
finished, only the hash and one archive string.

Keys of match ``M`` (the braces are a Redis Cluster hash tag: one match, one slot)::

    serai:{M}:match      hash    game, options, seed, created, status, version, seats, state,
                                 outcome, last_event (and client, move_s, policy, deadline)
    serai:{M}:log        list    one entry per move or resignation, for replay
    serai:{M}:events     stream  public events (v: version, k: kind, d: data), for Watch
    serai:{M}:requests   hash    "<seat>:<slot>" -> "request_id\nversion\nlast_event_id\nanswer"
                                 for the seat's REQUEST_WINDOW latest requests; "<seat>:n" counts
    serai:{M}:archive    string  once finished: see below

Once a match is finished and indexed so, it is folded (one script, so a reader finds either form):
the archive holds, compressed, every event (same ids; move labels rebuilt from the log when read),
every log entry and each seat's latest request answer (a retry of a finished match's last move
still gets its first answer), and the log, stream and requests keys are deleted; the record is
rewritten with each value over 64 bytes cut into pieces (``seats~0``, ``seats~1``, ..., listed
in the field ``~``), so that Redis keeps it as a listpack (ziplist) and not a hash table (1.7
times the size). A Jaipur match of 200 moves takes about 3 KiB so, instead of about 7 KiB. The
folding costs the finishing move one more round trip (RedisStore.index), once per match.

Older forms are still read: a finished match archived by earlier versions of serai (an archive of
events only, starting 0x01 or 0x02, with its log list and requests hash kept) or never archived
(its stream kept); :meth:`RedisStore.index` folds such a match when it is called for it again.
Replicas of a version before folding do not read a folded match: its record has no ``seats``
field, which they report as a damaged record (an error, never a wrong answer); run one version.

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
import zlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, NamedTuple
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
# it is folded (see _fold): its events, log and each seat's latest request answer go into one
# compressed string, the archive, and the stream, log and request hash are deleted; the record is
# rewritten with its long values cut into pieces, so that Redis keeps it as a small listpack
# (ziplist) instead of a hash table. _FOLD_READ reads what is to fold (nothing if already folded),
# _FOLD writes the folded form in one script, so a reader finds either the old keys or the archive.
_FOLD_READ = """
local meta, log, events, requests, archive = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('HGET', meta, 'status') ~= 'finished' then return 0 end
local old = redis.call('GET', archive)
if old and string.byte(old, 1) == 3 then return 0 end
return {redis.call('HGETALL', meta), redis.call('LRANGE', log, 0, -1),
        redis.call('XRANGE', events, '-', '+'), redis.call('HGETALL', requests), old or ''}
"""

_FOLD = """
local meta, log, events, requests, archive = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('HGET', meta, 'version') ~= ARGV[1] then return 0 end
if redis.call('HGET', meta, 'status') ~= 'finished' then return 0 end
local old = redis.call('GET', archive)
if old and string.byte(old, 1) == 3 then return 0 end
redis.call('SET', archive, ARGV[2])
redis.call('DEL', meta, log, events, requests)
redis.call('HSET', meta, unpack(ARGV, 3))
return 1
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
# ListMatches reads a folded record's long summary values in pieces (see _cut_record): the usual
# number of pieces is read with the rest, any more in a second round trip.
_LISTED_FIELDS = (
    *_SUMMARY_FIELDS,
    "~",
    *(f"seats~{i}" for i in range(8)),
    *(f"outcome~{i}" for i in range(4)),
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
        self._fold = client.register_script(_FOLD)

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
        keys = match_keys(match_id)
        async with _errors():
            pipe = self._redis.pipeline(transaction=False)
            pipe.hmget(keys[3], slots)
            pipe.get(keys[4])
            values, archive = await pipe.execute()
        if archive is not None and archive[:1] == _FOLDED:  # a folded match: its latest answers
            values = [*values, *(raw for s, raw in _unfold(archive).answers if s == seat)]
        prefix = request_id.encode() + b"\n"
        for raw in values:
            if raw is not None and raw.startswith(prefix):
                return _answer(raw[len(prefix) :])
        return None

    async def read_log(self, match_id: str) -> list[bytes]:
        keys = match_keys(match_id)
        async with _errors():
            pipe = self._redis.pipeline(transaction=False)
            pipe.lrange(keys[1], 0, -1)
            pipe.get(keys[4])
            raw, archive = await pipe.execute()
        if not raw and archive is not None and archive[:1] == _FOLDED:
            raw = _unfold(archive).log
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
            folded = _unfold(archive) if archive[:1] == _FOLDED else None
            archived = folded.events if folded else _unpack_archive(archive)
            found = [e for e in archived if _id_key(e[0]) > start][:count]
            labels: dict[int, str] = {}
            if label_of is not None and any(e[3][:1] == _DATA_SEAT_FROM_LOG for e in found):
                if folded:
                    entries = folded.log
                else:
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
            keys = match_keys(record.match_id)
            if current == "finished":  # its last events are delivered: fold the match
                # EVAL, not EVALSHA: a cluster pipeline cannot load scripts; once per match.
                pipe.eval(_FOLD_READ, 5, *keys)
            replies = await pipe.execute()
            if current == "finished" and replies[-1]:  # not folded yet
                version, args = _fold(replies[-1])
                await self._fold(keys=list(keys), args=[version, *args])

    async def list_matches(
        self, status: Status | None, game: str | None, limit: int
    ) -> list[MatchRecord]:
        async with _errors():
            ids = [
                _text(i) for i in await self._redis.zrevrange(index_key(status, game), 0, limit - 1)
            ]
            pipe = self._redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.hmget(match_keys(match_id)[0], _LISTED_FIELDS)
            rows = [dict(zip(_LISTED_FIELDS, row, strict=True)) for row in await pipe.execute()]
            # A folded record's value cut into more pieces than _LISTED_FIELDS names: read them.
            more = {i: _missing_pieces(row) for i, row in enumerate(rows)}
            more = {i: names for i, names in more.items() if names}
            if more:
                pipe = self._redis.pipeline(transaction=False)
                for i, names in more.items():
                    pipe.hmget(match_keys(ids[i])[0], names)
                for (i, names), values in zip(more.items(), await pipe.execute(), strict=True):
                    rows[i].update(zip(names, values, strict=True))
        records: list[MatchRecord] = []
        for match_id, fields in zip(ids, rows, strict=True):
            if fields["status"] is None:  # deleted behind the index's back
                continue
            record = _record(match_id, fields)
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


ArchivedEvent = tuple[str, int, bytes, bytes]  # event id, version, stored kind, stored data


def _unpack_archive(raw: bytes) -> list[ArchivedEvent]:
    """Each event of an archive of events only (written by serai before folded archives: see
    _unfold): 0x02 (0x01: no data of the 0x03 form), then the events as _pack_events writes them.
    """
    if raw[:1] not in (b"\x01", b"\x02"):
        raise StoreError("an event archive in an unknown format")
    return _unpack_events(raw, 1, len(raw))


def _pack_events(events: Sequence[ArchivedEvent]) -> bytes:
    """Per event: varint ms (minus the previous event's), varint sequence number, varint version
    change (zigzag), varint length + the stored kind, varint length + the stored data. The data
    of a move whose move the log holds at the same version, by the same seat, is 0x03, varint
    seat: its label is rebuilt from the log."""
    out = bytearray()
    previous_ms = previous_version = 0
    for event_id, version, kind, data in events:
        ms, seq = _id_key(event_id)
        change = version - previous_version
        out += _varint(ms - previous_ms) + _varint(seq)
        out += _varint(change * 2 if change >= 0 else -change * 2 - 1)
        out += _varint(len(kind)) + kind + _varint(len(data)) + data
        previous_ms, previous_version = ms, version
    return bytes(out)


def _unpack_events(raw: bytes, at: int, end: int) -> list[ArchivedEvent]:
    events: list[ArchivedEvent] = []
    ms = version = 0
    while at < end:
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


_SMALL_VARINTS = [bytes([n]) for n in range(0x80)]


def _varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return _SMALL_VARINTS[value]
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


def _record(match_id: str, stored: Mapping[str, bytes | None]) -> MatchRecord:
    fields = _joined(stored)

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


# --- folded matches -------------------------------------------------------------------------------
#
# A finished match is folded (RedisStore.index, _FOLD): its record stays a hash, but each value
# longer than _PIECE bytes is cut into pieces, "<name>~0", "<name>~1", ..., listed in the field
# "~" ("<name> <pieces> ..."), so that Redis keeps the hash as a listpack (a hash with one value
# over hash-max-listpack-value, 64 bytes by default, is a hash table, about twice the size). Its
# events, log and latest request answers go into the archive string (_unfold).

_FOLDED = b"\x03"
_PIECE = 64
_PIECES_FIELD = "~"


class _Folded(NamedTuple):
    events: list[ArchivedEvent]
    log: list[bytes]  # the stored (compact) entries
    answers: list[tuple[int, bytes]]  # (seat, "request_id\nversion\nlast_event_id\nanswer")


def _cut_record(fields: Mapping[str, bytes]) -> list[bytes | str]:
    """HSET arguments for ``fields``, each value longer than _PIECE bytes cut into pieces."""
    args: list[bytes | str] = []
    cut: list[str] = []
    for name, value in fields.items():
        if len(value) <= _PIECE or name == _PIECES_FIELD:
            args += [name, value]
            continue
        pieces = range(0, len(value), _PIECE)
        cut += [name, str(len(pieces))]
        for i, at in enumerate(pieces):
            args += [f"{name}~{i}", value[at : at + _PIECE]]
    if cut:
        args += [_PIECES_FIELD, " ".join(cut)]
    return args


def _pieces(stored: Mapping[str, bytes | None]) -> list[tuple[str, list[str]]]:
    """(name, its piece fields) of each value cut into pieces and not also stored whole."""
    marker = stored.get(_PIECES_FIELD)
    if not marker:
        return []
    words = _text(marker).split()
    return [
        (name, [f"{name}~{i}" for i in range(int(count))])
        for name, count in zip(words[::2], words[1::2], strict=True)
        if stored.get(name) is None
    ]


def _joined(stored: Mapping[str, bytes | None]) -> Mapping[str, bytes | None]:
    """``stored`` with each value whose pieces it holds put together again."""
    cut = _pieces(stored)
    if not cut:
        return stored
    fields = dict(stored)
    for name, names in cut:
        pieces = [stored.get(piece) for piece in names]
        if all(piece is not None for piece in pieces):
            fields[name] = b"".join(pieces)  # type: ignore[arg-type]
    return fields


def _missing_pieces(stored: Mapping[str, bytes | None]) -> list[str]:
    """The piece fields of ``stored``'s summary values that it does not hold yet."""
    return [
        piece
        for name, names in _pieces(stored)
        if name in _SUMMARY_FIELDS
        for piece in names
        if stored.get(piece) is None
    ]


def _fold(reply: Sequence[Any]) -> tuple[bytes, list[bytes | str]]:
    """(the record's version, the rest of _FOLD's arguments) from _FOLD_READ's reply."""
    flat, log, stream, requests, old = reply
    record = _pairs(flat)
    if stream:
        events: list[ArchivedEvent] = []
        for event_id, flat_event in stream:
            stored = _pairs(flat_event)
            events.append((_text(event_id), int(stored["v"]), stored["k"], stored["d"]))
    else:
        events = _unpack_archive(old) if old else []
    mover: dict[int, int] = {}  # version -> the seat whose move the log holds at it
    for entry in log:
        if entry[:1] == _PACKED_MOVE:
            version, at = _read_varint(entry, 1)
            mover[version], _ = _read_varint(entry, at)
    move = _KIND_CODES["move"].encode()
    for i, (event_id, version, kind, data) in enumerate(events):
        if kind == move and data[:1] == _DATA_SEAT_LABEL:
            seat, _ = _read_varint(data, 1)
            if mover.get(version) == seat:  # its label is rebuilt from the log
                events[i] = (event_id, version, kind, _DATA_SEAT_FROM_LOG + _varint(seat))
    answers = _latest_answers(_pairs(requests))
    packed_events = _pack_events(events)
    body = bytearray(_varint(len(packed_events)) + packed_events)
    body += _varint(len(log))
    for entry in log:
        body += _varint(len(entry)) + entry
    body += _varint(len(answers))
    for seat, answer in answers:
        body += _varint(seat) + _varint(len(answer)) + answer
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    archive = _FOLDED + deflate.compress(bytes(body)) + deflate.flush()
    return record["version"], [archive, *_cut_record(record)]


def _latest_answers(requests: Mapping[str, bytes]) -> list[tuple[int, bytes]]:
    """(seat, answer) of each seat's latest request (its counter "<seat>:n" names the slot)."""
    answers = []
    for name, count in sorted(requests.items()):
        seat, _, what = name.partition(":")
        if what == "n":
            latest = requests.get(f"{seat}:{(int(count) - 1) % REQUEST_WINDOW}")
            if latest is not None:
                answers.append((int(seat), latest))
    return answers


def _unfold(raw: bytes) -> _Folded:
    """A folded archive: 0x03, then raw deflate of: varint size + the events (_pack_events);
    varint count + each log entry (varint size + the stored entry); varint count + each seat's
    latest request answer (varint seat, varint size + the stored answer)."""
    try:
        body = zlib.decompress(raw[1:], -15)
    except zlib.error as error:
        raise StoreError(f"a folded archive that does not decompress: {error}") from error
    size, at = _read_varint(body, 0)
    events = _unpack_events(body, at, at + size)
    at += size
    count, at = _read_varint(body, at)
    log = []
    for _ in range(count):
        size, at = _read_varint(body, at)
        log.append(body[at : at + size])
        at += size
    count, at = _read_varint(body, at)
    answers = []
    for _ in range(count):
        seat, at = _read_varint(body, at)
        size, at = _read_varint(body, at)
        answers.append((seat, body[at : at + size]))
        at += size
    return _Folded(events, log, answers)
