"""The web client in a real headless Chromium against a real ``serai serve``: two people play
Jaipur by clicking, a spectator watches without ever receiving a hidden card, a reload resumes,
three people play Nile and two Sobek to the end (a reload and a closed tab back at the seat),
Nile and Sobek are played against the page's random bot, and Jaipur against the server's greedy
house bot; two browsers "Play rated", are paired, see their new ratings and rematch. Screenshots
of each table go to test-artifacts/web/ (SERAI_TEST_ARTIFACTS overrides the folder).

Chromium comes from the distribution (.ci/run installs Debian's package); Playwright's Python
package drives it. Skipped, with the reason, where either is missing.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import shutil
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from waiting import wait_until

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("SERAI_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "web"
PHONE = {"width": 400, "height": 820}
DESKTOP = {"width": 1280, "height": 900}
# axe-core from npm (tests/web/package.json; .ci/run installs it with npm ci).
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
# Jaipur ends within about 250 moves; random play with sales preferred ends well before this.
MOVE_LIMIT = 600

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not shutil.which(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)

# Every fetch the page makes, its answer's bytes kept (as base64) for the test to read: what the
# spectator received on the wire, streamed Watch answers included.
RECORD_WIRE = """
(() => {
  window.__wire = [];
  const original = window.fetch;
  window.fetch = async (...args) => {
    const response = await original(...args);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    const entry = { url: String(args[0]), chunks: [] };
    window.__wire.push(entry);
    (async () => {
      const reader = mine.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        let text = "";
        for (const b of value) text += String.fromCharCode(b);
        entry.chunks.push(btoa(text));
      }
    })();
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
})();
"""


@pytest.fixture
def served(start_serve: Callable[..., Any], redis_url: str) -> Any:
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    assert f"serai web client: http://{server.http_address}/" in server.log()
    return server


@pytest.fixture
def site(served: Any) -> str:
    return f"http://{served.http_address}/"


def _page(browser: Any, site: str, name: str, wire: bool = False) -> Any:
    context = browser.new_context(viewport=PHONE)
    if wire:
        context.add_init_script(RECORD_WIRE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(site)
    try:
        page.wait_for_selector("#name", timeout=15_000)
    except playwright_api.TimeoutError:
        raise AssertionError(f"no lobby: {page.inner_text('body')!r} {errors}") from None
    page.fill("#name", name)
    page.dispatch_event("#name", "change")
    return page


# Walks a table's steps in one call, as _play_one and _play_shortest describe, drawing from the
# numbers given; the index of the move to play, or -1 when the table offers none. The steps are
# clicked here (their buttons only redraw the choices); the move is clicked like a person's.
CHOOSE_MOVE = """([draws, preferred]) => {
  for (const [coin, movePick, stepPick] of draws) {
    const moves = document.querySelectorAll('[data-move]').length;
    const steps = [...document.querySelectorAll('[data-step]')];
    if (moves && (!steps.length || coin < 0.5)) return Math.floor(movePick * moves);
    if (!steps.length) return -1;
    const wanted = steps.findIndex((b) => preferred.includes(b.dataset.step));
    steps[wanted >= 0 ? wanted : Math.floor(stepPick * steps.length)].click();
  }
  return -1;
}"""


def _click_move(
    page: Any, draws: list[tuple[float, float, float]], preferred: tuple[str, ...]
) -> bool:
    chosen = page.evaluate(CHOOSE_MOVE, [draws, preferred])
    if chosen < 0:
        return False
    page.locator("[data-move]").nth(chosen).click()
    return True


def _play_one(page: Any, rng: random.Random) -> bool:
    """Pick a move by clicking its steps (sales first, to end the match sooner): at each choice
    a complete move if one is offered and a coin says so, else a step; False when this page has
    no move to make."""
    draws = [(rng.random(), rng.random(), rng.random()) for _ in range(8)]
    return _click_move(page, draws, ("sell",))


def _play_against_the_bot(page: Any, rng: random.Random, moves: int) -> int:
    """Play up to ``moves`` moves on ``page`` (see _play_one), each once the table offers one,
    that is once the bot has answered; fewer if the match ends first. Returns how many."""
    played = 0
    while played < moves:
        page.wait_for_selector("[data-move], [data-step], .outcome")
        if page.locator(".outcome").count():
            break
        assert _play_one(page, rng), "a move was offered, yet none was made"
        played += 1
    return played


def _marks_the_move(page: Any, mover: str) -> bool:
    """Whether ``page`` shows the move ``mover`` just made as the last move, with the cards or
    zones it changed outlined, and the title calls the page's player to play (or the match is
    over). False when the table has not caught up yet within a few seconds."""
    try:
        page.wait_for_function(
            "name => document.querySelector('.last-move').innerText.includes(name + ' (seat')"
            " && document.querySelector('.zone.changed, .item.changed') !== null"
            " && (document.title.includes('Your turn') || document.querySelector('.outcome *'))",
            arg=mover,
            timeout=5_000,
        )
    except playwright_api.TimeoutError:
        return False
    return True


def _envelopes(data: bytes) -> Iterator[Any]:
    while len(data) >= 5:
        _flags, size = struct.unpack(">BI", data[:5])
        yield json.loads(data[5 : 5 + size] or b"{}")
        data = data[5 + size :]


def _received(page: Any) -> list[Any]:
    """Every JSON message the page was answered, unary and streamed."""
    messages = []
    for entry in page.evaluate("window.__wire"):
        data = b"".join(base64.b64decode(chunk) for chunk in entry["chunks"])
        if not data:
            continue
        if data[:1] == b"{":
            messages.append(json.loads(data))
        else:
            messages.extend(_envelopes(data))
    return messages


def _snapshots(message: Any) -> Iterator[Any]:
    if isinstance(message, dict):
        if "view" in message and "match" in message:
            yield message
        for value in message.values():
            yield from _snapshots(value)
    elif isinstance(message, list):
        for value in message:
            yield from _snapshots(value)


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _shots(page: Any, name: str) -> None:
    """The table at phone width (``name``.png) and at a desktop's (``name``-desktop.png), the
    animation of the last move settled."""
    page.emulate_media(reduced_motion="reduce")
    _shot(page, name)
    size = page.viewport_size
    page.set_viewport_size(DESKTOP)
    _shot(page, f"{name}-desktop")
    page.set_viewport_size(size)
    page.emulate_media(reduced_motion="no-preference")


def test_two_people_play_jaipur_to_the_end_and_a_spectator_sees_no_hand(
    site: str, browser: Any
) -> None:
    rng = random.Random(21)
    alice = _page(browser, site, "alice")
    alice.click("[data-game=jaipur] [data-action=create]")
    alice.wait_for_url("**#/m/**")
    match_id = alice.url.split("#/m/")[1]

    bob = _page(browser, site, "bob")
    bob.click(f"[data-match='{match_id}'] [data-action=join]")
    bob.wait_for_url("**#/m/**")
    carol = _page(browser, site, "carol", wire=True)
    carol.goto(f"{site}#/m/{match_id}/spectate")
    carol.wait_for_selector("[data-zone=market]")

    pages = {"alice": alice, "bob": bob}
    played, mover = 0, ""
    marked = 0  # moves after which the next table marked what changed and named the mover
    while (name := _to_act(pages)) is not None:
        assert played < MOVE_LIMIT, "the match never ended"
        if mover and marked < 3 and _marks_the_move(pages[name], mover):
            marked += 1
        assert _play_one(pages[name], rng), f"{name} was offered a move but made none"
        played, mover = played + 1, name
        if played == 20:
            alice.reload()  # the seat token is in localStorage: the table comes back, seated
            alice.wait_for_selector("[data-zone=market]")
            assert "you are alice, seat 0" in alice.inner_text("#where")
            unnamed = [line for line in alice.inner_text(".log").splitlines() if "seat 0:" in line]
            assert not unnamed, unnamed  # the replayed log names the players too
        if played == 30:
            _shots(alice, "jaipur")
    assert marked == 3, "the last move was never marked on the other table"
    alice.wait_for_selector(".outcome", timeout=10_000)
    carol.wait_for_selector(".outcome", timeout=10_000)
    assert "Match over" in bob.inner_text(".outcome")
    summary = carol.inner_text("[data-summary]")
    assert "alice" in summary and "bob" in summary and "Seat 0" not in summary, summary
    _shot(alice, "jaipur-summary")
    # Rematch: both ask, both land in one new match, the seats rotated.
    for page in (alice, bob):
        page.click("[data-action=rematch]")
        page.wait_for_url(lambda url: "#/m/" in url and match_id not in url)
    assert alice.url.split("#/m/")[1] == bob.url.split("#/m/")[1]
    alice.wait_for_selector("[data-zone=market]")
    assert "you are alice, seat 1" in alice.inner_text("#where")
    assert "you are bob, seat 0" in bob.inner_text("#where")
    alice.goto(f"{site}#/m/{match_id}")  # the finished match again, and from it the lobby
    alice.click("[data-action=lobby]")
    alice.wait_for_selector("#name")
    assert "to play" not in carol.inner_text("[data-zone=market]")
    assert not (alice.errors or bob.errors or carol.errors)

    snapshots = [s for m in _received(carol) for s in _snapshots(m)]
    assert len(snapshots) > 10
    for snap in snapshots:
        assert "viewerSeat" not in snap
        for player in snap["view"].get("players", []):
            assert "hand" not in player and "bonusTokens" not in player, player
        for zone in snap["presentation"]["zones"]:
            if zone["id"].startswith("hand"):
                assert all(item.get("hidden") for item in zone.get("items", [])), zone


# The shortest way to the end, found by playing the rules to the end from many deals: everyone
# passes in Nile (36 moves for three players, whatever the deal: the hands keep the cards, so each
# pass through the deck is shorter), and in Sobek everyone takes the farthest market card (the
# last one offered) and finishes each round at once (53 moves for two).
SHORTEST = ("pass", "take from the market", "finish the round")

# What a seat's table shows of the match at its turn, read in one go.
TABLE_NOW = """() => ({
  last: document.querySelector('.last-move').innerText,
  changed: document.querySelectorAll('.zone.changed, .item.changed').length,
  headline: document.querySelector('.headline').innerText,
  titles: [...document.querySelectorAll('.zone h3')].map((h) => h.firstChild.textContent),
  seats: document.querySelector('.seats').innerText,
  title: document.title,
})"""


def _play_shortest(page: Any) -> None:
    """One move on ``page`` by clicking its steps: a step of SHORTEST where one is offered, else
    the last one; then the first move."""
    first_move_last_step = (1.0, 0.0, 0.999)
    if not _click_move(page, [first_move_last_step] * 8, SHORTEST):
        raise AssertionError(f"no move at the end of the steps: {page.inner_text('.moves')!r}")


# Whether a table offers a move, shows the match's end, or neither (yet).
TABLE_STATE = """() => document.querySelector('.moves button') ? 'to act'
  : document.querySelector('[data-summary]') ? 'over' : ''"""


def _to_act(pages: dict[str, Any]) -> str | None:
    """The player whose page offers a move; None once every page shows the match's end."""
    found: list[str] = []

    def ready() -> bool:
        # One evaluate a page (a locator's count costs Chromium three times as much, polled).
        states = {name: page.evaluate(TABLE_STATE) for name, page in pages.items()}
        found.extend(name for name, state in states.items() if state == "to act")
        return bool(found) or all(state == "over" for state in states.values())

    wait_until(ready, "a page offers a move, or every page shows the match's end")
    return found[0] if found else None


