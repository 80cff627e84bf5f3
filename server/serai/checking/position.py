"""One position of a playout, as every check sees it, and the small helpers they share.

A position names itself for a counterexample ("seed 3, 2 players, after 17 moves") so that a
failure can be replayed with ``serai check GAME --first-seed 3 --seeds 1 --players 2``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from serai.game import Game, IllegalMove, Seat
from serai.presentation import presentation

AnyGame = Game[Any, Any, Any]
Observer = Seat | None


@dataclass
class Position:
    """A state reached by a random playout, with what the checks need to know about it."""

    game: AnyGame
    seed: int
    players: int
    ply: int
    state: Any
    probes: list[Any] = field(default_factory=list)
    """Moves to submit as probes: listed at the previous position, for other seats, defaults."""

    def where(self, observer: Observer = None, *, seat: Seat | None = None) -> str:
        """The position in words; with ``seat``, a seat's own move; else as ``observer`` sees it."""
        text = (
            f"{self.game.info.name}, seed {self.seed}, {self.players} players, "
            f"after {self.ply} moves"
        )
        if seat is not None:
            return f"{text}, seat {seat} to move"
        return f"{text}, as {who(observer)} sees it"


def who(observer: Observer) -> str:
    return "the spectator" if observer is None else f"seat {observer}"


def payload(game: AnyGame, move: Any) -> bytes:
    """The move's bytes as a client would send them."""
    return game.move_to_proto(move).SerializeToString(deterministic=True)


def view_bytes(game: AnyGame, state: Any, observer: Observer) -> bytes:
    return game.view_bytes(game.view(state, observer))


def presented(game: AnyGame, view: bytes) -> Message | str:
    """What a client asking for the presentation of the view ``view`` reads (or "raised " and
    the exception the game's ``present`` raised). Messages compare in a fraction of protobuf
    text's time; :func:`as_text` renders one for a finding."""
    try:
        return presentation(game, view)
    except Exception as error:  # a crash in present is a finding, reported as the answer
        return f"raised {type(error).__name__}: {error}"


def as_text(shown: Message | str) -> str:
    """A :func:`presented` answer as protobuf text, for a person reading a finding."""
    return shown if isinstance(shown, str) else text_format.MessageToString(shown)


def steps(game: AnyGame, move: Any) -> tuple[str, ...] | str:
    """The move's ``move_steps`` as a listing sends them (or "raised " and the exception)."""
    try:
        return tuple(game.move_steps(move))
    except Exception as error:
        return f"raised {type(error).__name__}: {error}"


def text_diff(first: str, second: str, limit: int = 12) -> str:
    """The lines of two texts that differ."""
    diff = [
        line
        for line in difflib.unified_diff(
            first.splitlines(), second.splitlines(), "first", "second", n=2, lineterm=""
        )
        if not line.startswith(("---", "+++"))
    ]
    shown = diff[:limit]
    if len(diff) > limit:
        shown.append(f"... and {len(diff) - limit} more differing lines")
    return "\n".join(shown) if shown else "(no line differs)"


def attempt(game: AnyGame, state: Any, seat: Seat, move: Any) -> str:
    """What submitting ``move`` as ``seat`` answers: "accepted", "refused " and the error a
    client reads, or "raised " and an exception the contract does not allow."""
    try:
        game.apply(state, seat, move)
    except IllegalMove as error:
        return f"refused {type(error).__name__}: {error}"
    except Exception as error:  # the contract allows only IllegalMove; report, do not crash
        return f"raised {type(error).__name__}: {error}"
    return "accepted"


def view_diff(game: AnyGame, first: bytes, second: bytes, limit: int = 12) -> str:
    """The two views as protobuf text, the lines that differ (a developer's tool: hidden parts
    are printed on purpose)."""

    def lines(raw: bytes) -> list[str]:
        try:
            message = game.view_message.FromString(raw)
        except Exception:
            return [raw.hex()]
        return text_format.MessageToString(message).splitlines()

    return text_diff("\n".join(lines(first)), "\n".join(lines(second)), limit).replace(
        "(no line differs)", "(the bytes differ, the text does not)"
    )
