"""Jaipur throughput on one core: random full matches per second, legal-move calls per second.

Run by hand from the repository root::

    .venv/bin/python benchmarks/jaipur_playouts.py               # defaults
    .venv/bin/python benchmarks/jaipur_playouts.py --matches 500 --seed 7 --clock cpu

Random matches pick uniformly among the legal moves until a seat holds two seals, three ways:

- through the plugin contract (``legal_moves`` then the checked ``apply``), first in a fresh
  process (the memo tables start empty: "cold"), then again on other seeds ("warm");
- through the fast path of playouts and bots (``legal_moves`` then ``rules.advance``, which
  skips the checks a move taken from ``legal_moves`` cannot fail).

Legal-move generation is timed on states those matches went through, twice: through the plugin
(memoized on market, hand and herd, as the server and bots use it: positions seen before) and
without the memo of whole positions (``legal.list_moves``: the cost of a position never seen).

The benchmark's own work (a random choice and the loop) is timed alone and reported as a share
of the time per move. ``--clock cpu`` counts the CPU seconds of this process instead of wall
time: steadier on a shared machine, equal to wall time on a quiet one.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from serai_jaipur import JaipurGame, State, rules
from serai_jaipur.legal import list_moves, moves_for
from serai_jaipur.moves import Move

Step = Callable[[State, int, Move], State]
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def play_matches(
    game: JaipurGame, step: Step, matches: int, seed: int, clock: Callable[[], float]
) -> tuple[float, int, list[State]]:
    """Seconds for ``matches`` random matches, moves played, and a sample of the states seen."""
    rng = random.Random(seed)
    states = []
    moves = 0
    start = clock()
    for number in range(matches):
        state = game.setup(2, seed * 1_000_003 + number, {})
        while state.turn is not None:
            legal = game.legal_moves(state, state.turn)
            state = step(state, state.turn, rng.choice(legal))
            moves += 1
            if moves % 7 == 0:
                states.append(state)
    return clock() - start, moves, [s for s in states if s.turn is not None]


def time_legal_moves(
    game: JaipurGame, states: list[State], rounds: int, clock: Callable[[], float]
) -> tuple[float, float, int]:
    """Calls per second through the plugin and without the position memo; mean moves listed.

    The memoized figure is over as many positions as the memo holds (the latest sampled), so
    that every timed call finds its position there."""
    memoized = states[-(moves_for.cache_info().maxsize or len(states)) :]
    for state in memoized:  # every position seen once before the timed passes
        game.legal_moves(state, state.turn)  # type: ignore[arg-type]
    start = clock()
    for _ in range(rounds):
        for state in memoized:
            game.legal_moves(state, state.turn)  # type: ignore[arg-type]
    seen = rounds * len(memoized) / (clock() - start)
    listed = 0
    start = clock()
    for state in states:
        seat = state.turn
        assert seat is not None
        listed += len(list_moves(state.market, state.hands[seat], state.herds[seat]))
    unseen = len(states) / (clock() - start)
    return seen, unseen, listed // max(1, len(states))


def time_overhead(moves: int, seed: int, clock: Callable[[], float]) -> float:
    """Seconds the benchmark loop itself spends on ``moves`` moves: a random choice and a count."""
    rng = random.Random(seed)
    legal: Sequence[int] = range(24)  # about the mean number of legal moves
    count = 0
    start = clock()
    while count < moves:
        rng.choice(legal)
        count += 1
    return clock() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=300, help="random full matches to play")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the choices")
    parser.add_argument(
        "--legal-rounds", type=int, default=3, help="passes of legal-move calls over the states"
    )
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall time (default) or CPU seconds of this process (steadier when shared)",
    )
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    game = JaipurGame()
    n = args.matches

    seconds, moves, states = play_matches(game, game.apply, n, args.seed, clock)
    per_match = moves / n
    print(f"random matches:        {n / seconds:10.1f} matches/s (legal_moves + apply, cold)")
    print(f"moves applied:         {moves / seconds:10.0f} moves/s, {per_match:.0f} a match")
    seconds, moves, _ = play_matches(game, game.apply, n, args.seed + 1, clock)
    print(f"random matches:        {n / seconds:10.1f} matches/s (legal_moves + apply, warm)")
    print(f"moves applied:         {moves / seconds:10.0f} moves/s")

    def advance(state: State, seat: int, move: Move) -> State:
        return rules.advance(state, move)

    seconds, moves, _ = play_matches(game, advance, n, args.seed + 2, clock)
    print(f"random matches:        {n / seconds:10.1f} matches/s (legal_moves + advance, warm)")
    print(f"moves applied:         {moves / seconds:10.0f} moves/s")
    overhead = time_overhead(moves, args.seed, clock)
    share = 100 * overhead / seconds
    print(f"benchmark overhead:    {share:10.1f} % of that (random choice, loop)")

    seen, unseen, listed = time_legal_moves(game, states, args.legal_rounds, clock)
    print(f"legal_moves calls:     {seen:10.0f} calls/s (position seen before: memoized)")
    print(f"legal_moves calls:     {unseen:10.0f} calls/s (position never seen)")
    print(f"moves listed:          {listed:10d} on average per call")
    print(f"states sampled:        {len(states):10d}")


if __name__ == "__main__":
    main()
