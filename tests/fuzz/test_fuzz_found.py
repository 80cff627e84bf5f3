"""Every input the fuzzers found a fault with, replayed: only the contract's errors escape now.

The inputs live in ``found/<target>/`` as libFuzzer wrote them; each is a regression test.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from .targets import targets

FOUND = Path(__file__).parent / "found"
INPUTS = sorted(FOUND.glob("*/*"))


def test_found_inputs_name_real_targets():
    assert INPUTS
    assert {path.parent.name for path in INPUTS} <= set(targets())


@pytest.mark.parametrize("path", INPUTS, ids=lambda path: f"{path.parent.name}/{path.name[:14]}")
def test_a_found_input_raises_only_what_the_contract_allows(path):
    target = targets()[path.parent.name]()
    with contextlib.suppress(target.allowed):
        target.check(path.read_bytes())


def test_a_stored_state_with_a_missing_field_is_a_value_error():
    """Nile's and Sobek's states are JSON: a key missing or of the wrong type was a KeyError or
    a TypeError; the contract says ValueError (found by the nile-state and sobek-state targets)."""
    from serai import registry

    games = registry.load().games
    for name in ("nile", "sobek"):
        game = games[name]
        stored = game.encode_state(game.setup(2, 1, game.resolve_options({})))
        for broken in (b"{}", b"[]", b"1", stored.replace(b'"seed"', b'"seeds"'), b"[" * 100_000):
            with pytest.raises(ValueError):
                game.decode_state(broken)
