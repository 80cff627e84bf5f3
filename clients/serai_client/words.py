"""Counts in words for people, shared by the terminal screen and the commands: "1 match"."""

from __future__ import annotations


def plural(count: int, noun: str) -> str:
    """ "1 camel", "2 camels", "0 cards", "3 matches"; a noun already ending in s stays."""
    if count == 1 or noun.endswith("s"):
        return f"{count} {noun}"
    suffix = "es" if noun.endswith(("ch", "sh", "x")) else "s"
    return f"{count} {noun}{suffix}"
