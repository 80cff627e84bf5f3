"""The CLI speaks to people: a version flag, and player counts as words."""

from __future__ import annotations

import pytest
from serai.cli import main


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("serai 0.")


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
