"""What a webhook says, and how a match's events become webhooks.

Each webhook is the Standard Webhooks shape: ``{"type", "timestamp", "data"}``, ``data`` holding
only what the key's app may know about its own match: the match id, the game, the version the
event made and, for a seat's event, the seat number. Never a card, a move or a view: an app
that wants more calls GetMatch with the seat's token. Its id (the ``webhook-id`` header) is made
from the match, the version and the event, so a webhook sent twice (after a retry, or by two
replicas after a lease ran out) carries the same id: receivers drop the second.

The types:

- ``match.your_turn``: the seat is to act at this version (one per seat to act, each turn);
- ``match.finished``: the match is over (once);
- ``seat.reclaimed``: the seat's player came back on another device (ReclaimSeat);
- ``match.abandoned``: the seat let its clock run out before the match was under way, and the
  match was cancelled (``TIMEOUT_POLICY_LOSE_OR_CANCEL``); a ``match.finished`` follows.

Example::

    hooks = derive(record, game, events, state_at)
    hooks[0].body()   # b'{"type":"match.your_turn","timestamp":"...","data":{...}}'
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from serai.matches.events import Kind
from serai.store import MatchRecord, StoredEvent


class WebhookType(StrEnum):
    """A webhook's ``type``, as sent (a wire format: never changed)."""

    YOUR_TURN = "match.your_turn"
    FINISHED = "match.finished"
    SEAT_RECLAIMED = "seat.reclaimed"
    ABANDONED = "match.abandoned"


# The events after which it is someone's turn (again): the start, a move, a loss of a seat.
_TURN_EVENTS = frozenset({Kind.STARTED, Kind.MOVE, Kind.TIMED_OUT, Kind.RESIGNED})


@dataclass(frozen=True, slots=True)
class Webhook:
    """One webhook to send: its id, type, match, game, version, seat (None: the match's), and
    when its event happened (ms)."""

    webhook_id: str
    type: str
    match_id: str
    game: str
    version: int
    at_ms: int
    seat: int | None = None

    def body(self) -> bytes:
        """The request's body, the same at every attempt (it is what is signed)."""
        data: dict[str, Any] = {"match_id": self.match_id, "game": self.game}
        data["version"] = self.version
        if self.seat is not None:
            data["seat"] = self.seat
        when = datetime.datetime.fromtimestamp(self.at_ms / 1000, datetime.UTC)
        stamp = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        message = {"type": self.type, "timestamp": stamp, "data": data}
        return json.dumps(message, separators=(",", ":")).encode()

    def fields(self) -> dict[str, Any]:
        return asdict(self)


# The seats to act once the match is at a version (its state rebuilt if need be).
ToActAt = Callable[[int], Awaitable[Sequence[int]]]


async def derive(
    record: MatchRecord, events: Sequence[StoredEvent], to_act_at: ToActAt
) -> list[Webhook]:
    """The webhooks ``events`` (of ``record``'s match, in order) call for, version by version."""
    hooks: list[Webhook] = []
    for version, group in _by_version(events):
        at_ms = int(group[0].event_id.split("-")[0])
        kinds = {event.kind for event in group}
        for event in group:
            if event.kind == Kind.ANNOUNCEMENT and "reclaimed" in event.data:
                seat = int(event.data["reclaimed"])
                hooks.append(_made(record, WebhookType.SEAT_RECLAIMED, version, at_ms, seat))
        if Kind.FINISHED in kinds:
            if any(_cancelled(event) for event in group):
                for seat in _timed_out(group):
                    hooks.append(_made(record, WebhookType.ABANDONED, version, at_ms, seat))
            hooks.append(_made(record, WebhookType.FINISHED, version, at_ms))
        elif kinds & _TURN_EVENTS:
            for seat in await to_act_at(version):
                hooks.append(_made(record, WebhookType.YOUR_TURN, version, at_ms, seat))
    return hooks


def _made(
    record: MatchRecord, kind: WebhookType, version: int, at_ms: int, seat: int | None = None
) -> Webhook:
    """A webhook of the match, its id made of what it tells (the same every time)."""
    suffix = "" if seat is None else f".{seat}"
    hook_id = f"msg_{record.match_id}.{version}.{kind.value}{suffix}"
    return Webhook(hook_id, kind.value, record.match_id, record.game, version, at_ms, seat)


def _by_version(events: Sequence[StoredEvent]) -> list[tuple[int, list[StoredEvent]]]:
    groups: list[tuple[int, list[StoredEvent]]] = []
    for event in events:
        if groups and groups[-1][0] == event.version:
            groups[-1][1].append(event)
        else:
            groups.append((event.version, [event]))
    return groups


def from_fields(fields: dict[str, Any]) -> Webhook:
    return Webhook(**fields)


def _cancelled(event: StoredEvent) -> bool:
    return event.kind == Kind.FINISHED and bool(event.data.get("outcome", {}).get("cancelled"))


def _timed_out(group: Sequence[StoredEvent]) -> list[int]:
    """The seats whose clock ran out in this version (who abandoned a cancelled match)."""
    return [int(event.data["seat"]) for event in group if event.kind == Kind.TIMED_OUT]
