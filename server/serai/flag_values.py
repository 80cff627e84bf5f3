"""How ``serai serve`` reads its flags and ``SERAI_*`` values: ports, sizes, origins, booleans.

Each reader refuses a bad value with argparse's one-line error, the same for a flag and for its
environment variable (see :func:`serai.config.add_arguments`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any


def one_of(kind: Callable[[str], Any], choices: Sequence[Any], env: str) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        value = kind(text)
        if value not in choices:
            allowed = ", ".join(map(str, choices))
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {allowed} (flag or {env})")
        return value

    read.__name__ = getattr(kind, "__name__", "value")  # argparse names the type in its errors
    return read


def at_least(least: float, kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """``kind``, refusing values below ``least``."""

    def read(text: str) -> Any:
        value = kind(text)
        if value < least:
            raise argparse.ArgumentTypeError(f"{text}: give {least:g} or more")
        return value

    read.__name__ = kind.__name__
    return read


_SIZE_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2, "g": 1000**3}
_SIZE_UNITS["gb"] = 1024**3


def memory_size(text: str) -> str:
    """ "auto", or a size as Redis reads one (bytes, or 500mb, 2gb; k/m/g are powers of 1000, kb/
    mb/gb of 1024); 0 is no limit. Kept as text (see :func:`memory_bytes`)."""
    size = text.strip().lower()
    if size != "auto" and memory_bytes(size) is None:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give auto, 0 (no limit) or a size such as 1073741824, 512mb or 2gb"
        )
    return size


def memory_bytes(size: str) -> int | None:
    """The bytes of a --redis-maxmemory value; None for "auto" (or a value that is no size)."""
    number = size.rstrip("bkmg")
    unit = size[len(number) :]
    if not number.isdigit() or unit not in _SIZE_UNITS:
        return None
    return int(number) * _SIZE_UNITS[unit]


_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> float:
    """Seconds, given as a number (seconds) or with a unit: 90, 2s, 30m, 1h, 7d, 1.5h."""
    value = text.strip().lower()
    number = value.rstrip("smhd")
    unit = value[len(number) :]
    try:
        seconds = float(number) * _DURATION_UNITS[unit]
    except (ValueError, KeyError):
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a duration such as 90 (seconds), 2s, 30m, 1h or 7d"
        )
    return seconds


def port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a TCP port is a number from 0 to 65535")
    return port


def http_port(text: str) -> int | None:
    """A TCP port, or ``off`` (None): no HTTP server."""
    if text.strip().lower() == "off":
        return None
    return port(text)


def metrics_port(text: str) -> str:
    """Where /metrics is served: ``http`` (on the HTTP port), ``off``, or a TCP port of its
    own (its number, as text)."""
    lowered = text.strip().lower()
    if lowered in ("http", "off"):
        return lowered
    return str(port(text))


def origins(text: str) -> tuple[str, ...]:
    """SERAI_HTTP_ALLOW_ORIGIN's origins, separated by commas or spaces."""
    return tuple(origin for origin in text.replace(",", " ").split() if origin)


def boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: give true or false")


def workers(text: str) -> int:
    count = int(text)
    if count < 0:
        raise argparse.ArgumentTypeError(f"{count}: give 0 (one per CPU core) or more")
    return count
