"""The server finds its house bots by entry point (serai.house_bots), as it finds games: the
SDK's are installed with serai; none, or a broken one, leaves the server serving without them."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from serai import house_bots, registry


def test_the_sdk_s_house_bots_are_found_by_entry_point() -> None:
    games = registry.load().games
    bots = house_bots.load("127.0.0.1:1", games, limit=3)
    assert bots is not None and type(bots).__module__ == "serai_client.house_bots"
    assert bots.limit == 3 and set(bots.strategies()) == set(games)


@pytest.mark.parametrize(
    "installed",
    [[], [EntryPoint("broken", "serai_client.no_such_module:Bots", house_bots.GROUP)]],
    ids=["none", "broken"],
)
def test_without_a_working_implementation_there_are_no_house_bots(monkeypatch, installed) -> None:
    monkeypatch.setattr(house_bots, "entry_points", lambda group: installed)
    assert house_bots.load("127.0.0.1:1", registry.load().games) is None
