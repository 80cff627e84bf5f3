"""How many matches the arena needs to tell two bots apart, with duplicate or independent deals.

Run by hand from the repository root (each mode can run in its own process, then one report)::

    .venv/bin/python benchmarks/duplicate_deals.py --game jaipur --bots search,greedy \\
        --iterations 10 --matches 200 --mode independent --save /tmp/jaipur-ind.json
    .venv/bin/python benchmarks/duplicate_deals.py --game jaipur --bots search,greedy \\
        --iterations 10 --matches 200 --mode duplicate --save /tmp/jaipur-dup.json
    .venv/bin/python benchmarks/duplicate_deals.py --report /tmp/jaipur-ind.json \\
        /tmp/jaipur-dup.json

Both modes are ``serai_client.arena.run_arena`` on an embedded server, as ``serai arena`` plays
them: ``independent`` gives every match its own deal (seats taking turns); ``duplicate`` plays
every deal once per seat with the seats rotated, and scores the series as one result (the first
bot's mean score over it). With ``--seats 3`` the second bot plays the other two seats.

The figure: the matches needed for a 95% interval of the first bot's score to exclude an even
score, at the difference the two bots really have. A scored unit (a match, or a series of
``seats`` matches) has variance ``v``; the two designs share the expected score ``m`` (a series
is the same matches, seated otherwise), estimated from every match played; so ``1.96^2 * v /
(m - 0.5)^2`` units are needed, times the matches in a unit. The ratio of the two needs is
``v_independent / (seats * v_series)``, whatever ``m``: how much of a match's variance was the
deal's. Its 95% interval comes from resampling the units of each design (seeded bootstrap).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Sequence
from typing import Any

from serai_client.arena import MatchResult, run_arena, scored_units
from serai_client.client import SeraiClient
from serai_client.commands.play import server_target

Z = 1.96


def play(args: argparse.Namespace, duplicate: bool) -> list[MatchResult]:
    """One mode's matches, on a private embedded server."""
    a, b = args.bots.split(",")
    options = {"search": {"iterations": args.iterations, "time_limit": None}}
    with server_target(None) as target, SeraiClient(target) as client:
        return run_arena(
            client,
            args.game,
            [a, b],
            args.matches,
            args.seed,
            seats=args.seats,
            duplicate=duplicate,
            options=options,
        )


def needs(units: Sequence[float], per_unit: int, mean: float) -> float:
    """Matches needed for the interval to exclude 0.5 at ``mean``: units times their size."""
    variance = statistics.pvariance(units)
    return per_unit * Z * Z * variance / max((mean - 0.5) ** 2, 1e-12)


def report(independent: list[MatchResult], duplicate: list[MatchResult], seed: int) -> str:
    seats = len(duplicate[0].scores)
    ind_units = scored_units(independent)
    dup_units = scored_units(duplicate)
    everything = [r.a_score for r in independent + duplicate]
    mean = statistics.fmean(everything)
    ind_var = statistics.pvariance(ind_units)
    dup_var = statistics.pvariance(dup_units)
    ratio = ind_var / max(seats * dup_var, 1e-12)
    rng = random.Random(seed)
    ratios = []
    for _ in range(2000):
        ind = [rng.choice(ind_units) for _ in ind_units]
        dup = [rng.choice(dup_units) for _ in dup_units]
        ratios.append(statistics.pvariance(ind) / max(seats * statistics.pvariance(dup), 1e-12))
    ratios.sort()
    low, high = ratios[int(0.025 * len(ratios))], ratios[int(0.975 * len(ratios)) - 1]
    dup_mean = statistics.fmean(dup_units)
    ind_mean = statistics.fmean(ind_units)
    level = sum(1 for unit in dup_units if unit == 0.5)
    lines = [
        f"{independent[0].a} v {independent[0].b}, {seats} seats",
        f"independent: {len(independent)} matches, first bot's score {ind_mean:.3f}, "
        f"variance a match {ind_var:.4f}",
        f"duplicate: {len(duplicate)} matches in {len(dup_units)} series, score {dup_mean:.3f}, "
        f"variance a series {dup_var:.4f} ({level} series level)",
        f"score from all {len(everything)} matches: {mean:.3f}",
        f"matches needed for 95%: independent {needs(ind_units, 1, mean):.0f}, "
        f"duplicate {needs(dup_units, seats, mean):.0f}",
        f"duplicate needs {ratio:.2f}x fewer matches (95% bootstrap {low:.2f}-{high:.2f})",
    ]
    return "\n".join(lines)


def _load(paths: str) -> list[MatchResult]:
    """The matches in comma-separated files --save wrote (runs of other seeds added together)."""
    results = []
    for number, path in enumerate(paths.split(",")):
        with open(path) as file:
            rows: list[dict[str, Any]] = json.load(file)
        for row in rows:
            series = row["series"]
            fields = {
                **row,
                "scores": tuple(row["scores"]),
                "winners": tuple(row["winners"]),
                "ranks": tuple(row["ranks"]),
                # series are numbered per run: keep those of different runs apart
                "series": None if series is None else number * 1_000_000 + series,
            }
            results.append(MatchResult(**fields))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="jaipur", help="the game to play (jaipur)")
    parser.add_argument("--bots", default="search,greedy", help="the two bots, a,b (search,greedy)")
    parser.add_argument("--seats", type=int, default=2, help="seats a match (2)")
    parser.add_argument(
        "--matches", type=int, default=200, help="matches a mode (200; a multiple of --seats)"
    )
    parser.add_argument("--seed", type=int, default=1, help="arena seed (1)")
    parser.add_argument(
        "--iterations", type=int, default=10, help="the search bot's iterations a move (10)"
    )
    parser.add_argument(
        "--mode",
        choices=("independent", "duplicate", "both"),
        default="both",
        help="which design to play (both)",
    )
    parser.add_argument("--save", help="write the matches played as JSON to this file")
    parser.add_argument(
        "--report",
        nargs=2,
        metavar=("INDEPENDENT", "DUPLICATE"),
        help="no play: the figures from files --save wrote (each a comma-separated list)",
    )
    args = parser.parse_args()
    if args.report:
        print(report(_load(args.report[0]), _load(args.report[1]), args.seed))
        return
    played: dict[str, list[MatchResult]] = {}
    for mode in ("independent", "duplicate"):
        if args.mode in (mode, "both"):
            played[mode] = play(args, duplicate=mode == "duplicate")
    if args.save:
        with open(args.save, "w") as file:
            json.dump([r.__dict__ for rows in played.values() for r in rows], file)
    if len(played) == 2:
        print(report(played["independent"], played["duplicate"], args.seed))


if __name__ == "__main__":
    main()
