"""Invariants over random legal playouts from random seeds (hypothesis drives the seeds)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from jaipur_builders import total_cards
from jaipur_playouts import final_state, game, playout
from serai.game import IllegalMove
from serai_jaipur import Exchange, Sell, TakeCamels, TakeGood
from serai_jaipur.cards import HAND_LIMIT, MARKET_SIZE, SEALS_TO_WIN, Good

seeds = st.integers(min_value=-(2**63), max_value=2**63 - 1)
choices = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=1000)
@given(seed=seeds, choice=choices)
def test_random_matches_keep_cards_market_and_hands_in_bounds_and_end_with_a_winner(seed, choice):
    state = None
    for state, move in playout(seed, choice):
        assert total_cards(state) == 55
        assert sum(state.market) == MARKET_SIZE, "the market has 5 cards while a round runs"
        assert all(sum(hand) <= HAND_LIMIT for hand in state.hands)
        assert move in game.legal_moves(state, state.turn)
    final = game.apply(state, state.turn, move)
    assert final.over and total_cards(final) == 55
    assert max(final.seals) == SEALS_TO_WIN and min(final.seals) < SEALS_TO_WIN
    outcome = game.outcome(final)
    assert outcome.scores[outcome.winners[0]] == SEALS_TO_WIN
    decided = [r for r in final.results if r.winner is not None]
    assert len(decided) <= 3, "three rounds at most"
    assert [r.round for r in decided] == list(range(1, len(decided) + 1))


def _conceivable_moves(rng):
    """Every take and sale a client could send, and a sample of conceivable exchanges."""
    moves = [TakeGood(good) for good in Good]
    moves += [TakeCamels(count) for count in range(12)]
    moves += [Sell(good, count) for good in Good for count in range(9)]
    for _ in range(40):
        take = rng.choices(list(Good), k=rng.randint(1, 5))
        give = rng.choices(list(Good), k=rng.randint(1, 5))
        moves.append(Exchange(tuple(take), tuple(give)))
    return moves


@settings(max_examples=60)
@given(seed=seeds, choice=choices, every=st.integers(min_value=5, max_value=15))
def test_every_listed_move_applies_and_every_unlisted_move_is_refused(seed, choice, every):
    rng = random.Random(choice)
    for step, (state, _) in enumerate(playout(seed, choice)):
        legal = game.legal_moves(state, state.turn)
        assert len(set(legal)) == len(legal), "legal moves are listed once each"
        if step % every:
            continue
        before = game.encode_state(state)
        for move in legal:
            game.apply(state, state.turn, move)
        for move in _conceivable_moves(rng):
            if move in legal:
                continue
            try:
                game.apply(state, state.turn, move)
            except IllegalMove as err:
                assert str(err)
            else:
                raise AssertionError(f"unlisted move {move} was accepted")
        assert game.encode_state(state) == before, "apply never changes its input"
        assert game.legal_moves(state, 1 - state.turn) == ()


@settings(max_examples=100)
@given(seed=seeds, choice=choices)
def test_the_same_seed_and_moves_give_byte_identical_states(seed, choice):
    moves = []
    encoded = []
    for state, move in playout(seed, choice):
        moves.append(move)
        encoded.append(game.encode_state(state))
    replay = game.setup(2, seed, {})
    for move, data in zip(moves, encoded, strict=True):
        assert game.encode_state(replay) == data
        replay = game.apply(replay, replay.turn, move)
    assert replay.over


@settings(max_examples=300)
@given(seed=seeds, choice=choices, limit=st.integers(min_value=0, max_value=400))
def test_decoding_an_encoded_state_gives_it_back(seed, choice, limit):
    state = final_state(seed, choice, limit)
    data = game.encode_state(state)
    assert game.decode_state(data) == state
    assert game.encode_state(game.decode_state(data)) == data
