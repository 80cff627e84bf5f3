"""``serai arena``: bots play each other through a server; wins, margins and Elo.

    serai arena --game jaipur --bots random,greedy,search --matches 200 --seed 1
    serai arena --game jaipur --bots random,greedy --matches 50 --server HOST:PORT --json
    serai arena --game jaipur --bots greedy --policy mine=my_agent:policy --matches 20
    serai arena --game jaipur --bots greedy,search --matches 100 --duplicate
    serai arena --game sobek --bots random,simple,search@20,search@200 --matches 20
    serai arena --game nile --bots simple,search --seats 3 --matches 30 --duplicate

Each pairing plays ``--matches`` matches, seats taking turns; the same ``--seed`` gives the same
matches. With ``--seats N`` the second bot of a pairing plays every seat but the first bot's.
``--duplicate`` plays each deal once per seat, the seats rotated, so that the deal's luck cancels;
each such series counts as one result in the ratings. Without ``--server`` a private server runs
for the length of the arena. The search bot uses an iteration budget here (``--iterations``, no
time limit) so that results reproduce.
``--policy NAME=package.module:function`` (repeatable) adds an entrant called NAME that plays a
policy function (view, legal moves -> move; see ``serai_client.policy``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from serai_client.arena import (
    MatchResult,
    iterations_of,
    pairings,
    ratings,
    report,
    run_arena,
    strategy_of,
    summarize,
)
from serai_client.bots import SEARCH, make_strategy, strategy_names
from serai_client.client import SeraiClient
from serai_client.commands import (
    add_api_key_argument,
    add_connect_timeout_argument,
    add_game_argument,
    strategies_help,
)
from serai_client.commands.messages import error_text, unknown_game
from serai_client.commands.play import server_target
from serai_client.errors import SeraiError
from serai_client.policy import PolicyFunction, load_policy
from serai_client.reachability import StatusLine, reachable_client
from serai_client.words import plural

CONNECT_TIMEOUT = 60.0
"""Seconds the arena tries to reach a --server before it gives up: a script must not hang."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "arena",
        help="let bots play each other and rate them",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_argument(parser)
    parser.add_argument(
        "--bots",
        default="random,random",
        help=f"comma-separated strategies, two or more of: {', '.join(strategy_names())} "
        f"({strategies_help()}); one named again plays as another entrant (random,random: two "
        "random bots); search@N is the search bot at N iterations a move (search@20,search@200: "
        "two budgets in one run)",
    )
    parser.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="NAME=MODULE:FUNCTION",
        help="an entrant NAME playing a policy function (view, legal moves -> move); repeatable",
    )
    parser.add_argument("--matches", type=int, default=10, help="matches per pairing")
    parser.add_argument(
        "--seats",
        type=int,
        default=2,
        help="seats per match (default 2): the first bot of a pairing takes one, the second "
        "bot every other one",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="duplicate deals: each deal played once per seat with the seats rotated, and "
        "scored as one result (--matches must then be a multiple of --seats)",
    )
    parser.add_argument("--server", help="HOST:PORT of a server (default: an embedded one)")
    add_api_key_argument(parser)
    add_connect_timeout_argument(parser, CONNECT_TIMEOUT)
    parser.add_argument("--seed", type=int, default=1, help="arena seed (default: 1)")
    parser.add_argument("--iterations", type=int, default=100, help="search: iterations per move")
    parser.add_argument(
        "--time-limit", type=float, help="search: seconds per move (not reproducible)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    try:
        policies = _policies(args.policy)
    except ValueError as error:
        print(f"serai arena: {error}", file=sys.stderr)
        return 2
    known = strategy_names()
    if len(names) + len(policies) < 2 or any(strategy_of(name) not in known for name in names):
        print(
            f"serai arena: --bots and --policy need two or more entrants; --bots names "
            f"strategies of: {', '.join(known)} (got {args.bots!r})",
            file=sys.stderr,
        )
        return 2
    bots = _entrants(names) + list(policies)
    try:
        for name in set(names):  # before any match: say so now, not after the first ones
            if iterations_of(name) is not None and strategy_of(name) != SEARCH:
                raise ValueError(f"{name!r}: only the search bot takes a budget after @")
            make_strategy(strategy_of(name), args.game)
    except ValueError as error:
        print(f"serai arena: {unknown_game(args.game) or error}", file=sys.stderr)
        return 2
    if args.matches < 1:
        print("serai arena: --matches must be 1 or more", file=sys.stderr)
        return 2
    if args.seats < 2:
        print(f"serai arena: --seats must be 2 or more, not {args.seats}", file=sys.stderr)
        return 2
    if args.duplicate and args.matches % args.seats:
        print(
            f"serai arena: --duplicate plays each deal once per seat: --matches must be a "
            f"multiple of --seats ({args.seats}), not {args.matches}",
            file=sys.stderr,
        )
        return 2
    options = {"search": {"iterations": args.iterations, "time_limit": args.time_limit}}
    total = len(pairings(bots)) * args.matches
    err = Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=args.quiet,
    )
    try:
        with contextlib.ExitStack() as stack:
            target = stack.enter_context(server_target(args.server))
            if args.server:  # a server of someone else's: say so while it cannot be reached
                say = StatusLine(prefix="serai arena: ")
                client = stack.enter_context(
                    reachable_client(
                        target, say, api_key=args.api_key, connect_timeout=args.connect_timeout
                    )
                )
            else:
                client = stack.enter_context(SeraiClient(target, api_key=args.api_key))
            stack.enter_context(progress)
            task = progress.add_task("matches", total=total)

            done: list[MatchResult] = []

            def advance(result: MatchResult) -> None:
                done.append(result)
                progress.update(task, advance=1, description=f"{result.a} v {result.b}")
                if not err.is_terminal and not args.quiet and len(done) % 10 == 0:
                    err.print(f"{len(done)}/{total} matches played")  # for logs

            results = run_arena(
                client,
                args.game,
                bots,
                args.matches,
                args.seed,
                seats=args.seats,
                duplicate=args.duplicate,
                options=options,
                policies=policies,
                on_result=advance,
            )
    except SeraiError as error:
        print(f"serai arena: {error_text(error)}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"serai arena: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report(results, bots, args.seed, args.game), indent=2))
    else:
        print_tables(
            Console(width=None if sys.stdout.isatty() else 110), results, bots, args.seed, args.game
        )
    return 0


