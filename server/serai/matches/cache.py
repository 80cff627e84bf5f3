"""The in-process cache of decoded states: each match's record with its state decoded (and its
legal moves, once computed), by version, so the hot path decodes nothing while the cached
version is current."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from serai.game import Game, Seat
from serai.store import MatchRecord


@dataclass
class Entry:
    """A record with its state decoded, and the legal moves, views and view bytes computed so
    far at this version (each once, however many answers and watchers share the version)."""

    record: MatchRecord
    game: Game[Any, Any, Any]
    state: Any
    legal: dict[Seat, Sequence[Any]] = field(default_factory=dict)
    views: dict[Seat | None, Any] = field(default_factory=dict)
    view_bytes: dict[Seat | None, bytes] = field(default_factory=dict)
    # what a transport encodes of this version once for every answer and stream (opaque here:
    # e.g. a seat's snapshot message), by the transport's own keys
    wire: dict[Any, bytes] = field(default_factory=dict)
    archived: bool = False  # read from the archive: the store no longer has the match
    # What spectators see at this version when it is delayed (see serai.matches.spectating).
    spectator: Entry | None = field(default=None, compare=False, repr=False)

    def legal_for(self, seat: Seat) -> Sequence[Any]:
        if seat not in self.legal:
            self.legal[seat] = self.game.legal_moves(self.state, seat)
        return self.legal[seat]

    def view_for(self, seat: Seat | None) -> Any:
        """The game's view of the state for ``seat`` (None: a spectator)."""
        views = self.views
        if seat not in views:
            views[seat] = self.game.view(self.state, seat)
        return views[seat]

    def view_bytes_for(self, seat: Seat | None) -> bytes:
        """:meth:`view_for`'s view as the game's View message bytes (``Game.view_bytes``)."""
        found = self.view_bytes.get(seat)
        if found is None:
            found = self.view_bytes[seat] = self.game.view_bytes(self.view_for(seat))
        return found


class Cache:
    """Least recently used entries by match id; a stale one is harmless (commits check versions)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[str, Entry] = OrderedDict()

    def get(self, match_id: str) -> Entry | None:
        entry = self._entries.get(match_id)
        if entry is not None:
            self._entries.move_to_end(match_id)
        return entry

    def put(self, entry: Entry) -> None:
        if self._size <= 0:
            return
        match_id = entry.record.match_id
        known = self._entries.get(match_id)
        if known is not None and known.record.version > entry.record.version:
            return
        self._entries[match_id] = entry
        self._entries.move_to_end(match_id)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def drop(self, match_id: str) -> None:
        self._entries.pop(match_id, None)
