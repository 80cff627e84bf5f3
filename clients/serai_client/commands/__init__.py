"""serai subcommands that are clients of a running server."""

from __future__ import annotations

import argparse
import os

API_KEY_VARIABLE = "SERAI_API_KEY"


def add_api_key_argument(parser: argparse.ArgumentParser) -> None:
    """``--api-key``, defaulting to $SERAI_API_KEY (as the Node bot's): the variable keeps the
    key off the command line, which other users of the machine can read."""
    parser.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_VARIABLE, ""),
        metavar="KEY",
        help=f"the app's key, for a server that requires one (default: ${API_KEY_VARIABLE})",
    )


def add_connect_timeout_argument(parser: argparse.ArgumentParser, default: float | None) -> None:
    """``--connect-timeout SECONDS``: how long a command tries to reach the server (at its start,
    or after a drop) before it gives up, exit status 1; 0: for ever."""
    told = "for ever" if default is None else f"{default:g}"
    parser.add_argument(
        "--connect-timeout",
        type=_seconds,
        default=default,
        metavar="SECONDS",
        help=f"give up (exit status 1) when the server cannot be reached for this long, at the "
        f"start or after a drop; 0: keep trying (default: {told})",
    )


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # also NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (0 or more)")
    return seconds
