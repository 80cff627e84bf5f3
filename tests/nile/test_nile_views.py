"""Views show a seat what it may know and nothing more; determinize samples the rest."""

import random
from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from nile_support import GAME, random_playout, table
from serai_nile.cards import PLAGUE, Card, build_deck, multiset
from serai_nile.state import NileState

seeds = st.integers(min_value=0, max_value=2**32)


def view_bytes(state, seat):
    return GAME.view_to_proto(GAME.view(state, seat)).SerializeToString(deterministic=True)


def shuffle_unknowns(state: NileState, seat: int | None, rng: random.Random) -> NileState:
    """The same table with everything ``seat`` cannot see dealt again at random: other hands,
    other storehouses (same sizes; crop cards only) and the deck order (the plague stays in it)."""
    others = [s for s in range(state.players) if s != seat]
    pool = [c for c in state.deck if c != PLAGUE]
    plague = len(state.deck) - len(pool)
    for other in others:
        pool += state.hands[other]
        pool += [Card.crop(c) for c in state.crops for _ in range(state.storehouses[other][c])]
    rng.shuffle(pool)
    hands, storehouses = list(state.hands), list(state.storehouses)
    for other in others:
        taken = Counter()
        for _ in range(sum(state.storehouses[other])):
            taken[pool.pop(next(i for i, c in enumerate(pool) if c.is_crop)).crops[0]] += 1
        storehouses[other] = tuple(taken[c] for c in state.crops)
    for other in others:
        size = len(state.hands[other])
        hands[other], pool = multiset(pool[:size]), pool[size:]
    if plague:
        pool.insert(rng.randrange(len(pool) + 1), PLAGUE)
    return replace(
        state, deck=tuple(pool), hands=tuple(hands), storehouses=tuple(storehouses), seed=7
    )


def sample_states(players, seed, every=7):
    steps = random_playout(players, seed, random.Random(seed))
    return [state for state, _, _ in steps[:-1:every]]


def test_a_seat_sees_its_own_hand_and_storehouse_and_only_sizes_of_the_others():
    state = table(
        hands=[["wheat", "wheat/flax"], ["castor"] * 3],
        storehouses=[{"flax": 2}, {"papyrus": 1, "wheat": 1}],
        fields=[{"lettuce": 2}, {}],
    )
    message = GAME.view_to_proto(GAME.view(state, 0))
    assert message.HasField("seat") and message.seat == 0
    assert sum(entry.count for entry in message.hand) == 2
    mine, theirs = message.players_view
    assert mine.storehouse_known and [(e.crop, e.count) for e in mine.storehouse] == [(5, 2)]
    assert not theirs.storehouse_known and not theirs.storehouse
    assert not theirs.HasField("hand_size") and theirs.storehouse_size == 2
    assert mine.HasField("hand_size") and mine.hand_size == 2
    shown = GAME.view_to_proto(GAME.view(replace(state, hide_hand_sizes=False), 0))
    assert (shown.players_view[1].hand_size, shown.players_view[1].storehouse_size) == (3, 2)
    assert [(e.crop, e.count) for e in mine.fields] == [(3, 2)]


def test_a_spectator_sees_no_hand_and_no_storehouse():
    state = table(hands=[["wheat"], ["castor"]], storehouses=[{"flax": 2}, {"wheat": 1}])
    message = GAME.view_to_proto(GAME.view(state, None))
    assert not message.HasField("seat") and not message.hand
    assert not any(player.storehouse_known for player in message.players_view)


def test_every_storehouse_is_turned_over_once_the_match_is_over():
    state = replace(table(storehouses=[{"flax": 2}, {"wheat": 1}]), finished=True)
    message = GAME.view_to_proto(GAME.view(state, None))
    assert all(player.storehouse_known for player in message.players_view)


def test_the_view_tells_where_the_plague_is_and_what_is_flooded():
    view = GAME.view(table(discard=["plague"], flood_pile=["papyrus/wheat"]), 1)
    message = GAME.view_to_proto(view)
    assert not message.plague_in_deck
    assert list(message.flooded) == [1, 2]
    assert [list(card.crops) for card in message.flood_pile] == [[1, 2]]


@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 5), seed=seeds, shuffle_seed=seeds)
def test_a_seats_view_does_not_change_when_what_it_cannot_see_changes(players, seed, shuffle_seed):
    rng = random.Random(shuffle_seed)
    changed = 0
    for state in sample_states(players, seed):
        for seat in [*range(players), None]:
            other = shuffle_unknowns(state, seat, rng)
            assert other.all_cards() == state.all_cards()
            changed += other.hands != state.hands or other.deck != state.deck
            assert view_bytes(other, seat) == view_bytes(state, seat)
            if seat is not None:
                assert view_bytes(other, None) == view_bytes(state, None)
                assert GAME.legal_moves(other, seat) == GAME.legal_moves(state, seat)
    assert changed, "the shuffle of unknowns must change something, or this test proves nothing"


