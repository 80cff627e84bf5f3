"""Strategies against each other with no server: the plugin in-process, the wire's shapes kept.

For tests and tuning only. Each seat gets a snapshot built exactly as the server builds one —
``view_to_proto(view(state, seat))`` inside an Any, moves with ids, labels and typed payloads —
so a strategy that works here sees nothing it would not see over gRPC.

Example::

    result = play_local("jaipur", [make_strategy("greedy", "jaipur", 1), RandomStrategy(2)], 7)
    result.outcome.winners     # (0,)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.game import Game, Outcome

from serai_client.bots.base import Strategy
from serai_client.types import LegalMove, LegalMoves, Snapshot


@dataclass(frozen=True)
class LocalResult:
    outcome: Outcome
    moves: int


def snapshot_for(game: Game[Any, Any, Any], state: Any, seat: int, version: int) -> Snapshot:
    """The snapshot the server would send ``seat``: its view only."""
    view = game.view_to_proto(game.view(state, seat))
    packed = any_pb2.Any()
    packed.Pack(view)
    done = game.outcome(state) is not None
    proto = pb.MatchSnapshot(
        match=pb.MatchSummary(
            match_id="local",
            game=game.info.name,
            status=pb.MATCH_STATUS_FINISHED if done else pb.MATCH_STATUS_RUNNING,
            version=version,
        ),
        viewer_seat=seat,
        version=version,
        to_act=game.to_act(state),
        view=packed,
    )
    return Snapshot(proto, view)


def moves_for(game: Game[Any, Any, Any], state: Any, seat: int, version: int) -> LegalMoves:
    """The legal moves the server would list for ``seat``, ids "0", "1", ..."""
    moves = []
    for index, move in enumerate(game.legal_moves(state, seat)):
        payload = game.move_to_proto(move)
        packed = any_pb2.Any()
        packed.Pack(payload)
        proto = pb.LegalMove(id=str(index), label=game.label(move), payload=packed)
        moves.append(LegalMove(proto.id, proto.label, payload, proto))
    return LegalMoves(seat, version, tuple(moves))


def play_local(
    game_name: str, strategies: Sequence[Strategy], seed: int, max_moves: int = 5000
) -> LocalResult:
    """Play one match between ``strategies`` (seat order) in-process; its outcome."""
    game = registry.load().get(game_name)
    state = game.setup(len(strategies), seed, game.resolve_options({}))
    version = 0
    while game.outcome(state) is None:
        if version >= max_moves:
            raise RuntimeError(f"no end after {max_moves} moves")
        seat = game.to_act(state)[0]
        snapshot = snapshot_for(game, state, seat, version)
        moves = moves_for(game, state, seat, version)
        chosen = strategies[seat].choose(snapshot, moves)
        state = game.apply(state, seat, game.legal_moves(state, seat)[int(chosen.id)])
        version += 1
    outcome = game.outcome(state)
    assert outcome is not None
    return LocalResult(outcome, version)
