"""The peek game of tests/check (a match of a few moves), for serai's generic tests: with it among
the games they check, they hold for any installed game, however short its matches."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from serai.game import Game


def short_game() -> Game[Any, Any, Any]:
    """A new PeekGame, its module loaded once from tests/check (not a package on the path)."""
    module = sys.modules.get("peek_game")
    if module is None:
        path = Path(__file__).parent / "check" / "peek_game.py"
        spec = importlib.util.spec_from_file_location("peek_game", path)
        assert spec is not None and spec.loader is not None
        module = sys.modules["peek_game"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module.PeekGame()  # type: ignore[no-any-return]
