"""Legal moves kept as bytes make, merged into ListLegalMovesResponse or PlayUpdate, the very
messages the plain builder makes: every game, with steps and without, long labels included."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from google.protobuf import any_pb2, wrappers_pb2
from serai.api import match_service_pb2 as pb
from serai.registry import load
from serai.rpc.responses import LegalMoveBytes, MovePayloads


def _plain(game, version: int, moves, steps: bool) -> list[pb.LegalMove]:
    built = []
    for i, move in enumerate(moves):
        payload = any_pb2.Any()
        payload.Pack(game.move_to_proto(move), deterministic=True)
        built.append(
            pb.LegalMove(
                id=f"{version}.{i}",
                label=game.label(move),
                payload=payload,
                steps=game.move_steps(move) if steps else (),
            )
        )
    return built


def _same(game, legal: LegalMoveBytes, version: int, moves, steps: bool) -> None:
    data = legal.field(game, version, moves, steps=steps)
    plain = _plain(game, version, moves, steps)
    update = pb.PlayUpdate()
    update.MergeFromString(data)
    assert list(update.legal_moves) == plain
    assert update.SerializeToString() == pb.PlayUpdate(legal_moves=plain).SerializeToString()
    listed = pb.ListLegalMovesResponse(seat=1, version=version)
    listed.MergeFromString(data)
    assert listed == pb.ListLegalMovesResponse(seat=1, version=version, moves=plain)


@pytest.mark.parametrize("name", ["jaipur", "nile", "sobek"])
def test_kept_legal_moves_are_the_plain_messages(name):
    game = load().games[name]
    legal, rng = LegalMoveBytes(MovePayloads()), random.Random(5)
    state, version, seen = game.setup(2, 11, {}), 3, 0
    while seen < 1_500:
        to_act = list(game.to_act(state))
        if not to_act:
            break
        seat = to_act[0]
        moves = list(game.legal_moves(state, seat))
        for steps in (False, True):  # first built, then found: the same either way
            _same(game, legal, version, moves, steps)
            _same(game, legal, version, moves, steps)
        seen += len(moves)
        state = game.apply(state, seat, rng.choice(moves))
        version += 1
    assert seen >= 200


def _words(label_size: int) -> SimpleNamespace:
    return SimpleNamespace(
        info=SimpleNamespace(name="words"),
        label=lambda move: f"say {move} " + "x" * label_size,
        move_to_proto=lambda move: wrappers_pb2.StringValue(value=str(move) * 50),
        move_steps=lambda move: ("say", str(move) * 100),
    )


def test_long_labels_payloads_and_ids_keep_their_lengths():
    """Lengths past one varint byte (a 300-character label, a ten-digit version)."""
    legal = LegalMoveBytes(MovePayloads())
    for version in (1, 127, 128, 16_384, 9_876_543_210):
        for steps in (False, True):
            _same(_words(300), legal, version, ["a", "b", "c"], steps)


def test_kept_legal_moves_drop_their_older_half_when_full():
    legal = LegalMoveBytes(MovePayloads(), size=10)
    game = _words(3)
    counts = []
    for move in range(25):
        _same(game, legal, 4, [str(move), str(move + 1)], False)
        counts.append(sum(len(kept) for kept in legal._tails.values()))
    assert max(counts) == 10 and min(counts[counts.index(10) :]) >= 5  # never started over
    kept = legal._tails[("words", False)]
    assert "25" in kept and "24" in kept and "0" not in kept  # the newest stay, the oldest went
    assert legal.field(game, 4, [], steps=True) == b""


def test_list_legal_moves_answers_the_plain_messages_of_the_seats_moves(service):
    """ListLegalMoves sends the bytes Play sends: each answer, move by move through a match, is
    the plain build of the moves the match lists for that seat (ids, labels, payloads, steps);
    the seat not to act gets none."""
    from service_helpers import create, join_all

    stub = service.stub()
    match_id = create(stub, "jaipur", seats=2, seed=9)
    tokens = join_all(stub, match_id, 2)
    game = load().games["jaipur"]
    for turn in range(12):
        now = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        seat = now.to_act[0]
        listed = service.run(service.matches.legal_moves(match_id, tokens[seat]))
        answer = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        moves = [move.move for move in listed.moves]
        plain = _plain(game, listed.version, moves, steps=True)
        assert answer == pb.ListLegalMovesResponse(seat=seat, version=now.version, moves=plain)
        idle = pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[1 - seat])
        assert list(stub.ListLegalMoves(idle).moves) == []
        chosen = answer.moves[turn * 7 % len(answer.moves)]
        stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=tokens[seat],
                move_id=chosen.id,
                expected_version=answer.version,
            )
        )
