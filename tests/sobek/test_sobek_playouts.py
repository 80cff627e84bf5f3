"""Random full matches for 2, 3 and 4 players: Sobek's invariants that every position must keep.

The plugin contract on such playouts (listed moves apply, each once and in a stable order, idle
seats have none, apply never changes its input, moves and states round-trip, same seed and moves
give the same bytes) is the shared harness's (tests/check/test_check_games.py, `serai check`)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serai.game import IllegalMove
from serai_sobek.cards import CHARACTER_IDS, Character
from serai_sobek.moves import ChooseEvent, Finish, PickCards, PlayCharacter, Take
from serai_sobek.state import Phase
from test_sobek_support import GAME, all_cards


def unlisted(state, seat, rng):
    """Moves that are not in the list for ``seat``: they must all be refused."""
    listed = set(GAME.legal_moves(state, seat))
    candidates = [
        Take(len(state.row)),
        Take(-1),
        Take(4),
        ChooseEvent(len(state.tokens)),
        Finish(),
        *(PlayCharacter(c) for c in Character),
        *(PlayCharacter(c, seat) for c in Character),
    ]
    if state.seats[seat].hand:
        mine = [c for c in Character if CHARACTER_IDS[c] in state.seats[seat].hand]
        candidates += [PlayCharacter(c, state.players) for c in mine]
    return [m for m in candidates if m not in listed]


def play(players, seed, rng):
    state = GAME.setup(players, seed=seed, options={})
    while GAME.outcome(state) is None:
        acting = GAME.to_act(state)
        assert len(acting) == 1
        seat = acting[0]
        legal = GAME.legal_moves(state, seat)
        assert legal, "a seat to act always has a move"
        # a seat choosing by label can tell its moves apart, except cards picked to go where
        # the others may not see them (the label is public, so it does not name them)
        named = [GAME.label(m) for m in legal if not isinstance(m, PickCards)]
        assert len(named) == len(set(named)), named
        for move in rng.sample(legal, min(3, len(legal))):
            assert all_cards(GAME.apply(state, seat, move)) == list(range(63))
        for move in unlisted(state, seat, rng):
            with pytest.raises(IllegalMove):
                GAME.apply(state, seat, move)
        state = GAME.apply(state, seat, rng.choice(legal))
    assert state.phase is Phase.OVER and GAME.to_act(state) == ()
    assert all_cards(state) == list(range(63))
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=6)
@given(seed=st.integers(0, 2**31), rng=st.randoms(use_true_random=False))
def test_random_matches_keep_every_card_and_accept_only_listed_moves(players, seed, rng):
    state = play(players, seed, rng)
    outcome = GAME.outcome(state)
    assert outcome is not None and len(outcome.scores) == players
    assert 1 <= state.round <= 3 and len(state.results) == state.round


def test_announcements_tell_of_round_ends_and_the_winner():
    state = GAME.setup(2, seed=3, options={})
    rng = random.Random(3)
    news = []
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        after = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        news += GAME.announcements(state, after)
        state = after
    assert any(line.startswith("round 1 scores") for line in news)
    assert any("market has run out" in line for line in news)
    assert news[-1] == GAME.outcome(state).summary
