"""Moves on the wire and in words: protobuf both ways, labels, and refusals that name the rule."""

import pytest
from jaipur_builders import C, D, G, K, L, S, build
from serai.game import IllegalMove, MalformedMove
from serai_jaipur import Exchange, JaipurGame, Sell, TakeCamels, TakeGood
from serai_jaipur import jaipur_pb2 as pb

game = JaipurGame()


def test_labels_say_what_the_move_does():
    assert game.label(TakeGood(D)) == "take 1 diamond"
    assert game.label(TakeGood(C)) == "take 1 cloth"
    assert game.label(TakeCamels(3)) == "take all 3 camels"
    assert game.label(TakeCamels(1)) == "take all 1 camel"
    assert game.label(Exchange(take=(G, S), give=(K, K, C))) == (
        "exchange 2 camels + cloth for gold + silver"
    )
    assert game.label(Exchange(take=(D, D), give=(L, L))) == "exchange 2 leather for 2 diamonds"
    assert game.label(Sell(C, 3)) == "sell 3 cloth"
    assert game.label(Sell(D, 2)) == "sell 2 diamonds"


def test_a_move_of_odd_field_types_is_refused_not_answered_from_an_equal_moves_memo():
    # Sell(C, True) == Sell(C, 1) and TakeCamels(2.0) == TakeCamels(2): the memos of labels and
    # wire bytes, found by equality, must not answer one with what they kept for the other.
    for plain, odd in [(Sell(C, 1), Sell(C, True)), (TakeCamels(2), TakeCamels(2.0))]:
        expected = game.label(plain), game.move_to_proto(plain)
        with pytest.raises(MalformedMove, match="is not a count of cards"):
            game.label(odd)  # type: ignore[arg-type]
        with pytest.raises(MalformedMove, match="is not a count of cards"):
            game.move_to_proto(odd)  # type: ignore[arg-type]
        assert (game.label(plain), game.move_to_proto(plain)) == expected
    assert game.label(TakeGood(0)) == "take 1 diamond"  # a plain int names a good, as ever


def test_moves_compare_and_hash_by_value():
    assert TakeGood(D) == TakeGood(0)
    assert len({Sell(C, 2), Sell(C, 2), Sell(C, 1)}) == 2
    assert hash(Exchange((S, G), (K, C))) == hash(Exchange((G, S), (C, K)))


@pytest.mark.parametrize(
    "move",
    [TakeGood(D), TakeCamels(2), Exchange(take=(G, S, S), give=(K, C, L)), Sell(L, 4)],
)
def test_a_move_goes_to_protobuf_and_back_unchanged(move):
    message = game.move_to_proto(move)
    assert isinstance(message, game.move_message)
    data = message.SerializeToString(deterministic=True)
    assert game.move_from_proto(pb.Move.FromString(data)) == move


def test_the_good_enum_starts_with_unspecified():
    assert pb.GOOD_UNSPECIFIED == 0
    assert game.move_to_proto(TakeGood(D)).take_good.good == pb.GOOD_DIAMOND
    assert game.move_to_proto(Sell(L, 1)).sell.good == pb.GOOD_LEATHER


def test_a_move_message_of_the_wrong_type_is_malformed():
    with pytest.raises(MalformedMove, match=r"expected a serai.games.jaipur.v1.Move"):
        game.move_from_proto(pb.View())


def test_a_move_message_with_no_action_set_is_malformed():
    with pytest.raises(MalformedMove, match="no action set"):
        game.move_from_proto(pb.Move())


def test_an_unspecified_or_unknown_good_is_malformed():
    with pytest.raises(MalformedMove, match="not a known good"):
        game.move_from_proto(pb.Move(take_good=pb.TakeGood()))
    with pytest.raises(MalformedMove, match="not a known good"):
        game.move_from_proto(pb.Move(sell=pb.Sell(good=42, count=2)))  # type: ignore[arg-type]
    with pytest.raises(MalformedMove, match=r"exchange\.give"):
        game.move_from_proto(pb.Move(exchange=pb.Exchange(take=[1, 2], give=[4, 0])))


def test_a_view_message_is_the_game_view_message():
    message = game.view_to_proto(game.view(game.setup(2, 3, {}), 0))
    assert isinstance(message, game.view_message)
    assert message.SerializeToString(deterministic=True)


STATE = build(market={K: 3, D: 1, L: 1}, hands=({C: 2}, {}))


@pytest.mark.parametrize(
    ("move", "error", "reason"),
    [
        ("sell 2 cloth", MalformedMove, "str is not a Jaipur move"),
        (TakeGood(9), MalformedMove, "9 is not a card type"),
        (TakeGood("gold"), MalformedMove, "'gold' is not a card type"),
        (Sell(C, -1), MalformedMove, "not a count of cards"),
        (Sell(C, True), MalformedMove, "not a count of cards"),
        (Exchange(take="DG", give=(C, C)), MalformedMove, "expected a sequence of card types"),
        (TakeGood(G), IllegalMove, "no gold in the market"),
        (Sell(C, 3), IllegalMove, "your hand has 2 cloth, not 3"),
        (Exchange(take=(D, L), give=(C,)), IllegalMove, "as many cards as it takes"),
    ],
)
def test_bad_moves_are_refused_with_the_rule_and_the_state_is_unchanged(move, error, reason):
    before = game.encode_state(STATE)
    with pytest.raises(error, match=reason):
        game.apply(STATE, 0, move)
    assert game.encode_state(STATE) == before


def test_a_seat_may_not_move_out_of_turn():
    with pytest.raises(IllegalMove, match="it is seat 0's turn, not seat 1's"):
        game.apply(STATE, 1, TakeCamels(3))
    assert game.legal_moves(STATE, 1) == ()


def test_no_move_is_accepted_once_the_match_is_over():
    over = build(turn=None, seals=(2, 0))
    with pytest.raises(IllegalMove, match="the match is over"):
        game.apply(over, 0, TakeCamels(3))
    assert game.to_act(over) == ()


def test_a_malformed_move_is_also_an_illegal_move_for_callers_that_catch_one_type():
    with pytest.raises(IllegalMove):
        game.apply(STATE, 0, object())
