"""The framework and the SDK know no game by name: every game-specific piece lives in its plugin,
behind what the plugin declares (``GameInfo.provides``). A docstring may use a game as an
example; code may not name one (a string literal, an import of a plugin)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (ROOT / "server" / "serai", ROOT / "clients" / "serai_client")
GAME_NAME = re.compile(r"(?<![a-z])(jaipur|nile|sobek)(?![a-z])", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of ``tree``'s docstrings: every string standing alone as a statement (a module's,
    a class's, a function's, or an attribute's below its assignment)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def game_names_in_code(path: Path) -> list[str]:
    """Each string literal (not a docstring) or import in ``path`` that names a game."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = _docstrings(tree)
    named = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and GAME_NAME.search(node.value):
                named.append(f"{path}:{node.lineno}: {node.value[:60]!r}")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom):
                modules.append(node.module or "")
            named += [f"{path}:{node.lineno}: import {m}" for m in modules if GAME_NAME.search(m)]
    return named


def sources() -> list[Path]:
    """The hand-written Python of the framework and the SDK (generated protobuf code aside)."""
    return [
        path
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        if not path.name.endswith(("_pb2.py", "_pb2_grpc.py")) and "api" not in path.parts
    ]


def test_no_game_is_named_in_the_framework_or_the_sdk():
    assert len(sources()) > 50
    named = [hit for path in sources() for hit in game_names_in_code(path)]
    assert not named, "\n".join(named)


def test_the_check_finds_a_game_named_in_code(tmp_path):
    """The test can fail: a literal and an import are found, a docstring is not."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""Plays Jaipur, for example."""\n'
        "from serai_nile import NileGame\n"
        'GAME = "sobek"\n'
        "def f():\n"
        '    """Jaipur again, in a docstring."""\n'
    )
    hits = [hit.split(": ", 1)[1] for hit in game_names_in_code(planted)]
    assert hits == ["import serai_nile", "'sobek'"]
