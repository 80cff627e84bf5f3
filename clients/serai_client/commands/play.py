"""``serai play``: play a match at the terminal, against a bot or another person.

    serai play jaipur --vs greedy                 # a bot in this process; an embedded server
    serai play jaipur --server HOST:PORT          # create a match, print its id, wait
    serai play jaipur --server HOST:PORT --match ID   # the second person joins it

Without ``--server`` a private server (with its own Redis) runs for the length of the match.
You see what your seat's view holds: the market, your hand and herd, your tokens, the
opponent's public state, the log, and the numbered legal moves to choose from.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from collections.abc import Iterator

from rich.console import Console

from serai_client.bots import STRATEGIES, Strategy, make_strategy, play_seat
from serai_client.client import SeraiClient
from serai_client.errors import SeraiError
from serai_client.player import ConsoleInput, play_match
from serai_client.types import SeatHandle


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a match at the terminal",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", nargs="?", default="jaipur", help="the game (default: jaipur)")
    parser.add_argument("--vs", choices=sorted(STRATEGIES), help="play against this bot")
    parser.add_argument("--server", help="HOST:PORT of a server (default: an embedded one)")
    parser.add_argument("--match", metavar="ID", help="join this match instead of creating one")
    parser.add_argument("--seat", type=int, help="the seat to claim (default: lowest free)")
    parser.add_argument("--seed", type=int, help="seed of a created match (and of the bot)")
    parser.add_argument("--name", default="you", help="your player name")
    parser.set_defaults(run=run)


@contextlib.contextmanager
def server_target(server: str | None) -> Iterator[str]:
    """The given server, or an embedded one for the length of the block (logs kept quiet)."""
    if server:
        yield server
        return
    from serai import logging as serai_logging

    from serai_client.local_server import embedded_server

    serai_logging.configure(level="warning", stream=sys.stderr)
    with embedded_server() as target:
        yield target


def run(args: argparse.Namespace) -> int:
    if args.match and args.vs:
        print("serai play: --vs starts a new match; leave out --match", file=sys.stderr)
        return 2
    if not args.server and not args.vs:
        print(
            "serai play: with no --server, play against a bot (--vs random|greedy|search); "
            "to play another person, both connect to one server with --server",
            file=sys.stderr,
        )
        return 2
    console = Console()
    try:
        bot = make_strategy(args.vs, args.game, args.seed) if args.vs else None
    except ValueError as error:
        print(f"serai play: {error}", file=sys.stderr)
        return 2
    with server_target(args.server) as target, SeraiClient(target) as client:
        try:
            match_id = args.match
            if match_id is None:
                match_id = client.create_match(args.game, seed=args.seed).match_id
                if bot is None:
                    console.print(f"created match [bold]{match_id}[/]: the other player runs")
                    console.print(f"  serai play {args.game} --server {target} --match {match_id}")
            seat = client.join(match_id, seat=args.seat, player_name=args.name)
            if bot is not None:
                bot_seat = client.join(match_id, player_name=f"{args.vs}-bot")
        except SeraiError as error:
            print(f"serai play: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
        try:
            if bot is not None:
                threading.Thread(
                    target=_bot, args=(target, bot_seat, bot), daemon=True, name="bot"
                ).start()
            play_match(client, seat, ConsoleInput(console), console)
        except SeraiError:  # play_match has said what it was
            return 1
        except (EOFError, KeyboardInterrupt):
            return 130
    return 0


def _bot(target: str, seat: SeatHandle, strategy: Strategy) -> None:
    """The in-process bot, on its own connection; it ends quietly when the program does."""
    with contextlib.suppress(SeraiError, ValueError), SeraiClient(target) as client:
        play_seat(client, seat, strategy)
