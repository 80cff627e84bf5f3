"""Games from outside serai in the web table: ``serai serve`` finds them by entry point, the lobby
offers the bots they declare (random, search), and a person plays each to the end against the
server's search bot, the table drawn by the generic presentation. Gem Duel is one such game;
the other is what ``serai new-game demo`` writes, pip-installed into a fresh environment."""

from __future__ import annotations

import random
import shutil
import sys
from collections.abc import Callable
from typing import Any

import pytest
from gem_duel import install
from web_play import click_until_the_match_ends

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = "/usr/bin/chromium"
if not shutil.which(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)


@pytest.fixture
def site(start_serve: Callable[..., Any], redis_url: str, tmp_path: Any) -> str:
    """``serai serve`` with Gem Duel installed beside it (on its ``sys.path``), HTTP on."""
    folder = install(tmp_path / "site-packages")
    run = f"import sys; sys.path.insert(0, {str(folder)!r}); from serai.cli import main; main()"
    server = start_serve(
        "--redis-url", redis_url, "--http-port", "0", command=[sys.executable, "-c", run]
    )
    return f"http://{server.http_address}/"


def test_a_person_plays_it_against_the_servers_search_bot(site: str, browser: Any) -> None:
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site)
    page.wait_for_selector("#name", timeout=15_000)
    page.fill("#name", "fay")
    page.dispatch_event("#name", "change")
    choice = "[data-game=gem_duel] select[name=bot]"
    page.wait_for_selector(choice)
    offered = page.eval_on_selector_all(f"{choice} option", "options => options.map(o => o.value)")
    assert offered == ["random", "search"]
    page.select_option(choice, "search")
    page.click("[data-game=gem_duel] [data-action=bot]")
    page.wait_for_url("**#/m/**")
    page.wait_for_selector(".zone")
    click_until_the_match_ends(page, random.Random(3))
    assert page.locator(".outcome").count(), page.inner_text("body")
    assert "best total" in page.inner_text(".outcome")
    log = page.inner_text(".log")
    assert "search bot joined" in log and "search bot (seat 1): play gem" in log
    assert not errors


def test_a_game_from_serai_new_game_plays_to_the_end(
    scaffolded: Any, start_serve: Callable[..., Any], redis_url: str, browser: Any
) -> None:
    command = [str(scaffolded.python), "-m", "serai.cli"]
    server = start_serve("--redis-url", redis_url, "--http-port", "0", command=command)
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"http://{server.http_address}/")
    page.wait_for_selector("#name", timeout=15_000)
    page.fill("#name", "ada")
    page.dispatch_event("#name", "change")
    page.wait_for_selector("[data-game=demo] select[name=bot]")
    page.select_option("[data-game=demo] select[name=bot]", "search")
    page.click("[data-game=demo] [data-action=bot]")
    page.wait_for_url("**#/m/**")
    page.wait_for_selector(".zone")
    click_until_the_match_ends(page, random.Random(4))
    assert "best total" in page.inner_text(".outcome")
    assert "search bot (seat 1): play card" in page.inner_text(".log")
    assert not errors
