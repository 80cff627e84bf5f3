"""Picks one legal move step by step, from the paths of choices the server lists with each move.

A Jaipur exchange is one of dozens of moves; as a path ("exchange", "take 2 diamond", "give 2
camel") it is three short choices. Moves that share their first steps share those choices, so
each step lists only the distinct next steps. A move without steps is one step, its label.

Example::

    picker = StepPicker(moves)
    picker.choices()            # ["take one good", "sell", "exchange"]
    picker.pick(2)              # None: a step taken, more to choose
    picker.back()               # one step back
"""

from __future__ import annotations

from serai_client.types import LegalMove, LegalMoves

AS_IS = "(just this)"
"""The choice that plays the move ending at the current step when longer moves also start there."""


def steps_of(move: LegalMove) -> tuple[str, ...]:
    return tuple(move.proto.steps) or (move.label,)


class StepPicker:
    """The path chosen so far through ``moves``, and the choices that can follow it."""

    def __init__(self, moves: LegalMoves) -> None:
        self.moves = moves
        self.path: list[str] = []

    def choices(self) -> list[str]:
        """The distinct next steps after the path, in the order the server listed the moves."""
        depth = len(self.path)
        seen: dict[str, None] = {}
        ends_here = False
        for move in self._under_path():
            steps = steps_of(move)
            if len(steps) == depth:
                ends_here = True
            else:
                seen.setdefault(steps[depth], None)
        return ([AS_IS] if ends_here else []) + list(seen)

    def pick(self, index: int) -> LegalMove | None:
        """Take choice ``index`` (0-based): the move, once the path names exactly one; else
        None with the step added to the path. IndexError for a number not on the list."""
        choices = self.choices()
        if not 0 <= index < len(choices):
            raise IndexError(index)
        if choices[index] == AS_IS:
            return self._ending(self.path)
        path = [*self.path, choices[index]]
        under = [m for m in self.moves.moves if steps_of(m)[: len(path)] == tuple(path)]
        if len(under) == 1 and len(steps_of(under[0])) == len(path):
            return under[0]
        self.path = path
        return None

    def back(self) -> bool:
        """One step back; False when there was none to take back."""
        if not self.path:
            return False
        self.path.pop()
        return True

    def _under_path(self) -> list[LegalMove]:
        prefix = tuple(self.path)
        return [m for m in self.moves.moves if steps_of(m)[: len(prefix)] == prefix]

    def _ending(self, path: list[str]) -> LegalMove:
        return next(m for m in self.moves.moves if steps_of(m) == tuple(path))
