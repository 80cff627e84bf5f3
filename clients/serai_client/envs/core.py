"""What every research bridge shares, with no research library imported: the action space of
each game, rank-based rewards, and a seat's decision in the shapes a policy function receives.

The bridges (:mod:`~serai_client.envs.aec` for PettingZoo, :mod:`~serai_client.envs.spiel` for
OpenSpiel) and ``serai bot --policy`` all call the plugin through these, so an agent trained in an
environment meets the same view, the same moves in the same order, and the same reward meaning
that it meets on the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2
from google.protobuf.message import Message
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.game import Game, OptionValue, Outcome

from serai_client.types import LegalMove

AnyGame = Game[Any, Any, Any]


class ActionBoundError(ValueError):
    """A decision with more choices than the action space: the environment refuses to go on
    rather than leave legal moves out."""


def load_game(name: str) -> AnyGame:
    """The installed game called ``name`` (ValueError naming the installed ones otherwise)."""
    games = registry.load()
    try:
        return games.get(name)
    except KeyError as error:  # its message names the installed games
        raise ValueError(error.args[0]) from None


@dataclass(frozen=True)
class ActionSpace:
    """A game's action space: ``size`` actions; ``stepped`` when a choice among more legal moves
    than that is made in steps (see :func:`choices`), else such a position is refused."""

    size: int
    stepped: bool


def action_space(game: AnyGame, given: int | None = None) -> ActionSpace:
    """The action space of ``game``, from what its :class:`~serai.game.GameInfo` declares:

    - ``max_legal_moves``: the most legal moves one position can list, derived from the rules
      (Jaipur: 167, exact). Action ``i`` is the ``i``-th legal move; a position listing more
      raises :class:`ActionBoundError` (the declaration was wrong), it is never cut.
    - ``legal_moves_in_steps``: for games whose rules bound no such number (Nile and Sobek have
      no hand limit, so a hoarded hand lists thousands of plants or sets): the action-space
      size, a choice among more moves being made in steps, so every legal move stays playable.

    ``given`` (an environment's ``max_actions=``) replaces the size; a game that declares neither
    is played in steps of ``given``.
    """
    exact = game.info.max_legal_moves
    stepped = game.info.legal_moves_in_steps
    size = given or exact or stepped
    if not size or size < 2:
        raise ValueError(
            f"no action space is declared for {game.info.name!r}: pass max_actions=N (2 or "
            "more); choices among more legal moves are then made in steps"
        )
    return ActionSpace(int(size), stepped=not exact or (given is not None and given < exact))


def max_actions(game: AnyGame, given: int | None = None) -> int:
    """The action-space size of ``game`` (see :func:`action_space`)."""
    return action_space(game, given).size


def tensor_size(game: AnyGame, players: int, options: Mapping[str, OptionValue]) -> int | None:
    """The length of ``game``'s view tensor at ``players`` seats, where it declares one."""
    if not game.info.provides.view_tensor:
        return None
    probe = start(game, players, 0, options)
    tensor = game.view_tensor(game.view(probe, 0))
    return None if tensor is None else len(tensor)


Span = tuple[int, int]
"""A run ``[first, end)`` of a seat's legal-move list still open to its choice."""


def choices(span: Span, space: ActionSpace, game: str = "the game") -> list[Span]:
    """The options of one decision over the moves ``span``, at most ``space.size`` of them.

    Where the moves fit, an option is one move (``(i, i + 1)``), so action ``i`` is the ``i``-th
    legal move, the server's order and ids. Where there are more and the space is ``stepped``,
    the list is cut into at most ``size`` consecutive runs of equal size (a power of ``size``):
    one run is chosen, then a move within it (or a smaller run), so that every legal move can be
    played. Otherwise :class:`ActionBoundError`: a legal move is never left out::

        >>> choices((0, 3), ActionSpace(4, stepped=True))
        [(0, 1), (1, 2), (2, 3)]
        >>> choices((0, 10), ActionSpace(4, stepped=True))
        [(0, 4), (4, 8), (8, 10)]
    """
    first, end = span
    bound = space.size
    if end - first > bound and not space.stepped:
        raise ActionBoundError(
            f"{game} lists {end - first} legal moves here, more than its declared bound of "
            f"{bound} (max_legal_moves): the bound is wrong; refusing to leave moves out"
        )
    size = 1
    while size * bound < end - first:
        size *= bound
    return [(start, min(start + size, end)) for start in range(first, end, size)]


def path_to(index: int, count: int, space: ActionSpace) -> list[int]:
    """The actions that play move ``index`` of ``count`` legal moves: ``[index]`` where they
    fit in one decision, else one action per step (see :func:`choices`)."""
    if not 0 <= index < count:
        raise ValueError(f"move {index} is not one of the {count} legal moves")
    span, path = (0, count), []
    while True:
        options = choices(span, space)
        action = next(i for i, (first, end) in enumerate(options) if first <= index < end)
        path.append(action)
        span = options[action]
        if span[1] - span[0] == 1:
            return path


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