def _policies(specs: list[str]) -> dict[str, PolicyFunction]:
    """NAME=module:function pairs, loaded; ValueError for a malformed or clashing one."""
    policies: dict[str, PolicyFunction] = {}
    for spec in specs:
        name, _, target = spec.partition("=")
        name = name.strip()
        if not name or not target or "#" in name:
            raise ValueError(f"--policy takes NAME=package.module:function, not {spec!r}")
        if name in policies or name in strategy_names():
            raise ValueError(f"--policy name {name!r} is taken: give each entrant its own name")
        policies[name] = load_policy(target.strip())
    return policies


def _entrants(names: list[str]) -> list[str]:
    """Each strategy named again becomes another entrant: random, random -> random, random#2."""
    seen: dict[str, int] = {}
    entrants = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        entrants.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return entrants


def print_tables(
    console: Console, results: list[MatchResult], bots: list[str], seed: int, game: str
) -> None:
    title = f"{game}: {plural(len(results), 'match')}, seed {seed}"
    series = len({(r.a, r.b, r.series) for r in results if r.series is not None})
    if series:
        title += f", {plural(series, 'duplicate series')}"
    pairs = Table(title=title, title_justify="left")
    columns = ("a v b", "matches", "a wins", "b wins", "draws", "a win %", "a margin")
    for column in columns:
        pairs.add_column(column, justify="left" if column == "a v b" else "right")
    pairs.add_column("a Elo diff (95% CI)", justify="right")
    for s in summarize(results, bots):
        pairs.add_row(
            f"{s.a} v {s.b}",
            str(s.matches),
            str(s.a_wins),
            str(s.b_wins),
            str(s.draws),
            f"{100 * (s.a_wins + 0.5 * s.draws) / s.matches:.1f}",
            f"{s.a_margin:+.2f}",
            f"{s.elo_diff:+.0f} ({_elo(s.elo_low)} .. {_elo(s.elo_high)})",
        )
    console.print(pairs)
    table = Table(title=f"Elo (Bradley-Terry, {bots[0]} = 0)", title_justify="left")
    for column in ("bot", "Elo", "95% CI", "games", "score"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for rating in ratings(results, bots, seed):
        table.add_row(
            rating.bot,
            f"{rating.elo:+.0f}",
            f"{rating.low:+.0f} .. {rating.high:+.0f}",
            str(rating.games),
            f"{rating.score:g}",
        )
    console.print(table)


def _elo(value: float) -> str:
    """An interval end; a sweep's open end (a score of 0 or 1) is shown as infinite."""
    if abs(value) >= 2000:
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"