def test_a_seats_view_does_change_with_its_own_hand():
    state = table(hands=[["wheat"], ["castor"]])
    other = replace(state, hands=((Card.crop(state.crops[0]),), state.hands[1]))
    assert view_bytes(other, 0) != view_bytes(state, 0)
    assert view_bytes(other, 1) == view_bytes(state, 1)


@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 5), seed=seeds, sample_seed=seeds)
def test_determinize_gives_a_full_state_consistent_with_the_view(players, seed, sample_seed):
    rng = random.Random(sample_seed)
    for state in sample_states(players, seed, every=11):
        for seat in [*range(players), None]:
            view = GAME.view(state, seat)
            sampled = GAME.determinize(view, rng)
            assert GAME.view(sampled, seat) == view
            assert sampled.all_cards() == Counter(build_deck(state.crops))
            assert all(PLAGUE not in hand for hand in sampled.hands)
            if seat == state.active:
                moves = GAME.legal_moves(sampled, seat)
                assert moves == GAME.legal_moves(state, seat)
                GAME.apply(sampled, seat, moves[-1])  # the sampled state plays on


def test_determinize_samples_differently_from_different_generators():
    state = GAME.setup(3, 5, {})
    view = GAME.view(state, 0)
    first = GAME.determinize(view, random.Random(1))
    second = GAME.determinize(view, random.Random(2))
    assert first.hands[0] == second.hands[0] == state.hands[0]
    assert (first.hands[1], first.deck) != (second.hands[1], second.deck)
    assert first.seed != state.seed


def _announced_harvests(steps, players, crops):
    """Per seat and crop, the harvests the public news of a playout announced."""
    counts = [Counter() for _ in range(players)]
    for state, _, _ in steps[1:]:
        for event in state.events:
            for seat in range(players):
                for crop in crops:
                    if event == f"seat {seat} harvests {crop.label}":
                        counts[seat][crop] += 1
    return [tuple(c[crop] for crop in crops) for c in counts]


def test_the_view_counts_every_harvest_the_table_announced():
    steps = random_playout(3, 21, random.Random(21))
    final = steps[-1][0]
    assert GAME.view(final, 0).harvested == tuple(_announced_harvests(steps, 3, final.crops)), (
        "a harvest counted that was not announced, or one announced and not counted"
    )
    assert any(any(counts) for counts in final.harvested)


def test_without_trades_determinize_gives_the_others_their_real_storehouses():
    """A storehouse only grows by public harvests and shrinks by trades: with no trade, the
    others' storehouses are known exactly, and every sampled world has them."""
    steps = random_playout(2, 5, random.Random(5), trade_rate=0.0)
    rng = random.Random(5)
    for state, seat, _ in steps[:-1:4]:
        sampled = GAME.determinize(GAME.view(state, seat), rng)
        assert sampled.storehouses == state.storehouses


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 4), seed=seeds, sample_seed=seeds)
def test_a_sampled_storehouse_is_what_its_seat_harvested_less_what_it_traded(
    players, seed, sample_seed
):
    """With trades, another seat's sampled storehouse holds no crop beyond what it harvested,
    and no card the viewer sees elsewhere (the view stays the same and every card is dealt once)."""
    rng = random.Random(sample_seed)
    for state in sample_states(players, seed, every=5):
        for seat in range(players):
            view = GAME.view(state, seat)
            sampled = GAME.determinize(view, rng)
            assert GAME.view(sampled, seat) == view
            assert sampled.all_cards() == Counter(build_deck(state.crops))
            for other in range(players):
                for crop in state.crops:
                    assert sampled.storehouses[other][crop] <= view.harvested[other][crop]


def test_a_state_stored_before_harvests_were_counted_still_determinizes():
    """Old stored states have no harvest counts: their views say so (harvests_kept false) and
    determinize deals the others' storehouses from any unseen crop cards, as before."""
    import json

    state = random_playout(2, 8, random.Random(8))[40][0]
    raw = json.loads(GAME.encode_state(state))
    del raw["harvested"]
    old = GAME.decode_state(json.dumps(raw).encode())
    assert old.harvested == ()
    view = GAME.view_from_proto(GAME.view_to_proto(GAME.view(old, 0)))
    assert view.harvested == ()
    sampled = GAME.determinize(view, random.Random(1))
    assert GAME.view(sampled, 0) == GAME.view(old, 0)
