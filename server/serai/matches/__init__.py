"""The match lifecycle: create, join, look, move, resign, watch and replay, over a Store.

This package knows no game in particular (it drives any :class:`serai.game.Game` from a
:class:`serai.registry.Registry`) and nothing of gRPC: it speaks in records, plugin values and one
exception type per failure, which the service maps to status codes.

Example::

    matches = Matches(RedisStore.from_url(url), registry.load())
    record = await matches.create("jaipur", seats=2, seed=7)
    alice = await matches.join(record.match_id)
    bob = await matches.join(record.match_id)
    moves = await matches.legal_moves(record.match_id, alice.token)
    done = await matches.submit(record.match_id, alice.token, move_id=moves.moves[0].id)

Inside: :mod:`.lifecycle` (the :class:`Matches` facade, made of the rooms below),
:mod:`.requests` (the shape of client input), :mod:`.access` (token to seat), :mod:`.events` (the
event vocabulary), :mod:`.planning` (a move or forfeit as a commit, no I/O), :mod:`.entries` (the
cache and the store kept consistent), :mod:`.clocks` (turn clocks), :mod:`.seating` (create,
join), :mod:`.play` (submit, resign), :mod:`.reading` (list, get, legal moves), :mod:`.watching`
(watch), :mod:`.replay` (rebuild from the log), :mod:`.errors` (one exception type per failure),
:mod:`.values` (what it hands the service) and :mod:`.cache` (the decoded states it keeps
in-process).
"""

from __future__ import annotations

from serai.game import IllegalMove, InvalidOptions, MalformedMove, NotPlayable
from serai.matches.errors import (
    BadRequest,
    GameNotFound,
    LimitExceeded,
    MatchError,
    MatchExpired,
    MatchLost,
    MatchNotFound,
    MatchNotRunning,
    MoveNotFound,
    NotYourTurn,
    SeatTaken,
    StaleVersion,
    Unauthenticated,
    WatchBehind,
    WrongToken,
)
from serai.matches.lifecycle import Matches, label_of
from serai.matches.values import (
    Joined,
    LegalMove,
    LegalMoves,
    MatchPage,
    PackedMove,
    ReplayReport,
    Snapshot,
    Submitted,
    WatchBatch,
)
from serai.store import StoreUnavailable

__all__ = [
    "BadRequest",
    "GameNotFound",
    "IllegalMove",
    "InvalidOptions",
    "Joined",
    "LegalMove",
    "LegalMoves",
    "LimitExceeded",
    "MalformedMove",
    "MatchError",
    "MatchExpired",
    "MatchLost",
    "MatchNotFound",
    "MatchNotRunning",
    "MatchPage",
    "Matches",
    "MoveNotFound",
    "NotPlayable",
    "NotYourTurn",
    "PackedMove",
    "ReplayReport",
    "SeatTaken",
    "Snapshot",
    "StaleVersion",
    "StoreUnavailable",
    "Submitted",
    "Unauthenticated",
    "WatchBatch",
    "WatchBehind",
    "WrongToken",
    "label_of",
]
