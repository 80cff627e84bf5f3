"""The plugin as the framework sees it: registered, playable, pure (no grpc, no redis)."""

import subprocess
import sys

from serai import registry
from serai_jaipur import JaipurGame


def test_jaipur_is_registered_and_playable():
    game = registry.load().get("jaipur")
    assert isinstance(game, JaipurGame)
    assert game.info.playable
    assert (game.info.min_players, game.info.max_players) == (2, 2)
    assert game.players(game.setup(2, 1, {})) == 2


def test_the_plugin_imports_neither_grpc_nor_redis():
    code = (
        "import sys, serai_jaipur\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'redis'))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
