"""Every game's view described for people: made from the view's bytes alone, hiding what the
view hides, and its legal moves as unambiguous paths of choices."""

from __future__ import annotations

import random

import pytest
from google.protobuf import field_mask_pb2, struct_pb2
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.game import ItemLook
from serai.presentation import generic, presentation, to_pb
from serai.rpc.convert import game_info

GAMES = ("jaipur", "nile", "sobek")


def _states(name: str, seed: int, steps: int = 120):
    """States of a random match of ``name``, each with the seat count it was set up for."""
    game = registry.load().games[name]
    rng = random.Random(seed)
    players = rng.randint(game.info.min_players, game.info.max_players)
    state = game.setup(players, seed, game.resolve_options({}))
    for _ in range(steps):
        yield game, state, players
        acting = game.to_act(state)
        if not acting:
            return
        seat = rng.choice(acting)
        state = game.apply(state, seat, rng.choice(list(game.legal_moves(state, seat))))
    yield game, state, players


def _viewers(players: int):
    return [None, *range(players)]


@pytest.mark.parametrize("name", GAMES)
def test_a_game_presents_its_views_itself(name):
    """Jaipur, Nile and Sobek describe their views; the headline is never empty."""
    for game, state, players in _states(name, 1, steps=30):
        for viewer in _viewers(players):
            message = game.view_message.FromString(game.view_bytes(game.view(state, viewer)))
            described = game.present(message)
            assert described is not None and described.headline and described.zones


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", range(4))
def test_a_presentation_is_a_function_of_the_view_bytes(name, seed):
    """The presentation the wire carries equals the game's own presentation of the view message:
    nothing but the bytes a seat receives goes into it."""
    for game, state, players in _states(name, seed):
        for viewer in _viewers(players):
            view = game.view(state, viewer)
            wire = presentation(game, game.view_bytes(view))
            direct = to_pb(game.present(game.view_to_proto(view)))
            assert wire.SerializeToString(deterministic=True) == direct.SerializeToString(
                deterministic=True
            )


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", range(3))
def test_a_presentation_does_not_change_with_the_hidden_part(name, seed):
    """Another full state behind the same view (determinize resamples every hidden card) gives
    the same presentation bytes for that seat."""
    for i, (game, state, players) in enumerate(_states(name, seed)):
        if i % 7:
            continue
        for viewer in range(players):
            view = game.view(state, viewer)
            try:
                other = game.determinize(view, random.Random(seed * 1000 + i))
            except NotImplementedError:
                pytest.skip(f"{name} offers no determinize")
            other_view = game.view(other, viewer)
            assert game.view_bytes(other_view) == game.view_bytes(view)
            ours = presentation(game, game.view_bytes(view)).SerializeToString(deterministic=True)
            theirs = presentation(game, game.view_bytes(other_view))
            assert theirs.SerializeToString(deterministic=True) == ours


@pytest.mark.parametrize("name", GAMES)
def test_a_spectator_is_shown_no_hand(name):
    """The zones of a hand hold only face-down items for a spectator."""
    for game, state, _ in _states(name, 2, steps=40):
        wire = presentation(game, game.view_bytes(game.view(state, None)))
        for zone in wire.zones:
            for item in zone.items:
                if "hand" in zone.id or "hand" in item.label:
                    assert item.hidden, (zone.title, item.label)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", range(3))
def test_legal_moves_are_distinct_paths_of_choices(name, seed):
    """Picking step by step reaches each legal move, and only it: no two share a path."""
    for game, state, _ in _states(name, seed, steps=80):
        for seat in game.to_act(state):
            paths = [game.move_steps(m) or (game.label(m),) for m in game.legal_moves(state, seat)]
            assert all(paths) and all(all(step for step in path) for path in paths)
            assert len(set(paths)) == len(paths)


def test_jaipur_exchanges_are_picked_take_then_give():
    game = registry.load().games["jaipur"]
    for _, state, _ in _states("jaipur", 5, steps=60):
        for seat in game.to_act(state):
            for move in game.legal_moves(state, seat):
                if game.label(move).startswith("exchange"):
                    first, take, give = game.move_steps(move)
                    assert (first, take[:5], give[:5]) == ("exchange", "take ", "give ")
                    return
    pytest.fail("no exchange in the sample")


def test_a_game_without_a_presentation_gets_its_fields_as_a_table():
    """The generic rendering names the view's fields and values: no protobuf text dump."""
    game = registry.load().games["nile"]
    state = game.setup(2, 3, game.resolve_options({}))
    described = generic(game.view_to_proto(game.view(state, 0)))
    labels = {item.label for zone in described.zones for item in zone.items}
    assert "deck size" in labels and "turn" in labels
    texts = [f"{i.label} {i.value}" for zone in to_pb(described).zones for i in zone.items]
    assert not [text for text in texts if "CROP_" in text or "{" in text]
    assert "crops papyrus, wheat, lettuce, castor, flax" in texts


