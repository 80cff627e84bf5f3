"""Stored bytes and protobuf messages: round trips, and malformed input refused by name."""

import pytest
from nile_support import GAME, card, crop, table
from serai.game import IllegalMove, MalformedMove
from serai_nile import nile_pb2 as pb
from serai_nile.cards import PLAGUE, Card, Crop
from serai_nile.moves import Market, Offering, Pass, Plant, Speculate


def test_stored_state_round_trips_and_equal_states_give_equal_bytes():
    state = GAME.setup(5, 123, {})
    data = GAME.encode_state(state)
    assert GAME.decode_state(data) == state
    assert GAME.encode_state(GAME.decode_state(data)) == data
    assert GAME.encode_state(GAME.setup(5, 123, {})) == data


def test_stored_state_of_another_layout_is_refused():
    data = GAME.encode_state(table()).replace(b'"v":1', b'"v":99')
    with pytest.raises(ValueError, match="layout 99"):
        GAME.decode_state(data)


@pytest.mark.parametrize(
    "move",
    [
        Market(hand=(card("wheat"), card("papyrus/flax"))),
        Offering(hand=(card("castor"),), storehouse=(crop("lettuce"),)),
        Plant((crop("wheat"), crop("wheat"), crop("flax"))),
        Speculate((card("wheat/flax"), card("papyrus/castor"))),
        Pass(),
    ],
)
def test_every_kind_of_move_round_trips_through_protobuf(move):
    message = GAME.move_to_proto(move)
    assert isinstance(message, GAME.move_message)
    parsed = GAME.move_message.FromString(message.SerializeToString())
    assert GAME.move_from_proto(parsed) == move


def test_moves_are_canonical_whatever_order_their_cards_come_in():
    assert Plant((crop("flax"), crop("wheat"))) == Plant((crop("wheat"), crop("flax")))
    assert Card((Crop.FLAX, Crop.WHEAT)) == card("wheat/flax")
    assert Market(hand=(card("flax"), card("wheat"))) == Market(hand=(card("wheat"), card("flax")))


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.View(), "expected a serai.games.nile.v1.Move"),
        (pb.Move(), "sets none of"),
        (pb.Move(plant=pb.Plant(crops=[pb.CropCount(crop=0, count=2)])), "CROP_UNSPECIFIED"),
        (pb.Move(plant=pb.Plant(crops=[pb.CropCount(crop=2, count=0)])), "count of at least 1"),
        (
            pb.Move(speculate=pb.Speculate(cards=[pb.Card(kind=2, crops=[1])])),
            "shows 2 different crop",
        ),
        (
            pb.Move(speculate=pb.Speculate(cards=[pb.Card(kind=2, crops=[1, 1])])),
            "different crop",
        ),
        (pb.Move(market=pb.Trade(from_hand=[pb.Card(kind=0, crops=[1])])), "card kind 0"),
    ],
)
def test_a_malformed_move_message_is_refused_with_the_reason(message, reason):
    with pytest.raises(MalformedMove, match=reason):
        GAME.move_from_proto(message)


def test_apply_refuses_something_that_is_not_a_move_as_malformed():
    with pytest.raises(MalformedMove, match="not a Nile move"):
        GAME.apply(table(), 0, "plant 2 wheat")
    with pytest.raises(MalformedMove, match="by Crop"):
        GAME.apply(table(hands=[["wheat"] * 2, []]), 0, Plant((1, 1)))


def test_the_plague_and_grapes_have_proto_names():
    message = GAME.view_to_proto(GAME.view(table(discard=["plague"]), 0))
    assert message.discard[0].card.kind == pb.CARD_KIND_PLAGUE
    assert pb.Crop.Name(int(Crop.GRAPES) + 1) == "CROP_GRAPES"
    assert PLAGUE.name == "plague"


def test_grapes_are_refused_in_a_base_game():
    state = table(hands=[["wheat", "wheat"], []])
    with pytest.raises(IllegalMove, match="grapes is not played in this match"):
        GAME.apply(state, 0, Plant((Crop.GRAPES, Crop.GRAPES)))
