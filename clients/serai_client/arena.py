"""Bots against bots through a server: many matches, then wins, margins and Elo ratings.

Every pairing of two different bots plays ``matches`` matches, the seats alternating (the first
bot sits at seat 0 in even matches, seat 1 in odd ones). Match seeds and bot seeds come from one
arena seed, so the same command gives the same matches. Each bot still plays as a client of the
server: it joins its seat, sees only that seat's snapshot and submits by move id.

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
    """One arena match: who sat where, the seed, the final scores, who won."""

    a: str
    b: str
    a_seat: int
    seed: int
    match_id: str
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    moves: int

    @property
    def a_score(self) -> float:
        """1 for a win of ``a``, 0 for a loss, 0.5 for a shared first place."""
        a_won = self.a_seat in self.winners
        b_won = (1 - self.a_seat) in self.winners
        return 0.5 if a_won == b_won else 1.0 if a_won else 0.0

    @property
    def a_margin(self) -> int:
        return self.scores[self.a_seat] - self.scores[1 - self.a_seat]


@dataclass(frozen=True)
class PairingSummary:
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


def run_arena(
    client: SeraiClient,
    game: str,
    bots: Sequence[str],
    matches: int,
    seed: int,
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    policies: Mapping[str, PolicyFunction] | None = None,
    on_result: Callable[[MatchResult], None] | None = None,
) -> list[MatchResult]:
    """Play ``matches`` matches per pairing of ``bots``; every result, in order.

    A bot is a strategy's name, or the name and ``#N`` for another entrant of the same strategy
    ("random#2": two random bots, differently seeded), or a name in ``policies``: that policy
    function plays it (see :mod:`serai_client.policy`)."""
    results = []
    for a, b in pairings(bots):
        for index in range(matches):
            a_seat = index % 2
            strategy_a = _entrant(a, game, bot_seed(seed, a, b, index, "a"), options, policies)
            strategy_b = _entrant(b, game, bot_seed(seed, a, b, index, "b"), options, policies)
            players = [(a, strategy_a), (b, strategy_b)]
            if a_seat == 1:
                players.reverse()
            number = match_seed(seed, a, b, index)
            final, moves = play_one(client, game, players, number)
            outcome = final.outcome
            result = MatchResult(
                a=a,
                b=b,
                a_seat=a_seat,
                seed=number,
                match_id=final.match_id,
                scores=tuple(outcome.scores) if outcome else (0, 0),
                winners=tuple(outcome.winners) if outcome else (),
                moves=moves,
            )
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def strategy_of(bot: str) -> str:
    """The strategy an arena entrant plays: "random#2" plays "random"."""
    return bot.partition("#")[0]


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
    return make_strategy(name, game, seed, **dict((options or {}).get(name, {})))


# --- statistics ----------------------------------------------------------------------------------


def summarize(results: Sequence[MatchResult], bots: Sequence[str]) -> list[PairingSummary]:
    """Per pairing: wins, draws, the average margin of ``a`` and the Elo difference with a 95% CI.

    The point estimate adds half a win to each side (so a sweep stays finite); the interval is
    the Wilson score interval of the score.
    """
    summaries = []
    for a, b in pairings(bots):
        played = [r for r in results if (r.a, r.b) == (a, b)]
        if not played:
            continue
        n = len(played)
        a_wins = sum(1 for r in played if r.a_score == 1.0)
        b_wins = sum(1 for r in played if r.a_score == 0.0)
        points = sum(r.a_score for r in played)
        low, high = wilson(points, n)
        summaries.append(
            PairingSummary(
                a=a,
                b=b,
                matches=n,
                a_wins=a_wins,
                b_wins=b_wins,
                draws=n - a_wins - b_wins,
                a_margin=sum(r.a_margin for r in played) / n,
                elo_diff=elo_from_score((points + 0.5) / (n + 1)),
                elo_low=elo_from_score(low),
                elo_high=elo_from_score(high),
            )
        )
    return summaries


def _totals(
    results: Sequence[MatchResult], bots: Sequence[str]
) -> dict[tuple[str, str], tuple[float, int]]:
    """Per pairing: (points of ``a``, matches)."""
    totals: dict[tuple[str, str], tuple[float, int]] = {}
    for pair in pairings(bots):
        played = [r.a_score for r in results if (r.a, r.b) == pair]
        totals[pair] = (sum(played), len(played))
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
