"""Jaipur throughput on one core: random full matches per second, legal-move calls per second.

Run by hand from the repository root::

    .venv/bin/python benchmarks/jaipur_playouts.py               # defaults
    .venv/bin/python benchmarks/jaipur_playouts.py --matches 500 --seed 7

Random matches pick uniformly among the legal moves until a seat holds two seals. Legal-move
generation is timed on the states those matches went through, twice: through the plugin
(memoized on market, hand and herd, as the server and bots use it) and uncached (the raw
enumeration, the cost of a position never seen before).
"""

from __future__ import annotations

import argparse
import random
import time

from serai_jaipur import JaipurGame
from serai_jaipur.rules import moves_for


def play_matches(game: JaipurGame, matches: int, seed: int) -> tuple[float, int, list]:
    """Seconds for ``matches`` random matches, moves played, and a sample of the states seen."""
    rng = random.Random(seed)
    states = []
    moves = 0
    start = time.perf_counter()
    for number in range(matches):
        state = game.setup(2, seed * 1_000_003 + number, {})
        while state.turn is not None:
            legal = game.legal_moves(state, state.turn)
            state = game.apply(state, state.turn, rng.choice(legal))
            moves += 1
            if moves % 7 == 0:
                states.append(state)
    return time.perf_counter() - start, moves, [s for s in states if s.turn is not None]


def time_legal_moves(game: JaipurGame, states: list, rounds: int) -> tuple[float, float, int]:
    """Calls per second through the plugin and uncached, and the mean number of moves listed."""
    start = time.perf_counter()
    for _ in range(rounds):
        for state in states:
            game.legal_moves(state, state.turn)
    cached = rounds * len(states) / (time.perf_counter() - start)
    raw = moves_for.__wrapped__
    listed = 0
    start = time.perf_counter()
    for state in states:
        listed += len(raw(state.market, state.hands[state.turn], state.herds[state.turn]))
    uncached = len(states) / (time.perf_counter() - start)
    return cached, uncached, listed // max(1, len(states))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=300, help="random full matches to play")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the choices")
    parser.add_argument(
        "--legal-rounds", type=int, default=3, help="passes of legal-move calls over the states"
    )
    args = parser.parse_args(argv)
    game = JaipurGame()
    moves_for.cache_clear()
    seconds, moves, states = play_matches(game, args.matches, args.seed)
    print(f"random matches:        {args.matches / seconds:10.1f} matches/s (cold caches)")
    per_match = moves / args.matches
    print(f"moves applied:         {moves / seconds:10.0f} moves/s, {per_match:.0f} a match")
    seconds, _, _ = play_matches(game, args.matches, args.seed + 1)
    print(f"random matches:        {args.matches / seconds:10.1f} matches/s (warm caches)")
    cached, uncached, listed = time_legal_moves(game, states, args.legal_rounds)
    print(f"legal_moves calls:     {cached:10.0f} calls/s (memoized by position)")
    print(f"legal-move generation: {uncached:10.0f} calls/s (position not memoized)")
    print(f"moves listed:          {listed:10d} on average per call")
    print(f"states sampled:        {len(states):10d}")


if __name__ == "__main__":
    main()
