"""Reading a match's events, from its stream while it runs and from its archive once it is
folded, so that a reader never needs to know which form it meets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serai.store import StoredEvent, event_id_key
from serai.store.redis.encoding import (
    DATA_SEAT_FROM_LOG,
    PACKED_MOVE,
    read_varint,
    stored_event,
    text,
    unpack_archive,
)
from serai.store.redis.errors import errors
from serai.store.redis.folding import FOLDED, unfold
from serai.store.redis.keys import match_keys


class EventReads:
    """:meth:`serai.store.Store.read_events` on Redis: a base of RedisStore, whose client it
    uses (a base, not a member: no call through a second object on a Watch's every read)."""

    _redis: Any  # the redis-py client

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
        async with errors():
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
                    async with errors():
                        entries = await client.lrange(keys[1], 0, -1)
                for entry in entries:
                    if entry[:1] == PACKED_MOVE:
                        version, at = read_varint(entry, 1)
                        _seat, at = read_varint(entry, at)
                        labels[version] = label_of(entry[at:])
            events = [stored_event(*e, labels) for e in found]
        return events
