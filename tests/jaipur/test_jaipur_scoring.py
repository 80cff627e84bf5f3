"""Scoring a round: camel token, rupees, tie-breaks, seals, the match, and our tie choice."""

from dataclasses import replace

from jaipur_builders import C, D, G, L, P, S, build
from serai_jaipur import JaipurGame, Sell
from serai_jaipur.rules import end_round, score_round

game = JaipurGame()


def tokens(good, *values):
    return tuple((good, value) for value in values)


def test_the_larger_herd_takes_the_camel_token_worth_5():
    result = score_round(build(herds=(4, 2)), "stacks")
    assert result.camel_token == 0
    assert result.rupees == (5, 0)


def test_nobody_takes_the_camel_token_on_equal_herds():
    result = score_round(build(herds=(3, 3)), "stacks")
    assert result.camel_token is None
    assert result.rupees == (0, 0)


def test_rupees_are_goods_tokens_plus_bonus_tokens_plus_the_camel_token():
    state = build(
        herds=(1, 0),
        goods_tokens=(tokens(D, 7, 7) + tokens(C, 1), tokens(L, 4)),
        bonus_tokens=(((3, 2),), ((5, 10),)),
    )
    result = score_round(state, "stacks")
    assert result.rupees == (7 + 7 + 1 + 2 + 5, 4 + 10)
    assert result.goods_tokens == ((7, 7, 1), (4,))
    assert result.bonus_tokens == ((2,), (10,)), "bonus values are revealed when scored"
    assert result.winner == 0


def test_equal_rupees_are_broken_by_more_bonus_tokens():
    state = build(
        goods_tokens=(tokens(S, 5, 5), tokens(S, 5, 5, 5)),
        bonus_tokens=(((3, 2), (3, 3)), ()),
    )
    result = score_round(state, "stacks")
    assert result.rupees == (15, 15)
    assert result.winner == 0


def test_then_equal_bonus_tokens_are_broken_by_more_goods_tokens():
    state = build(goods_tokens=(tokens(G, 6, 6), tokens(C, 5, 5, 2)), bonus_tokens=(((3, 1),),) * 2)
    result = score_round(state, "stacks")
    assert result.rupees == (13, 13)
    assert result.winner == 1


def test_the_camel_token_counts_as_neither_a_bonus_nor_a_goods_token():
    state = build(herds=(3, 1), goods_tokens=(tokens(S, 5), tokens(S, 5, 5)))
    result = score_round(state, "stacks")
    assert result.rupees == (10, 10)
    assert result.winner == 1, "two goods tokens beat one goods token plus the camel token"


def test_a_complete_tie_gives_no_seal_and_the_round_is_played_again():
    state = build(goods_tokens=(tokens(S, 5), tokens(S, 5)), starter=0, seals=(1, 0), round=2)
    result = score_round(state, "stacks")
    assert result.winner is None
    after = end_round(state, "stacks")
    assert after.seals == (1, 0)
    assert after.round == 2, "the replay is the same round"
    assert after.deal == 2
    assert after.results[-1].winner is None


def test_a_replayed_tie_is_started_by_the_seat_that_did_not_start_the_tied_round():
    for starter in (0, 1):
        state = build(goods_tokens=(tokens(S, 5), tokens(S, 5)), starter=starter, turn=starter)
        after = end_round(state, "stacks")
        assert after.starter == after.turn == 1 - starter


def test_the_loser_of_a_round_starts_the_next():
    for winner in (0, 1):
        goods = [(), ()]
        goods[winner] = tokens(D, 7)
        state = build(goods_tokens=tuple(goods), starter=winner, turn=winner)
        after = end_round(state, "stacks")
        assert after.seals[winner] == 1
        assert after.starter == after.turn == 1 - winner


def test_rupees_start_from_zero_each_round_and_only_seals_carry_over():
    state = build(
        goods_tokens=(tokens(D, 7, 7), tokens(L, 4)),
        bonus_tokens=(((4, 6),), ()),
        herds=(2, 0),
    )
    after = end_round(state, "stacks")
    assert after.goods_tokens == ((), ()) and after.bonus_tokens == ((), ())
    assert after.seals == (1, 0)
    assert after.round == 2 and sum(after.market) == 5
    assert sum(after.herds) + sum(map(sum, after.hands)) == 10, "a fresh deal"


