"""The match state: immutable dataclasses of card ids, and their storage bytes.

Hidden things live here in full (hands, deck order, face-down event tokens); :mod:`views` decides
who may see what. Every shuffle draws from ``seeded_rng(seed, label, round)``, so the state only
needs the seed and the round number to be reproducible.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

from serai.game import OptionValue

from serai_sobek.cards import Goods
from serai_sobek.events import Event

ROUNDS = 3
ROW_SIZE = 9
REACH = 4  # the first four market cards are the ones you may take
HAND_SIZE = 2  # green-backed cards dealt to each player every round
TWO_PLAYER_SET_ASIDE = 9  # two players: 5 deliveries of 9 a round instead of 6 (a review)
INSTANT_WIN = 100  # after round two's corruption, this many points wins at once
FORMAT = 1


class Phase(IntEnum):
    PLAY = 1  # players take cards, play characters and sets
    FINAL = 2  # the market ran out: each player may lay final sets horizontally
    OVER = 3


class PendingKind(IntEnum):
    """A decision a power or event left open; ``actor`` must make it before play goes on."""

    EVENT = 1  # actor picks one of the event tokens left
    GIVE = 2  # actor gives one card of their hand to ``other``
    PURGE = 3  # actor discards up to two cards of their own corruption pile
    PASS_CORRUPTION = 4  # actor moves one of their corruption cards to ``other``'s pile
    SELF_CORRUPT = 5  # actor puts one card of their hand into their own corruption pile
    TAKE_ANY = 6  # actor takes any market card, without corruption
    ARCHITECT = 7  # actor adds one or two cards to one of their sets
    STARTER = 8  # between rounds: actor (furthest behind) names who begins the next one


@dataclass(frozen=True)
class Pending:
    kind: PendingKind
    actor: int
    other: int = -1


@dataclass(frozen=True)
class TableSet:
    goods: Goods
    cards: tuple[int, ...]
    horizontal: bool = False


@dataclass(frozen=True)
class SeatState:
    hand: tuple[int, ...] = ()  # sorted ids
    corruption: tuple[int, ...] = ()  # in order of arrival
    sets: tuple[TableSet, ...] = ()
    score: int = 0  # position on the scoring track
    bonus: int = 0  # points won or lost through event tokens this round


@dataclass(frozen=True)
class RoundResult:
    round: int
    points: tuple[int, ...]  # scored this round, per seat
    corrupt: tuple[int, ...]  # the seats judged most corrupt
    penalties: tuple[int, ...]  # squares each seat moved back for corruption
    scores: tuple[int, ...]  # track positions after the round


@dataclass(frozen=True)
class SobekState:
    players: int
    seed: int
    options: tuple[tuple[str, OptionValue], ...]
    round: int
    phase: Phase
    current: int  # whose turn it is (phase PLAY)
    starter: int  # who began this round
    turn: int  # moves played this round: a label for the Thief's draw
    deck: tuple[int, ...]  # top first
    row: tuple[int, ...]  # the market, first card first
    discard: tuple[int, ...]  # characters played for their power (face up)
    removed: tuple[int, ...]  # corruption cards discarded by powers (face down)
    unused: tuple[int, ...]  # green cards not dealt this round (face down)
    tokens: tuple[Event, ...]  # face-down event tokens still in play
    used_tokens: tuple[Event, ...]  # tokens picked this round (face up)
    seats: tuple[SeatState, ...]
    pending: tuple[Pending, ...] = ()
    finishing: tuple[int, ...] = ()  # phase FINAL: seats still to lay final sets, in order
    results: tuple[RoundResult, ...] = ()
    set_aside: tuple[int, ...] = ()  # market cards out of play this round (two players; face down)

    def option(self, name: str) -> OptionValue:
        return dict(self.options)[name]

    def with_seat(self, seat: int, **changes: Any) -> SobekState:
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], **changes)
        return replace(self, seats=tuple(seats))


# --- bytes -------------------------------------------------------------------------------------


def encode(state: SobekState) -> bytes:
    """Canonical JSON: equal states give equal bytes."""
    plain = {
        "format": FORMAT,
        "players": state.players,
        "seed": state.seed,
        "options": [[name, value] for name, value in state.options],
        "round": state.round,
        "phase": int(state.phase),
        "current": state.current,
        "starter": state.starter,
        "turn": state.turn,
        "deck": list(state.deck),
        "row": list(state.row),
        "discard": list(state.discard),
        "removed": list(state.removed),
        "unused": list(state.unused),
        "tokens": [int(t) for t in state.tokens],
        "used_tokens": [int(t) for t in state.used_tokens],
        "seats": [
            {
                "hand": list(s.hand),
                "corruption": list(s.corruption),
                "sets": [[int(t.goods), list(t.cards), t.horizontal] for t in s.sets],
                "score": s.score,
                "bonus": s.bonus,
            }
            for s in state.seats
        ],
        "pending": [[int(p.kind), p.actor, p.other] for p in state.pending],
        "finishing": list(state.finishing),
        "results": [
            [r.round, list(r.points), list(r.corrupt), list(r.penalties), list(r.scores)]
            for r in state.results
        ],
    }
    if state.set_aside:  # absent otherwise: states of 3-4 players keep the bytes they had
        plain["set_aside"] = list(state.set_aside)
    return json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()


def decode(data: bytes) -> SobekState:
    """The state :func:`encode` wrote; ValueError for bytes it did not write."""
    try:
        return _decode(data)
    except (KeyError, IndexError, TypeError, AttributeError, RecursionError) as error:
        # A field missing or of the wrong shape: JSON, but not what encode writes.
        raise ValueError(f"not a stored Sobek state: {type(error).__name__} {error}") from None


def _decode(data: bytes) -> SobekState:
    plain = json.loads(data)
    if plain.get("format") != FORMAT:
        raise ValueError(f"unknown Sobek state format {plain.get('format')!r}")
    ints = lambda items: tuple(int(i) for i in items)  # noqa: E731
    return SobekState(
        players=plain["players"],
        seed=plain["seed"],
        options=tuple((name, value) for name, value in plain["options"]),
        round=plain["round"],
        phase=Phase(plain["phase"]),
        current=plain["current"],
        starter=plain["starter"],
        turn=plain["turn"],
        deck=ints(plain["deck"]),
        row=ints(plain["row"]),
        discard=ints(plain["discard"]),
        removed=ints(plain["removed"]),
        unused=ints(plain["unused"]),
        tokens=tuple(Event(t) for t in plain["tokens"]),
        used_tokens=tuple(Event(t) for t in plain["used_tokens"]),
        seats=tuple(
            SeatState(
                hand=ints(s["hand"]),
                corruption=ints(s["corruption"]),
                sets=tuple(TableSet(Goods(g), ints(c), bool(h)) for g, c, h in s["sets"]),
                score=s["score"],
                bonus=s["bonus"],
            )
            for s in plain["seats"]
        ),
        pending=tuple(Pending(PendingKind(k), a, o) for k, a, o in plain["pending"]),
        finishing=ints(plain["finishing"]),
        results=tuple(
            RoundResult(r, ints(p), ints(c), ints(pen), ints(s))
            for r, p, c, pen, s in plain["results"]
        ),
        set_aside=ints(plain.get("set_aside", ())),
    )
