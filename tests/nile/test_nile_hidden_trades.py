"""A trade's cards are the trader's secret: others learn how many left the hand and storehouse."""

import random
from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from nile_support import GAME, card, crop, random_playout, table
from serai_nile.cards import build_deck
from serai_nile.moves import Market, Offering

seeds = st.integers(min_value=0, max_value=2**32)


def view_bytes(state, seat):
    return GAME.view_to_proto(GAME.view(state, seat)).SerializeToString(deterministic=True)


def others(state, seat):
    return [*(s for s in range(state.players) if s != seat), None]


def test_a_trades_label_says_how_many_cards_left_the_hand_and_storehouse_not_which():
    assert GAME.label(Market(storehouse=(crop("wheat"), crop("castor")))) == (
        "market: discard 2 cards from storehouse"
    )
    assert GAME.label(Offering(hand=(card("flax"),), storehouse=(crop("flax"),))) == (
        "offering: discard 1 card from hand + 1 from storehouse"
    )
    assert GAME.label(Market(hand=(card("flax"), card("papyrus/wheat")))) == (
        "market: discard 2 cards from hand"
    )


def test_storehouse_cards_traded_away_stay_hidden_from_the_other_seats():
    """Two storehouses of the same size, two trades of the same shape: nobody else can tell."""
    wheat = table(hands=[["lettuce"], ["castor"]], storehouses=[{"wheat": 2}, {"flax": 1}])
    flax = replace(wheat, storehouses=((0, 0, 0, 0, 2), wheat.storehouses[1]))
    after_wheat = GAME.apply(wheat, 0, Market(storehouse=(crop("wheat"), crop("wheat"))))
    after_flax = GAME.apply(flax, 0, Market(storehouse=(crop("flax"), crop("flax"))))
    for seat in others(wheat, 0):
        assert view_bytes(wheat, seat) == view_bytes(flax, seat)
        assert view_bytes(after_wheat, seat) == view_bytes(after_flax, seat)
    assert GAME.label(Market(storehouse=(crop("wheat"),) * 2)) == GAME.label(
        Market(storehouse=(crop("flax"),) * 2)
    )
    assert GAME.announcements(wheat, after_wheat) == GAME.announcements(flax, after_flax)
    assert view_bytes(after_wheat, 0) != view_bytes(after_flax, 0), "the trader knows"


def test_the_trader_sees_which_cards_it_discarded_and_the_others_see_counts():
    before = table(hands=[["lettuce"], []], storehouses=[{"wheat": 1}, {}])
    after = GAME.apply(before, 0, Offering(hand=(card("lettuce"),), storehouse=(crop("wheat"),)))
    mine, theirs = GAME.view_to_proto(GAME.view(after, 0)), GAME.view_to_proto(GAME.view(after, 1))
    assert [(e.card.crops[0], e.count) for e in mine.own_traded_from_hand] == [(3, 1)]
    assert [(e.crop, e.count) for e in mine.own_traded_from_storehouse] == [(2, 1)]
    assert not theirs.own_traded_from_hand and not theirs.own_traded_from_storehouse
    trader = theirs.players_view[0]
    assert (trader.traded_from_hand, trader.traded_from_storehouse) == (1, 1)
    assert theirs.discard_size == 2 and not theirs.discard
    assert after.discard == (card("wheat"), card("lettuce")), "the pile itself holds them"


def test_a_reshuffle_takes_the_traded_cards_and_their_secret_with_them():
    before = table(hands=[["lettuce", "flax"], []], deck=["wheat"], passes=2)
    after = GAME.apply(before, 0, Market(hand=(card("lettuce"), card("flax"))))
    assert after.pass_number == 2 and after.discard == ()
    assert after.traded_hand == ((), ()) and GAME.view(after, 1).traded_from_hand == (0, 0)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 5), seed=seeds)
