"""`serai play`: play a match at the terminal, against a bot or another person.

    serai play jaipur --vs greedy                 # a bot in this process; an embedded server
    serai play nile --vs random --seats 3         # two random bots at a table of three
    serai play jaipur --server HOST:PORT          # create a match, print its id, wait
    serai play jaipur --server HOST:PORT --match ID   # the second person joins it
    serai play jaipur --server HOST:PORT --match ID --seat 1   # back to your seat after leaving
    serai play nile --vs search --option deluxor=true   # options: `serai games --json`
    serai play jaipur --server HOST:PORT --queue --player-token T   # a rated opponent, paired

Without `--server` a private server (with its own Redis) runs for the length of the match.
The screen shows what your seat's view holds (the table, your hand, the others' public state),
the last moves, and your choices, numbered: a move is picked a step at a time (b goes back).
When the match ends, r asks for a rematch (the same players, the first seat rotated: each of
them asks; the bots of --vs do at once) and q quits.
On a --server, your seat's token is kept in a file readable only by you ($SERAI_SEATS_DIR, else
~/.local/state/serai/seats), so Ctrl-C leaves the match without losing the seat: --match ID
(with --seat N) takes you back to it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from collections.abc import Iterator

from rich.console import Console

from serai_client.bots import Strategy, make_strategy, play_seat, strategy_names
from serai_client.client import SeraiClient
from serai_client.commands import (
    add_api_key_argument,
    add_connect_timeout_argument,
    add_game_argument,
    strategies_help,
)
from serai_client.commands.messages import error_text, unknown_game
from serai_client.errors import PermissionDeniedError, SeraiError
from serai_client.kept_seats import KeptSeats
from serai_client.player import ConsoleInput, TerminalDisplay, TerminalPlayer, result_line
from serai_client.reachability import StatusLine, reachable_client
from serai_client.types import SeatHandle


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a match at the terminal",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_argument(parser, positional=True)
    parser.add_argument(
        "--vs",
        choices=strategy_names(),
        help=f"play against this bot: {strategies_help()}",
    )
    parser.add_argument("--server", help="HOST:PORT of a server (default: an embedded one)")
    add_api_key_argument(parser)
    add_connect_timeout_argument(parser, None)
    parser.add_argument(
        "--match",
        metavar="ID",
        help="join this match instead of creating one (or come back to your seat in it)",
    )
    parser.add_argument(
        "--seat",
        type=int,
        help="the seat to claim, or to come back to (default: the one you left, else the "
        "lowest free)",
    )
    parser.add_argument(
        "--seats", type=int, default=2, help="seats of a created match (default: 2)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option of a created match (repeat for more)",
    )
    parser.add_argument("--seed", type=int, help="seed of a created match (and of the bot)")
    parser.add_argument("--name", default="you", help="your player name")
    parser.add_argument(
        "--queue",
        action="store_true",
        help="with --server: wait in the game's matchmaking queue for opponents (--seats, "
        "--option) instead of creating or joining a match",
    )
    parser.add_argument(
        "--player-token",
        default=os.environ.get("SERAI_PLAYER_TOKEN", ""),
        help="with --queue: the JWT your app signed naming you (needed for the rated pool; "
        "env SERAI_PLAYER_TOKEN)",
    )
    parser.add_argument(
        "--pool",
        choices=("rated", "casual"),
        default="rated",
        help="with --queue: rated (moves ratings; needs --player-token) or casual",
    )
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


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``["rounds=3"]`` as ``{"rounds": "3"}``; ValueError naming a pair without "="."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise ValueError(f"--option takes KEY=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


class _Say:
    """Where the connection's state goes: stderr until the player's screen is up, then there."""

    def __init__(self) -> None:
        self.line = StatusLine(prefix="serai play: ")
        self.player: TerminalPlayer | None = None

    def close(self) -> None:
        self.line.close()

    def __call__(self, text: str) -> None:
        if self.player is not None:
            self.player.say(text)
        else:
            self.line(text)


def run(args: argparse.Namespace) -> int:
    if args.match and args.vs:
        print("serai play: --vs starts a new match; leave out --match", file=sys.stderr)
        return 2
    if args.queue and (args.vs or args.match or not args.server):
        print("serai play: --queue needs --server, and no --vs or --match", file=sys.stderr)
        return 2
    if not args.server and not args.vs:
        print(
            "serai play: with no --server, play against a bot "
            f"(--vs {'|'.join(strategy_names())}); to play another person, both connect to one "
            "server with --server",
            file=sys.stderr,
        )
        return 2
    try:
        options = parse_options(args.option)
        bots = [
            make_strategy(args.vs, args.game, None if args.seed is None else args.seed + i)
            for i in range(args.seats - 1 if args.vs else 0)
        ]
    except ValueError as error:
        print(f"serai play: {unknown_game(args.game) or error}", file=sys.stderr)
        return 2
    if not args.server and unknown_game(args.game):  # the embedded server plays these games
        print(f"serai play: {unknown_game(args.game)}", file=sys.stderr)
        return 2
    console = Console()
    kept = KeptSeats() if args.server else None  # an embedded server's match ends with us
    say = _Say()
    with contextlib.ExitStack() as stack:
        target = stack.enter_context(server_target(args.server))
        try:
            if args.server:
                client = stack.enter_context(
                    reachable_client(
                        target, say, api_key=args.api_key, connect_timeout=args.connect_timeout
                    )
                )
            else:
                client = stack.enter_context(SeraiClient(target, api_key=args.api_key))
            seat = _seat(client, kept, target, args, options, console)
            match_id = seat.match_id
            if kept is not None:
                kept.save(target, seat)
            bot_seats = [client.join(match_id, player_name=f"{args.vs}-bot") for _ in bots]
        except SeraiError as error:
            print(f"serai play: {error_text(error)}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            say.close()
            return 130
        _start_bots(target, args.api_key, bot_seats, bots)
        inputs, display = ConsoleInput(console), TerminalDisplay(console)
        player = TerminalPlayer(
            client, seat, inputs, display, seed_is_yours=args.seed is not None and not args.match
        )
        say.player = player
        console.set_alt_screen(True)
        try:
            while True:
                final = player.run()
                if not final.finished or not player.wants_rematch(final):
                    break
                # each player asks for it; the bots of this program too
                seat = _rematch(client, kept, target, seat)
                bot_seats = [client.rematch(bot_seat) for bot_seat in bot_seats]
                _start_bots(target, args.api_key, bot_seats, bots)
                player = TerminalPlayer(client, seat, inputs, display, rematch=True)
                say.player = player
        except SeraiError as error:
            console.set_alt_screen(False)
            print(f"serai play: {error_text(error)}", file=sys.stderr)
            return 1
        except (EOFError, KeyboardInterrupt):
            console.set_alt_screen(False)
            print(f"serai play: {left_message(args, target, seat)}", file=sys.stderr)
            return 130
        console.set_alt_screen(False)
        say.player = None
        if final.finished and kept is not None:
            kept.forget(target, seat.match_id, seat.seat)
        summary = result_line(final, seat.seat) or left_message(args, target, seat)
        console.print(f"{final.game} match {final.match_id}: {summary}")
    return 0


def _seat(
    client: SeraiClient,
    kept: KeptSeats | None,
    target: str,
    args: argparse.Namespace,
    options: dict[str, str],
    console: Console,
) -> SeatHandle:
    """This person's seat: from the queue (--queue), in the match named (--match), or in a new
    match (whose id the other player needs)."""
    if args.queue:
        console.print(f"waiting in the {args.pool} {args.game} queue...")
        queued = client.join_queue(
            args.game,
            seats=args.seats,
            options=options,
            pool=args.pool,
            player_token=args.player_token,
            player_name=args.name,
        )
        return queued.seat
    match_id = args.match
    if match_id is None:
        created = client.create_match(args.game, seats=args.seats, options=options, seed=args.seed)
        match_id = created.match_id
        if not args.vs:
            console.print(f"created match [bold]{match_id}[/]: the other player runs")
            console.print(f"  serai play {args.game} --server {target} --match {match_id}")
    return _take_seat(client, kept, target, match_id, args)


def _take_seat(
    client: SeraiClient,
    kept: KeptSeats | None,
    target: str,
    match_id: str,
    args: argparse.Namespace,
) -> SeatHandle:
    """The seat this person left in the match (its kept token still works), else a new one."""
    held = kept.find(target, match_id, args.seat) if kept is not None else None
    if held is not None and kept is not None:
        try:
            client.get_match(held)
        except PermissionDeniedError as error:
            kept.forget(target, match_id, held.seat)
            print(
                f"serai play: the token kept for seat {held.seat} no longer works ({error}); "
                "joining afresh",
                file=sys.stderr,
            )
        else:
            print(f"serai play: back to seat {held.seat} of match {match_id}", file=sys.stderr)
            return held
    return client.join(match_id, seat=args.seat, player_name=args.name)


def left_message(args: argparse.Namespace, target: str, seat: SeatHandle) -> str:
    """What leaving means: on a server, the seat is kept and how to come back; else the match
    ends with this program, whose own server played it."""
    if not args.server:
        return "you left; the match ended with this program (it ran its own server)"
    back = f"serai play {seat.game} --server {target} --match {seat.match_id} --seat {seat.seat}"
    return f"you left the match; it goes on and your seat is kept: come back with\n  {back}"


def _rematch(
    client: SeraiClient, kept: KeptSeats | None, target: str, seat: SeatHandle
) -> SeatHandle:
    """This person's seat in the rematch of ``seat``'s finished match (kept, as a seat is)."""
    again = client.rematch(seat)
    if kept is not None:
        kept.forget(target, seat.match_id, seat.seat)
        kept.save(target, again)
    return again


def _start_bots(
    target: str, api_key: str, seats: list[SeatHandle], strategies: list[Strategy]
) -> None:
    for bot_seat, bot in zip(seats, strategies, strict=False):
        threading.Thread(
            target=_bot, args=(target, api_key, bot_seat, bot), daemon=True, name="bot"
        ).start()


def _bot(target: str, api_key: str, seat: SeatHandle, strategy: Strategy) -> None:
    """An in-process bot, on its own connection; it ends quietly when the program does."""
    with (
        contextlib.suppress(SeraiError, ValueError),
        SeraiClient(target, api_key=api_key) as client,
    ):
        play_seat(client, seat, strategy)
