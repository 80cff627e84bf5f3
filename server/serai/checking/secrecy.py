"""The secrecy checks on one position: a seat gets the same bytes in worlds it cannot tell apart.

For every observer (each seat and the spectator) the game's own ``determinize(view, rng)`` samples
worlds that observer cannot tell from the true state. Everything the observer could then receive
must be byte-identical between the true world and each sample: whose turn it is, the spectator's
view, the presentation of its own view, its legal moves (ids, labels, payloads, steps), the label
and announcements of any move played next (where the observer's view after it agrees too), and
the answers to probe moves. Within one world, two moves of another seat that leave the observer's
view the same must read the same: where the mover's own view tells them apart, the label must not
tell the observer that choice, unless the choice is public after all (it shows on the table in
another world the mover cannot tell apart, or the mover chose blind; see ``_public_choice``).

The hidden part is whatever ``determinize`` varies; what the game's own determinize keeps fixed
is, to this check, public. A view that leaks a field determinize copies back is therefore found
only when another observer (the spectator) cannot know it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from serai.checking.position import (
    AnyGame,
    Observer,
    Position,
    as_text,
    attempt,
    payload,
    presented,
    steps,
    text_diff,
    view_bytes,
    view_diff,
    who,
)
from serai.checking.report import Report
from serai.game import heard, told

Reading = tuple[str, tuple[str, ...]]
"""What an observer reads of a move: its label and the announcements it caused (a private one
addressed to another seat as what others read of it)."""


@dataclass
class Variation:
    """Per observer: positions sampled, and those where every sample was the true state."""

    positions: dict[str, int] = field(default_factory=dict)
    unvaried: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)

    def count(self, observer: Observer, varied: bool, where: str) -> None:
        name = who(observer)
        self.positions[name] = self.positions.get(name, 0) + 1
        if not varied:
            self.unvaried[name] = self.unvaried.get(name, 0) + 1
            self.first.setdefault(name, where)

    def conclude(self, report: Report) -> None:
        """determinize fails for an observer when it never varied anything at all."""
        for name, total in self.positions.items():
            same = self.unvaried.get(name, 0)
            if not report.record("determinize.varies", same < total, name):
                report.explain(
                    "determinize.varies",
                    f"every sample was the true state, in all {same} positions, the first "
                    f"{self.first.get(name)} "
                    "(a game with no hidden information need not offer determinize)",
                )


def offers_determinize(game: AnyGame) -> bool:
    """Whether the game declares :meth:`Game.determinize` (``Provides.determinize``)."""
    return game.info.provides.determinize


def check_position(
    report: Report,
    position: Position,
    tried: dict[int, list[Any]],
    worlds: int,
    sample: int,
    variation: Variation,
) -> int:
    """Run the secrecy checks on ``position``; return how many worlds were sampled."""
    game, state = position.game, position.state
    truth = game.encode_state(state)
    sampled = 0
    for observer in (*range(position.players), None):
        view = game.view(state, observer)
        seen = game.view_bytes(view)
        where = position.where(observer)
        found = [state]
        for index in range(worlds):
            rng = random.Random(f"serai check:{position.seed}:{position.ply}:{observer}:{index}")
            try:
                world = game.determinize(view, rng)
                got = view_bytes(game, world, observer)
            except Exception as error:
                report.record("determinize.view", False, where)
                report.explain(
                    "determinize.view", f"determinize raised {type(error).__name__}: {error}"
                )
                continue
            if report.record("determinize.view", got == seen, where):
                found.append(world)
            else:
                report.explain(
                    "determinize.view",
                    "the sampled state's view differs:\n" + view_diff(game, seen, got),
                )
        sampled += len(found) - 1
        if len(found) > 1:
            variation.count(observer, any(game.encode_state(w) != truth for w in found[1:]), where)
        true_world = _TrueWorld(game, state, observer)
        for world in found[1:]:
            _compare(report, position, observer, world, true_world)
        _check_events(report, position, observer, found, tried, sample)
    return sampled


class _TrueWorld:
    """What ``observer`` reads directly of the true state, computed once for all the sampled
    worlds it is compared with."""

    def __init__(self, game: AnyGame, state: Any, observer: Observer) -> None:
        self.game, self.state, self.observer = game, state, observer

    @cached_property
    def turns(self) -> tuple[tuple[int, ...], Any]:
        return tuple(self.game.to_act(self.state)), self.game.outcome(self.state)

    @cached_property
    def shown(self) -> Any:
        return presented(self.game, view_bytes(self.game, self.state, self.observer))

    @cached_property
    def public(self) -> bytes:
        return view_bytes(self.game, self.state, None)

    @cached_property
    def listing(self) -> list[tuple[str, bytes]]:
        assert self.observer is not None
        return _listing(self.game, self.state, self.observer)

    @cached_property
    def walks(self) -> list[tuple[str, tuple[str, ...] | str]]:
        assert self.observer is not None
        return _walks(self.game, self.state, self.observer)


def _compare(
    report: Report, position: Position, observer: Observer, world: Any, truth: _TrueWorld
) -> None:
    """Everything ``observer`` reads directly must be equal in the true state and ``world``."""
    game, state = position.game, position.state
    where = position.where(observer)
    turns = truth.turns
    other = (tuple(game.to_act(world)), game.outcome(world))
    if not report.record("secrecy.turn", turns == other, where):
        report.explain(
            "secrecy.turn", f"true world: to_act, outcome = {turns!r}; sampled world: {other!r}"
        )
    shown = truth.shown
    shown_there = presented(game, view_bytes(game, world, observer))
    if not report.record("secrecy.presentation", shown == shown_there, where):
        report.explain(
            "secrecy.presentation",
            f"{who(observer)} cannot tell these worlds apart, its presentation can:\n"
            + text_diff(as_text(shown), as_text(shown_there)),
        )
    if observer is None:
        return
    public = truth.public
    public_there = view_bytes(game, world, None)
    if not report.record("secrecy.spectator", public == public_there, where):
        report.explain(
            "secrecy.spectator",
            f"{who(observer)} cannot tell these worlds apart, the spectator can:\n"
            + view_diff(game, public, public_there),
        )
    mine = truth.listing
    theirs = _listing(game, world, observer)
    if not report.record("secrecy.legal", mine == theirs, where):
        report.explain("secrecy.legal", _first_difference("legal move", mine, theirs))
    walked = truth.walks
    walked_there = _walks(game, world, observer)
    if not report.record("secrecy.steps", walked == walked_there, where):
        report.explain(
            "secrecy.steps", _first_difference("legal move's steps", walked, walked_there)
        )
    probes = list(position.probes)
    for seat in game.to_act(world):
        probes += list(game.legal_moves(world, seat))[:8]
    for probe in probes:
        here = attempt(game, state, observer, probe)
        there = attempt(game, world, observer, probe)
        if not report.record("secrecy.errors", here == there, where):
            report.explain(
                "secrecy.errors",
                f"submitting {game.label(probe)!r} answers {here!r} in the true world, "
                f"{there!r} in a sampled one",
            )


def _listing(game: AnyGame, state: Any, seat: int) -> list[tuple[str, bytes]]:
    return [(game.label(move), payload(game, move)) for move in game.legal_moves(state, seat)]


def _walks(game: AnyGame, state: Any, seat: int) -> list[tuple[str, tuple[str, ...] | str]]:
    """Each legal move of ``seat`` with its steps, listed as a client receives them."""
    return [(game.label(move), steps(game, move)) for move in game.legal_moves(state, seat)]


def _first_difference(what: str, first: list[Any], second: list[Any]) -> str:
    if len(first) != len(second):
        return f"{what}s: {len(first)} in the true world, {len(second)} in a sampled one"
    index = next(i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b)
    return f"{what} {index}: {first[index]!r} in the true world, {second[index]!r} in a sampled one"


def _check_events(
    report: Report,
    position: Position,
    observer: Observer,
    worlds: list[Any],
    tried: dict[int, list[Any]],
    sample: int,
) -> None:
    """Moves played next: the same move must read the same wherever ``observer``'s view after it
    agrees; in one world, moves of another seat with equal views after must read the same."""
    game = position.game
    where = position.where(observer)
    rng = random.Random(f"serai check:{position.seed}:{position.ply}:{observer}:events")
    candidates: dict[int, list[Any]] = {seat: list(moves) for seat, moves in tried.items()}
    for world in worlds[1:]:
        for seat in game.to_act(world):
            legal = list(game.legal_moves(world, seat))
            candidates.setdefault(seat, []).extend(
                rng.sample(legal, min(sample // 2 + 1, len(legal)))
            )
    readings: dict[tuple[int, bytes, bytes, tuple[str, ...]], tuple[Reading, int]] = {}
    for index, world in enumerate(worlds):
        for seat in game.to_act(world):
            allowed = set(game.legal_moves(world, seat))
            chosen: dict[tuple[bytes, tuple[str, ...]], tuple[Reading, bytes, Any]] = {}
            for move in dict.fromkeys(candidates.get(seat, ())):
                if move not in allowed:
                    continue
                after = game.apply(world, seat, move)
                said = game.announcements(world, after)
                news = (game.label(move), heard(said, observer))
                # What a private announcement tells the observer is, like its view, what it
                # learns by the move: readings compare where both agree.
                seen_after = (view_bytes(game, after, observer), told(said, observer))
                key = (seat, payload(game, move), *seen_after)
                first, origin = readings.setdefault(key, (news, index))
                if not report.record(
                    "secrecy.events", first == news, f"{where}, seat {seat} playing {news[0]!r}"
                ):
                    report.explain(
                        "secrecy.events",
                        f"{_world(origin)} reads {first!r}, {_world(index)} reads {news!r}",
                    )
                if seat == observer:
                    continue  # a seat knows its own choice
                # A choice only the mover can see afterwards must not be told by its reading;
                # one that nobody can see afterwards (a new deal erased it) was public before.
                mover_after = view_bytes(game, after, seat)
                earlier, mover_earlier, other = chosen.setdefault(
                    seen_after, (news, mover_after, move)
                )
                if earlier == news or mover_earlier == mover_after:
                    report.record("secrecy.choice", True)
                    continue
                if not report.record(
                    "secrecy.choice",
                    _public_choice(position, world, seat, observer, (other, move)),
                    f"{where}, seat {seat} to play",
                ):
                    report.explain(
                        "secrecy.choice",
                        f"{earlier[0]!r} and {news[0]!r} leave {who(observer)}'s view the same "
                        f"(seat {seat}'s differs), yet read {earlier!r} and {news!r}",
                    )


MOVER_WORLDS = 16
"""Worlds the mover cannot tell apart, sampled to decide whether a choice is public."""


def _public_choice(
    position: Position, world: Any, seat: int, observer: int | None, moves: tuple[Any, Any]
) -> bool:
    """Whether two moves of ``seat`` that leave ``observer``'s view the same here, but not the
    mover's, are a choice the table may name after all. It is, in worlds the mover cannot tell
    from ``world`` (what it knows when it chooses):

    - where the observer's view after the two moves differs in one of them: the choice shows on
      the table, and chance in the same step (a flood, a harvest, a reshuffle) erased it here;
    - where one move leaves the mover's own view as the other leaves it in some world: the mover
      chose blind (two face-down cards of one row), so naming the choice tells nothing it knew.

    A choice of cards going where only the mover sees them fails both: the observer never sees
    it, and the mover's view after always tells which it made.
    """
    game = position.game
    rng = random.Random(f"serai check:{position.seed}:{position.ply}:{seat}:{observer}:choice")
    mover_view = game.view(world, seat)
    samples = [world]
    for _ in range(MOVER_WORLDS):
        try:
            samples.append(game.determinize(mover_view, rng))
        except Exception:  # reported by determinize.view for the mover's own position
            continue
    afters: tuple[set[bytes], set[bytes]] = (set(), set())
    for sample in samples:
        seen: list[bytes] = []
        for move, mover_afters in zip(moves, afters, strict=True):
            if attempt(game, sample, seat, move) != "accepted":
                break
            after = game.apply(sample, seat, move)
            seen.append(view_bytes(game, after, observer))
            mover_afters.add(view_bytes(game, after, seat))
        if len(seen) == 2 and seen[0] != seen[1]:
            return True
    return bool(afters[0] & afters[1])


def _world(index: int) -> str:
    return "the true world" if index == 0 else f"sampled world {index}"
