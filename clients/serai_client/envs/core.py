"""What every research bridge shares, with no research library imported: the action bound of
each game, rank-based rewards, and a seat's decision in the shapes a policy function receives.

The bridges (:mod:`~serai_client.envs.aec` for PettingZoo, :mod:`~serai_client.envs.spiel` for
OpenSpiel) and ``serai bot --policy`` all call the plugin through these, so an agent trained in an
environment meets the same view, the same moves in the same order, and the same reward meaning
that it meets on the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf import any_pb2
from google.protobuf.message import Message
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.game import Game, OptionValue, Outcome

from serai_client.types import LegalMove

AnyGame = Game[Any, Any, Any]


def load_game(name: str) -> AnyGame:
    """The installed game called ``name`` (ValueError naming the installed ones otherwise)."""
    games = registry.load()
    try:
        return games.get(name)
    except KeyError as error:  # its message names the installed games
        raise ValueError(error.args[0]) from None


def max_actions(game: AnyGame, given: int | None = None) -> int:
    """The size of ``game``'s action space: ``given``, else the bound the game declares
    (``GameInfo.max_legal_moves``). Index ``i`` is the ``i``-th legal move, in the game's own
    order (the order the server lists, ids "0", "1", ...). Where a position lists more moves
    than the bound, the moves past it are not offered (the agent still plays only legal moves)
    and the environment says how many it cut (``info["moves_cut"]``)."""
    bound = given or game.info.max_legal_moves
    if not bound or bound < 1:
        raise ValueError(
            f"{game.info.name} declares no max_legal_moves in its GameInfo: pass max_actions=N "
            "(the most legal moves a position can list)"
        )
    return int(bound)


def tensor_size(game: AnyGame, players: int, options: Mapping[str, OptionValue]) -> int | None:
    """The length of ``game``'s view tensor at ``players`` seats, where it declares one."""
    if not game.info.provides.view_tensor:
        return None
    probe = start(game, players, 0, options)
    tensor = game.view_tensor(game.view(probe, 0))
    return None if tensor is None else len(tensor)


def rank_rewards(outcome: Outcome) -> tuple[float, ...]:
    """Each seat's reward for a finished match, from the ranks alone (scores do not count).

    A seat earns one point for each seat ranked below it and loses one for each ranked above,
    divided by ``players - 1``: +1 for a clear winner, -1 for the clear loser, 0 for a shared
    place between two; the rewards of a match always add up to 0.
    """
    ranks = outcome.ranks
    others = max(len(ranks) - 1, 1)
    return tuple(
        (sum(1 for other in ranks if other > mine) - sum(1 for other in ranks if other < mine))
        / others
        for mine in ranks
    )


def start(
    game: AnyGame, players: int, seed: int, options: Mapping[str, str | OptionValue] | None
) -> Any:
    """The initial state of a match, options checked as CreateMatch checks them."""
    game.check_players(players)
    return game.setup(players, seed, game.resolve_options(dict(options or {})))


def view_message(game: AnyGame, state: Any, seat: int) -> Message:
    """The view message the server sends ``seat`` for ``state`` (its own view only)."""
    return game.view_to_proto(game.view(state, seat))


def legal_moves(game: AnyGame, state: Any, seat: int) -> tuple[LegalMove, ...]:
    """``seat``'s legal moves as a client receives them: ids "0", "1", ..., labels, payloads."""
    listed = []
    for index, move in enumerate(game.legal_moves(state, seat)):
        payload = game.move_to_proto(move)
        packed = any_pb2.Any()
        packed.Pack(payload)
        proto = pb.LegalMove(id=str(index), label=game.label(move), payload=packed)
        listed.append(LegalMove(proto.id, proto.label, payload, proto))
    return tuple(listed)