def _check_turn(page: Any, names: list[str], mover: str) -> None:
    """The table of the seat to act marks the last move (who made it, by name, and the cards or
    zones it changed outlined), names the players where the game says "seat N", and its title
    says it is this seat's turn."""
    now = page.evaluate(TABLE_NOW)
    assert f"{mover} (seat" in now["last"], now["last"]
    assert now["changed"], f"nothing outlined after {now['last']!r}"
    assert "Your turn" in now["title"], now["title"]
    said = now["last"].replace(f"{mover} (seat", "")  # the log's "name (seat N)" aside
    for text in (said, now["headline"], *now["titles"]):
        assert not re.search(r"\b[Ss]eats? \d", text), text
    assert any(name in now["headline"] for name in names), now["headline"]
    assert all(name in now["seats"] for name in names), now["seats"]


def _play_to_the_end(
    pages: dict[str, Any], returning: Callable[[str, int], bool] = lambda name, played: False
) -> int:
    """The players play the shortest way to the end, each turn checked on the table of the seat
    to act; ``returning(name, moves played)`` may take that player away from the table and back
    (the table is checked again from the next move). Returns the number of moves played."""
    names = list(pages)
    played, mover = 0, ""
    while (name := _to_act(pages)) is not None:
        assert played < MOVE_LIMIT, "the match never ended"
        if returning(name, played):
            mover = ""
            continue
        if mover:
            _check_turn(pages[name], names, mover)
        _play_shortest(pages[name])
        played, mover = played + 1, name
    for page in pages.values():
        summary = page.inner_text("[data-summary]")
        assert all(name in summary for name in names), summary
        assert not re.search(r"\b[Ss]eats? \d", summary), summary
    return played


