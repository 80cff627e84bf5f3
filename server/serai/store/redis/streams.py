"""Reading a match's events, from its stream while it runs and from its archive once it is
folded, so that a reader never needs to know which form it meets; and the watch hub's reads of
many streams at once (:class:`StreamFeed`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import msgpack
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import ConnectionPool
from redis.exceptions import NoScriptError, ResponseError

from serai.store import (
    UNCHANGED,
    FeedPush,
    FeedRead,
    MatchRecord,
    StoredEvent,
    StoreUnavailable,
    Unchanged,
    event_id_key,
)
from serai.store.redis.breaker import Breaker
from serai.store.redis.encoding import (
    DATA_SEAT_FROM_LOG,
    PACKED_MOVE,
    pairs,
    read_varint,
    record_from_fields,
    stored_event,
    text,
    unpack_archive,
)
from serai.store.redis.errors import errors
from serai.store.redis.folding import FOLDED, joined, unfold
from serai.store.redis.keys import match_keys
from serai.store.redis.scripts import FEED_RECORDS_SCRIPT


class EventReads:
    """:meth:`serai.store.Store.read_events` on Redis: a base of RedisStore, whose client it
    uses (a base, not a member: no call through a second object on a Watch's every read)."""

    _redis: Any  # the redis-py client
    breaker: Breaker  # whether Redis answers (see breaker.py)

    async def read_events(
        self,
        match_id: str,
        after_event_id: str,
        *,
        block_ms: int = 0,
        count: int = 100,
        label_of: Callable[[bytes], str] | None = None,
    ) -> list[StoredEvent]:
        client = self._redis
        keys = match_keys(match_id)
        after = after_event_id or "0-0"
        async with errors(breaker=self.breaker):
            if block_ms:
                reply = await client.xread({keys[2]: after}, count=count, block=block_ms)
                archive = None if reply else await client.get(keys[4])
            else:
                pipe = client.pipeline(transaction=False)
                pipe.xread({keys[2]: after}, count=count)
                pipe.get(keys[4])
                reply, archive = await pipe.execute()
        events = [
            stored_event(text(event_id), data[b"v"], data[b"k"], data[b"d"])
            for _key, entries in reply or ()
            for event_id, data in entries
        ]
        if not events and archive is not None:  # a finished match: its events are archived
            # Folded (FOLDED), or archived by an older serai: events only, the log list kept.
            start = event_id_key(after)
            folded = unfold(archive) if archive[:1] == FOLDED else None
            archived = folded.events if folded else unpack_archive(archive)
            found = [e for e in archived if event_id_key(e[0]) > start][:count]
            labels: dict[int, str] = {}
            if label_of is not None and any(e[3][:1] == DATA_SEAT_FROM_LOG for e in found):
                if folded:
                    entries = folded.log
                else:
                    async with errors(breaker=self.breaker):
                        entries = await client.lrange(keys[1], 0, -1)
                for entry in entries:
                    if entry[:1] == PACKED_MOVE:
                        version, at = read_varint(entry, 1)
                        _seat, at = read_varint(entry, at)
                        labels[version] = label_of(entry[at:])
            events = [stored_event(*e, labels) for e in found]
        return events


CLIENT_NAME = "serai-watch-hub"  # what CLIENT LIST calls the feed's connections
CLUSTER_POLL_MS = 50  # on a Redis Cluster, a read that found nothing waits this long


class StreamFeed:
    """Many matches' streams read at once, for a process's watch hub
    (:class:`serai.matches.hub.WatchHub`): one blocking XREAD per Redis node, on a connection of
    its own (outside the store's pool), and a second one per node that can end a waiting read
    (CLIENT UNBLOCK) when the hub follows a new match, and a third that listens (below). So
    however many watchers a process holds, it watches through three connections per node (two
    on a Redis Cluster): one Redis or a Sentinel group's master is one node (""), a Redis
    Cluster groups its matches by the master owning each match's slot (a match's keys share
    one hash tag, so one slot).

    Where it is not a Redis Cluster, the third connection listens (SUBSCRIBE) to the matches
    the hub follows: commit.lua publishes each of their commits (its events and the
    record after them) on the channel named as the match's events key, and :meth:`pushed`
    hands them over as they come, half a round trip after the commit, where the next read may
    be a round trip away. Pub/sub is at most once: the read stays the lossless path.

    On a Redis Cluster one XREAD may not name streams of different slots (CROSSSLOT), and each
    match has its own: there a read is one pipelined round of single-stream XREADs (no BLOCK) on
    the node's one connection, and a read that finds nothing pauses ``CLUSTER_POLL_MS`` (or
    until :meth:`wake`) before it answers. Delivery there waits up to that pause.

    Example::

        feed = store.event_feed()
        got = await feed.read(feed.shard_of(m), {m: "0-0"}, block_ms=1000, count=500)
    """

    def __init__(self, client: Any) -> None:
        self._client = client
        self._cluster = isinstance(client, RedisCluster)
        self._readers: dict[str, _NodeConnections] = {}
        self._listeners: dict[str, _Listener] = {}

    def shard_of(self, match_id: str) -> str:
        """The node whose reader follows the match: "" unless on a Redis Cluster."""
        if not self._cluster:
            return ""
        node = self._client.get_node_from_key(match_keys(match_id)[2])
        return "" if node is None else str(node.name)

    async def read(
        self,
        shard: str,
        after: Mapping[str, str],
        *,
        block_ms: int,
        count: int,
        versions: Mapping[str, int] | None = None,
    ) -> FeedRead:
        """See :meth:`serai.store.EventFeed.read`. With ``versions``, the XREAD only waits
        (COUNT 1): a script sent right behind it, in the same write, runs as soon as it
        answers and reads each moved match's record and events together, so they agree and a
        delivery costs the shared read's round trip, no load. Not on a Redis Cluster (a
        script's keys must share a slot there): its reader loads."""
        if not after:
            return FeedRead({})
        streams = {match_keys(match_id)[2]: match_id for match_id in after}
        connections = self._node(shard)
        found: dict[str, list[StoredEvent]] = {}
        if self._cluster:
            commands = [
                ("XREAD", "COUNT", count, "STREAMS", key, after[match_id] or "0-0")
                for key, match_id in streams.items()
            ]
            async with errors():
                try:
                    replies = await connections.pipelined(commands)
                except ResponseError as error:
                    if "MOVED" in str(error) or "ASK" in str(error):  # slots moved: look again
                        await self._client.nodes_manager.initialize()
                    raise
            for reply in replies:
                _found(reply, streams, found)
            if not found:
                await connections.pause(min(block_ms, CLUSTER_POLL_MS) / 1000)
            return FeedRead(found)
        waiting = 1 if versions is not None else count
        args: list[Any] = ["XREAD", "COUNT", waiting, "BLOCK", max(1, block_ms), "STREAMS"]
        args += streams
        args += [after[match_id] or "0-0" for match_id in streams.values()]
        if versions is None:
            async with errors():
                reply = await connections.command(args)
            _found(reply, streams, found)
            return FeedRead(found)
        ids = list(after)
        script: list[Any] = ["EVALSHA", FEED_RECORDS_SCRIPT.sha, 2 * len(ids)]
        for match_id in ids:
            keys = match_keys(match_id)
            script += [keys[0], keys[2]]
        script.append(count)
        for match_id in ids:
            script += [after[match_id], versions.get(match_id, "")]
        async with errors():
            reply, news = await connections.command_and_script(args, script)
        # A stream the XREAD saw news on but the script found empty was folded between the two
        # (a finished match's last events, archived): its first event, with no record, has the
        # reader read the rest directly.
        _found(reply, streams, found)
        return _news(news, ids, found)

    async def wake(self, shard: str) -> bool:
        """End the node's waiting read now (it answers as if it timed out); whether one was."""
        connections = self._readers.get(shard)
        if connections is None:
            return False
        if self._cluster:
            return connections.resume()
        async with errors():
            return await connections.unblock()

    @property
    def pushes(self) -> bool:
        """See :meth:`serai.store.EventFeed.pushes`: not on a Redis Cluster."""
        return not self._cluster

    async def listen(
        self, shard: str, add: Collection[str] = (), drop: Collection[str] = ()
    ) -> None:
        """See :meth:`serai.store.EventFeed.listen`."""
        if self._cluster:
            return
        async with errors():
            await self._listener(shard).listen(add, drop)

    async def pushed(self, shard: str, *, timeout_ms: int) -> list[FeedPush]:
        """See :meth:`serai.store.EventFeed.pushed`."""
        if self._cluster:
            await asyncio.sleep(timeout_ms / 1000)
            return []
        async with errors():
            return await self._listener(shard).pushed(timeout_ms / 1000)

    def _listener(self, shard: str) -> _Listener:
        listener = self._listeners.get(shard)
        if listener is None:
            listener = self._listeners[shard] = _Listener(*self._node(shard).make)
        return listener

    @property
    def open_connections(self) -> int:
        """How many connections the feed holds open now (for tests and benchmarks)."""
        listening = sum(listener.open for listener in self._listeners.values())
        return sum(c.open for c in self._readers.values()) + listening

    async def close(self) -> None:
        for connections in self._readers.values():
            await connections.close()
        self._readers.clear()
        for listener in self._listeners.values():
            await listener.close()
        self._listeners.clear()

    def _node(self, shard: str) -> _NodeConnections:
        connections = self._readers.get(shard)
        if connections is None:
            if self._cluster:
                node = self._client.get_node(node_name=shard)
                if node is None:
                    raise StoreUnavailable(f"Redis Cluster node {shard} is gone")
                make = (node.connection_class, node.connection_kwargs)
            else:
                pool = self._client.connection_pool
                make = (pool.connection_class, pool.connection_kwargs)
            connections = self._readers[shard] = _NodeConnections(*make)
        return connections


def _found(reply: Any, streams: Mapping[str, str], found: dict[str, list[StoredEvent]]) -> None:
    """Add an XREAD reply's events to ``found`` (match id -> events)."""
    streams_read = reply.items() if isinstance(reply, dict) else reply or ()  # RESP3, RESP2
    for key, entries in streams_read:
        match_id = streams.get(text(key))
        if match_id is not None:
            found[match_id] = [
                _event(text(event_id), fields) for event_id, fields in entries if fields
            ]


def _news(reply: Any, ids: Sequence[str], waited: Mapping[str, list[StoredEvent]]) -> FeedRead:
    """FEED_RECORDS_SCRIPT's reply as a FeedRead (None, when Redis did not know the script
    yet: none), with the events the waiting XREAD brought of matches it has none of."""
    events: dict[str, Sequence[StoredEvent]] = dict(waited)
    records: dict[str, MatchRecord | Unchanged] = {}
    for i in range(0, len(reply or ()), 3):
        match_id, fields, entries = ids[int(reply[i]) - 1], reply[i + 1], reply[i + 2]
        if fields == b"unchanged":
            records[match_id] = UNCHANGED
        elif fields not in (b"gone", b"unasked"):
            records[match_id] = record_from_fields(match_id, joined(pairs(fields)))
        events[match_id] = [_event(text(event_id), flat) for event_id, flat in entries]
    return FeedRead(events, records)


def _event(event_id: str, flat: Sequence[bytes] | Mapping[bytes, bytes]) -> StoredEvent:
    if isinstance(flat, Mapping):
        data = dict(flat)
    else:
        data = {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}
    return stored_event(event_id, data[b"v"], data[b"k"], data[b"d"])


class _Listener:
    """A node's listening connection: redis-py's PubSub (which subscribes again to every
    channel when it reconnects), on a connection of its own, outside the store's pool."""

    def __init__(self, connection_class: Any, connection_kwargs: Mapping[str, Any]) -> None:
        kwargs = {**connection_kwargs, "client_name": CLIENT_NAME}
        pool = ConnectionPool(connection_class=connection_class, max_connections=1, **kwargs)
        self._pubsub = PubSub(pool, ignore_subscribe_messages=True)
        self._channels: dict[bytes, str] = {}  # events key -> match id
        self._listening = asyncio.Event()  # subscribed to a channel at least once

    @property
    def open(self) -> int:
        return int(self._pubsub.connection is not None)

    async def listen(self, add: Collection[str], drop: Collection[str]) -> None:
        added = {match_keys(m)[2].encode(): m for m in add}
        dropped = [k for k in (match_keys(m)[2].encode() for m in drop) if k in self._channels]
        self._channels.update(added)
        for key in dropped:
            del self._channels[key]
        if added:
            await self._pubsub.subscribe(*added)
            self._listening.set()
        if dropped:
            await self._pubsub.unsubscribe(*dropped)

    async def pushed(self, timeout: float) -> list[FeedPush]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if not self._listening.is_set():  # PubSub reads nothing before its first SUBSCRIBE
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._listening.wait(), timeout)
            if not self._listening.is_set():
                return []
        pushes: list[FeedPush] = []
        # None: nothing came in time, or a (un)subscription's confirmation (ignored), so wait
        # on until the deadline; then take what else came already, up to 100.
        while len(pushes) < 100:
            left = 0.0 if pushes else deadline - loop.time()
            message = await self._pubsub.get_message(timeout=max(0.0, left))
            if message is None:
                if pushes or left <= 0:
                    return pushes
                continue
            match_id = self._channels.get(message["channel"])
            if message["type"] == "message" and match_id is not None:
                pushes.append(_push(match_id, message["data"]))
        return pushes

    async def close(self) -> None:
        await self._pubsub.aclose()
        await self._pubsub.connection_pool.disconnect()


