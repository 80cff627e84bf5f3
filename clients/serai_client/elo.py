"""Elo arithmetic for the arena: score <-> rating difference, intervals, Bradley-Terry fits.

Elo scale: 400 points = 10:1 odds. Pure functions of plain numbers, no I/O.

Example::

    >>> round(elo_from_score(0.75))
    191
    >>> fit = bradley_terry({("a", "b"): (3.0, 4)}, ["a", "b"], virtual_draws=0)
    >>> round(fit["a"]), round(fit["b"])
    (0, -191)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

ELO_PER_NEPER = 400.0 / math.log(10.0)  # a log-odds of 1 is this many Elo points


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts an expected score in (0, 1)."""
    return 400.0 * math.log10(score / (1.0 - score))


def wilson(points: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a score of ``points`` in ``n`` games, kept inside (0, 1)."""
    p = points / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(centre - half, 1e-6), min(centre + half, 1 - 1e-6)


def bradley_terry(
    totals: Mapping[tuple[str, str], tuple[float, int]],
    bots: Sequence[str],
    virtual_draws: float = 1.0,
) -> dict[str, float]:
    """Elo ratings by the maximum-likelihood Bradley-Terry fit; the first bot anchored at 0.

    ``totals`` maps each pairing (a, b) to (points of a, games). ``virtual_draws`` per pairing
    (half a point to each side each) keep ratings finite when a bot wins every game; with none,
    every score must be strictly between 0 and its games, and a bot with no games stays at 0.

    Newton's method on the log-strengths, each step halved until the likelihood rises: it reaches
    one-sided fits (a 1,000:1 pairing) in a few steps, where the textbook MM iteration still
    crawls after hundreds.
    """
    index = {bot: i for i, bot in enumerate(bots)}
    size = len(bots)
    won = [[0.0] * size for _ in range(size)]
    for (a, b), (points, n) in totals.items():
        i, j = index[a], index[b]
        won[i][j] += points + virtual_draws / 2
        won[j][i] += n - points + virtual_draws / 2
    theta = [0.0] * size  # natural log of each bot's strength
    likelihood = _log_likelihood(won, theta)
    for _ in range(100):
        step = _newton_step(won, theta)
        for _halving in range(60):
            trial = [t + s for t, s in zip(theta, step, strict=True)]
            trial_likelihood = _log_likelihood(won, trial)
            if trial_likelihood >= likelihood:
                break
            step = [s / 2 for s in step]
        else:
            break  # no step up is left: theta is the maximum to the float's precision
        gain = trial_likelihood - likelihood
        theta, likelihood = trial, trial_likelihood
        if gain <= 1e-12 * max(1.0, abs(likelihood)):
            break  # converged: what is left of a step is round-off
    return {bot: ELO_PER_NEPER * (theta[index[bot]] - theta[0]) for bot in bots}


def _log_likelihood(won: list[list[float]], theta: list[float]) -> float:
    total = 0.0
    for i, row in enumerate(won):
        for j, wins in enumerate(row):
            if wins:
                total -= wins * _log1p_exp(theta[j] - theta[i])  # log P(i beats j)
    return total


def _log1p_exp(x: float) -> float:
    """log(1 + e^x) without overflow."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _newton_step(won: list[list[float]], theta: list[float]) -> list[float]:
    """The Newton step for every bot but the first (the anchor), which stays where it is."""
    size = len(theta)
    gradient = [0.0] * size
    information = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(i + 1, size):
            games = won[i][j] + won[j][i]
            if not games:
                continue
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))  # P(i beats j)
            gradient[i] += won[i][j] - games * p
            gradient[j] -= won[i][j] - games * p
            weight = games * p * (1.0 - p)
            information[i][i] += weight
            information[j][j] += weight
            information[i][j] -= weight
            information[j][i] -= weight
    free = range(1, size)
    # A bot with no games has no information: a tiny ridge keeps the system solvable and it at 0.
    matrix = [[information[i][j] + (1e-12 if i == j else 0.0) for j in free] for i in free]
    return [0.0, *_solve(matrix, [gradient[i] for i in free])]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x == vector: Gaussian elimination with partial pivoting (small systems)."""
    size = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(column + 1, size):
            factor = rows[r][column] / rows[column][column]
            for c in range(column, size + 1):
                rows[r][c] -= factor * rows[column][c]
    solution = [0.0] * size
    for r in reversed(range(size)):
        known = sum(rows[r][c] * solution[c] for c in range(r + 1, size))
        solution[r] = (rows[r][size] - known) / rows[r][r]
    return solution
