"""Policy functions as bots: ``serai arena --policy`` and ``serai bot --policy`` load a
function (view, legal moves -> move) and play it over the network; bad names are refused."""

from __future__ import annotations

import json

import pytest
from serai.cli import main as serai_main
from serai_client.policy import load_policy

FIRST_MOVE = '''
def policy(view, moves):
    """Always the first legal move (checks it got a view message and the moves)."""
    assert view.DESCRIPTOR.full_name.endswith(".View") and moves
    return moves[0]
'''


def test_arena_plays_a_policy_entrant(service, tmp_path, monkeypatch, capsys):
    """A NAME=module:function entrant from the current directory plays random in the arena."""
    (tmp_path / "first_move.py").write_text(FIRST_MOVE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["arena", "--game", "sobek", "--bots", "random", "--policy", "first=first_move:policy"]
    code = serai_main([*argv, "--matches", "2", "--server", service.address, "--quiet", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    played = json.loads(out[out.index("{") :])
    assert {bot["bot"] for bot in played["ratings"]} == {"random", "first"}
    assert sum(p["matches"] for p in played["pairings"]) == 2


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("no_colon", "package.module:function"),
        ("no_such_module_here:policy", "cannot import"),
        ("json:no_such_function", "has no"),
    ],
)
def test_a_bad_policy_name_is_refused_by_name(spec, said):
    with pytest.raises(ValueError, match=said):
        load_policy(spec)


def test_serai_bot_refuses_a_bad_policy_before_joining(service, capsys):
    code = serai_main(["bot", "--server", service.address, "--create", "--policy", "nope"])
    assert code == 2
    assert "package.module:function" in capsys.readouterr().err