def _push(match_id: str, raw: bytes) -> FeedPush:
    """A commit as commit.lua publishes it (MessagePack): the match's last event before it, its
    version, its events (id, kind, data, ...) and the record after it (HGETALL)."""
    previous, version, flat, fields = msgpack.unpackb(raw, raw=True)
    events = [
        stored_event(text(flat[i]), version, flat[i + 1], flat[i + 2])
        for i in range(0, len(flat), 3)
    ]
    record = record_from_fields(match_id, joined(pairs(fields)))
    return FeedPush(match_id, text(previous), events, record)


class _NodeConnections:
    """A reader connection and, made when first needed, the one that unblocks it."""

    def __init__(self, connection_class: Any, connection_kwargs: Mapping[str, Any]) -> None:
        self.make = (connection_class, connection_kwargs)  # for the node's _Listener
        # Named, so that CLIENT LIST shows which connections are the hub's.
        self._make = lambda: connection_class(**{**connection_kwargs, "client_name": CLIENT_NAME})
        self._reader: Any = None
        self._reader_id = 0
        self._control: Any = None
        self._waiting = False
        self._resumed = asyncio.Event()

    @property
    def open(self) -> int:
        return (self._reader is not None) + (self._control is not None)

    async def command(self, args: Sequence[Any]) -> Any:
        reader = await self._reader_connection()
        self._waiting = True
        try:
            await reader.send_command(*args)
            return await reader.read_response()
        except BaseException:
            # A read cut short (an error, a cancelled task) leaves a reply in flight: never reuse
            # the connection.
            await self._drop_reader()
            raise
        finally:
            self._waiting = False

    async def command_and_script(
        self, args: Sequence[Any], script: Sequence[Any]
    ) -> tuple[Any, Any]:
        """:meth:`command`'s reply and, sent in the same write, an EVALSHA's (``script``: its
        arguments; None when Redis did not know the script, which is loaded for next time)."""
        reader = await self._reader_connection()
        self._waiting = True
        try:
            await reader.send_packed_command(reader.pack_commands([args, script]))
            reply = await reader.read_response()
            try:
                ran = await reader.read_response()
            except NoScriptError:
                await reader.send_command("SCRIPT", "LOAD", FEED_RECORDS_SCRIPT.text)
                await reader.read_response()
                ran = None
            return reply, ran
        except BaseException:
            await self._drop_reader()
            raise
        finally:
            self._waiting = False

    async def pipelined(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Each command's reply, sent in one write; an error reply raises after every reply
        is read (the connection stays in step)."""
        reader = await self._reader_connection()
        try:
            await reader.send_packed_command(reader.pack_commands(commands))
            replies: list[Any] = []
            refused: Exception | None = None
            for _ in commands:
                try:
                    replies.append(await reader.read_response())
                except ResponseError as error:
                    refused = refused or error
            if refused is not None:
                raise refused
            return replies
        except ResponseError:
            raise
        except BaseException:
            await self._drop_reader()
            raise

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less if :meth:`resume` is called meanwhile."""
        self._resumed.clear()
        self._waiting = True
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._resumed.wait(), seconds)
        finally:
            self._waiting = False

    def resume(self) -> bool:
        was = self._waiting
        self._resumed.set()
        return was

    async def _reader_connection(self) -> Any:
        if self._reader is None:
            reader = self._make()
            await reader.connect()
            await reader.send_command("CLIENT", "ID")
            self._reader_id = int(await reader.read_response())
            # known before the first read that sends it (a new connection: maybe a new Redis)
            await reader.send_command("SCRIPT", "LOAD", FEED_RECORDS_SCRIPT.text)
            await reader.read_response()
            self._reader = reader
        return self._reader

    async def _drop_reader(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            await reader.disconnect()

    async def unblock(self) -> bool:
        if not (self._waiting and self._reader_id):
            return False
        if self._control is None:
            control = self._make()
            await control.connect()
            self._control = control
        try:
            await self._control.send_command("CLIENT", "UNBLOCK", self._reader_id)
            return bool(await self._control.read_response())
        except BaseException:
            control, self._control = self._control, None
            await control.disconnect()
            raise

    async def close(self) -> None:
        for connection in (self._reader, self._control):
            if connection is not None:
                await connection.disconnect()
        self._reader = self._control = None
