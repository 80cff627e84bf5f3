"""Plugin discovery through the ``serai.games`` entry points."""

from importlib.metadata import EntryPoint

import pytest
from serai import registry
from serai.game import Game


def point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=registry.GROUP)


def test_the_three_games_are_installed_as_plugins():
    loaded = registry.load()
    assert {"jaipur", "nile", "sobek"} <= set(loaded.games)
    assert all(isinstance(game, Game) for game in loaded.games.values())
    assert loaded.broken == ()


def test_a_broken_plugin_is_reported_and_the_others_still_load():
    loaded = registry.load(
        [
            point("nile", "serai_nile:NileGame"),
            point("ghost", "no_such_module_anywhere:Game"),
            point("notgame", "collections:OrderedDict"),
        ]
    )
    assert list(loaded.games) == ["nile"]
    errors = {broken.name: broken.error for broken in loaded.broken}
    assert "ModuleNotFoundError" in errors["ghost"]
    assert "is not a serai.game.Game" in errors["notgame"]


def test_an_entry_point_must_match_the_game_name():
    loaded = registry.load([point("river", "serai_nile:NileGame")])
    assert not loaded.games
    assert "info.name is 'nile'" in loaded.broken[0].error


def test_asking_for_an_unknown_game_lists_the_installed_ones():
    loaded = registry.load([point("nile", "serai_nile:NileGame")])
    with pytest.raises(KeyError, match="no game called 'chess'; installed games: nile"):
        loaded.get("chess")


def test_stubs_carry_real_metadata():
    loaded = registry.load()
    nile, sobek = loaded.get("nile").info, loaded.get("sobek").info
    assert (nile.min_players, nile.max_players) == (2, 5)
    assert (sobek.min_players, sobek.max_players) == (2, 4)
    assert "storehouse" in nile.summary and "corruption" in sobek.summary
