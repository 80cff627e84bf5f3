"""The web table shows a private announcement to the seat it is for, marked as its own, and the
others only what they may read of it: the peek game served by ``serai serve`` (installed by entry
point), seat 0 peeking at seat 1's card."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from peek_game import install
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from test_private_events import PEEK, SEED

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = "/usr/bin/chromium"
if not shutil.which(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)


@pytest.fixture
def served(start_serve: Callable[..., Any], redis_url: str, tmp_path: Any) -> Any:
    """``serai serve`` with the peek game installed beside it, HTTP on."""
    folder = install(tmp_path / "site-packages")
    run = f"import sys; sys.path.insert(0, {str(folder)!r}); from serai.cli import main; main()"
    return start_serve(
        "--redis-url", redis_url, "--http-port", "0", command=[sys.executable, "-c", run]
    )


def _peeked(address: str) -> tuple[str, list[str]]:
    """A peek match where ann (seat 0) has looked at bob's (seat 1) card."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        match_id = stub.CreateMatch(
            pb.CreateMatchRequest(game="peek", seats=2, seed=SEED)
        ).match.match_id
        tokens = [
            stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, player_name=name)).seat_token
            for name in ("ann", "bob")
        ]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[0])
        ).moves
        move = next(m for m in listed if m.label == PEEK)
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], move_id=move.id)
        )
    return match_id, tokens


def _log_of(browser: Any, url: str, seat: dict[str, Any] | None, match_id: str) -> str:
    context = browser.new_context()
    if seat is not None:
        held = json.dumps(json.dumps(seat))
        context.add_init_script(f"localStorage.setItem('serai.seat.{match_id}', {held});")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector(".log :text('looked at'), .log :text('alone')", timeout=15_000)
    log = page.inner_text(".log")
    assert not errors, errors
    context.close()
    return log


def test_the_seat_told_reads_it_and_the_others_read_that_it_happened(served, browser):
    match_id, tokens = _peeked(served.address)
    site = f"http://{served.http_address}/#/m/{match_id}"
    mine = _log_of(browser, site, {"seat": 0, "token": tokens[0], "name": "ann"}, match_id)
    assert "to you alone: bob holds a " in mine, mine
    theirs = _log_of(browser, site, {"seat": 1, "token": tokens[1], "name": "bob"}, match_id)
    watching = _log_of(browser, site + "/spectate", None, match_id)
    for log in (theirs, watching):
        assert "ann looked at bob's card (private)" in log, log
        assert "holds a" not in log, log
