"""The fuzz targets: each reads one input the way the server would and lets only the contract's
errors escape (OSS-Fuzz style: one ``check(data)`` per target, run by :mod:`.run` under atheris).

- ``<game>-move``: the bytes are a move payload for a state reached by a seeded playout (the
  first byte picks the state); the core unpacks it as ``SubmitMove`` does (the size bound, the
  parse, ``move_from_proto``) and the game applies it. Only GameError may escape.
- ``<game>-state``: the bytes go to ``decode_state``. Only ValueError (the contract's answer to
  bytes ``encode_state`` did not write) may escape.
- ``requests``: the first byte picks a request message of ``serai.v1``; the rest is parsed as it,
  and its fields go through the core's request-shape checks (ids, request ids, event ids, game
  options, seat counts and, for SubmitMove, the payload of every game). Only the core's MatchError
  and GameError may escape. The handler layer itself is not reached: it is being rewritten.

Each target also has seeds: inputs a real client or store would send, for the fuzzer to start from.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.game import Game, GameError
from serai.matches import MatchError, PackedMove, planning, requests


@dataclass(frozen=True)
class Target:
    """One fuzz target: ``check`` raises only ``allowed`` for any input; ``seeds`` start it."""

    name: str
    check: Callable[[bytes], None]
    allowed: tuple[type[BaseException], ...]
    seeds: Callable[[], list[bytes]]
    max_len: int


def _playout_states(game: Game[Any, Any, Any], count: int) -> list[tuple[Any, int]]:
    """(state, seat to act) pairs along seeded random playouts at every player count."""
    found: list[tuple[Any, int]] = []
    for players in range(game.info.min_players, game.info.max_players + 1):
        rng = random.Random(players)
        state = game.setup(players, players, game.resolve_options({}))
        for step in range(400):
            to_act = game.to_act(state)
            if not to_act:
                break
            if step % 7 == 0:
                found.append((state, to_act[0]))
            state = game.apply(state, to_act[0], rng.choice(game.legal_moves(state, to_act[0])))
    return found[:: max(1, len(found) // count)][:count]


class _MoveTarget:
    def __init__(self, game: Game[Any, Any, Any]) -> None:
        self.game = game
        self.url = f"type.googleapis.com/{game.move_message.DESCRIPTOR.full_name}"
        self.states = _playout_states(game, 64)

    def check(self, data: bytes) -> None:
        if not data:
            return
        state, seat = self.states[data[0] % len(self.states)]
        move = planning.unpack(self.game, PackedMove(self.url, data[1:]))
        self.game.apply(state, seat, move)

    def seeds(self) -> list[bytes]:
        out = []
        for index, (state, seat) in enumerate(self.states):
            for move in self.game.legal_moves(state, seat)[:8]:
                encoded = self.game.move_to_proto(move).SerializeToString()
                out.append(bytes([index]) + encoded)
        return out


class _StateTarget:
    def __init__(self, game: Game[Any, Any, Any]) -> None:
        self.game = game

    def check(self, data: bytes) -> None:
        self.game.decode_state(data)

    def seeds(self) -> list[bytes]:
        return [self.game.encode_state(state) for state, _ in _playout_states(self.game, 16)]


_REQUESTS = tuple(
    message._concrete_class
    for name, message in pb.DESCRIPTOR.message_types_by_name.items()
    if name.endswith("Request")
)


class _RequestTarget:
    """The request messages of serai.v1 through the core's checks on what they carry."""

    def __init__(self, games: dict[str, Game[Any, Any, Any]]) -> None:
        self.games = [games[name] for name in sorted(games)]
        self.moves = {game.info.name: _MoveTarget(game) for game in self.games}

    def check(self, data: bytes) -> None:
        if not data:
            return
        request = _REQUESTS[data[0] % len(_REQUESTS)]()
        try:
            request.ParseFromString(data[1:])
        except DecodeError:
            return  # gRPC refuses it before a handler runs
        self._check_fields(request, data[0])

    def _check_fields(self, request: Any, pick: int) -> None:
        fields = {field.name for field in request.DESCRIPTOR.fields}
        if "match_id" in fields:
            requests.check_match_id(request.match_id)
        if "request_id" in fields:
            requests.check_request_id(request.request_id)
            requests.check_secret_request_id(request.request_id, "a request", "the answer")
        if "after_event_id" in fields and request.after_event_id:
            requests.check_event_id(request.after_event_id)
        if "player_name" in fields:
            requests.check_player_name(request.player_name)
        if "client_id" in fields and request.client_id:
            requests.check_client_id(request.client_id)
        game = self.games[pick % len(self.games)]
        if isinstance(request, pb.CreateMatchRequest):
            game.resolve_options(dict(request.options))
            game.check_players(request.seats)
        if isinstance(request, pb.SubmitMoveRequest) and request.HasField("payload"):
            payload = PackedMove(request.payload.type_url, request.payload.value)
            move = planning.unpack(game, payload)
            states = self.moves[game.info.name].states
            state, seat = states[pick % len(states)]
            game.apply(state, seat, move)

    def seeds(self) -> list[bytes]:
        out = []
        for index, request in enumerate(_REQUESTS):
            example = request()
            for name in ("match_id", "request_id", "seat_token", "player_name", "game"):
                if name in request.DESCRIPTOR.fields_by_name:
                    setattr(example, name, "abcdefghij0123456789")
            out.append(bytes([index]) + example.SerializeToString())
        for number, game in enumerate(self.games):
            move_target = self.moves[game.info.name]
            state, seat = move_target.states[0]
            submit = pb.SubmitMoveRequest(match_id="m1", seat_token="t")
            submit.payload.Pack(game.move_to_proto(game.legal_moves(state, seat)[0]))
            pick = _REQUESTS.index(pb.SubmitMoveRequest)
            pick += len(_REQUESTS) * number  # the same request, aimed at this game
            out.append(bytes([pick % 256]) + submit.SerializeToString())
        return out


def targets() -> dict[str, Callable[[], Target]]:
    """Every target by name, built on demand: a move and a state target per installed game, and
    the requests target."""
    games = dict(registry.load().games)
    found: dict[str, Callable[[], Target]] = {}
    for name in sorted(games):
        found[f"{name}-move"] = lambda game=games[name]: _move_target(game)
        found[f"{name}-state"] = lambda game=games[name]: _state_target(game)
    found["requests"] = lambda: _requests_target(games)
    return found


def _move_target(game: Game[Any, Any, Any]) -> Target:
    moves = _MoveTarget(game)
    # A byte to pick the state, the payload, and a little over the bound to reach the refusal.
    size = 1 + game.info.max_move_bytes + 16
    return Target(f"{game.info.name}-move", moves.check, (GameError,), moves.seeds, size)


def _state_target(game: Game[Any, Any, Any]) -> Target:
    states = _StateTarget(game)
    return Target(f"{game.info.name}-state", states.check, (ValueError,), states.seeds, 4096)


def _requests_target(games: dict[str, Game[Any, Any, Any]]) -> Target:
    requests = _RequestTarget(games)
    return Target("requests", requests.check, (MatchError, GameError), requests.seeds, 4096)
