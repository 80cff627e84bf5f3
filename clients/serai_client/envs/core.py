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

MAX_ACTIONS: Mapping[str, int] = {
    # Exact: the most legal moves of any (market, hand, camels that may be given) there is, found
    # by listing the moves of all 462 markets x 1,716 hands x 8 camel counts (serai_jaipur.legal).
    "jaipur": 167,
    # Nile's plants are every sub-multiset of the hand over the crops grown, so a hoarded hand of
    # twenty cards could list thousands; random play (40 matches at each of 2 to 5 players) never
    # passed 101. A bound with room, not a proof: see ``cut`` below.
    "nile": 256,
    # Sobek's sets and characters: random play (40 matches at each of 2 to 4 players) never
    # passed 94. Also a bound with room.
    "sobek": 256,
}
"""The size of each game's action space: index ``i`` is the ``i``-th legal move, in the game's own
order (the order the server lists, ids "0", "1", ...). A game may declare its own bound as a
``max_legal_moves`` attribute; an unknown game without one needs ``max_actions=`` given. Where a
position lists more moves than the bound, the moves past it are not offered (the agent still plays
only legal moves) and the environment says how many it cut (``info["moves_cut"]``)."""


def load_game(name: str) -> AnyGame:
    """The installed game called ``name`` (ValueError naming the installed ones otherwise)."""
    games = registry.load()
    try:
        return games.get(name)
    except KeyError as error:  # its message names the installed games
        raise ValueError(error.args[0]) from None


def max_actions(game: AnyGame, given: int | None = None) -> int:
    """The action-space size of ``game``: ``given``, its own bound, or :data:`MAX_ACTIONS`."""
    bound = given or getattr(game, "max_legal_moves", None) or MAX_ACTIONS.get(game.info.name)
    if not bound or bound < 1:
        raise ValueError(
            f"no action bound is known for {game.info.name!r}: pass max_actions=N (the most "
            "legal moves a position can list)"
        )
    return int(bound)


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