def _hand(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "[data-zone=hand] .item", "items => items.map(i => i.getAttribute('aria-label'))"
    )


def _back_at_the_seat(page: Any, name: str, seat: int, hand: list[str]) -> None:
    """``page`` is at ``name``'s seat again, its turn offered (so the table is the match as it is
    now, not a step of the replayed events), with the hand it had."""
    page.wait_for_selector(".moves button")
    assert f"you are {name}, seat {seat}" in page.inner_text("#where")
    assert _hand(page) == hand and not page.locator("[data-zone=hand] .hidden").count()


def test_three_people_play_nile_to_the_end_and_come_back_after_a_reload_and_a_closed_tab(
    site: str, browser: Any
) -> None:
    """Three browsers (three people) play Nile to the end by clicking; each turn the table of the
    seat to act names the players and outlines what the last move changed. Bob reloads his page
    and is back at his seat with his hand; Carol closes her tab, opens the lobby in a new one, and
    Resume takes her back to her seat."""
    alice = _page(browser, site, "alice")
    alice.select_option("[data-game=nile] select[name=seats]", "3")
    alice.click("[data-game=nile] [data-action=create]")
    alice.wait_for_url("**#/m/**")
    match_id = alice.url.split("#/m/")[1]
    pages = {"alice": alice}
    for name in ("bob", "carol"):
        pages[name] = _page(browser, site, name)
        pages[name].click(f"[data-match='{match_id}'] [data-action=join]")
        pages[name].wait_for_url("**#/m/**")
    errors = [page.errors for page in pages.values()]
    returned: list[str] = []

    def returning(name: str, played: int) -> bool:
        # At their turn, when the table shows everything they hold (after two passes each).
        if name in returned or played < 6 or name == "alice":
            return False
        page, seat, hand = pages[name], list(pages).index(name), _hand(pages[name])
        assert hand, "no hand to come back to"
        if name == "bob":
            page.reload()  # the seat token is in localStorage
        else:
            context = page.context
            page.close()
            page = pages[name] = context.new_page()  # the same browser: its localStorage
            page.errors = []
            page.on("pageerror", lambda error: page.errors.append(str(error)))
            errors.append(page.errors)
            page.goto(site)
            page.click(f"[data-match='{match_id}'] button:has-text('Resume')")
        _back_at_the_seat(page, name, seat, hand)
        returned.append(name)
        return True

    played = _play_to_the_end(pages, returning)
    assert returned == ["bob", "carol"] and played >= 30
    storehouse = alice.inner_text("[data-zone=storehouse0]")
    assert "alice (you): storehouse" in storehouse and "score" in storehouse, storehouse
    assert "storehouse" not in alice.inner_text("[data-zone=seat0]")
    assert not any(errors), errors


