"""A tiny game with hidden hands, for service tests that must not depend on a real game.

Rules: each seat is dealt ``hand`` cards (named gem01 .. gem40) from a seeded deck; in turn, each
seat plays one card face up; after ``plays`` rounds the match ends, and the highest sum of played
gem numbers wins. The cards never played stay hidden for ever, which makes leaks easy to detect:
they must never appear in anything another seat receives.

Moves are ``google.protobuf.StringValue`` (the card), views ``google.protobuf.Struct``, so no
generated code is needed.

Run as a script, it is ``serai`` with this game installed as ``tiny`` (for subprocess tests)::

    python tests/service/tiny_game.py serve --port 0 --data-dir /tmp/d
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import struct_pb2, wrappers_pb2
from google.protobuf.message import Message
from serai import registry
from serai.game import (
    Game,
    GameInfo,
    IllegalMove,
    MalformedMove,
    OptionSpec,
    OptionValue,
    Outcome,
    Seat,
    seeded_rng,
)

DECK = tuple(f"gem{n:02d}" for n in range(1, 41))


@dataclass(frozen=True)
class TinyState:
    hands: tuple[tuple[str, ...], ...]
    played: tuple[tuple[str, ...], ...]
    turn: int
    plays: int
    simultaneous: bool = False

    @property
    def over(self) -> bool:
        return all(len(p) >= self.plays for p in self.played)


class TinyGame(Game[TinyState, str, dict]):
    info = GameInfo(
        name="tiny",
        title="Tiny",
        min_players=2,
        max_players=3,
        version="1",
        summary="Play your gems face up in turn; the highest total wins. A test game.",
        options=(
            OptionSpec("hand", "cards dealt to each seat", 3, choices=(2, 3, 4)),
            OptionSpec("plays", "cards each seat plays", 2, bounds=(1, 4)),
            OptionSpec("simultaneous", "every seat plays each round, in any order", False),
        ),
    )

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> TinyState:
        self.check_players(players)
        hand, plays = int(options["hand"]), int(options["plays"])
        deck = list(DECK)
        seeded_rng(seed, "deal").shuffle(deck)
        hands = tuple(tuple(sorted(deck[i * hand : (i + 1) * hand])) for i in range(players))
        empty = tuple(() for _ in range(players))
        return TinyState(hands, empty, 0, min(plays, hand), bool(options["simultaneous"]))

    def to_act(self, state: TinyState) -> tuple[Seat, ...]:
        if state.over:
            return ()
        if state.simultaneous:
            fewest = min(len(p) for p in state.played)
            return tuple(s for s, p in enumerate(state.played) if len(p) == fewest)
        return (state.turn,)

    def legal_moves(self, state: TinyState, seat: Seat) -> Sequence[str]:
        return list(state.hands[seat]) if seat in self.to_act(state) else []

    def apply(self, state: TinyState, seat: Seat, move: str) -> TinyState:
        if seat not in self.to_act(state):
            raise IllegalMove(f"seat {seat} may not play now")
        if move not in state.hands[seat]:
            raise IllegalMove(f"you do not hold {move}")
        hands = list(state.hands)
        hands[seat] = tuple(card for card in hands[seat] if card != move)
        played = list(state.played)
        played[seat] = (*played[seat], move)
        turn = (seat + 1) % len(hands)
        return TinyState(tuple(hands), tuple(played), turn, state.plays, state.simultaneous)

    def view(self, state: TinyState, seat: Seat | None) -> dict:
        view: dict[str, Any] = {
            "hand_sizes": [len(h) for h in state.hands],
            "played": [list(p) for p in state.played],
            "turn": state.turn,
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
        return view

    def outcome(self, state: TinyState) -> Outcome | None:
        if not state.over:
            return None
        scores = tuple(sum(int(card[3:]) for card in p) for p in state.played)
        ranks = tuple(sum(1 for other in scores if other > mine) for mine in scores)
        best = max(scores)
        return Outcome(scores, ranks, f"best total {best}")

    def players(self, state: TinyState) -> int:
        return len(state.hands)

    def announcements(self, before: TinyState, after: TinyState) -> Sequence[str]:
        done = min(len(p) for p in after.played)
        if done > min(len(p) for p in before.played):
            return (f"round {done} is over",)
        return ()

    def label(self, move: str) -> str:
        return f"play {move}"

    def encode_state(self, state: TinyState) -> bytes:
        data = {
            "h": state.hands,
            "p": state.played,
            "t": state.turn,
            "n": state.plays,
            "s": state.simultaneous,
        }
        return json.dumps(data, sort_keys=True).encode()

    def decode_state(self, data: bytes) -> TinyState:
        raw = json.loads(data)
        return TinyState(
            tuple(tuple(h) for h in raw["h"]),
            tuple(tuple(p) for p in raw["p"]),
            raw["t"],
            raw["n"],
            raw["s"],
        )

    def move_to_proto(self, move: str) -> Message:
        return wrappers_pb2.StringValue(value=move)

    def move_from_proto(self, message: Message) -> str:
        if not isinstance(message, wrappers_pb2.StringValue) or message.value not in DECK:
            raise MalformedMove("a tiny move names a card, gem01 to gem40")
        return message.value

    def view_to_proto(self, view: dict) -> Message:
        message = struct_pb2.Struct()
        message.update(view)
        return message

    @property
    def move_message(self) -> type[Message]:
        return wrappers_pb2.StringValue

    @property
    def view_message(self) -> type[Message]:
        return struct_pb2.Struct


def tiny_registry() -> registry.Registry:
    """The installed games plus ``tiny``."""
    installed = registry.load()
    return registry.Registry({**installed.games, "tiny": TinyGame()}, installed.broken)


def main(argv: list[str]) -> int:
    """``serai serve`` or ``serai replay`` with ``tiny`` installed. A worker of ``serve
    --workers`` waits TINY_WORKER_START_DELAY seconds before it starts serving, if set (a
    slow start-up, for tests of signals that come meanwhile), having first made a file named
    by its pid in the folder TINY_WORKER_STARTING_DIR, if set (so a test knows it is waiting)."""
    from serai.cli import build_parser

    args = build_parser().parse_args(argv)
    delay = float(os.environ.get("TINY_WORKER_START_DELAY", "0"))
    if delay and getattr(args, "ready_fd", None) is not None:
        import asyncio

        from serai.commands import serve

        started = serve.serve

        async def slowly(*given: Any, **named: Any) -> int:
            if starting := os.environ.get("TINY_WORKER_STARTING_DIR"):
                (Path(starting) / str(os.getpid())).touch()
            await asyncio.sleep(delay)
            return await started(*given, **named)

        serve.serve = slowly  # type: ignore[assignment]
    return int(args.run(args, games=tiny_registry()) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
