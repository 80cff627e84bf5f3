"""Words for people, shared by the terminal screen and the commands: counts ("1 match") and
players by name rather than seat number ("ann wins", not "Seat 0 wins")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def plural(count: int, noun: str) -> str:
    """ "1 camel", "2 camels", "0 cards", "3 matches"; a noun already ending in s stays."""
    if count == 1 or noun.endswith("s"):
        return f"{count} {noun}"
    suffix = "es" if noun.endswith(("ch", "sh", "x")) else "s"
    return f"{count} {noun}{suffix}"


def seat_names(seats: Iterable[tuple[str, bool]]) -> list[str]:
    """Each seat as people call it, from (player name, joined) in seat order: the name, with the
    seat's number beside it where two seats share one; "seat N" for a seat no one holds.

    Example: ``seat_names([("ann", True), ("", False)])`` is ``["ann", "seat 1"]``."""
    given = [name if joined else "" for name, joined in seats]
    return [
        f"seat {i}" if not name else (f"{name} (seat {i})" if given.count(name) > 1 else name)
        for i, name in enumerate(given)
    ]


_SEATS = re.compile(r"\b[Ss]eats? (\d+(?:(?:, | and )\d+)*)\b")


def with_names(text: str, names: Sequence[str]) -> str:
    """A game's words with each "seat N" ("Seat 0 wins the match", "seats 0 and 2 share first
    place") as the seats' names; a seat without a name keeps its number. No game code: any
    game's text reads the same way."""

    def named(found: re.Match[str]) -> str:
        seats = [int(n) for n in re.findall(r"\d+", found.group(1))]
        if any(seat >= len(names) or names[seat] == f"seat {seat}" for seat in seats):
            return found.group(0)
        called = [names[seat] for seat in seats]
        return called[0] if len(called) == 1 else ", ".join(called[:-1]) + " and " + called[-1]

    return _SEATS.sub(named, text) if names else text
