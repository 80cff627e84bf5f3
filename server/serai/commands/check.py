"""``serai check GAME``: the secrecy and contract check any installed game plugin gets for free.

Random playouts from many seeds; at every position, for every seat and the spectator, worlds
that observer cannot tell apart are sampled with the game's own ``determinize(view, rng)``, and
everything the observer could receive must be byte-identical between them: the spectator's
view, its legal moves (ids, labels, payload bytes), whose turn it is, the label and announcements
of the next move, and the error texts of probe moves. determinize itself must reproduce the view
and must not just hand back the true state. The contract checks run alongside: listed moves
apply, unlisted ones are refused with IllegalMove, apply never mutates its input, states
round-trip through their bytes, the same seed gives the same bytes, legal moves are listed once
each in a deterministic order, seats not to act have none, moves round-trip through protobuf.

The re-deal checks do not trust the view: the framework deals worlds itself, from other seeds (or
the game's own redeal(state, seat, rng) of the true deal, where it declares one) with the same
moves replayed, and keeps, for each seat and the spectator, those where what the rules
showed it so far (the game's observation(state, seat), gathered move by move) is the same as in
the true match; there its view, legal moves, whose turn it is, each move's label and
announcements, and the error texts of probe moves must be byte-identical. A game that declares no
observation has its view stand in for it, so a leak inside the view goes unseen (the report says
so). A game without determinize gets the contract and re-deal checks only. The report names
each check, passed or failed, with the first counterexample (seed, player count, moves played,
observer); a developer's tool, it prints hidden state. Exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import sys

from serai import registry
from serai.checking import Settings, check_game
from serai.game import GameError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    defaults = Settings()
    parser = subparsers.add_parser(
        "check",
        help="check a game plugin's secrecy and contract over random playouts",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", metavar="GAME", help="an installed game's name (see serai games)")
    parser.add_argument(
        "--seeds",
        type=_positive,
        default=defaults.seeds,
        help=f"playouts to run, one per seed (default {defaults.seeds})",
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=defaults.first_seed,
        help="the seed of the first playout; the others follow it (default 0). A counterexample's "
        "seed with --seeds 1 replays it",
    )
    parser.add_argument(
        "--moves",
        type=_positive,
        default=defaults.moves,
        help=f"the most moves of one playout; it stops earlier when the match ends "
        f"(default {defaults.moves})",
    )
    parser.add_argument(
        "--players",
        type=_positive,
        default=None,
        help="seats in every playout (default: each count the game takes, in turn)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a match option for every playout, as CreateMatch takes it; repeat for more",
    )
    parser.add_argument(
        "--worlds",
        type=_positive,
        default=defaults.worlds,
        help=f"worlds determinize samples per observer and position (default {defaults.worlds})",
    )
    parser.add_argument(
        "--sample",
        type=_positive,
        default=defaults.sample,
        help=f"listed moves tried per acting seat and position (default {defaults.sample})",
    )
    parser.add_argument(
        "--redeals",
        type=_positive,
        default=defaults.redeals,
        help=f"worlds dealt from other seeds per playout (a game with its own redeal: that many "
        f"shared by the observers), the playout's moves replayed in each, for the re-deal checks "
        f"(default {defaults.redeals})",
    )
    parser.add_argument(
        "--every",
        type=_positive,
        default=defaults.every,
        help="check every n-th position of a playout, for a quicker look (default 1: all)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress lines on standard error, only the report"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = registry.load()
    try:
        game = loaded.get(args.game)
    except KeyError as error:
        print(f"serai check: {error.args[0]}", file=sys.stderr)
        return 2
    options: dict[str, str] = {}
    for given in args.option:
        name, equals, value = given.partition("=")
        if not equals or not name:
            print(f"serai check: --option takes NAME=VALUE, not {given!r}", file=sys.stderr)
            return 2
        options[name] = value
    settings = Settings(
        seeds=args.seeds,
        first_seed=args.first_seed,
        moves=args.moves,
        players=args.players,
        options=options,
        worlds=args.worlds,
        sample=args.sample,
        every=args.every,
        redeals=args.redeals,
    )
    try:
        game.resolve_options(options)
        if args.players is not None:
            game.check_players(args.players)
    except GameError as error:
        print(f"serai check: {error}", file=sys.stderr)
        return 2

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report = check_game(game, settings, None if args.quiet else progress)
    print(report.render())
    return 1 if report.failed else 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value
