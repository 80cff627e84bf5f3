"""The CLI speaks to people: a version flag, and player counts as words."""

from __future__ import annotations

import argparse
import importlib
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from serai.cli import COMMANDS, build_parser, main


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("serai 0.")


def test_each_command_module_adds_the_commands_the_table_routes_to_it() -> None:
    """`serai COMMAND` imports only COMMANDS[COMMAND]: the table must name what each module adds."""
    for module in set(COMMANDS.values()):
        parser = argparse.ArgumentParser()
        importlib.import_module(module).add_parser(parser.add_subparsers())
        added = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
        assert added == {name for name, home in COMMANDS.items() if home == module}, module
    assert set(build_parser().parse_args(["games"]).__dict__) >= {"run"}


def test_a_command_imports_only_its_own_module() -> None:
    """`serai keys --help` in a fresh process loads neither the server nor the SDK's commands,
    and still says its help; `serai --help` lists every command."""
    script = (
        "import sys; from serai.cli import main\n"
        "try: main(['keys', '--help'])\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('serai.commands', 'serai_client'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert "create" in done.stdout and "revoke" in done.stdout, done.stdout
    loaded = done.stdout.splitlines()[-1]
    assert "serai.commands.keys" in loaded, loaded
    assert "serai.commands.serve" not in loaded and "serai_client" not in loaded, loaded
    listing = subprocess.run(
        [sys.executable, "-m", "serai.cli", "--help"], capture_output=True, text=True, timeout=60
    )
    assert all(name in listing.stdout for name in COMMANDS), listing.stdout


def test_serve_loads_the_jwt_and_http_client_libraries_only_when_used() -> None:
    """A server starts without PyJWT (for keys that take player tokens) or httpx (for the first
    webhook sent): each cost every `serai serve` start a few dozen milliseconds."""
    script = (
        "import sys; import serai.commands.serve, serai.rpc.handlers\n"
        "print(sorted(m for m in ('jwt', 'httpx', 'serai.rpc.player_tokens') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["[]"], done.stdout


def test_games_says_2_players_not_2_2(capsys: pytest.CaptureFixture[str]) -> None:
    main(["games"])
    out = capsys.readouterr().out
    assert "2 players" in out and "2 to 5 players" in out and "2-2" not in out


@pytest.mark.parametrize("command", ["games", "serve", "play", "bot", "arena", "replay"])
def test_help_has_no_restructuredtext_markup(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":class:" not in text and ":func:" not in text, text


@pytest.mark.parametrize("command", ["export", "verify", "check", "keys"])
def test_no_help_of_any_command_has_restructuredtext_markup(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":class:" not in text and ":func:" not in text, text


def test_a_misspelt_game_is_named_not_blamed_on_the_bot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "jaipu", "--vs", "greedy"]) == 2
    said = capsys.readouterr().err
    assert "no game called 'jaipu'" in said and "jaipur" in said and "Jaipur only" not in said
    assert main(["bot", "--game", "jaipu", "--strategy", "greedy", "--match", "x"]) == 2
    assert "no game called 'jaipu'" in capsys.readouterr().err
    assert main(["arena", "--game", "jaipu", "--bots", "greedy,random"]) == 2
    assert "no game called 'jaipu'" in capsys.readouterr().err
    assert main(["play", "jaipu", "--vs", "random"]) == 2  # random plays any game, but none here
    assert "no game called 'jaipu'" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    "command",
    [
        ["bot", "--create"],
        ["arena", "--bots", "random,random", "--quiet"],
        ["play", "jaipur"],
    ],
)
def test_a_client_gives_up_on_a_server_that_is_not_there(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """--connect-timeout: a script's bot or arena ends, status 1, saying which server and why."""
    target = f"127.0.0.1:{_free_port()}"
    assert main([*command, "--server", target, "--connect-timeout", "1"]) == 1
    said = capsys.readouterr().err
    assert f"no answer from {target} for 1s, the --connect-timeout" in said, said
    assert said.rstrip().count("\n") <= 2, said  # a countdown line or two, then the reason


@pytest.mark.parametrize("command", ["bot", "arena", "play"])
def test_connect_timeout_has_help_and_refuses_a_negative_number(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--connect-timeout" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        main([command, "--connect-timeout", "-1"])
    assert exited.value.code == 2
    assert "not a number of seconds" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--port", "--http-port"])
def test_serve_says_at_once_in_one_line_that_a_port_is_taken(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before Redis starts (no data folder is made) and before gRPC's own log line."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        ports = {"--port": str(_free_port()), "--http-port": str(_free_port())} | {flag: str(taken)}
        data = tmp_path / "data"
        argv = ["serve", "--host", "127.0.0.1", "--data-dir", str(data)]
        assert main([*argv, *(part for pair in ports.items() for part in pair)]) == 1
    said = capsys.readouterr().err.strip()
    assert said == (
        f"serai: port {taken} on 127.0.0.1 is taken (another serai serve?): stop what listens "
        f"there, or choose another port with {flag}"
    )
    assert not data.exists()