def _seeded(route: Any, seed: int) -> str:
    """The request ``route`` holds (Connect's JSON) with ``seed`` added."""
    return json.dumps({**json.loads(route.request.post_data), "seed": seed})


def test_two_people_play_sobek_to_the_end(site: str, browser: Any) -> None:
    """Two browsers play Sobek to the end by clicking, each turn checked as in Nile's; the own
    hand and corruption pile are zones of their own, titled."""
    alice = _page(browser, site, "alice")
    # The lobby asks for no seed; this one, added on the way, deals two characters face down
    # into the market (about one deal in six deals none).
    alice.route("**/CreateMatch", lambda route: route.continue_(post_data=_seeded(route, 0)))
    alice.click("[data-game=sobek] [data-action=create]")
    alice.wait_for_url("**#/m/**")
    match_id = alice.url.split("#/m/")[1]
    bob = _page(browser, site, "bob")
    bob.click(f"[data-match='{match_id}'] [data-action=join]")
    bob.wait_for_url("**#/m/**")
    bob.wait_for_selector("[data-zone=corruption]")
    assert "bob (you): hand" in bob.inner_text("[data-zone=hand] h3")
    assert "bob (you): corruption pile" in bob.inner_text("[data-zone=corruption] h3")
    assert not bob.locator("[data-zone=seat1] .item:not(.score)").count()  # no card, no count
    # At a phone's width the market wraps, so each card says its place in the row (a face-down
    # character too), and nothing on the table needs a sideways scroll.
    places = bob.eval_on_selector_all(
        "[data-zone=market] .item", "items => items.map((i) => i.getAttribute('aria-label'))"
    )
    assert len(places) == 9 and any(p.startswith("1 \u00d7 character (position") for p in places)
    assert all(f"(position {i + 1}" in place for i, place in enumerate(places)), places
    assert bob.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    played = _play_to_the_end({"alice": alice, "bob": bob})
    assert played >= 40
    assert not (alice.errors or bob.errors)


@pytest.mark.parametrize("game", ["nile", "sobek"])
def test_a_person_plays_against_the_random_bot(site: str, browser: Any, game: str) -> None:
    rng = random.Random(game)
    page = _page(browser, site, "dana")
    page.click(f"[data-game={game}] [data-action=bot]")
    page.wait_for_url("**#/m/**")
    page.wait_for_selector(".zone")
    assert _play_against_the_bot(page, rng, 6) == 6
    log = page.inner_text(".log")
    assert "random bot" in log and "dana" in log
    _shots(page, game)
    page.reload()
    page.wait_for_selector(".zone")
    assert "you are dana, seat 0" in page.inner_text("#where")
    assert not page.errors