def test_a_view_that_is_a_struct_is_listed_by_key():
    """A game whose view is a google.protobuf.Struct (a map of Values) gets one item per key;
    its map entries were taken for messages before, and the call failed with INTERNAL."""
    view = struct_pb2.Struct()
    view.update({"turn": 3, "hand": ["a", "b"], "done": False, "mixed": [1, "x"]})
    described = to_pb(generic(view))
    items = {i.label: i.value for zone in described.zones for i in zone.items if zone.id != "hand"}
    assert items == {"done": "false", "mixed": '[1, "x"]', "turn": "3"}
    (hand,) = [zone for zone in described.zones if zone.id == "hand"]
    assert [item.value for item in hand.items] == ["a", "b"]  # a list of texts, line by line


def test_the_generic_table_titles_a_seats_zone_by_the_seat_it_names():
    """An entry of a repeated message with a ``seat`` field is that seat's zone: seat 0's panel
    is "players view: seat 0", owned by seat 0 (the web table adds the player's name), never
    "players view 1"."""
    game = registry.load().games["nile"]
    state = game.setup(3, 3, game.resolve_options({}))
    described = generic(game.view_to_proto(game.view(state, 1)))
    seats = {zone.title: zone.owner for zone in described.zones if zone.id.startswith("players")}
    assert seats == {f"players view: seat {seat}": seat for seat in range(3)}


def test_the_generic_table_shows_default_values_and_leaves_unset_optionals_out():
    """Proto3 does not send a 0 or a false, but for a person they are values: ``seat: 0`` and
    ``storehouse known: no`` are shown; a field the view leaves unset (a spectator has no seat)
    is not."""
    game = registry.load().games["nile"]
    state = game.setup(2, 3, game.resolve_options({}))
    seat_zero = generic(game.view_to_proto(game.view(state, 0)))
    shown = {(zone.owner, i.label): i.value for zone in seat_zero.zones for i in zone.items}
    assert shown[(None, "seat")] == "0"
    assert shown[(1, "storehouse known")] == "no" and shown[(0, "seat")] == "0"
    spectator = generic(game.view_to_proto(game.view(state, None)))
    assert "seat" not in {
        i.label for zone in spectator.zones if zone.id == "view" for i in zone.items
    }


def test_the_generic_table_lists_a_log_line_by_line():
    """A repeated text field (a log) is a zone of its own, one line an item, not one line
    joined by commas; an empty one says so."""
    log = field_mask_pb2.FieldMask(paths=["seat 0 peeks at seat 1", "seat 1 trades hands"])
    (zone,) = [zone for zone in generic(log).zones if zone.id == "paths"]
    assert [(i.label, i.value) for i in zone.items] == [
        ("1", "seat 0 peeks at seat 1"),
        ("2", "seat 1 trades hands"),
    ]
    (empty,) = [zone for zone in generic(field_mask_pb2.FieldMask()).zones if zone.id == "paths"]
    assert empty.items == ()


def test_snapshots_carry_a_presentation_only_when_asked():
    assert pb.MatchSnapshot().HasField("presentation") is False
    assert pb.GetMatchRequest(presentation=True).presentation


@pytest.mark.parametrize("name", GAMES)
def test_a_game_guide_explains_every_zone_its_table_shows(name):
    """Each shipped game says how it is played and what each of its zones is (by zone id without
    the seat number), and gives its items looks; ListGames carries the guide as the game gave it."""
    game = registry.load().games[name]
    guide = game.info.guide
    assert len(guide.how_to_play) > 200 and guide.looks
    explained = dict(guide.zones)
    for game, state, players in _states(name, 3, steps=60):
        for viewer in _viewers(players):
            message = game.view_message.FromString(game.view_bytes(game.view(state, viewer)))
            for zone in game.present(message).zones:
                assert zone.id.rstrip("0123456789") in explained, zone.id
    wire = game_info(game.info).guide
    assert wire.how_to_play == guide.how_to_play and dict(wire.zones) == explained
    assert [look.word for look in wire.looks] == [look.word for look in guide.looks]


def test_an_item_look_takes_a_hex_colour_and_a_short_symbol():
    assert ItemLook("gem", "#a0b1c2", "G").colour == "#a0b1c2"
    with pytest.raises(ValueError, match="#rrggbb"):
        ItemLook("gem", "red; background: url(x)")
    with pytest.raises(ValueError, match="two characters"):
        ItemLook("gem", "", "gem")