def test_no_other_seat_can_tell_apart_two_trades_of_the_same_shape(players, seed):
    """For every trade the active seat may make, every other trade of the same kind and the same
    counts gives every other seat (and spectators) the same view bytes, label and news, until the
    end or a reshuffle."""
    for state, _, _ in random_playout(players, seed, random.Random(seed))[:-1:5]:
        seat = state.active
        shapes: dict[tuple, list] = {}
        for move in GAME.legal_moves(state, seat):
            if isinstance(move, Market | Offering):
                key = (type(move), len(move.hand), len(move.storehouse))
                shapes.setdefault(key, []).append(move)
        for moves in shapes.values():
            first = GAME.apply(state, seat, moves[0])
            for move in moves[1:3]:
                other = GAME.apply(state, seat, move)
                # Excluded: the end, which turns every storehouse over, and a reshuffle, whose
                # new deck is made of the discards (the cards it turns up may tell of them).
                if first.finished or first.pass_number != state.pass_number:
                    continue
                assert GAME.label(move) == GAME.label(moves[0])
                assert GAME.announcements(state, other) == GAME.announcements(state, first)
                for viewer in others(state, seat):
                    assert view_bytes(other, viewer) == view_bytes(first, viewer)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 4), seed=seeds, swap_seed=seeds)
def test_a_view_does_not_change_when_another_seats_trade_discards_change(players, seed, swap_seed):
    """Swap a card another seat traded away from its hand with a card of the deck: the discards
    differ, the view of every seat but the trader does not."""
    rng = random.Random(swap_seed)
    for state, _, _ in random_playout(players, seed, random.Random(seed))[:-1:3]:
        traders = [s for s in range(players) if state.traded_hand[s]]
        deck = [i for i, c in enumerate(state.deck) if not c.is_plague]
        if not traders or not deck:
            continue
        trader, slot = rng.choice(traders), rng.choice(deck)
        hidden = rng.choice(state.traded_hand[trader])
        if hidden == state.deck[slot]:
            continue
        traded = list(state.traded_hand)
        kept = list(traded[trader])
        kept.remove(hidden)
        traded[trader] = tuple(sorted([*kept, state.deck[slot]]))
        discard = list(state.discard)
        discard.remove(hidden)
        deck_cards = list(state.deck)
        deck_cards[slot] = hidden
        other = replace(
            state,
            traded_hand=tuple(traded),
            discard=tuple(sorted([*discard, state.deck[slot]])),
            deck=tuple(deck_cards),
        )
        assert other.all_cards() == state.all_cards()
        for viewer in others(state, trader):
            assert view_bytes(other, viewer) == view_bytes(state, viewer)
        assert view_bytes(other, trader) != view_bytes(state, trader)


def test_determinize_deals_the_other_seats_trade_discards_at_random():
    before = table(
        hands=[["lettuce", "flax"], ["castor"]],
        storehouses=[{"wheat": 1}, {"papyrus": 2, "flax": 1}],
    )
    placed = before.all_cards() - Counter(before.deck)
    deck = sorted((Counter(build_deck(before.crops)) - placed).elements())
    random.Random(3).shuffle(deck)
    state = replace(before, active=1, deck=tuple(deck))
    after = GAME.apply(state, 1, Market(storehouse=(crop("papyrus"), crop("flax"))))
    after = GAME.apply(after, 1, Market(hand=(card("castor"), after.hands[1][0])))
    view = GAME.view(after, 0)
    seen = set()
    for sample_seed in range(12):
        sampled = GAME.determinize(view, random.Random(sample_seed))
        assert GAME.view(sampled, 0) == view
        assert sampled.all_cards() == Counter(build_deck(after.crops))
        hand, store = sampled.traded_hand[1], sampled.traded_storehouse[1]
        assert len(hand) == 2 and len(store) == 2 and all(c.is_crop for c in store)
        seen.add((hand, store))
    assert len(seen) > 1, "the unknown discards are sampled, not copied"