def test_a_friend_is_seated_from_the_shared_link(site: str, browser: Any) -> None:
    """The creator sends the table's address; the friend opens it, chooses the free seat and
    plays, and both tables name the players, not seat numbers. No hand is shown before the deal."""
    alice = _page(browser, site, "alice")
    assert "null" not in alice.inner_text("main")
    alice.click("[data-game=jaipur] [data-action=create]")
    alice.wait_for_url("**#/m/**")
    alice.wait_for_selector(".note")
    assert "Waiting for players" in alice.inner_text(".headline")
    assert not alice.locator(".zone").count()  # no placeholder deal
    assert not alice.locator("[data-action=join-seat]").count()  # alice holds her seat
    shared = alice.url
    match_id = shared.split("#/m/")[1]

    context = browser.new_context(viewport=PHONE)
    bob = context.new_page()
    bob.errors = []
    bob.on("pageerror", lambda error: bob.errors.append(str(error)))
    bob.goto(shared)
    bob.wait_for_selector("[data-action=join-seat]", timeout=15_000)
    assert bob.eval_on_selector_all(
        "[data-action=join-seat]", "buttons => buttons.map(b => b.dataset.seat)"
    ) == ["1"]
    bob.fill("#join-name", "bob")
    _shot(bob, "jaipur-join-from-link")
    bob.click("[data-action=join-seat][data-seat='1']")
    bob.wait_for_selector("[data-zone=market]")  # a watcher sees the market too: wait for the seat
    bob.wait_for_function("document.querySelector('#where').innerText.includes('you are')")
    assert "you are bob, seat 1" in bob.inner_text("#where")
    assert not bob.locator("[data-action=join-seat]").count()

    alice.wait_for_selector("[data-zone=market]")
    seats_line = alice.inner_text(".seats")
    assert "alice (you)" in seats_line and "bob" in seats_line
    for page in (alice, bob):
        # "Connecting…" stands in the headline until the page's stream answers (slow when loaded)
        page.wait_for_function("!document.querySelector('.headline').innerText.includes('Connect')")
        text = page.inner_text(".headline") + " ".join(page.locator(".zone h3").all_inner_texts())
        assert "Seat 0" not in text and "Seat 1" not in text and "seat 1 to" not in text, text
        assert "bob" in text or "alice" in text, text
    _shot(alice, "jaipur-friend-seated")
    bob.reload()  # the seat is kept in bob's browser too
    bob.wait_for_selector("[data-zone=market]")
    assert "you are bob, seat 1" in bob.inner_text("#where")

    # Alice's lobby lists the matches she holds a seat in: this one running, and a second one,
    # waiting for players, until she cancels it (her seat token says it is hers).
    alice.evaluate("location.hash = '#/'")
    running = alice.wait_for_selector(f"[data-my-match='{match_id}'][data-status=running]")
    assert "Resume" in running.inner_text()
    assert not alice.locator(f"[data-my-match='{match_id}'] [data-action=cancel-match]").count()
    alice.click("[data-game=nile] [data-action=create]")
    alice.wait_for_selector(".note")
    waiting_id = alice.url.split("#/m/")[1]
    alice.evaluate("location.hash = '#/'")
    mine = f"[data-my-match='{waiting_id}']"
    alice.wait_for_selector(f"{mine}[data-status=open]")
    assert alice.locator(f"[data-match='{waiting_id}']").count() == 1  # among the open matches
    alice.click(f"{mine} [data-action=cancel-match]")
    over = alice.wait_for_selector(f"{mine}[data-status=finished]")
    assert "over: cancelled by alice before it started" in over.inner_text(), over.inner_text()
    assert not alice.locator(f"[data-match='{waiting_id}']").count()  # no longer open
    assert not (alice.errors or bob.errors)


def test_a_person_plays_jaipur_against_the_servers_greedy_bot(site: str, browser: Any) -> None:
    """The lobby offers Jaipur's house bots (from GET /bots); "greedy" is played by serai serve
    itself, which answers each of the person's moves."""
    rng = random.Random(7)
    page = _page(browser, site, "eve")
    choice = "[data-game=jaipur] select[name=bot]"
    offered = page.eval_on_selector_all(f"{choice} option", "options => options.map(o => o.value)")
    assert offered == ["random", "greedy", "search"]
    assert page.eval_on_selector_all(
        "[data-game=nile] select[name=bot] option", "options => options.map(o => o.value)"
    ) == ["random", "simple", "search"]
    page.select_option(choice, "greedy")
    page.click("[data-game=jaipur] [data-action=bot]")
    page.wait_for_url("**#/m/**")
    page.wait_for_selector(".zone")
    played = _play_against_the_bot(page, rng, 5)
    moved = "document.querySelector('.log').innerText.includes('greedy bot (seat 1): ')"
    page.wait_for_function(moved)  # the server's bot answered
    assert played >= 5 or page.locator(".outcome").count()
    log = page.inner_text(".log")
    assert "greedy bot joined" in log and "eve" in log
    assert page.evaluate("localStorage.getItem('serai.bot.' + location.hash.split('/')[2])") is None
    _shot(page, "jaipur-greedy")
    assert not page.errors


