"""``serai bot``: a bot joins a seat of a match on a running server and plays it to the end.

    serai bot --game jaipur --strategy greedy --server localhost:50051 --create
    serai bot --strategy search --server localhost:50051 --match MATCH_ID
    serai bot --policy my_agent:policy --server localhost:50051 --match MATCH_ID
    serai bot --game nile --strategy search --iterations 60 --server localhost:50051 --create
    serai bot --game jaipur --queue --player-token T --matches 3 --api-key K


With ``--create`` the bot creates the match, prints its id (for another player to join) and
waits for the other seats; with ``--match`` it joins the lowest free seat (or ``--seat``).
With ``--queue`` it waits in the game's queue (rated with ``--player-token``, the JWT the app
signed for the player; ``--pool casual`` without one) and plays each match the server seats it
in, ``--matches`` of them, then prints its rating.
``--policy package.module:function`` plays a policy function (view, legal moves -> move; see
``serai_client.policy``) instead of a built-in strategy: a trained agent, with no new code.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from serai.api import match_service_pb2 as pb

from serai_client.bots import Strategy, make_strategy, play_seat, strategy_names
from serai_client.client import SeraiClient
from serai_client.commands import (
    add_api_key_argument,
    add_connect_timeout_argument,
    add_game_argument,
    strategies_help,
)
from serai_client.commands.messages import error_text, unknown_game
from serai_client.errors import SeraiError
from serai_client.policy import PolicyStrategy, load_policy
from serai_client.reachability import StatusLine, reachable_client
from serai_client.types import Snapshot

CONNECT_TIMEOUT = 60.0
"""Seconds a bot tries to reach its server before it gives up: a script must not hang for ever."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bot",
        help="let a bot play a seat of a match",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_argument(parser)
    parser.add_argument(
        "--strategy",
        choices=strategy_names(),
        default="random",
        help=f"how the bot plays ({strategies_help()}); with --match, the match's game counts",
    )
    parser.add_argument(
        "--policy",
        metavar="MODULE:FUNCTION",
        help="play this policy function (view, legal moves -> move) instead of --strategy",
    )
    parser.add_argument(
        "--server", default="localhost:50051", help="HOST:PORT of the server (localhost:50051)"
    )
    add_api_key_argument(parser)
    add_connect_timeout_argument(parser, CONNECT_TIMEOUT)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--match", metavar="ID", help="join this match")
    where.add_argument("--create", action="store_true", help="create a new match and join it")
    where.add_argument(
        "--queue",
        action="store_true",
        help="wait in the game's matchmaking queue and play the matches it seats the bot in",
    )
    parser.add_argument(
        "--player-token",
        default=os.environ.get("SERAI_PLAYER_TOKEN", ""),
        help="with --queue: the JWT the app signed naming the player the bot plays as (needed "
        "for the rated pool; env SERAI_PLAYER_TOKEN)",
    )
    parser.add_argument(
        "--pool",
        choices=("rated", "casual"),
        default="rated",
        help="with --queue: the rated pool (moves ratings; needs --player-token) or casual",
    )
    parser.add_argument(
        "--matches", type=int, default=1, help="with --queue: how many matches to play (1)"
    )
    parser.add_argument(
        "--as-bot",
        action="store_true",
        help="with --queue: say the player is a bot (rated on the bots' leaderboard)",
    )
    parser.add_argument("--seat", type=int, help="the seat to claim (default: lowest free)")
    parser.add_argument(
        "--seats", type=int, help="seats of a created match (2), or of the queue's matches"
    )
    parser.add_argument("--seed", type=int, help="the bot's seed (and a created match's)")
    parser.add_argument("--name", help="the player name shown to others")
    parser.add_argument("--poll", type=float, help="poll every N seconds instead of watching")
    parser.add_argument("--iterations", type=int, help="search: iterations per move")
    parser.add_argument("--time-limit", type=float, help="search: seconds per move at most")
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="print only the id of a match it created (the other players need it) and the result",
    )
    parser.set_defaults(run=run)


def strategy_options(args: argparse.Namespace) -> dict[str, object]:
    options: dict[str, object] = {}
    if args.strategy == "search":
        if args.iterations is not None:
            options["iterations"] = args.iterations
        if args.time_limit is not None:
            options["time_limit"] = args.time_limit
    return options


