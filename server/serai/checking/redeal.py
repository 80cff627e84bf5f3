"""The re-deal check: a seat receives nothing its own observations do not explain, whatever the
plugin's view or determinize say.

The framework deals other worlds itself, by seed: ``setup`` from other seeds, then the playout's
moves replayed; or, for a game declaring ``Provides.redeal``, from the true deal with what each
observer does not see dealt anew (``Game.redeal``, trusted for nothing: worlds are kept or dropped
by their observations alike). For each observer (every seat and the spectator) a re-dealt world
stays in the comparison only while that observer's history of observations in it
(``Game.observation``, gathered from the deal on: what the rules show it, with no memory; and the
text of every private announcement addressed to it, :class:`serai.game.Private`) equals its history
in the true match. In each such world, everything the observer receives must be byte-identical to
the true match: its view, whose turn it is and the outcome, its legal moves (labels and payloads),
the answers to probe moves, and the label and announcements of each move played (each as the
observer reads it: a private one addressed to another seat only as what others read of it).

Another seat's move is replayed as the same move where that is legal and looks the same to the
observer; else as the first legal move of the mover that looks the same (the observation after it
is the same): a choice the observer does not see may differ between worlds, so a label naming what
the mover keeps is found. The observer's own moves are replayed as they were.

What the view shows is never trusted here: a view may remember what its seat observed, and
nothing else. A game that declares no observation gets its view in its place, which makes the view
itself unchecked (the report says so): labels, announcements, legal moves and errors still are.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from serai.checking.position import AnyGame, Observer, attempt, payload, view_bytes, who
from serai.checking.report import Report
from serai.game import Seat, heard, told

PROBES = 12
"""Moves submitted per observer, position and world, as probes of the error texts."""


def declares_observation(game: AnyGame) -> bool:
    """Whether the game declares :meth:`Game.observation` (``Provides.observation``)."""
    return game.info.provides.observation


@dataclass
class Match:
    """The playout being checked: how it was set up and the moves played, in order."""

    game: AnyGame
    seed: int
    players: int
    options: Any
    moves: list[tuple[Seat, Any]]

    def where(self, ply: int, observer: Observer) -> str:
        return (
            f"{self.game.info.name}, seed {self.seed}, {self.players} players, after {ply} moves, "
            f"as {who(observer)} sees it"
        )


Observe = Callable[[Any, Observer], Hashable]


def declares_redeal(game: AnyGame) -> bool:
    """Whether the game deals worlds a seat cannot tell apart itself (``Provides.redeal``)."""
    return game.info.provides.redeal


@dataclass(frozen=True)
class World:
    """A state of a world the check dealt, and how it was dealt ("seed 7", for a crash report)."""

    origin: str
    state: Any


def check_playout(report: Report, match: Match, redeals: int) -> int:
    """Deal ``redeals`` other worlds and compare what each observer receives in those it cannot
    tell from the true match; return how many (world, observer, position) were compared."""
    game = match.game
    observe = _observer_function(game)
    truth = [game.setup(match.players, match.seed, match.options)]
    for seat, move in match.moves:
        truth.append(game.apply(truth[-1], seat, move))
    rng = random.Random(f"serai check:{match.seed}:redeal")
    redeals_itself = declares_redeal(game)
    dealt = [] if redeals_itself else _dealt_by_seed(match, redeals, rng)
    probes = _probe_pool(game, truth, random.Random(f"serai check:{match.seed}:probes"))
    compared = 0
    for observer in (*range(match.players), None):
        seen = [observe(state, observer) for state in truth]
        if redeals_itself:
            dealt = _redealt(report, match, truth[0], observer, redeals // (match.players + 1), rng)
        worlds = [world for world in dealt if _safe(observe, world.state, observer) == seen[0]]
        for ply, state in enumerate(truth):
            kept = []
            for world in worlds:
                try:
                    _compare(report, match, ply, observer, state, world.state, probes)
                except Exception as error:  # a fault of the game in a world it could deal
                    _crashed(report, match, ply, world, error)
                else:
                    kept.append(world)
            compared += len(kept)
            if ply == len(match.moves) or not kept:
                break
            worlds = []
            for world in kept:
                try:
                    after = _replay(report, match, ply, observer, world.state, truth, seen, observe)
                except Exception as error:
                    _crashed(report, match, ply, world, error)
                    continue
                if after is not None:
                    worlds.append(World(world.origin, after))
    return compared


def _dealt_by_seed(match: Match, count: int, rng: random.Random) -> list[World]:
    """Deals from other seeds: each observer keeps those that show it what the true one does."""
    dealt = []
    for _ in range(count):
        seed = rng.randrange(2**62)
        try:
            dealt.append(
                World(f"seed {seed}", match.game.setup(match.players, seed, match.options))
            )
        except Exception:  # a setup crash is the contract's finding, on the true seed
            continue
    return dealt


def _redealt(
    report: Report, match: Match, deal: Any, observer: Observer, count: int, rng: random.Random
) -> list[World]:
    """The game's own re-deals of the true deal for ``observer``, but for any equal to it (a
    world where nothing hidden differs finds nothing)."""
    game = match.game
    true_bytes = game.encode_state(deal)
    worlds = []
    for index in range(max(count, 1)):
        origin = f"redeal {index} for {who(observer)}"
        try:
            state = game.redeal(deal, observer, rng)
            if game.encode_state(state) != true_bytes:
                worlds.append(World(origin, state))
        except Exception as error:  # a fault of the game's redeal: a finding, not the end
            _crashed(report, match, 0, World(origin, deal), error)
    return worlds


def _crashed(report: Report, match: Match, ply: int, world: World, error: Exception) -> None:
    report.record(
        "contract.crash",
        False,
        f"{match.game.info.name}, {world.origin} (dealt for the re-deal checks of seed "
        f"{match.seed}), {match.players} players, after {ply} moves of seed {match.seed}'s playout",
    )
    report.explain("contract.crash", f"{type(error).__name__}: {error}")


def _observer_function(game: AnyGame) -> Observe:
    if declares_observation(game):
        return game.observation
    return lambda state, observer: view_bytes(game, state, observer)


def _safe(observe: Observe, state: Any, observer: Observer) -> Hashable:
    try:
        return observe(state, observer)
    except Exception as error:  # a crash in another world only ends that world
        return error


def _safe_told(game: AnyGame, before: Any, after: Any, observer: Observer) -> Hashable:
    try:
        return told(game.announcements(before, after), observer)
    except Exception as error:  # a crash in another world only ends that world
        return error


def _probe_pool(game: AnyGame, truth: list[Any], rng: random.Random) -> list[Any]:
    """Moves seen listed anywhere in the true match: each seat may submit any of them."""
    pool: dict[Any, None] = {}
    for state in truth:
        for seat in game.to_act(state):
            pool.update(dict.fromkeys(game.legal_moves(state, seat)))
    moves = list(pool)
    return rng.sample(moves, min(len(moves), 4 * PROBES))


def _compare(
    report: Report,
    match: Match,
    ply: int,
    observer: Observer,
    state: Any,
    world: Any,
    probes: list[Any],
) -> None:
    """What ``observer`` receives at this position, true match against ``world``."""
    game = match.game
    where = match.where(ply, observer)
    mine, theirs = view_bytes(game, state, observer), view_bytes(game, world, observer)
    # Without a declared observation the views were matched already: nothing to check.
    if declares_observation(game) and not report.record("redeal.view", mine == theirs, where):
        report.explain(
            "redeal.view",
            f"{who(observer)}'s observations so far are the same in a re-dealt world, yet its "
            f"view differs in {differing_fields(game, mine, theirs)}",
        )
    turns = (tuple(game.to_act(state)), game.outcome(state))
    other = (tuple(game.to_act(world)), game.outcome(world))
    if not report.record("redeal.turn", turns == other, where):
        report.explain(
            "redeal.turn", f"to_act, outcome: {turns!r} in the true match, {other!r} re-dealt"
        )
    if observer is None:
        return
    listed = _listing(game, state, observer)
    listed_there = _listing(game, world, observer)
    if not report.record("redeal.legal", listed == listed_there, where):
        report.explain("redeal.legal", _first_difference(listed, listed_there))
    rng = random.Random(f"serai check:{match.seed}:{ply}:{observer}:probes")
    for probe in rng.sample(probes, min(PROBES, len(probes))):
        here, there = attempt(game, state, observer, probe), attempt(game, world, observer, probe)
        if not report.record("redeal.errors", here == there, where):
            report.explain(
                "redeal.errors",
                f"the error text: submitting {game.label(probe)!r} answers {here!r} in the true "
                f"match, {there!r} in a re-dealt world",
            )


def _replay(
    report: Report,
    match: Match,
    ply: int,
    observer: Observer,
    world: Any,
    truth: list[Any],
    seen: list[Any],
    observe: Observe,
) -> Any | None:
    """``world`` after the move played at ``ply``, or one ``observer`` cannot tell from it; check
    what the observer reads of that move. None when no such move exists: the world ends."""
    game = match.game
    seat, move = match.moves[ply]
    if seat not in game.to_act(world):
        return None
    legal = list(game.legal_moves(world, seat))
    choices = [move] if seat == observer else [move, *(m for m in legal if m != move)]
    said = game.announcements(truth[ply], truth[ply + 1])
    # What a private announcement told the observer is one of its observations.
    observed = (seen[ply + 1], told(said, observer))
    for choice in choices:
        if choice not in legal:
            continue
        after = game.apply(world, seat, choice)
        there = (_safe(observe, after, observer), _safe_told(game, world, after, observer))
        if there == observed:
            break
    else:
        return None
    news = (game.label(move), heard(said, observer))
    news_there = (game.label(choice), heard(game.announcements(world, after), observer))
    where = f"{match.where(ply, observer)}, seat {seat} playing {news[0]!r}"
    if not report.record("redeal.events", news == news_there, where):
        field = "the label" if news[0] != news_there[0] else "the announcements"
        report.explain(
            "redeal.events",
            f"{field}: the move reads {news!r} in the true match, {news_there!r} in a re-dealt "
            f"world {who(observer)} cannot tell from it",
        )
    return after


def _listing(game: AnyGame, state: Any, seat: Seat) -> list[tuple[str, bytes]]:
    return [(game.label(move), payload(game, move)) for move in game.legal_moves(state, seat)]


def _first_difference(first: list[Any], second: list[Any]) -> str:
    if len(first) != len(second):
        return f"legal moves: {len(first)} in the true match, {len(second)} re-dealt"
    index = next(i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b)
    field = "label" if first[index][0] != second[index][0] else "payload"
    return (
        f"legal move {index}'s {field}: {first[index]!r} in the true match, "
        f"{second[index]!r} re-dealt"
    )


def differing_fields(game: AnyGame, first: bytes, second: bytes, limit: int = 4) -> str:
    """The paths of the view fields that differ ("hands[1]", "log"), and their two values."""
    try:
        a, b = (_as_data(game.view_message.FromString(raw)) for raw in (first, second))
    except Exception:
        return "its bytes (they do not parse as the game's view message)"
    paths: list[tuple[str, Any, Any]] = []
    _diff(a, b, "", paths)
    shown = [f"{path or 'the view'} ({_cut(x)} against {_cut(y)})" for path, x, y in paths[:limit]]
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return (", ".join(shown) or "its bytes (the fields read the same)") + more


def _as_data(message: Message) -> Any:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def _diff(a: Any, b: Any, path: str, out: list[tuple[str, Any, Any]]) -> None:
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            _diff(a.get(key), b.get(key), f"{path}.{key}" if path else key, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}[{index}]", out)
    else:
        out.append((path, a, b))


def _cut(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
