"""Fixtures for games from outside serai: one written by ``serai new-game`` and installed, as its
author would, into a fresh environment of its own."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from fresh_venv import fresh_venv, pip_install_editable
from serai.cli import main as serai_main


@dataclass(frozen=True)
class Scaffolded:
    folder: Path
    """The package ``serai new-game`` wrote."""
    python: Path
    """The interpreter of the fresh environment it is installed in (with serai beside it)."""


@pytest.fixture(scope="session")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Scaffolded:
    """``serai new-game demo``, then ``pip install -e demo`` into a fresh venv."""
    into = tmp_path_factory.mktemp("authoring")
    assert serai_main(["new-game", "demo", "--into", str(into)]) == 0
    python = fresh_venv(into / "venv")
    pip_install_editable(python, into / "demo")
    return Scaffolded(into / "demo", python)