def test_a_server_that_needs_an_api_key_asks_for_one_and_the_page_then_plays(
    start_serve: Callable[..., Any],
    redis_url: str,
    browser: Any,
    make_api_key: Callable[[str], str],
) -> None:
    key = make_api_key("web")
    server = start_serve("--redis-url", redis_url, "--http-port", "0", "--require-api-key")
    site = f"http://{server.http_address}/"
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(site)
    page.wait_for_selector("#api-key", timeout=15_000)
    assert "needs an API key" in page.inner_text("main")
    page.fill("#api-key", "not-a-key")
    page.click("[data-action=use-key]")
    page.wait_for_selector("#api-key")  # refused: asked again, saying so
    page.wait_for_function("document.querySelector('main').innerText.includes('was refused')")
    page.fill("#api-key", key)
    page.click("[data-action=use-key]")
    page.wait_for_selector("#name", timeout=15_000)
    page.click("[data-game=jaipur] [data-action=bot]")
    page.wait_for_url("**#/m/**")
    page.wait_for_selector(".zone")  # the table, whose calls carry the key
    page.reload()  # the key stays in this browser
    page.wait_for_selector(".zone")
    page.goto(site)
    page.wait_for_selector("[data-action=forget-key]")
    page.click("[data-action=forget-key]")
    page.wait_for_selector("#api-key")
    assert key not in page.url


def _jaipur_match(address: str, moves: int, resign: bool = True) -> str:
    """A Jaipur match between ann and ben, ``moves`` random moves played, then (``resign``)
    ben resigns."""
    rng = random.Random(5)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        made = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2))
        match_id = made.match.match_id
        tokens = [
            stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, player_name=name)).seat_token
            for name in ("ann", "ben")
        ]
        for _ in range(moves):
            snap = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
            token = tokens[snap.to_act[0]]
            listed = stub.ListLegalMoves(
                pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
            )
            move = rng.choice(list(listed.moves))
            stub.SubmitMove(
                pb.SubmitMoveRequest(match_id=match_id, seat_token=token, move_id=move.id)
            )
        if resign:
            stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[1]))
    return match_id


def test_the_replay_viewer_steps_a_finished_match_from_each_view(
    site: str, served: Any, browser: Any
) -> None:
    """A finished match opens at its last step with the deal's check shown (the server's verdict
    and the page's own opening of the commitment); buttons and arrow keys step through it, and a
    seat's view shows that seat's hand where the spectator's shows the backs of the cards."""
    match_id = _jaipur_match(served.address, moves=8)
    page = _page(browser, site, "viewer")
    page.goto(f"{site}#/replay/{match_id}")
    page.wait_for_selector("[data-deal-check].ok")
    page.wait_for_function(
        "document.querySelector('[data-commitment]').innerText.includes('opens to the revealed')"
    )
    assert "step 9 of 9" in page.inner_text("[data-step-count]")
    assert "ben: resigned" in page.inner_text("[data-step-label]")
    page.click("[data-action=first]")
    assert "step 0 of 9" in page.inner_text("[data-step-count]")
    assert "the deal" in page.inner_text("[data-step-label]")
    page.click("[data-action=forward]")
    first = page.inner_text("[data-step-label]").split()[2]  # "Move 1 ann: take …"
    assert first in ("ann:", "ben:")
    assert page.locator(".item.changed, .zone.changed").count()  # the move is marked
    page.keyboard.press("ArrowRight")
    assert "step 2 of 9" in page.inner_text("[data-step-count]")
    second = "ben:" if first == "ann:" else "ann:"
    assert second in page.inner_text("[data-step-label]")
    hands = "[data-zone^=hand] .item"
    assert page.locator(hands).count() == page.locator(f"{hands}.hidden").count()
    _shot(page, "jaipur-replay-spectator")
    page.click("[data-view='0']")
    page.wait_for_url(f"**#/replay/{match_id}/0")
    # The spectator's table stays up until seat 0's view has come: wait for its face-up hand.
    page.wait_for_selector("[data-zone=hand0] .item:not(.hidden)")
    assert not page.locator("[data-zone=hand1] .item:not(.hidden)").count()
    assert not page.errors


