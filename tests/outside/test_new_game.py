"""``serai new-game``: a game package written outside serai's repository that installs into a
fresh environment, passes its own tests (serai's checks among them, through serai.testing), and
passes ``serai check``; then plays (tests/outside/test_outside_game_in_the_browser.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from serai import registry
from serai.cli import main as serai_main


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


def test_it_writes_the_proto_the_rules_the_tests_and_their_generated_code(scaffolded):
    folder = scaffolded.folder
    expected = {
        "pyproject.toml",
        "README.md",
        "proto/serai/games/demo/v1/demo.proto",
        "serai_demo/__init__.py",
        "serai_demo/rules.py",
        "serai_demo/demo_pb2.py",
        "serai_demo/demo_pb2.pyi",
        "serai_demo/py.typed",
        "tests/test_demo.py",
    }
    written = {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}
    assert expected <= written
    assert 'demo = "serai_demo:DemoGame"' in (folder / "pyproject.toml").read_text()
    # the codegen step works outside serai's repository, and what it wrote is up to date
    checked = _run(scaffolded.python, "-m", "serai.protogen", "--check", cwd=folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "up to date" in checked.stdout


def test_its_own_tests_pass_with_serais_checks_among_them(scaffolded):
    pytest = ("-m", "pytest", "-q", "-p", "no:cacheprovider")
    ran = _run(scaffolded.python, *pytest, cwd=scaffolded.folder)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "4 passed" in ran.stdout


def test_serai_lists_it_and_serai_check_passes_it(scaffolded):
    games = _run(scaffolded.python, "-m", "serai", "games", cwd=scaffolded.folder)
    assert "demo" in games.stdout and "playable" in games.stdout
    checked = _run(scaffolded.python, "-m", "serai", "check", "demo", cwd=scaffolded.folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.rstrip().endswith("OK")
    assert "re-dealt positions" in checked.stdout and " 0 re-dealt" not in checked.stdout


def test_the_environment_the_tests_run_in_is_untouched(scaffolded):
    assert "demo" not in registry.load()


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Demo", "not a game name"),
        ("2cards", "not a game name"),
        ("class", "Python keyword"),
        ("jaipur", "already installed"),
    ],
)
def test_a_name_it_cannot_use_is_refused_with_the_reason(name, says, tmp_path, capsys):
    assert serai_main(["new-game", name, "--into", str(tmp_path)]) == 2
    assert says in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_it_writes_nothing_over_a_folder_in_use(tmp_path, capsys):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "notes.txt").write_text("mine")
    assert serai_main(["new-game", "demo", "--into", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert [path.name for path in (tmp_path / "demo").iterdir()] == ["notes.txt"]


PLAY_AT_THE_TERMINAL = """
import sys, threading
from serai_client import SeraiClient
from serai_client.bots import make_strategy, play_seat
from serai_client.player import RecordingDisplay, ScriptedInput, TerminalPlayer

client = SeraiClient(sys.argv[1])
match = client.create_match("demo", seed=3)
person = client.join(match.match_id, player_name="ada")
other = client.join(match.match_id, player_name="bot")
bot = make_strategy("random", "demo", 1)
thread = threading.Thread(target=play_seat, args=(client, other, bot))
thread.start()
display = RecordingDisplay(80, 24)
final = TerminalPlayer(client, person, ScriptedInput(["1"] * 20), display).run()
thread.join(60)
print("finished" if final.finished else "running", "|", final.outcome.summary)
print(display.text)
"""


def test_a_person_plays_it_with_the_terminal_player(scaffolded, start_serve, redis_url):
    """What `serai play` runs, the terminal player, in the game's own environment against its
    random bot, through a `serai serve` started from that environment."""
    command = [str(scaffolded.python), "-m", "serai.cli"]
    server = start_serve("--redis-url", redis_url, command=command)
    ran = _run(scaffolded.python, "-c", PLAY_AT_THE_TERMINAL, server.address, cwd=scaffolded.folder)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("finished | best total"), ran.stdout
    assert "you played: play card" in ran.stdout
