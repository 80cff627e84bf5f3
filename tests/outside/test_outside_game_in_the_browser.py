"""The game from outside serai in the web table: ``serai serve`` finds it by entry point, the lobby
offers the bots it declares (random, search), and a person plays it to the end against the
server's search bot, the table drawn by the generic presentation."""

from __future__ import annotations

import random
import shutil
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gem_duel import install

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


@pytest.fixture
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        chromium = driver.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


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
    rng = random.Random(3)
    for _ in range(200):
        if page.locator(".outcome").count():
            break
        moves, steps = page.locator("[data-move]"), page.locator("[data-step]")
        if moves.count():
            moves.nth(rng.randrange(moves.count())).click()
        elif steps.count():  # a move of one step: its label, then "Play"
            steps.nth(rng.randrange(steps.count())).click()
        page.wait_for_timeout(150)
    assert page.locator(".outcome").count(), page.inner_text("body")
    assert "best total" in page.inner_text(".outcome")
    log = page.inner_text(".log")
    assert "search bot joined" in log and "search bot (seat 1): play gem" in log
    assert not errors
