"""Search strength at Nile and Sobek: the search bot against a simple heuristic, in-process.

Run by hand from the repository root::

    .venv/bin/python benchmarks/strength.py                        # both games, defaults
    .venv/bin/python benchmarks/strength.py --game nile --matches 40 --iterations 100

Each match is played with no server (``serai_client.bots.local.play_local``): every seat sees
the snapshot the server would send it, so the search plays from its own view exactly as over
gRPC. The seats alternate (search at seat 0 in even matches, seat 1 in odd ones); match ``i``
uses seed ``seed + i`` for the deal and for the search. The score is 1 for a win, 0.5 for a
shared first place, 0 for a loss; the interval is the 95% Wilson score interval.

The opponent is the game's ``simple`` bot (the plugin's own strategy, so that ``serai arena``
plays the same one):

- Nile: plant the most cards you can, else speculate, else pass; never trade.
- Sobek: lay the biggest set, else take the first market card; any other decision (a power's
  or an event's question) takes the first legal move, a final set the biggest.

The search runs ``--iterations`` iterations a move with no time limit by default, so that a
figure does not depend on how loaded the machine is (``--time-limit`` adds one).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from serai import registry
from serai_client.bots.base import Strategy
from serai_client.bots.local import play_local
from serai_client.bots.own import OwnStrategy
from serai_client.bots.search import SearchStrategy
from serai_client.elo import wilson
from serai_client.types import LegalMove, LegalMoves, Snapshot

GAMES = ("nile", "sobek")


def measure(
    game_name: str, matches: int, seed: int, iterations: int, time_limit: float | None
) -> tuple[float, int, float]:
    """The search's points in ``matches`` matches against the heuristic, and seconds a move."""
    game = registry.load().get(game_name)
    points = 0.0
    search_seconds = 0.0
    search_moves = 0
    for number in range(matches):
        match_seed = seed + number
        search = SearchStrategy(
            match_seed, game=game_name, iterations=iterations, time_limit=time_limit
        )
        timed = _Timed(search)
        heuristic = OwnStrategy(game, "simple", match_seed)
        search_seat = number % 2
        strategies: Sequence[Strategy] = (
            (timed, heuristic) if search_seat == 0 else (heuristic, timed)
        )
        outcome = play_local(game_name, strategies, match_seed).outcome
        won = search_seat in outcome.winners
        shared = len(outcome.winners) > 1
        points += 0.5 if won and shared else 1.0 if won else 0.0
        search_seconds += timed.seconds
        search_moves += timed.moves
        result = ("shared first place" if shared else "won") if won else "lost"
        print(
            f"  {game_name} match {number + 1}/{matches}: search at seat {search_seat}, "
            f"scores {list(outcome.scores)}, {result}",
            flush=True,
        )
    return points, matches, search_seconds / max(1, search_moves)


class _Timed:
    """A strategy that counts the CPU time its choices take."""

    def __init__(self, inner: SearchStrategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0
        self.moves = 0

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        start = time.process_time()
        chosen = self.inner.choose(snapshot, moves)
        self.seconds += time.process_time() - start
        self.moves += 1
        return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--game",
        choices=(*GAMES, "all"),
        default="all",
        help="the game to measure (default: all of them)",
    )
    parser.add_argument(
        "--matches", type=int, default=20, help="matches per game, seats alternating (20)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match (1)")
    parser.add_argument(
        "--iterations", type=int, default=100, help="search iterations a move (100)"
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds a search move may take at most (default: none, iterations only)",
    )
    args = parser.parse_args()
    games = list(GAMES) if args.game == "all" else [args.game]
    rows = []
    for game_name in games:
        points, n, per_move = measure(
            game_name, args.matches, args.seed, args.iterations, args.time_limit
        )
        low, high = wilson(points, n)
        rows.append(
            f"{game_name}: search ({args.iterations} iterations) vs heuristic: "
            f"{points:g}/{n} = {points / n:.2f}, 95% Wilson [{low:.2f}, {high:.2f}], "
            f"{per_move:.3f} s CPU a search move"
        )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
