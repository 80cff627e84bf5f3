"""The secrecy and contract check any game plugin gets for free (``serai check GAME``).

Random playouts from many seeds visit positions; at each one the contract checks
(:mod:`serai.checking.contract`) and the secrecy checks on worlds the game's determinize samples
(:mod:`serai.checking.secrecy`) run; after each playout, the re-deal checks
(:mod:`serai.checking.redeal`) compare it with worlds the framework deals itself. A
:class:`~serai.checking.report.Report` counts every check and keeps its first counterexample.
It imports only the plugin contract, so it works on any installed game. Example::

    report = check_game(registry.load().get("jaipur"), Settings(seeds=3))
    print(report.render())
    assert not report.failed
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from serai.checking import contract, redeal, secrecy
from serai.checking.position import AnyGame, Position
from serai.checking.report import Report
from serai.game import GameError, MalformedMove

__all__ = ["Report", "Settings", "check_game"]


@dataclass(frozen=True)
class Settings:
    """How much to check. The defaults take seconds to a minute per game on one core."""

    seeds: int = 10
    """Playouts, one per seed."""
    first_seed: int = 0
    moves: int = 300
    """The most moves of one playout (it stops earlier when the match ends)."""
    players: int | None = None
    """Seats per playout; None cycles through every count the game takes."""
    options: Mapping[str, str] = field(default_factory=dict)
    worlds: int = 2
    """Worlds sampled by determinize per observer and position."""
    sample: int = 4
    """Listed moves tried per acting seat and position."""
    every: int = 1
    """Check every n-th position of a playout (the playout itself visits them all)."""
    redeals: int = 100
    """Worlds the framework deals itself per playout (other seeds, the same moves replayed),
    kept for each observer while its observations match the true match's; for a game declaring
    ``Provides.redeal``, its own re-deals of the true deal, this many shared by the observers."""


def check_game(
    game: AnyGame, settings: Settings, progress: Callable[[str], None] | None = None
) -> Report:
    """Play ``settings.seeds`` random matches of ``game`` and check them; never raises for a
    fault of the game (it becomes a failed check), only for options the game refuses."""
    report = Report(game.info.name)
    started = time.perf_counter()
    options = game.resolve_options(settings.options)
    if not secrecy.offers_determinize(game):
        for name in report.tallies:
            if name.startswith(("determinize.", "secrecy.")):
                report.skip(name, "needs determinize")
        report.note(
            f"{game.info.name} offers no determinize(view, rng): the secrecy checks on worlds it "
            "samples are skipped; the re-deal checks run without it"
        )
    if not redeal.declares_observation(game):
        report.skip("redeal.view", "needs observation")
        report.note(
            f"{game.info.name} declares no observation(state, seat): re-dealt worlds are told "
            "apart by the view itself, so a leak inside the view cannot be found, only in labels, "
            "announcements, legal moves and error texts"
        )
    counts = range(game.info.min_players, game.info.max_players + 1)
    variation = secrecy.Variation()
    for index in range(settings.seeds):
        seed = settings.first_seed + index
        players = settings.players or counts[index % len(counts)]
        try:
            moves = _playout(report, game, seed, players, options, settings, variation)
        except Exception as error:  # a crash inside the game is a finding, not the end
            report.record(
                "contract.crash", False, f"{game.info.name}, seed {seed}, {players} players"
            )
            report.explain("contract.crash", f"{type(error).__name__}: {error}")
            moves = -1
        else:
            report.record("contract.crash", True)
        report.playouts += 1
        if progress is not None:
            failed = sum(t.failures for t in report.tallies.values())
            played = "crashed" if moves < 0 else f"{moves} moves"
            progress(
                f"{game.info.name}: seed {seed} ({index + 1}/{settings.seeds}), {players} players, "
                f"{played}; {report.positions} positions so far, {failed} failures"
            )
    variation.conclude(report)
    if not report.redealt:
        report.note(
            f"no re-dealt world matched what any observer of {game.info.name} had observed, so "
            "the re-deal checks compared nothing (more --redeals, or a game that deals its own: "
            "Provides.redeal)"
        )
    if any(report.tallies[name].failures for name in ("secrecy.events", "secrecy.choice")):
        report.note(
            "the event checks compare what a watcher reads with its view after the move; where "
            "the same step erased the move's public trace (a reshuffle, a new deal, a harvest), "
            "a finding may be public history the view leaves to memory rather than a leak"
        )
    report.seconds = time.perf_counter() - started
    return report


def _playout(
    report: Report,
    game: AnyGame,
    seed: int,
    players: int,
    options: Mapping[str, Any],
    settings: Settings,
    variation: secrecy.Variation,
) -> int:
    """One random match, checked along the way; the number of moves played."""
    state = game.setup(players, seed, options)
    again = game.setup(players, seed, options)
    if not report.record(
        "contract.seed",
        game.encode_state(again) == game.encode_state(state),
        f"{game.info.name}, seed {seed}, {players} players",
    ):
        report.explain("contract.seed", "two setups gave different bytes")
    rng = random.Random(f"serai check:{seed}:playout")
    history = [game.encode_state(state)]
    played: list[tuple[int, Any]] = []
    probes = _default_moves(game)
    determinizes = secrecy.offers_determinize(game)
    for ply in range(settings.moves + 1):
        acting = tuple(game.to_act(state))
        listed = {seat: list(game.legal_moves(state, seat)) for seat in acting}
        if ply % settings.every == 0:
            position = Position(game, seed, players, ply, state, probes)
            tried = contract.check_position(report, position, settings.sample, rng)
            if determinizes:
                report.worlds += secrecy.check_position(
                    report, position, tried, settings.worlds, settings.sample, variation
                )
            report.positions += 1
        if not acting or ply == settings.moves:
            break
        seat = rng.choice(acting)
        if not report.record(
            "contract.end",
            bool(listed[seat]),
            f"{game.info.name}, seed {seed}, {players} players, after {ply} moves",
        ):
            report.explain("contract.end", f"seat {seat} must act but has no legal move")
            break
        move = rng.choice(listed[seat])
        state = game.apply(state, seat, move)
        played.append((seat, move))
        history.append(game.encode_state(state))
        probes = _default_moves(game) + [m for moves in listed.values() for m in moves[:12]]
    _check_replay(report, game, seed, players, options, played, history)
    match = redeal.Match(game, seed, players, options, played)
    report.redealt += redeal.check_playout(report, match, settings.redeals)
    return len(played)


def _check_replay(
    report: Report,
    game: AnyGame,
    seed: int,
    players: int,
    options: Mapping[str, Any],
    played: list[tuple[int, Any]],
    history: list[bytes],
) -> None:
    """Same seed, same moves: the same bytes after every move."""
    state = game.setup(players, seed, options)
    for ply, (seat, move) in enumerate(played, start=1):
        state = game.apply(state, seat, move)
        if not report.record(
            "contract.seed",
            game.encode_state(state) == history[ply],
            f"{game.info.name}, seed {seed}, {players} players, after {ply} moves",
        ):
            report.explain(
                "contract.seed", "replaying the same moves from the same seed gave different bytes"
            )
            return


def _default_moves(game: AnyGame) -> list[Any]:
    """The move an empty move message reads as, when the game reads one (a probe)."""
    try:
        return [game.move_from_proto(game.move_message())]
    except (MalformedMove, GameError):
        return []
