"""Views: the public table for everyone, a seat's own hand and bonus values for that seat only."""

import random

from jaipur_builders import C, D, G, K, L, P, S, build
from serai_jaipur import JaipurGame, Sell
from serai_jaipur.views import determinize, view

game = JaipurGame()


def table():
    return build(
        market={K: 2, D: 1, G: 1, C: 1},
        hands=({D: 2, L: 3}, {P: 4, S: 1}),
        herds=(3, 1),
        discards={L: 2},
        stacks={L: 7},
        goods_tokens=(((L, 4), (L, 3)), ()),
        bonus_tokens=(((3, 2),), ((3, 1), (4, 6))),
        bonus=((1, 2, 2, 3, 3), (4, 4, 5, 5, 6), (8, 8, 9, 10, 10)),
        turn=1,
    )


def test_a_seat_sees_its_own_hand_and_only_the_size_of_the_other():
    mine = view(table(), 0)
    assert mine.players[0].hand == (2, 0, 0, 0, 0, 3)
    assert mine.players[1].hand is None
    assert [p.hand_size for p in mine.players] == [5, 5]
    message = game.view_to_proto(mine)
    assert message.players[0].HasField("hand")
    assert not message.players[1].HasField("hand")


def test_a_spectator_sees_no_hand_at_all():
    spectator = view(table(), None)
    assert all(p.hand is None and p.bonus_tokens is None for p in spectator.players)
    message = game.view_to_proto(spectator)
    assert not message.HasField("viewer")
    assert not any(p.HasField("hand") or p.bonus_tokens for p in message.players)


def test_a_seat_sees_its_own_bonus_values_and_only_the_count_of_the_others():
    mine = view(table(), 0)
    assert mine.players[0].bonus_tokens == ((3, 2),)
    assert mine.players[1].bonus_tokens is None
    assert mine.players[1].bonus_counts == (1, 1, 0)
    message = game.view_to_proto(game.view(table(), 1))
    assert [(t.cards, t.value) for t in message.players[1].bonus_tokens] == [(3, 1), (4, 6)]
    assert not message.players[0].bonus_tokens
    assert message.players[0].bonus_counts.three == 1


def test_the_public_table_is_in_every_view():
    for seat in (0, 1, None):
        v = view(table(), seat)
        assert v.market == (1, 1, 0, 1, 0, 0, 2)
        assert v.deck_size == len(table().deck)
        assert v.discards == (0, 0, 0, 0, 0, 2)
        assert v.bonus_left == (5, 5, 5)
        assert [p.herd for p in v.players] == [3, 1]
        assert v.players[0].goods_tokens == ((L, 4), (L, 3))
        assert v.turn == 1
    message = game.view_to_proto(view(table(), None))
    leather = message.goods_stacks[L]
    assert list(leather.values) == [2, 1, 1, 1, 1, 1, 1], "the tokens left, top first"
    assert message.to_act == 1 and message.bonus_left.three == 5


def test_a_view_holds_no_seed_and_no_deck_order():
    names = set(game.view_message.DESCRIPTOR.fields_by_name)
    assert not names & {"seed", "deck", "bonus", "hands"}
    assert not hasattr(view(table(), 0), "seed")


def test_a_scored_round_reveals_its_bonus_values_to_everyone():
    state = build(hands=({S: 2}, {}), stacks={D: 0, G: 0, S: 2}, bonus_tokens=((), ((5, 10),)))
    after = game.apply(state, 0, Sell(S, 2))
    message = game.view_to_proto(game.view(after, None))
    scores = message.results[0].scores
    assert list(scores[1].bonus_tokens) == [10]
    assert message.results[0].winner == 1, "10 rupees each: the bonus token decides"
    assert message.results[0].ended_by == "stacks"


def test_a_finished_match_names_its_winner_and_no_seat_to_act():
    state = build(
        hands=({S: 2}, {}), stacks={D: 0, G: 0, S: 2}, seals=(1, 0), goods_tokens=(((D, 7),), ())
    )
    message = game.view_to_proto(game.view(game.apply(state, 0, Sell(S, 2)), 1))
    assert message.winner == 0
    assert not message.HasField("to_act")


def test_an_empty_own_hand_is_still_shown_as_the_viewers_hand():
    message = game.view_to_proto(game.view(build(), 0))
    assert message.players[0].HasField("hand")


def test_determinize_keeps_what_the_seat_sees_and_samples_the_rest():
    state = table()
    for seat in (0, 1, None):
        seen = view(state, seat)
        for n in range(20):
            sampled = determinize(seen, random.Random(n))
            assert view(sampled, seat) == seen
            assert game.determinize(seen, random.Random(n)) == sampled
            assert (
                sum(sampled.market)
                + len(sampled.deck)
                + sum(map(sum, sampled.hands))
                + sum(sampled.herds)
                + sum(sampled.discards)
                == 55
            )
            if seat == 1:
                assert game.legal_moves(sampled, 1) == game.legal_moves(state, 1)


def test_determinize_samples_different_hidden_cards():
    seen = view(table(), 0)
    hands = {determinize(seen, random.Random(n)).hands[1] for n in range(30)}
    assert len(hands) > 1
    bonus = {determinize(seen, random.Random(n)).bonus_tokens[1] for n in range(30)}
    assert len(bonus) > 1
