"""The seats a person holds at the terminal, kept in files so that leaving does not lose them.

``serai play`` keeps each seat's token (as the web client keeps it in the browser's storage), so
a person who presses Ctrl-C, or whose terminal closes, comes back to the same seat with
``serai play --server HOST:PORT --match ID --seat N``. A token acts for its seat: each file is
readable by its owner only, in ``$XDG_STATE_HOME/serai/seats`` (``~/.local/state/serai/seats``),
or ``$SERAI_SEATS_DIR``; a finished match's file is removed.

Example::

    kept = KeptSeats()
    kept.save("localhost:50051", seat)
    seat = kept.find("localhost:50051", match_id, seat=1)   # None when none is kept
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from serai_client.types import SeatHandle

FOLDER_VARIABLE = "SERAI_SEATS_DIR"


def default_folder() -> Path:
    """``$SERAI_SEATS_DIR``, else ``$XDG_STATE_HOME/serai/seats``, else under ~/.local/state."""
    given = os.environ.get(FOLDER_VARIABLE)
    if given:
        return Path(given)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "serai" / "seats"


class KeptSeats:
    """One file per (server, match, seat); the names are hashes, so no id becomes a path."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_folder()

    def save(self, server: str, seat: SeatHandle) -> Path:
        """Keep ``seat`` (its token included), readable by this user only."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self._path(server, seat.match_id, seat.seat)
        record = {
            "server": server,
            "match_id": seat.match_id,
            "seat": seat.seat,
            "token": seat.token,
            "game": seat.game,
            "player_name": seat.player_name,
        }
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(record, file)
        return path

    def find(self, server: str, match_id: str, seat: int | None = None) -> SeatHandle | None:
        """The kept seat of the match (``seat``, or the only one kept there); None if none is,
        or if several are and ``seat`` does not say which."""
        if seat is not None:
            return self._read(self._path(server, match_id, seat))
        found = [
            handle
            for path in sorted(self.folder.glob(f"{self._prefix(server, match_id)}-*.json"))
            if (handle := self._read(path)) is not None
        ]
        return found[0] if len(found) == 1 else None

    def forget(self, server: str, match_id: str, seat: int) -> None:
        self._path(server, match_id, seat).unlink(missing_ok=True)

    def _read(self, path: Path) -> SeatHandle | None:
        try:
            record = json.loads(path.read_text("utf-8"))
            return SeatHandle(
                match_id=str(record["match_id"]),
                seat=int(record["seat"]),
                token=str(record["token"]),
                game=str(record["game"]),
                player_name=str(record.get("player_name", "")),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # none kept, or a file we cannot use: join as if none were

    def _prefix(self, server: str, match_id: str) -> str:
        return hashlib.sha256(f"{server}\n{match_id}".encode()).hexdigest()[:32]

    def _path(self, server: str, match_id: str, seat: int) -> Path:
        return self.folder / f"{self._prefix(server, match_id)}-{seat}.json"
