"""The public event vocabulary: what a match's stream says happened, named once.

Each kind is a :class:`Kind` member, and each has one constructor here that the lifecycle calls
instead of spelling the kind and its data. The strings are a stored and wire format (the store
gives each known kind one byte, in :data:`serai.store.redis.encoding.KIND_CODES`; the service
and the clients read them), so they never change. A constructor puts the plain ``str`` value in the
event, not the member: the store looks kinds up on every move, and a plain string hashes faster.

Example::

    events = [events.moved(0, "take 2 spice"), events.finished(outcome)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from enum import StrEnum
from typing import Any

from serai.game import Announcement, Private, Seat
from serai.store import NewEvent, StoredEvent


class Kind(StrEnum):
    """An event's kind, as stored and as sent."""

    CREATED = "created"
    """The match was made: ``{"game": name, "seats": n}``."""
    JOINED = "joined"
    """A seat was claimed: ``{"seat": n, "name": text}``."""
    STARTED = "started"
    """Every seat is taken; the match runs."""
    MOVE = "move"
    """A seat moved: ``{"seat": n, "label": text}``."""
    ANNOUNCEMENT = "announcement"
    """The game says something: ``{"text": text}`` to everyone; or, addressed to some seats
    alone, ``{"text": what the others read, "to": [seats], "told": what those seats read}``, which
    leaves the core only as :func:`seen_by` makes it for one watcher. serai says something too,
    with ``"reclaimed": seat`` when the seat's player came back on another device (ReclaimSeat)."""
    RESIGNED = "resigned"
    """A seat resigned: ``{"seat": n}``."""
    TIMED_OUT = "timed_out"
    """A seat ran out of time: ``{"seat": n}``, with ``"move"`` when its default move was played."""
    FINISHED = "finished"
    """The match is over: ``{"outcome": {"scores", "ranks", "summary"}}``."""


_CREATED = Kind.CREATED.value
_JOINED = Kind.JOINED.value
_STARTED = Kind.STARTED.value
_MOVE = Kind.MOVE.value
_ANNOUNCEMENT = Kind.ANNOUNCEMENT.value
_RESIGNED = Kind.RESIGNED.value
_TIMED_OUT = Kind.TIMED_OUT.value
_FINISHED = Kind.FINISHED.value


def created(game: str, seats: int) -> NewEvent:
    return NewEvent(_CREATED, {"game": game, "seats": seats})


def joined(seat: int, name: str) -> NewEvent:
    return NewEvent(_JOINED, {"seat": seat, "name": name})


def started() -> NewEvent:
    return NewEvent(_STARTED)


def moved(seat: int, label: str) -> NewEvent:
    return NewEvent(_MOVE, {"seat": seat, "label": label})


def announced(text: str) -> NewEvent:
    return NewEvent(_ANNOUNCEMENT, {"text": text})


def reclaimed(seat: int) -> NewEvent:
    """A seat's player took the seat back with a new token (what webhooks tell as
    seat.reclaimed)."""
    text = f"seat {seat}'s player came back on another device"
    return NewEvent(_ANNOUNCEMENT, {"text": text, "reclaimed": seat})


def announcement(said: Announcement) -> NewEvent:
    """What a game's announcement (public text or :class:`Private`) is stored as."""
    if isinstance(said, str):
        return announced(said)
    if not isinstance(said, Private):
        raise TypeError(f"an announcement is a str or a serai.game.Private, not {said!r}")
    return NewEvent(_ANNOUNCEMENT, {"text": said.withheld, "to": list(said.to), "told": said.text})


def seen_by(stored: Iterable[StoredEvent], seat: Seat | None) -> tuple[StoredEvent, ...]:
    """The events as ``seat`` (None: a spectator) may receive them: a private announcement
    keeps what it told only for the seats it was addressed to (``{"text": told, "to": seats}``);
    every other watcher gets ``{"text": what others read, "to": seats, "withheld": True}``. Every
    event that leaves the core for a watcher goes through here."""
    return tuple(_seen(event, seat) if "told" in event.data else event for event in stored)


def _seen(event: StoredEvent, seat: Seat | None) -> StoredEvent:
    data = event.data
    seats = list(data["to"])
    if seat in seats:
        return replace(event, data={"text": data["told"], "to": seats})
    return replace(event, data={"text": data["text"], "to": seats, "withheld": True})


def resigned(seat: int) -> NewEvent:
    return NewEvent(_RESIGNED, {"seat": seat})


def timed_out(seat: int, move: str | None = None) -> NewEvent:
    """``move``: the label of the default move played for the seat (None: the seat lost)."""
    return NewEvent(_TIMED_OUT, {"seat": seat} if move is None else {"seat": seat, "move": move})


def finished(outcome: Mapping[str, Any]) -> NewEvent:
    return NewEvent(_FINISHED, {"outcome": outcome})
