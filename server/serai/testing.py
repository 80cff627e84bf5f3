"""serai's own checks, for a game package's tests: what ``serai check`` proves, as assertions.

A game written outside serai (``serai new-game`` writes one) keeps its rules tests and adds::

    from serai.testing import assert_passes_checks, assert_plays_to_the_end

    def test_serai_finds_no_leak_and_no_contract_fault():
        assert_passes_checks("demo")

    def test_random_matches_end():
        assert_plays_to_the_end("demo", seeds=20)

Both take the game by its installed name (so the entry point is checked too) or as an instance.
A failure raises AssertionError with the whole report, its first counterexample included.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from serai import registry
from serai.checking import Report, Settings, check_game
from serai.game import Game

AnyGame = Game[Any, Any, Any]

__all__ = ["MatchPlayed", "assert_passes_checks", "assert_plays_to_the_end", "installed_game"]


def installed_game(name: str) -> AnyGame:
    """The game installed under ``name`` (its ``serai.games`` entry point), or AssertionError
    saying what loaded instead and why a broken plugin did not."""
    loaded = registry.load()
    if name in loaded:
        return loaded.get(name)
    known = ", ".join(sorted(loaded.games)) or "none"
    broken = "".join(f"\n  {plugin.name}: {plugin.error}" for plugin in loaded.broken)
    raise AssertionError(
        f"no game {name!r} is installed (installed: {known}); is the package installed "
        f'(pip install -e .) with an entry point in [project.entry-points."serai.games"]?'
        + (f"\nplugins that failed to load:{broken}" if broken else "")
    )


def assert_passes_checks(game: str | AnyGame, **settings: Any) -> Report:
    """Run ``serai check``'s secrecy and contract checks (its defaults, or ``settings`` as
    :class:`serai.checking.Settings` names them: ``seeds=40``, ``players=2``…) and return the
    report; AssertionError with the report if any check failed."""
    playing = installed_game(game) if isinstance(game, str) else game
    report = check_game(playing, Settings(**settings))
    if report.failed:
        raise AssertionError(report.render())
    return report


@dataclass(frozen=True)
class MatchPlayed:
    """One random match: its seed, player count and number of moves."""

    seed: int
    players: int
    moves: int


def assert_plays_to_the_end(
    game: str | AnyGame, seeds: int = 10, max_moves: int = 10_000
) -> list[MatchPlayed]:
    """Play one match per seed with uniformly random moves (every player count the game takes,
    in turn), each to its end; AssertionError if one outlasts ``max_moves`` or a seat to act has
    no legal move."""
    playing = installed_game(game) if isinstance(game, str) else game
    info = playing.info
    counts = range(info.min_players, info.max_players + 1)
    played = []
    for seed in range(seeds):
        players = counts[seed % len(counts)]
        played.append(_random_match(playing, seed, players, max_moves))
    return played


def _random_match(game: AnyGame, seed: int, players: int, max_moves: int) -> MatchPlayed:
    rng = random.Random(seed)
    state = game.setup(players, seed, game.resolve_options({}))
    for moves in range(max_moves):
        if game.outcome(state) is not None:
            return MatchPlayed(seed, players, moves)
        acting = game.to_act(state)
        assert acting, f"seed {seed}: no seat to act after {moves} moves, and no outcome"
        seat = acting[0]
        legal = list(game.legal_moves(state, seat))
        assert legal, f"seed {seed}: seat {seat} must act after {moves} moves but has no move"
        state = game.apply(state, seat, rng.choice(legal))
    raise AssertionError(f"seed {seed}, {players} players: no outcome after {max_moves} moves")
