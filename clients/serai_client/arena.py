"""Bots against bots through a server: many matches, then wins, margins and Elo ratings.

Every pairing of two different bots plays ``matches`` matches, the seats taking turns (the first
bot sits at seat 0 in the first match, seat 1 in the next, and so on); with more than two seats
the second bot plays every other seat, each one its own differently seeded instance. Match seeds
and bot seeds come from one arena seed, so the same command gives the same matches. Each bot
still plays as a client of the server: it joins its seat, sees only that seat's snapshot and
submits by move id.

Duplicate deals (``duplicate=True``): the matches come in series of one match per seat, every
match of a series on the same deal (the same committed seed) with the seats rotated one place
each time, so that every entrant sits once in every seat of that deal and its luck cancels. A
series is scored as one result, the first bot's mean score over its matches, and the ratings
and intervals count series, not matches.

Ratings: a Bradley-Terry fit (Elo scale, 400 points = 10:1 odds) over all results, anchored so
that the first bot is 0, with one virtual draw per pairing so that a clean sweep stays finite;
95% intervals from a seeded simulation of each pairing's score rate (its Beta posterior).

Example::

    results = run_arena(client, "jaipur", ["random", "greedy"], matches=20, seed=1)
    print(ratings(results, ["random", "greedy"], seed=1))
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from serai.game import seeded_rng

from serai_client.bots import Strategy, make_strategy
from serai_client.client import SeraiClient
from serai_client.elo import bradley_terry, elo_from_score, wilson
from serai_client.errors import StaleVersionError
from serai_client.policy import PolicyFunction, PolicyStrategy
from serai_client.types import SeatHandle, Snapshot


@dataclass(frozen=True)
class MatchResult:
    """One arena match: who sat where, the seed, the final scores, who won.

    ``a`` sat at ``a_seat`` and ``b`` at every other seat. ``ranks`` are per seat, 0 for the
    winner(s) (``()``: only the winners are known, the others ranked level behind them);
    ``series`` numbers the duplicate series the match belongs to (None: an independent deal).
    """

    a: str
    b: str
    a_seat: int
    seed: int
    match_id: str
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    moves: int
    ranks: tuple[int, ...] = ()
    series: int | None = None

    @property
    def b_seats(self) -> list[int]:
        return [seat for seat in range(len(self.scores)) if seat != self.a_seat]

    @property
    def a_score(self) -> float:
        """``a``'s result against each ``b`` seat, averaged: 1 when it ranks ahead, 0.5 level,
        0 behind. With two seats: 1 for a win, 0 for a loss, 0.5 for a shared first place."""
        ranks = self.ranks or tuple(
            0 if seat in self.winners else 1 for seat in range(len(self.scores))
        )
        mine = ranks[self.a_seat]
        results = [
            1.0 if mine < ranks[seat] else 0.5 if mine == ranks[seat] else 0.0
            for seat in self.b_seats
        ]
        return sum(results) / len(results)

    @property
    def a_margin(self) -> float:
        """``a``'s score less the mean score of the ``b`` seats."""
        others = [self.scores[seat] for seat in self.b_seats]
        return self.scores[self.a_seat] - sum(others) / len(others)


@dataclass(frozen=True)
class PairingSummary:
    """One pairing's record. ``a_wins``: matches ``a`` ranked ahead of every ``b`` seat;
    ``b_wins``: behind every one; ``draws`` the rest. ``series``: duplicate series played (0
    for independent deals); the Elo difference and its interval count series where there are."""

    a: str
    b: str
    matches: int
    a_wins: int
    b_wins: int
    draws: int
    a_margin: float
    elo_diff: float
    elo_low: float
    elo_high: float
    series: int = 0


