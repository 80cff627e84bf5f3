"""Gem Duel: a small game from outside serai, for tests that every bot and environment plays a
game serai has never heard of. It knows serai only through the plugin contract and declares what
it provides (determinize, an action bound) and nothing else: no evaluation, no strategies, no
presentation (the generic table draws it), no generated protobuf code.

Rules: the gems 1..12 are shuffled; each seat is dealt 3; in turn, each seat plays one gem of its
hand face up, until every hand is empty; the highest total wins. Hands and the undealt gems are
hidden; what was played is public.

It is installed by entry point, as any package would be (:func:`install`): a ``dist-info`` folder
beside it naming ``gem_duel = "gem_duel:GemDuel"`` in the group ``serai.games``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import struct_pb2, wrappers_pb2
from google.protobuf.message import Message
from serai.game import (
    Game,
    GameInfo,
    IllegalMove,
    MalformedMove,
    OptionValue,
    Outcome,
    Provides,
    Seat,
    seeded_rng,
)

GEMS = tuple(range(1, 13))
HAND = 3


@dataclass(frozen=True)
class DuelState:
    hands: tuple[tuple[int, ...], ...]
    played: tuple[tuple[int, ...], ...]
    undealt: tuple[int, ...]
    turn: int


@dataclass(frozen=True)
class DuelView:
    seat: int | None
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    played: tuple[tuple[int, ...], ...]
    turn: int


class GemDuel(Game[DuelState, int, DuelView]):
    info = GameInfo(
        name="gem_duel",
        title="Gem Duel",
        min_players=2,
        max_players=3,
        version="1",
        summary="Play your three hidden gems face up in turn; the highest total wins.",
        max_legal_moves=HAND,
        provides=Provides(determinize=True),
    )

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> DuelState:
        self.check_players(players)
        deck = list(GEMS)
        seeded_rng(seed, "deal").shuffle(deck)
        return _deal(deck, players)

    def to_act(self, state: DuelState) -> tuple[Seat, ...]:
        return (state.turn,) if any(state.hands) else ()

    def legal_moves(self, state: DuelState, seat: Seat) -> Sequence[int]:
        return state.hands[seat] if seat in self.to_act(state) else ()

    def apply(self, state: DuelState, seat: Seat, move: int) -> DuelState:
        if seat not in self.to_act(state):
            raise IllegalMove(f"seat {seat} may not play now")
        if move not in state.hands[seat]:
            raise IllegalMove(f"you do not hold gem {move}")
        hands = list(state.hands)
        hands[seat] = tuple(gem for gem in hands[seat] if gem != move)
        played = list(state.played)
        played[seat] = (*played[seat], move)
        turn = (seat + 1) % len(hands)
        return DuelState(tuple(hands), tuple(played), state.undealt, turn)

    def view(self, state: DuelState, seat: Seat | None) -> DuelView:
        return DuelView(
            seat=seat,
            hand=() if seat is None else state.hands[seat],
            hand_sizes=tuple(len(hand) for hand in state.hands),
            played=state.played,
            turn=state.turn,
        )

    def determinize(self, view: DuelView, rng: random.Random) -> DuelState:
        seen = set(view.hand) | {gem for gems in view.played for gem in gems}
        unseen = [gem for gem in GEMS if gem not in seen]
        rng.shuffle(unseen)
        hands = []
        for seat, size in enumerate(view.hand_sizes):
            if seat == view.seat:
                hands.append(view.hand)
            else:
                hands.append(tuple(sorted(unseen[:size])))
                unseen = unseen[size:]
        return DuelState(tuple(hands), view.played, tuple(sorted(unseen)), view.turn)

    def outcome(self, state: DuelState) -> Outcome | None:
        if any(state.hands):
            return None
        scores = tuple(sum(gems) for gems in state.played)
        ranks = tuple(sum(1 for other in scores if other > mine) for mine in scores)
        return Outcome(scores, ranks, f"best total {max(scores)}")

    def players(self, state: DuelState) -> int:
        return len(state.hands)

    def label(self, move: int) -> str:
        return f"play gem {move}"

    def encode_state(self, state: DuelState) -> bytes:
        return json.dumps([state.hands, state.played, state.undealt, state.turn]).encode()

    def decode_state(self, data: bytes) -> DuelState:
        hands, played, undealt, turn = json.loads(data)
        return DuelState(tuple(map(tuple, hands)), tuple(map(tuple, played)), tuple(undealt), turn)

    def move_to_proto(self, move: int) -> Message:
        return wrappers_pb2.Int32Value(value=move)

    def move_from_proto(self, message: Message) -> int:
        if not isinstance(message, wrappers_pb2.Int32Value) or message.value not in GEMS:
            raise MalformedMove("a Gem Duel move names a gem, 1 to 12")
        return message.value

    def view_to_proto(self, view: DuelView) -> Message:
        message = struct_pb2.Struct()
        fields: dict[str, Any] = {
            "hand": list(view.hand),
            "hand_sizes": list(view.hand_sizes),
            "played": [list(gems) for gems in view.played],
            "turn": view.turn,
        }
        if view.seat is not None:
            fields["seat"] = view.seat
        message.update(fields)
        return message

    def view_from_proto(self, message: Message) -> DuelView:
        if not isinstance(message, struct_pb2.Struct):
            raise ValueError("a Gem Duel view is a google.protobuf.Struct")
        fields = message.fields

        def numbers(value: struct_pb2.Value) -> tuple[int, ...]:
            return tuple(int(item.number_value) for item in value.list_value.values)

        return DuelView(
            seat=int(fields["seat"].number_value) if "seat" in fields else None,
            hand=numbers(fields["hand"]),
            hand_sizes=numbers(fields["hand_sizes"]),
            played=tuple(numbers(gems) for gems in fields["played"].list_value.values),
            turn=int(fields["turn"].number_value),
        )

    @property
    def move_message(self) -> type[Message]:
        return wrappers_pb2.Int32Value

    @property
    def view_message(self) -> type[Message]:
        return struct_pb2.Struct


def _deal(deck: list[int], players: int) -> DuelState:
    hands = tuple(tuple(sorted(deck[i * HAND : (i + 1) * HAND])) for i in range(players))
    undealt = tuple(sorted(deck[players * HAND :]))
    return DuelState(hands, tuple(() for _ in range(players)), undealt, 0)


def install(folder: Path) -> Path:
    """A folder that, on ``sys.path``, installs this game as a package would: this module and a
    ``dist-info`` declaring its entry point. The folder is returned."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gem_duel.py").write_text(Path(__file__).read_text())
    info = folder / "gem_duel-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gem-duel\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[serai.games]\ngem_duel = gem_duel:GemDuel\n")
    return folder
