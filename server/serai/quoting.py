"""How a message echoes text a client sent: escaped and cut short, since a client may send a
megabyte where a name belongs. Stdlib only, so that the plugin contract (:mod:`serai.game`) and
the core (:mod:`serai.matches`) share it."""

from __future__ import annotations


def quoted(text: str, limit: int = 32) -> str:
    """Client text as an error message may echo it: escaped (``repr``), and cut to its first
    ``limit`` characters, with its length, when longer, so a huge id makes no huge message.

    >>> quoted("x" * 40, 4)
    "'xxxx'… (40 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"
