"""``serai serve`` and ``serai replay``: help on every flag, and clear failures."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest
from serai.cli import build_parser
from serai.store.embedded import free_port


def _subcommand(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["serve", "replay"])
def test_every_flag_of_serve_and_replay_has_help(name):
    parser = _subcommand(name)
    assert parser.description
    for action in parser._actions:
        assert action.help, f"serai {name} {action.option_strings or action.dest} has no help"


def test_serve_defaults_to_port_50051_and_the_data_folder(monkeypatch):
    for variable in ("SERAI_PORT", "SERAI_DATA_DIR", "SERAI_REDIS_URL"):
        monkeypatch.delenv(variable, raising=False)
    args = build_parser().parse_args(["serve"])
    assert args.port == 50051 and str(args.data_dir) == "data" and args.redis_url is None


def test_chosen_seeds_are_refused_unless_the_flag_or_its_variable_allows_them(monkeypatch):
    """Whoever chose the seed can work out the deal: a server open to strangers refuses."""
    from serai.config import from_args

    monkeypatch.delenv("SERAI_CHOSEN_SEEDS", raising=False)
    assert from_args(build_parser().parse_args(["serve"])).chosen_seeds == "refuse"
    said = " ".join(_subcommand("serve").format_help().split())
    assert "by default such a request is refused" in said and "default refuse" in said
    allowed = build_parser().parse_args(["serve", "--chosen-seeds", "allow"])
    assert from_args(allowed).chosen_seeds == "allow"
    monkeypatch.setenv("SERAI_CHOSEN_SEEDS", "allow")
    assert from_args(build_parser().parse_args(["serve"])).chosen_seeds == "allow"


def test_serve_says_so_when_its_redis_cannot_be_reached():
    url = f"redis://127.0.0.1:{free_port()}/0"
    done = subprocess.run(
        [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--redis-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "Redis cannot be reached" in done.stderr and "--redis-url" in done.stderr


def test_serve_with_a_database_index_redis_lacks_says_so_in_one_line(redis_url):
    """redis://host:port/99 on a Redis of 16 databases: one line saying why, no traceback."""
    url = redis_url.rsplit("/", 1)[0] + "/99"
    done = subprocess.run(
        [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--redis-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "DB index is out of range" in done.stderr and "--redis-url" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_replay_says_so_when_the_data_folder_holds_no_matches(tmp_path):
    from serai.commands import replay

    args = build_parser().parse_args(["replay", "abc", "--data-dir", str(tmp_path)])
    assert replay.run(args) == 1


@pytest.mark.parametrize(
    ("variable", "value", "words"),
    [
        ("SERAI_PORT", "abc", "a TCP port is a number"),
        ("SERAI_PORT", "70000", "a TCP port is a number"),
        ("SERAI_WORKERS", "-1", "give 0"),
        ("SERAI_CHOSEN_SEEDS", "maybe", "not one of allow, refuse"),
        ("SERAI_LOG_LEVEL", "bogus", "not one of debug"),
        ("SERAI_GRACE_SECONDS", "-1", "give 0 or more"),
        ("SERAI_MOVE_RATE", "-3", "give 0 or more"),
        ("SERAI_REDIS_CONNECTIONS", "0", "give 1 or more"),
    ],
)
def test_a_bad_value_in_a_variable_is_a_usage_error_as_on_the_command_line(
    monkeypatch, capsys, variable, value, words
):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve"])
    assert stopped.value.code == 2
    assert words in capsys.readouterr().err
    flag = "--" + variable.removeprefix("SERAI_").lower().replace("_", "-")
    monkeypatch.delenv(variable)
    with pytest.raises(SystemExit):  # and the same value given as the flag
        build_parser().parse_args(["serve", flag, value])
    assert words in capsys.readouterr().err


def test_a_bad_variable_of_serve_does_not_stop_other_commands(monkeypatch):
    monkeypatch.setenv("SERAI_PORT", "abc")
    from serai.commands import games

    assert build_parser().parse_args(["games"]).run is games.run
