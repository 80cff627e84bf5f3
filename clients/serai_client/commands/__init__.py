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


def default_game() -> str:
    """The game a command plays when none is named: the first installed one, by name (the SDK
    knows no game; the installed plugins say which there are)."""
    from serai import registry

    names = sorted(registry.load().games)
    return names[0] if names else ""


def add_game_argument(parser: argparse.ArgumentParser, *, positional: bool = False) -> None:
    """The game to play, by name, defaulting to :func:`default_game`."""
    fallback = default_game()
    help_text = f"the game (default: the first installed, {fallback or 'none installed'})"
    if positional:
        parser.add_argument("game", nargs="?", default=fallback, help=help_text)
    else:
        parser.add_argument("--game", default=fallback, help=help_text)


def strategies_help() -> str:
    """Which installed games each bot strategy plays, by title, for a command's help."""
    from serai import registry

    from serai_client.bots import GENERIC, SEARCH, strategies_for, strategy_names

    games = sorted(registry.load().games.items())

    def titles(strategy: str) -> str:
        named = [game.info.title for name, game in games if strategy in strategies_for(name, game)]
        return ", ".join(named) or "no installed game"

    said = []
    for strategy in strategy_names():
        if strategy in GENERIC:
            said.append(f"{strategy} plays any game")
        elif strategy == SEARCH:
            said.append(
                f"{strategy} plays any game that can deal the unseen cards ({titles(strategy)})"
            )
        else:
            said.append(f"{strategy} plays {titles(strategy)}")
    return "; ".join(said)


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