def test_the_console_lists_a_match_shows_its_hands_and_ends_it(
    start_serve: Callable[..., Any],
    redis_url: str,
    browser: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """/admin, opened with the admin token, lists a running match under its tenant, shows every
    seat's hand (the spectator's view hides them), and ends it: a watcher of the table sees the
    match end, and the console lists it as finished. An open match (one seat of two joined) is
    cancelled from the console: its player's GetMatch says so."""
    monkeypatch.setenv("SERAI_ADMIN_TOKEN", "console-secret")
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    site = f"http://{server.http_address}/"
    match_id = _jaipur_match(server.address, moves=4, resign=False)
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        waiting = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2)).match.match_id
        olga = stub.JoinMatch(pb.JoinMatchRequest(match_id=waiting, player_name="olga"))
    watcher = _page(browser, site, "walt")
    watcher.goto(f"{site}#/m/{match_id}/spectate")
    watcher.wait_for_selector("[data-zone=market]")

    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{site}admin")
    page.fill("#admin-token", "wrong")
    page.click("[data-action=use-token]")
    page.wait_for_function("document.querySelector('main').innerText.includes('was refused')")
    page.fill("#admin-token", "console-secret")
    page.click("[data-action=use-token]")
    row = f"[data-tenant=''] tr[data-match='{match_id}']"
    page.wait_for_selector(row)
    assert "running" in page.inner_text(row) and "ann, ben" in page.inner_text(row)
    assert "playing of at most" in page.inner_text("[data-bots]")
    page.click(f"{row} [data-action=inspect]")
    page.wait_for_selector(f"[data-inspected='{match_id}'] [data-view='1'] [data-zone=hand1]")
    for seat in (0, 1):
        hand = f"[data-inspected] [data-view='{seat}'] [data-zone=hand{seat}] .item"
        assert page.locator(hand).count() and not page.locator(f"{hand}.hidden").count()
    spectator = "[data-inspected] [data-view=spectator] [data-zone^=hand] .item"
    assert page.locator(spectator).count() == page.locator(f"{spectator}.hidden").count()
    _shot(page, "console")
    page.click(f"{row} [data-action=end]")
    page.wait_for_function(
        "selector => (document.querySelector(selector)?.innerText || '').includes('finished')",
        arg=row,
    )
    watcher.wait_for_selector(".outcome", timeout=15_000)
    assert "ended by the operator" in watcher.inner_text(".outcome")
    assert not watcher.errors
    open_row = f"[data-tenant=''] tr[data-match='{waiting}']"
    assert "open" in page.inner_text(open_row) and "olga" in page.inner_text(open_row)
    assert not page.locator(f"{open_row} [data-action=end]").count()
    page.click(f"{open_row} [data-action=cancel]")
    page.wait_for_function(
        "selector => (document.querySelector(selector)?.innerText || '').includes('finished')",
        arg=open_row,
    )
    with grpc.insecure_channel(server.address) as channel:
        seen = pb_grpc.MatchServiceStub(channel).GetMatch(
            pb.GetMatchRequest(match_id=waiting, seat_token=olga.seat_token)
        )
    assert seen.outcome.cancelled and "before it started" in seen.outcome.summary


def _serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, one line each."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    return [
        f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is missing: npm ci --prefix tests/web")
