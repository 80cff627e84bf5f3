"""A policy function as a bot: how a trained agent joins real matches with no new code.

A policy is any function ``policy(view, moves)``: ``view`` is the view message the seat received
(the game's typed protobuf ``View``), ``moves`` its legal moves (:class:`LegalMove`: id, label,
typed payload, in the server's order). It returns one of ``moves`` or its index. The PettingZoo
environment offers the same two things (``env.policy_inputs(agent)``) and numbers its actions
the same way, so one function runs in training and at the table.

``serai bot --policy package.module:function`` and ``serai arena --policy NAME=module:function``
load it with :func:`load_policy`; the current directory is searched too, as ``python -m`` does.

Example::

    def first_move(view, moves):
        return 0

    strategy = PolicyStrategy("first", first_move)   # plays like any bot (play_seat, arena)
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from serai_client.types import LegalMove, LegalMoves, Snapshot

PolicyFunction = Callable[[Message, Sequence[LegalMove]], Any]


def load_policy(spec: str) -> PolicyFunction:
    """The function ``spec`` names (``package.module:function``); ValueError saying what is
    wrong otherwise."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a policy is named as package.module:function, not {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"cannot import the policy's module {module_name!r}: {error}") from None
    function = module
    for part in attribute.split("."):
        function = getattr(function, part, None)  # type: ignore[assignment]
        if function is None:
            raise ValueError(f"module {module_name!r} has no {attribute!r}")
    if not callable(function):
        raise ValueError(f"{spec!r} is not a function")
    return function  # type: ignore[return-value]


class PolicyStrategy:
    """A policy function behind the bots' :class:`~serai_client.bots.Strategy` interface."""

    def __init__(self, name: str, policy: PolicyFunction) -> None:
        self.name = name
        self.policy = policy

    def choose(self, snapshot: Snapshot, moves: LegalMoves) -> LegalMove:
        if snapshot.view is None:
            raise ValueError("the snapshot holds no view for the policy to read")
        return moves.moves[choose_index(self.policy, snapshot.view, moves.moves)]


def choose_index(policy: PolicyFunction, view: Message, moves: Sequence[LegalMove]) -> int:
    """The index in ``moves`` of the move ``policy`` chose (ValueError for anything else)."""
    chosen = policy(view, moves)
    if isinstance(chosen, LegalMove):
        for index, move in enumerate(moves):
            if move.id == chosen.id:
                return index
        raise ValueError(f"the policy chose {chosen.label!r}, which is not a legal move now")
    index = int(chosen)
    if not 0 <= index < len(moves):
        raise ValueError(f"the policy chose move {index} of {len(moves)}")
    return index
