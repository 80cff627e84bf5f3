"""The cards and the setup: 91 cards, 5 each, the plague shuffled in after the deal."""

import random
from collections import Counter

import pytest
from nile_support import GAME
from serai.game import InvalidOptions
from serai_nile.cards import PLAGUE, Card, Crop, base_crops, build_deck


def test_the_deck_has_91_cards_16_of_each_crop_a_speculation_card_per_pair_and_the_plague():
    deck = Counter(build_deck(base_crops()))
    assert sum(deck.values()) == 91
    assert all(deck[Card.crop(crop)] == 16 for crop in base_crops())
    speculation = [card for card in deck if card.is_speculation]
    assert len(speculation) == 10 and all(deck[card] == 1 for card in speculation)
    assert {frozenset(card.crops) for card in speculation} == {
        frozenset((a, b)) for a in base_crops() for b in base_crops() if a != b
    }
    assert deck[PLAGUE] == 1


def test_each_player_is_dealt_five_cards_and_nobody_starts_with_the_plague():
    for seed in range(40):
        state = GAME.setup(3, seed, {})
        assert [len(hand) for hand in state.hands] == [5, 5, 5]
        assert all(PLAGUE not in hand for hand in state.hands)
        assert PLAGUE in state.deck or PLAGUE in state.discard


def test_the_plague_is_shuffled_into_the_deck_after_the_deal_not_always_at_one_place():
    positions = {GAME.setup(2, seed, {}).deck.index(PLAGUE) for seed in range(30)}
    assert len(positions) > 5


def test_there_is_no_flood_card_at_setup_the_first_turn_starts_with_seat_0s_flood():
    state = GAME.setup(2, 5, {})
    assert state.active == 0 and state.turn == 1
    assert len(state.flood_pile) == 1 or PLAGUE in state.discard
    assert state.flooded == state.flood_pile[-1].crops
    assert state.events[-1] == f"flood: {state.flood_pile[-1].name}"
    plagues = 1 if PLAGUE in state.discard else 0
    assert len(state.deck) == 91 - 2 * 5 - 1 - plagues


def test_the_deck_is_gone_through_once_per_player():
    assert [GAME.setup(n, 1, {}).passes for n in (2, 3, 4, 5)] == [2, 3, 4, 5]
    assert GAME.setup(2, 1, {}).pass_number == 1


def test_the_same_seed_gives_the_same_match_and_another_seed_another():
    assert GAME.encode_state(GAME.setup(4, 9, {})) == GAME.encode_state(GAME.setup(4, 9, {}))
    assert GAME.encode_state(GAME.setup(4, 9, {})) != GAME.encode_state(GAME.setup(4, 10, {}))


@pytest.mark.parametrize("players", [1, 6, 7])
def test_the_base_game_takes_two_to_five_players(players):
    with pytest.raises(InvalidOptions, match="2 to 5 players"):
        GAME.setup(players, 1, {})


def test_the_player_count_alone_allows_six_seats_since_deluxor_takes_six():
    GAME.check_players(6)
    with pytest.raises(InvalidOptions, match="not 7"):
        GAME.check_players(7)
    with pytest.raises(InvalidOptions, match="not 6; 6 with deluxor=true"):
        GAME.setup(6, 1, GAME.resolve_options({}))
    assert GAME.info.max_players == 5


def test_deluxor_takes_six_players_with_seven_crops_and_a_speculation_card_per_pair():
    state = GAME.setup(6, 1, {"deluxor": True})
    assert state.crops == tuple(Crop)
    total = state.all_cards()
    assert sum(total.values()) == 7 * 14 + 21 + 1
    assert sum(1 for card in total if card.is_speculation) == 21


def test_deluxor_adds_grapes_for_five_players_and_nothing_for_four():
    assert GAME.setup(5, 1, {"deluxor": True}).crops == (*base_crops(), Crop.GRAPES)
    assert GAME.setup(4, 1, {"deluxor": "true"}).crops == base_crops()
    with pytest.raises(InvalidOptions, match="DeLuxor is played by 2 to 6 players, not 7"):
        GAME.setup(7, 1, {"deluxor": True})


def test_an_unknown_option_is_refused():
    with pytest.raises(InvalidOptions, match="unknown option"):
        GAME.setup(2, 1, {"monuments": True})


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_deluxor_has_14_cards_of_each_crop_at_every_player_count(players):
    """One published DeLuxor component list: 98 crop cards, 7 crops x 14."""
    state = GAME.setup(players, 3, {"deluxor": True})
    total = state.all_cards()
    assert all(total[Card.crop(crop)] == 14 for crop in state.crops)
    pairs = len(state.crops) * (len(state.crops) - 1) // 2
    assert sum(total.values()) == 14 * len(state.crops) + pairs + 1
    assert GAME.view(state, 0).copies_per_crop == 14
    assert GAME.decode_state(GAME.encode_state(state)) == state


def test_without_deluxor_every_crop_has_16_cards():
    state = GAME.setup(4, 3, {})
    assert state.copies_per_crop == 16 and sum(state.all_cards().values()) == 91


def test_the_deluxor_options_description_says_14_per_crop_at_every_player_count():
    (spec,) = [option for option in GAME.info.options if option.name == "deluxor"]
    assert "14 cards of each crop at every player count" in spec.description


def test_determinize_deals_from_the_deluxor_deck_of_14_per_crop():
    state = GAME.setup(4, 8, {"deluxor": True})
    sampled = GAME.determinize(GAME.view(state, 1), random.Random(2))
    assert sampled.all_cards() == Counter(build_deck(state.crops, 14))
    assert GAME.view(sampled, 1) == GAME.view(state, 1)
