"""ListMatches a page at a time (issue 18, fault 10): a page holds at most 100 matches, and
next_page_token leads to the next one from a position, not an offset, so that paging through a
listing returns each match exactly once while new ones are created; a token ListMatches did not
make is INVALID_ARGUMENT. Against real in-process servers and a real Redis."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import replace
from typing import Any

import grpc
from serai.api import match_service_pb2 as pb
from serai.matches import Matches
from serai.matches.paging import MAX_PAGE, page_token
from serai.store.redis.store import RedisStore
from service_helpers import status_of
from store_records import running_record
from tiny_game import tiny_registry

Code = grpc.StatusCode


def _create_many(stub: Any, count: int) -> list[str]:
    return [
        stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id for _ in range(count)
    ]


def _follow(
    stub: Any, status: int = 0, limit: int = 0, between: Any = None
) -> tuple[list[str], int]:
    """Every match id of a listing, page by page (``between()`` after each page), and how many
    pages it took."""
    listed: list[str] = []
    token, pages = "", 0
    while True:
        request = pb.ListMatchesRequest(status=status, limit=limit, page_token=token)  # type: ignore[arg-type]
        answer = stub.ListMatches(request)
        pages += 1
        listed += [m.match_id for m in answer.matches]
        token = answer.next_page_token
        if not token:
            return listed, pages
        if between is not None:
            between()


def test_paging_lists_each_match_once_while_new_ones_are_created(service):
    """130 matches in pages of 40 (any status, then open only), with two new matches made between
    pages (and, the first time, two listed ones started): each comes exactly once, and the new
    ones (newer than the first page) not at all."""
    stub = service.stub()
    made = _create_many(stub, 130)
    made_meanwhile: list[str] = []
    to_start = [made[0], made[-1]]  # the oldest (on the last page) and the newest (the first)

    def meanwhile() -> None:
        made_meanwhile.extend(_create_many(stub, 2))
        if to_start:  # it moves from the index of open matches to that of running ones
            match_id = to_start.pop()
            for _ in range(2):
                stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id))

    listed, pages = _follow(stub, limit=40, between=meanwhile)
    assert pages == 4 and len(listed) == len(set(listed)) == 130
    assert set(listed) == set(made)
    assert not set(made_meanwhile) & set(listed)

    before = set(_follow(stub, status=pb.MATCH_STATUS_OPEN)[0])
    listed, _ = _follow(stub, status=pb.MATCH_STATUS_OPEN, limit=40, between=meanwhile)
    assert len(listed) == len(set(listed)) and set(listed) == before


def test_a_page_holds_at_most_100_and_says_where_the_rest_is(service):
    stub = service.stub()
    _create_many(stub, MAX_PAGE + 5)
    first = stub.ListMatches(pb.ListMatchesRequest(limit=1000))
    assert len(first.matches) == MAX_PAGE and first.next_page_token
    rest = stub.ListMatches(pb.ListMatchesRequest(limit=1000, page_token=first.next_page_token))
    assert len(rest.matches) == 5 and rest.next_page_token == ""
    assert len(stub.ListMatches(pb.ListMatchesRequest()).matches) == 50  # limit 0: the default
    whole = stub.ListMatches(pb.ListMatchesRequest(limit=5))
    assert [m.match_id for m in whole.matches] == [m.match_id for m in first.matches[:5]]


def test_a_token_listmatches_did_not_make_is_invalid_argument(service):
    """Garbage, a damaged token, one of another listing, a huge one: each INVALID_ARGUMENT with
    what to do, and the server answers on."""
    stub = service.stub()
    _create_many(stub, 3)
    token = stub.ListMatches(pb.ListMatchesRequest(limit=1)).next_page_token
    assert token
    damaged = token[:10] + ("A" if token[10] != "A" else "B") + token[11:]
    forged_body = base64.urlsafe_b64encode(b"1.99.abc.0000000000000000").decode().rstrip("=")
    wrong = {
        "garbage": "not a token",
        "damaged": damaged,
        "cut short": token[:-3],
        "forged": forged_body,
        "not base64 of text": base64.urlsafe_b64encode(b"\xff\xfe\x00").decode(),
        "huge": "A" * 100_000,
        "unicode": "tökén",
    }
    for what, bad in wrong.items():
        code, details = status_of(
            lambda b=bad: stub.ListMatches(pb.ListMatchesRequest(limit=1, page_token=b))
        )
        assert code == Code.INVALID_ARGUMENT, (what, details)
        assert "page_token" in details and len(details) < 400, (what, details)
    other_listing = pb.ListMatchesRequest(limit=1, page_token=token, status=pb.MATCH_STATUS_RUNNING)
    code, details = status_of(lambda: stub.ListMatches(other_listing))
    assert code == Code.INVALID_ARGUMENT and "same status and game" in details
    assert len(stub.ListMatches(pb.ListMatchesRequest(limit=1, page_token=token)).matches) == 1


def test_pages_pass_matches_created_in_the_same_millisecond_once_each(redis_url):
    """150 matches with one creation time (more than the store reads a round trip): the order
    within a millisecond is the match id's, and pages of 40 follow it without loss or repeat."""

    async def scenario() -> tuple[list[str], list[str]]:
        store = RedisStore.from_url(redis_url)
        try:
            made = []
            for n in range(150):
                record = replace(running_record(f"m{n:03}"), status="open", created_ms=5)
                await store.create(record, [])
                await store.index(record, None, "open")
                made.append(record.match_id)
            matches = Matches(store, tiny_registry())
            listed: list[str] = []
            token = ""
            while True:
                page = await matches.list_page(None, None, 40, token)
                listed += [r.match_id for r in page.matches]
                token = page.next_page_token
                if not token:
                    return made, listed
        finally:
            await store.close()

    made, listed = asyncio.run(scenario())
    assert listed == sorted(made, reverse=True)


def test_a_token_names_a_position_that_anyone_could_list_anyway():
    """The token holds no secret: it is the position of a match in the public listing."""
    token = page_token("open", None, 1_700_000_000_000, "abc")
    text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    assert text.startswith("1.1700000000000.abc.")
