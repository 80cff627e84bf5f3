"""ListLegalMoves packs each move once: the kept payloads are the bytes packing gives, per game."""

from __future__ import annotations

import random
from types import SimpleNamespace

from google.protobuf import any_pb2, wrappers_pb2
from serai.rpc.responses import MovePayloads
from serai_jaipur import JaipurGame


def _packed(game, move) -> any_pb2.Any:
    payload = any_pb2.Any()
    payload.Pack(game.move_to_proto(move), deterministic=True)
    return payload


def test_kept_payloads_are_the_bytes_packing_gives():
    game, payloads, rng = JaipurGame(), MovePayloads(), random.Random(3)
    state, seen = game.setup(2, 3, {}), 0
    while state.turn is not None and seen < 2_000:
        moves = game.legal_moves(state, state.turn)
        for move in moves:  # the first time packed, later found: the same either way
            assert payloads.payload(game, move) == _packed(game, move)
            seen += 1
        state = game.apply(state, state.turn, rng.choice(moves))
    assert seen >= 2_000


def test_equal_moves_of_two_games_keep_their_own_payloads():
    def game(name: str, message) -> SimpleNamespace:
        return SimpleNamespace(info=SimpleNamespace(name=name), move_to_proto=message)

    numbers = game("numbers", lambda move: wrappers_pb2.Int32Value(value=move))
    words = game("words", lambda move: wrappers_pb2.StringValue(value=str(move)))
    payloads = MovePayloads()
    for _ in range(2):
        assert payloads.payload(numbers, 7).Is(wrappers_pb2.Int32Value.DESCRIPTOR)
        assert payloads.payload(words, 7).Is(wrappers_pb2.StringValue.DESCRIPTOR)


def test_kept_payloads_start_over_when_full():
    numbers = SimpleNamespace(
        info=SimpleNamespace(name="numbers"),
        move_to_proto=lambda move: wrappers_pb2.Int32Value(value=move),
    )
    payloads = MovePayloads(size=10)
    for move in range(25):
        payload = payloads.payload(numbers, move)
        unpacked = wrappers_pb2.Int32Value()
        assert payload.Unpack(unpacked) and unpacked.value == move
    assert len(payloads._packed) <= 10
