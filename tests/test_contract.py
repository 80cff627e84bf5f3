"""The plugin contract's shared helpers: options, player counts, seeded generators."""

import pytest
from serai import registry
from serai.game import (
    GameInfo,
    InvalidOptions,
    NotPlayable,
    OptionSpec,
    Outcome,
    seeded_rng,
)
from serai.unplayable import UnplayableGame
from short_game import short_game

GAMES = {
    **{name: game for name, game in registry.load().games.items() if game.info.playable},
    "peek": short_game(),
}


class Sample(UnplayableGame):
    info = GameInfo(
        name="sample",
        title="Sample",
        min_players=2,
        max_players=4,
        version="1",
        summary="a test game",
        playable=False,
        options=(
            OptionSpec("rounds", "rounds to play", 3, choices=(1, 3, 5)),
            OptionSpec("deluxe", "the deluxe deck", False),
            OptionSpec("variant", "rules variant", "base"),
            OptionSpec("bid", "the opening bid", 10, bounds=(0, 50)),
        ),
    )


def test_options_take_their_defaults_when_not_given():
    resolved = Sample().resolve_options({})
    assert resolved == {"rounds": 3, "deluxe": False, "variant": "base", "bid": 10}


def test_options_from_the_wire_are_converted_to_their_type():
    given = {"rounds": "5", "deluxe": "true", "variant": "x", "bid": "50"}
    resolved = Sample().resolve_options(given)
    assert resolved == {"rounds": 5, "deluxe": True, "variant": "x", "bid": 50}


def test_an_unknown_option_is_refused_with_the_known_names():
    with pytest.raises(
        InvalidOptions, match=r"unknown option.*colour.*accepts: bid, deluxe, rounds, variant"
    ):
        Sample().resolve_options({"colour": "red"})


def test_an_option_outside_its_choices_is_refused():
    with pytest.raises(InvalidOptions, match="rounds=2 is not one of: 1, 3, 5"):
        Sample().resolve_options({"rounds": "2"})


def test_an_int_option_outside_its_bounds_is_refused():
    for given in ("-1", "51", str(3 * 10**9)):
        with pytest.raises(InvalidOptions, match=f"bid={given} is not from 0 to 50"):
            Sample().resolve_options({"bid": given})
    assert Sample().resolve_options({"bid": "0"})["bid"] == 0


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_installed_int_option_says_which_values_it_takes(name):
    """A value the rules never meant must be refused at CreateMatch, not break the match later."""
    for spec in GAMES[name].info.options:
        if type(spec.default) is int:
            assert spec.choices or spec.bounds, spec.name


def test_an_option_of_the_wrong_type_is_refused():
    with pytest.raises(InvalidOptions, match="not a int"):
        Sample().resolve_options({"rounds": "many"})
    with pytest.raises(InvalidOptions, match="not a bool"):
        Sample().resolve_options({"deluxe": "perhaps"})


def test_player_count_outside_the_range_is_refused():
    with pytest.raises(InvalidOptions, match="2 to 4 players, not 5"):
        Sample().check_players(5)
    Sample().check_players(3)


def test_an_unplayable_game_says_so_on_setup():
    with pytest.raises(NotPlayable, match="Sample is registered but not playable yet"):
        Sample().setup(2, seed=1, options={})


def test_seeded_generators_repeat_for_the_same_seed_and_labels():
    first = [seeded_rng(7, "round", 1).random() for _ in range(3)]
    assert first[0] == first[1] == first[2]
    assert seeded_rng(7, "round", 1).random() != seeded_rng(7, "round", 2).random()
    assert seeded_rng(7, "round", 1).random() != seeded_rng(8, "round", 1).random()


def test_outcome_winners_are_the_seats_ranked_first():
    assert Outcome(scores=(2, 2, 1), ranks=(0, 0, 2), summary="tie").winners == (0, 1)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_installed_game_sends_its_view_message_as_protobuf_writes_it(name):
    """The service packs Game.view_bytes under view_message's type URL: both must agree with
    view_to_proto, whether the game keeps the default view_bytes or gives its own."""
    game = GAMES[name]
    state = game.setup(game.info.min_players, 11, game.resolve_options({}))
    for _ in range(6):  # a few moves in, so the views are not all the opening's
        if not game.to_act(state):
            break  # a short game may be over already
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.legal_moves(state, seat)[-1])
    for seat in (*range(game.info.min_players), None):
        view = game.view(state, seat)
        message = game.view_to_proto(view)
        assert isinstance(message, game.view_message)
        assert game.view_bytes(view) == message.SerializeToString(deterministic=True)


def test_an_option_value_is_echoed_short_whatever_its_size():
    """Text quoted and cut to a prefix with its length; a number past 32 digits likewise."""
    for given in ({"rounds": "x" * 10_000}, {"deluxe": "y" * 10_000}, {"bid": "9" * 4000}):
        with pytest.raises(InvalidOptions) as refused:
            Sample().resolve_options(given)
        message = str(refused.value)
        assert len(message) < 150 and "characters)" in message, message


def test_unknown_option_names_are_echoed_short_and_few():
    given = {f"colour{n}" + "z" * 1000: "red" for n in range(100)}
    with pytest.raises(InvalidOptions, match="and 95 more; sample accepts") as refused:
        Sample().resolve_options(given)
    assert len(str(refused.value)) < 500