def test_the_lobby_table_replay_and_console_pass_axe(
    start_serve: Callable[..., Any],
    redis_url: str,
    browser: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No serious or critical accessibility violation (axe-core) on the lobby, a table in play
    with the rules open, the replay viewer, the leaderboard, the rated queue's page and the
    console."""
    monkeypatch.setenv("SERAI_ADMIN_TOKEN", "axe-secret")
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    site = f"http://{server.http_address}/"
    page = _page(browser, site, "ada")
    assert _serious_violations(page) == []
    page.select_option("[data-game=jaipur] select[name=clock]", "300")
    page.click("[data-game=jaipur] [data-action=bot]")
    page.wait_for_url("**#/m/**")
    page.wait_for_selector(".moves button")
    # The match has a clock: the table shows the time left to the seat to act.
    page.wait_for_function(
        "/^⏱ [45]:\\d\\d left for /.test(document.querySelector('.clock').innerText)"
    )
    page.click("[data-rules] summary")
    assert _serious_violations(page) == []
    # Keyboard play: the choices take the focus, and Enter picks one and moves on to the next.
    page.focus("[data-step]")
    before = page.inner_text(".moves .path")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "before => document.querySelector('.moves .path').innerText !== before", arg=before
    )
    assert page.evaluate("document.querySelector('.moves').contains(document.activeElement)")
    page.goto(f"{site}#/replay/{_jaipur_match(server.address, moves=3)}")
    page.wait_for_selector("[data-deal-check]")
    assert _serious_violations(page) == []
    page.goto(f"{site}#/leaderboard/jaipur")  # the leaderboard, and the rated queue's page
    page.wait_for_selector("[data-board] table")
    assert _serious_violations(page) == []
    page.goto(f"{site}#/")
    page.wait_for_selector("[data-my-match]")  # the lobby lists the match ada holds a seat in
    assert _serious_violations(page) == []
    page.click("[data-game=jaipur] [data-action=rated]")
    page.wait_for_selector("[data-queue]")
    assert _serious_violations(page) == []
    page.click("[data-action=leave-queue]")
    page.wait_for_selector("#name")
    page.goto(f"{site}admin")
    page.fill("#admin-token", "axe-secret")
    page.click("[data-action=use-token]")
    page.wait_for_selector("[data-action=inspect]")
    page.click("[data-action=inspect]")
    page.wait_for_selector("[data-inspected]")
    assert _serious_violations(page) == []


def _play_at_random(pages: list[Any], rng: random.Random, moves: int = MOVE_LIMIT) -> int:
    """The pages click their moves (see _play_one), each waiting for its turn, until the match
    is over or ``moves`` were made; the moves made."""
    played = idle = 0
    while played < moves and not pages[0].locator(".outcome").count():
        assert idle < 30, "no page was given a move to make for a minute"
        idle += 1
        for page in pages:
            try:
                page.wait_for_selector(".moves button, .outcome", timeout=1_000)
            except playwright_api.TimeoutError:
                continue  # the other page's turn
            if _play_one(page, rng):
                played, idle = played + 1, 0
    return played


def test_two_browsers_play_rated_see_their_new_ratings_and_rematch(site: str, browser: Any) -> None:
    """The lobby's "Play rated" queues each browser as its guest; one leaves the queue and comes
    back; the two are paired into one match, play a few moves, and bob resigns (asked twice:
    "No, play on" keeps the match); each end summary shows both players' new ratings, alice's
    up and bob's down; Rematch seats both in one new match; the leaderboard lists both, and the
    page shows the player's own rating. (The two-person Jaipur test plays a match to its end.)"""
    rng = random.Random(35)
    alice = _page(browser, site, "alice")
    alice.click("[data-game=jaipur] [data-action=rated]")
    alice.wait_for_function(
        "(document.querySelector('[data-queue]')?.innerText || '').includes('place 1 of 1')"
    )
    alice.click("[data-action=leave-queue]")
    alice.wait_for_selector("#name")
    alice.click("[data-game=jaipur] [data-action=rated]")
    alice.wait_for_selector("[data-queue]")
    bob = _page(browser, site, "bob")
    bob.click("[data-game=jaipur] [data-action=rated]")
    for page in (alice, bob):
        page.wait_for_url("**#/m/**", timeout=30_000)
        page.wait_for_selector("[data-zone=market]")
    match_id = alice.url.split("#/m/")[1]
    assert bob.url.split("#/m/")[1] == match_id
    assert {"you are alice", "you are bob"} == {
        page.inner_text("#where").split(",")[0].split(" · ")[1] for page in (alice, bob)
    }

    assert _play_at_random([alice, bob], rng, moves=4) >= 4
    bob.click("[data-action=resign]")
    bob.click("[data-action=resign-no]")
    bob.click("[data-action=resign]")
    assert not bob.locator(".outcome *").count()
    bob.click("[data-action=resign-yes]")
    for page in (alice, bob):
        page.wait_for_selector("[data-ratings] table", timeout=30_000)
        assert not page.locator("[data-action=resign]").count()
        rows = page.locator("[data-ratings] tbody tr").all_inner_texts()
        assert len(rows) == 2 and {row.split()[0] for row in rows} == {"alice", "bob"}, rows
        change = {row.split()[0]: row.split()[-1] for row in rows}
        assert change["alice"][0] == "+" and change["bob"][0] == "\N{MINUS SIGN}", rows
    _shot(alice, "jaipur-rated-summary")

    for page in (alice, bob):
        page.click("[data-action=rematch]")
        page.wait_for_url(lambda url: "#/m/" in url and match_id not in url)
    assert alice.url.split("#/m/")[1] == bob.url.split("#/m/")[1]
    alice.wait_for_selector("[data-zone=market]")

    alice.goto(f"{site}#/leaderboard/jaipur")
    alice.wait_for_selector("[data-board] tbody tr[data-rank]")
    board = alice.inner_text("[data-board]")
    assert "alice" in board and "bob" in board, board
    alice.wait_for_selector("[data-my-rating] h2")
    assert "after 1 rated match" in alice.inner_text("[data-my-rating]")
    _shot(alice, "leaderboard")
    assert not (alice.errors or bob.errors)