@dataclass(frozen=True)
class Rating:
    bot: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def pairings(bots: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair of different bots, in the order given."""
    return list(combinations(bots, 2))


def match_seed(seed: int, a: str, b: str, index: int) -> int:
    return seeded_rng(seed, "match", a, b, index).getrandbits(48)


def seating(index: int, seats: int) -> list[int]:
    """Who sits where in a pairing's match ``index``: the entrant number of each seat, entrant 0
    being ``a`` and 1.. the ``b`` instances, every match rotated one seat from the one before
    (so ``a`` sits at seat ``index % seats``)."""
    return [(seat - index) % seats for seat in range(seats)]


def series_of(index: int, seats: int, duplicate: bool) -> int | None:
    """The duplicate series of a pairing's match ``index`` (one match per seat), else None."""
    return index // seats if duplicate else None


def bot_seed(seed: int, a: str, b: str, index: int, which: str) -> int:
    return seeded_rng(seed, "bot", a, b, index, which).getrandbits(48)


def play_one(
    client: SeraiClient,
    game: str,
    players: Sequence[tuple[str, Strategy]],
    seed: int,
) -> tuple[Snapshot, int]:
    """One match, seat ``i`` played by ``players[i]``; the final snapshot and the moves played.

    One thread drives every seat: it asks the server who must act, fetches that seat's own
    snapshot and moves, and submits that seat's choice — no seat ever sees another's view.
    """
    match = client.create_match(game, seats=len(players), seed=seed)
    seats: list[SeatHandle] = [
        client.join(match.match_id, seat=i, player_name=name) for i, (name, _) in enumerate(players)
    ]
    moves = 0
    snapshot = client.get_match(match.match_id)
    while not snapshot.finished:
        if not snapshot.to_act:
            raise RuntimeError(f"match {match.match_id} is running but no seat must act")
        for seat_number in snapshot.to_act:
            seat = seats[seat_number]
            strategy = players[seat_number][1]
            own = client.get_match(seat)
            if not own.acts(seat_number):
                continue
            legal = client.legal_moves(seat)
            choice = strategy.choose(own, legal)
            try:
                client.submit(seat, choice.id, expected_version=legal.version)
                moves += 1
            except StaleVersionError:
                pass  # another seat moved first: ask the server again
        snapshot = client.get_match(match.match_id)
    return snapshot, moves


def _result(
    a: str, b: str, a_seat: int, number: int, final: Snapshot, moves: int, series: int | None
) -> MatchResult:
    """What one arena match came to (``final``: its last snapshot)."""
    outcome, seats = final.outcome, len(final.proto.match.seats)
    return MatchResult(
        a=a,
        b=b,
        a_seat=a_seat,
        seed=number,
        match_id=final.match_id,
        scores=tuple(outcome.scores) if outcome else (0,) * seats,
        winners=tuple(outcome.winners) if outcome else (),
        moves=moves,
        ranks=tuple(outcome.ranks) if outcome else (),
        series=series,
    )


def run_arena(
    client: SeraiClient,
    game: str,
    bots: Sequence[str],
    matches: int,
    seed: int,
    *,
    seats: int = 2,
    duplicate: bool = False,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    policies: Mapping[str, PolicyFunction] | None = None,
    on_result: Callable[[MatchResult], None] | None = None,
) -> list[MatchResult]:
    """Play ``matches`` matches of ``seats`` seats per pairing of ``bots``; every result, in order.

    A bot is a strategy's name, or the name and ``#N`` for another entrant of the same strategy
    ("random#2": two random bots, differently seeded), the search with ``@N`` for its budget
    ("search@200": 200 iterations a move), or a name in ``policies``: that policy function
    plays it (see :mod:`serai_client.policy`). ``options`` are keyed by entrant
    ("search#2"), else by strategy ("search"). With ``duplicate`` the matches come in series
    of ``seats`` on one deal, seats rotated (``matches`` must be a multiple of ``seats``)."""
    if seats < 2:
        raise ValueError(f"an arena match needs 2 seats or more, not {seats}")
    if duplicate and matches % seats:
        raise ValueError(
            f"duplicate deals come in series of {seats} matches (one per seat): "
            f"ask for a multiple of {seats}, not {matches}"
        )
    results = []
    for a, b in pairings(bots):
        for index in range(matches):
            series = series_of(index, seats, duplicate)
            # A duplicate series deals one seed, and each entrant keeps its own bot seed
            # through the series, so that only the seats change from match to match.
            deal = index if series is None else series
            entrants = [
                (bot, _entrant(bot, game, bot_seed(seed, a, b, deal, which), options, policies))
                for bot, which in [(a, "a")]
                + [(b, "b" if n == 1 else f"b{n}") for n in range(1, seats)]
            ]
            players = [entrants[entrant] for entrant in seating(index, seats)]
            number = match_seed(seed, a, b, deal)
            final, moves = play_one(client, game, players, number)
            result = _result(a, b, index % seats, number, final, moves, series)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def strategy_of(bot: str) -> str:
    """The strategy an arena entrant plays: "random#2" plays "random", "search@200" "search"."""
    return bot.partition("#")[0].partition("@")[0]


def iterations_of(bot: str) -> int | None:
    """The search budget an entrant's name gives ("search@200": 200 iterations a move), or None;
    ValueError for one that is not a whole number of 1 or more."""
    budget = bot.partition("#")[0].partition("@")[2]
    if not budget:
        return None
    if not budget.isdigit() or int(budget) < 1:
        raise ValueError(f"{bot!r}: the budget after @ is iterations a move, 1 or more")
    return int(budget)


def _entrant(
    bot: str,
    game: str,
    seed: int,
    options: Mapping[str, Mapping[str, Any]] | None,
    policies: Mapping[str, PolicyFunction] | None = None,
) -> Strategy:
    if policies and bot in policies:
        return PolicyStrategy(bot, policies[bot])
    name = strategy_of(bot)
    chosen = dict((options or {}).get(bot, (options or {}).get(name, {})))
    iterations = iterations_of(bot)
    if iterations is not None:
        chosen["iterations"] = iterations
    return make_strategy(name, game, seed, **chosen)


# --- statistics ----------------------------------------------------------------------------------


def scored_units(played: Sequence[MatchResult]) -> list[float]:
    """The results one pairing's statistics count, as ``a``'s score in each: one per match of
    an independent deal, one per duplicate series (the mean over its matches)."""
    units: dict[tuple[str, int], list[float]] = {}
    for number, result in enumerate(played):
        key = ("match", number) if result.series is None else ("series", result.series)
        units.setdefault(key, []).append(result.a_score)
    return [sum(scores) / len(scores) for scores in units.values()]


def summarize(results: Sequence[MatchResult], bots: Sequence[str]) -> list[PairingSummary]:
    """Per pairing: wins, draws, the average margin of ``a`` and the Elo difference with a 95% CI.

    The point estimate adds half a win to each side (so a sweep stays finite); the interval is
    the Wilson score interval of the score. Both count scored units (:func:`scored_units`):
    with duplicate deals a series is one result.
    """
    summaries = []
    for a, b in pairings(bots):
        played = [r for r in results if (r.a, r.b) == (a, b)]
        if not played:
            continue
        n = len(played)
        a_wins = sum(1 for r in played if r.a_score == 1.0)
        b_wins = sum(1 for r in played if r.a_score == 0.0)
        units = scored_units(played)
        points, count = sum(units), len(units)
        low, high = wilson(points, count)
        summaries.append(
            PairingSummary(
                a=a,
                b=b,
                matches=n,
                a_wins=a_wins,
                b_wins=b_wins,
                draws=n - a_wins - b_wins,
                a_margin=sum(r.a_margin for r in played) / n,
                elo_diff=elo_from_score((points + 0.5) / (count + 1)),
                elo_low=elo_from_score(low),
                elo_high=elo_from_score(high),
                series=len({r.series for r in played if r.series is not None}),
            )
        )
    return summaries


def _totals(
    results: Sequence[MatchResult], bots: Sequence[str]
) -> dict[tuple[str, str], tuple[float, int]]:
    """Per pairing: (points of ``a``, scored units: matches, or duplicate series)."""
    totals: dict[tuple[str, str], tuple[float, int]] = {}
    for pair in pairings(bots):
        units = scored_units([r for r in results if (r.a, r.b) == pair])
        totals[pair] = (sum(units), len(units))
    return totals


def ratings(
    results: Sequence[MatchResult], bots: Sequence[str], seed: int, resamples: int = 200
) -> list[Rating]:
    """Bradley-Terry Elo per bot with a 95% interval, best first.

    The interval comes from a seeded simulation: each pairing's score rate is drawn from its
    posterior (Beta, with Jeffreys' prior of half a win to each side) and the ratings are fitted
    again to those expected scores, without virtual draws. Redrawing scores from a binomial at
    the observed rate instead would put a clean sweep's point at the edge of its own interval:
    no redraw can be more one-sided than the sweep, so its upper end could never pass it.
    """
    totals = _totals(results, bots)
    point = bradley_terry(totals, bots)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {bot: [] for bot in bots}
    for _ in range(resamples):
        drawn = {}
        for pair, (points, n) in totals.items():
            if n:  # a pairing that never played says nothing
                rate = rng.betavariate(points + 0.5, n - points + 0.5)
                drawn[pair] = (min(max(rate, 1e-9), 1 - 1e-9) * n, n)  # a fit needs 0 < score < n
        for bot, value in bradley_terry(drawn, bots, virtual_draws=0).items():
            samples[bot].append(value)
    table = []
    for bot in bots:
        values = sorted(samples[bot])
        games = [r for r in results if bot in (r.a, r.b)]
        score = sum(r.a_score if r.a == bot else 1.0 - r.a_score for r in games)
        table.append(
            Rating(
                bot=bot,
                elo=point[bot],
                low=values[int(0.025 * (len(values) - 1))],
                high=values[int(0.975 * (len(values) - 1))],
                games=len(games),
                score=score,
            )
        )
    return sorted(table, key=lambda rating: rating.elo, reverse=True)


def report(
    results: Sequence[MatchResult], bots: Sequence[str], seed: int, game: str
) -> dict[str, Any]:
    """Everything the arena prints, as plain data (the ``--json`` output)."""
    return {
        "game": game,
        "seed": seed,
        "bots": list(bots),
        "pairings": [asdict(s) for s in summarize(results, bots)],
        "ratings": [asdict(r) for r in ratings(results, bots, seed)],
        "matches": [
            {**asdict(r), "scores": list(r.scores), "winners": list(r.winners)} for r in results
        ],
    }
