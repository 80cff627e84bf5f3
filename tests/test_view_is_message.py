"""A game whose views are its generated view message writes the schema once: the default
view_to_proto hands the view over and view_from_proto is its inverse; a game with views of its
own is told clearly what is missing."""

from __future__ import annotations

import pytest
from google.protobuf import struct_pb2, wrappers_pb2
from serai.game import Game, GameInfo
from serai_jaipur import JaipurGame


class _Bare(Game):  # only what the defaults are about; the rules are never called
    info = GameInfo(
        name="bare", title="Bare", min_players=2, max_players=2, version="1", summary="-"
    )
    view_message = struct_pb2.Struct
    move_message = wrappers_pb2.Int32Value
    setup = to_act = legal_moves = apply = view = outcome = players = None  # type: ignore[assignment]
    label = encode_state = decode_state = move_to_proto = move_from_proto = None  # type: ignore[assignment]


def test_a_view_that_is_the_view_message_goes_over_as_it_is_and_comes_back():
    game = _Bare()
    view = struct_pb2.Struct()
    view.update({"hand": [1, 2]})
    assert game.view_to_proto(view) is view
    assert game.view_from_proto(view) is view


def test_a_view_of_another_kind_is_refused_naming_both_types():
    with pytest.raises(TypeError, match="view\\(\\) gave a dict, not its view_message Struct"):
        _Bare().view_to_proto({"hand": [1, 2]})
    with pytest.raises(ValueError, match="a bare view is a Struct, not a Int32Value"):
        _Bare().view_from_proto(wrappers_pb2.Int32Value(value=1))


def test_a_game_with_views_of_its_own_keeps_its_own_conversions():
    game = JaipurGame()
    state = game.setup(2, 1, game.resolve_options({}))
    view = game.view(state, 0)
    assert game.view_from_proto(game.view_to_proto(view)) == view