def run(args: argparse.Namespace) -> int:
    if unknown := unknown_game(args.game):  # a misspelt --game: said before any connection
        print(f"serai bot: {unknown}", file=sys.stderr)
        return 2
    policy: Strategy | None = None
    if args.policy:
        try:
            policy = PolicyStrategy(args.policy.rpartition(":")[2], load_policy(args.policy))
        except ValueError as error:
            print(f"serai bot: {error}", file=sys.stderr)
            return 2
    name = args.name or f"{policy.name if policy else args.strategy}-bot"
    say = StatusLine(prefix="serai bot: ")
    try:
        with reachable_client(
            args.server, say, api_key=args.api_key, connect_timeout=args.connect_timeout
        ) as client:
            # The strategy plays the match's game: a joined match's own, else --game.
            game = client.get_match(args.match).game if args.match else args.game
            try:
                strategy = policy or make_strategy(
                    args.strategy, game, args.seed, **strategy_options(args)
                )
            except ValueError as error:
                print(f"serai bot: {unknown_game(game) or error}", file=sys.stderr)
                return 2
            if args.queue:
                return play_queue(client, args, strategy, name)
            match_id = args.match
            if args.create:
                match = client.create_match(args.game, seats=args.seats or 2, seed=args.seed)
                match_id = match.match_id
                # --quiet: the bare id, for a script's $(...); the other players need it
                print(match_id if args.quiet else f"created match {match_id}", flush=True)
            seat = client.join(match_id, seat=args.seat, player_name=name)
            if not args.quiet:
                print(f"{name} plays seat {seat.seat} of {seat.game} match {match_id}", flush=True)

            def report(snapshot: Snapshot, label: str) -> None:
                if not args.quiet:
                    print(f"  v{snapshot.version}: {label}", flush=True)

            final = play_seat(client, seat, strategy, poll=args.poll, on_move=report)
    except SeraiError as error:
        print(f"serai bot: {error_text(error)}", file=sys.stderr)
        return 1
    outcome = final.outcome
    print(outcome.summary if outcome else "the match ended")
    return 0


def play_queue(client: SeraiClient, args: argparse.Namespace, strategy: Strategy, name: str) -> int:
    """``--queue``: ``--matches`` matches from the game's queue, one after the other, then the
    bot's rating (SeraiError is the caller's to report)."""
    if args.pool == "rated" and not args.player_token:
        print("serai bot: the rated queue needs --player-token (or --pool casual)", file=sys.stderr)
        return 2
    played: list[str] = []
    for number in range(1, args.matches + 1):
        queued = client.join_queue(
            args.game,
            seats=args.seats or 0,
            pool=args.pool,
            player_token=args.player_token,
            player_name=name,
            bot=args.as_bot,
        )
        seat = queued.seat
        played.append(seat.match_id)
        if not args.quiet:
            rated = "rated" if queued.rated else "casual"
            print(f"match {number}: seat {seat.seat} of {rated} match {seat.match_id}", flush=True)
        final = play_seat(client, seat, strategy, poll=args.poll)
        outcome = final.outcome
        print(f"match {number}: {outcome.summary if outcome else 'the match ended'}", flush=True)
    if args.player_token and args.pool == "rated":
        rating = settled_rating(client, args, played)
        print(
            f"rating {rating.score:.2f} (mu {rating.mu:.2f}, sigma {rating.sigma:.2f}) after "
            f"{rating.games} rated matches",
            flush=True,
        )
    return 0


RATING_WAIT_SECONDS = 15.0
"""How long the bot waits for the server to rate its last matches (a moment after each ends)."""


def settled_rating(client: SeraiClient, args: argparse.Namespace, played: list[str]) -> pb.Rating:
    """The bot's rating once the server has rated the matches it just played (the server rates
    a finished match shortly after it ends), or as it is after :data:`RATING_WAIT_SECONDS`."""
    deadline = time.monotonic() + RATING_WAIT_SECONDS
    while True:
        got = client.get_rating(args.game, args.player_token, bot=args.as_bot)
        rated_now = {change.match_id for change in got.history}  # the latest ones
        if set(played[-len(got.history) :]) <= rated_now or time.monotonic() > deadline:
            return got.rating
        time.sleep(0.2)
