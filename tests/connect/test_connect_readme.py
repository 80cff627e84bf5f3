"""The README's "From any language" curl commands, run as written against a real serai serve."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
README_HTTP = "127.0.0.1:50052"  # where the README's commands expect `serai serve`


def readme_commands() -> str:
    """The shell block of the README's "From any language" section."""
    section = README.read_text().split("## From any language", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found, "no ```sh block in the README's From any language section"
    return found[1]


@pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("jq")) or not shutil.which("bash"),
    reason="the README's commands use bash, curl and jq; one is not installed here",
)
def test_readme_curl_commands_play_a_move(start_serve: Callable[..., Any], redis_url: str) -> None:
    """The README's commands create a Jaipur match, join both seats, list the moves of the seat
    to act and play the first: the last answer is that move, played (version 3)."""
    commands = readme_commands()
    assert README_HTTP in commands
    served = start_serve("--redis-url", redis_url, chosen_seeds=None)  # as the README starts it
    script = commands.replace(README_HTTP, served.http_address)
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    answers = json.loads("[" + re.sub(r"\}\s*\{", "},{", ran.stdout.strip()) + "]")
    listed, played = answers
    assert listed["moves"], listed
    assert played["label"] == listed["moves"][0]["label"]
    assert played["snapshot"]["version"] == "3"
