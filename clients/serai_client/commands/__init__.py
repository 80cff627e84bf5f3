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
