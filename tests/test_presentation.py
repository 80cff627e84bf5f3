"""Every game's view described for people: made from the view's bytes alone, hiding what the
view hides, and its legal moves as unambiguous paths of choices."""

from __future__ import annotations

import random

import pytest
from google.protobuf import struct_pb2
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.presentation import generic, presentation, to_pb

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
    view.update({"turn": 3, "hand": ["a", "b"], "done": False})
    described = to_pb(generic(view))
    items = {i.label: i.value for zone in described.zones for i in zone.items}
    assert items == {"done": "false", "hand": '["a", "b"]', "turn": "3.0"}


def test_snapshots_carry_a_presentation_only_when_asked():
    assert pb.MatchSnapshot().HasField("presentation") is False
    assert pb.GetMatchRequest(presentation=True).presentation