def test_the_first_seat_to_two_seals_wins_the_match():
    state = build(goods_tokens=((), tokens(D, 7)), seals=(1, 1), round=3, deal=3)
    after = end_round(state, "stacks")
    assert after.over and game.to_act(after) == ()
    assert after.seals == (1, 2)
    outcome = game.outcome(after)
    assert outcome.scores == (1, 2) and outcome.ranks == (1, 0) and outcome.winners == (1,)
    assert outcome.summary == "seat 1 wins 2 seals to 1"
    assert game.legal_moves(after, 1) == ()


def test_no_outcome_while_the_match_is_played():
    assert game.outcome(game.setup(2, 1, {})) is None


LEA, TOM = 0, 1
# 60 rupees of goods tokens for Léa; 58 for Tom before his last sale of 2 silver (10).
LEA_60 = tokens(D, 7, 7, 5, 5, 5) + tokens(G, 6, 6, 5) + tokens(C, 5, 3, 3) + tokens(L, 3)
TOM_58 = (
    tokens(G, 5, 5)
    + tokens(S, 5, 5, 5)
    + tokens(P, 5, 3, 3, 2, 2, 1, 1)
    + tokens(C, 2, 2, 1, 1)
    + tokens(L, 4, 2, 1, 1, 1, 1)
)


def test_the_worked_example_of_seed_003_lea_65_with_the_camel_token_loses_to_tom_68():
    assert sum(v for _, v in LEA_60) == 60 and sum(v for _, v in TOM_58) == 58
    # The sheet's herds (8 vs 5) are more than the 11 camels of the game; scoring does not care.
    round_1 = build(
        market={L: 5},
        deck=[],
        hands=({}, {S: 2}),
        herds=(8, 5),
        stacks={D: 0, G: 0, S: 2},
        goods_tokens=(LEA_60, TOM_58),
        starter=LEA,
        turn=TOM,
    )
    round_2 = game.apply(round_1, TOM, Sell(S, 2))
    first = round_2.results[0]
    assert first.camel_token == LEA
    assert first.rupees == (65, 68)
    assert first.winner == TOM
    assert round_2.seals == (0, 1)
    assert round_2.round == 2 and round_2.starter == LEA, "the loser starts the next round"
    assert game.announcements(round_1, round_2) == (
        "round 1 ends (three goods stacks are empty): seat 1 wins a seal, 68 rupees to 65",
    )

    lea_ahead = replace(round_2, goods_tokens=(tokens(D, 7, 7), tokens(L, 4)))
    round_3 = end_round(lea_ahead, "deck")
    assert round_3.seals == (1, 1) and not round_3.over
    assert round_3.round == 3 and round_3.starter == TOM

    last = replace(round_3, goods_tokens=(tokens(G, 6), ()), turn=LEA)
    final = end_round(last, "stacks")
    assert final.over and final.seals == (2, 1)
    outcome = game.outcome(final)
    assert outcome.scores == (2, 1) and outcome.ranks == (0, 1)
    assert [r["winner"] for r in outcome.details["rounds"]] == [TOM, LEA, LEA]
    assert outcome.details["rounds"][0]["rupees"] == [65, 68]
    assert outcome.details["rounds"][0]["camel_token"] == LEA
    assert game.announcements(last, final)[-1] == "seat 0 wins the match, 2 seals to 1"


def test_a_complete_tie_is_announced_as_a_replay():
    state = build(goods_tokens=(tokens(S, 5), tokens(S, 5)))
    after = end_round(state, "stacks")
    assert game.announcements(state, after) == (
        "round 1 ends (three goods stacks are empty): a complete tie at 5 rupees; no seal, "
        "the round is played again",
    )
    assert game.announcements(after, after) == ()


def test_a_complete_tie_reached_by_a_sale_replays_the_round_through_apply():
    state = build(
        hands=({S: 2}, {}),
        stacks={D: 0, G: 0, S: 2},
        goods_tokens=((), tokens(C, 5, 5)),
        starter=1,
        turn=0,
    )
    after = game.apply(state, 0, Sell(S, 2))
    assert after.results[0].rupees == (10, 10)
    assert after.results[0].winner is None
    assert after.seals == (0, 0) and not after.over
    assert (after.round, after.deal) == (1, 2)
    assert after.starter == after.turn == 0, "seat 1 started the tied deal"
    assert after.goods_tokens == ((), ()) and sum(after.market) == 5
