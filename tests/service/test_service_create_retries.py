"""CreateMatch with a request id: a retry answers the match the first call made, and makes none.

The match id is derived from the request id and the client id, so a repeat (a client retrying
after a lost answer, on this replica or another) finds the match instead of leaving an orphan that
counts against the client's limit of unfinished matches until it expires.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.matches.limits import Limits
from service_helpers import at_once, join_all, status_of

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

REQUEST_ID = "create-0123456789abcdef"


def create(stub: Any, request_id: str = REQUEST_ID, **fields: Any) -> pb.MatchSummary:
    request = pb.CreateMatchRequest(game="jaipur", request_id=request_id, **fields)
    return stub.CreateMatch(request).match


def match_ids(stub: Any) -> list[str]:
    return [m.match_id for m in stub.ListMatches(pb.ListMatchesRequest()).matches]


def test_a_repeated_create_answers_the_first_match_as_it_is_now(stub):
    first = create(stub, client_id="ada", seed=5)
    again = create(stub, client_id="ada", seed=99)  # what the repeat asks for does not matter
    assert again.match_id == first.match_id
    assert match_ids(stub) == [first.match_id]
    join_all(stub, first.match_id, 2)
    later = create(stub, client_id="ada")
    assert (later.match_id, later.status) == (first.match_id, pb.MATCH_STATUS_RUNNING)
    assert match_ids(stub) == [first.match_id]


def test_without_a_request_id_a_retry_makes_a_second_match(stub):
    """What the request id is for: the old behaviour, still that of a create without one."""
    first = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", client_id="ada")).match
    again = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", client_id="ada")).match
    assert first.match_id != again.match_id
    assert sorted(match_ids(stub)) == sorted([first.match_id, again.match_id])


def test_one_request_id_from_two_clients_makes_two_matches(stub):
    ada, bob = create(stub, client_id="ada"), create(stub, client_id="bob")
    assert ada.match_id != bob.match_id
    assert REQUEST_ID not in ada.match_id + bob.match_id
    assert sorted(match_ids(stub)) == sorted([ada.match_id, bob.match_id])


def test_a_repeat_is_answered_at_the_limit_of_unfinished_matches(start_service):
    stub = start_service(limits=Limits(max_open_matches=1)).stub()
    first = create(stub, client_id="ada")
    assert create(stub, client_id="ada").match_id == first.match_id
    code, _details = status_of(lambda: create(stub, "another-0123456789", client_id="ada"))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_finished_matchs_repeat_is_answered_and_takes_no_place(start_service):
    """The retry is found by the create itself, after the claims: a finished match holds no
    place, so at the limit the claim refuses the repeat, which still gets its match; below it,
    the place the repeat claimed is given back."""
    stub = start_service(limits=Limits(max_open_matches=1)).stub()
    first = create(stub, client_id="ada")
    tokens = join_all(stub, first.match_id, 2)
    stub.Resign(pb.ResignRequest(match_id=first.match_id, seat_token=tokens[0]))
    again = create(stub, client_id="ada")  # below the limit: claims, finds the match
    assert (again.match_id, again.status) == (first.match_id, pb.MATCH_STATUS_FINISHED)
    second = create(stub, "another-0123456789", client_id="ada")  # the one place is free
    again = create(stub, client_id="ada")  # at the limit: refused a place, finds the match
    assert (again.match_id, again.status) == (first.match_id, pb.MATCH_STATUS_FINISHED)
    code, _details = status_of(lambda: create(stub, "a-third-0123456789", client_id="ada"))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert second.match_id in match_ids(stub)


@pytest.mark.store("redis")  # replicas share a store
def test_two_replicas_answering_one_request_id_at_once_make_one_match(start_service):
    """Which replica's create lands first is up to the scheduler: the race is run 8 times."""
    replicas = [start_service().stub(), start_service().stub()]
    for attempt in range(8):
        request_id = f"raced-create-{attempt:04d}-0123456789"
        answers = at_once([partial(create, s, request_id, client_id="ada") for s in replicas])
        assert len(answers) == 2 and answers[0].match_id == answers[1].match_id
    assert len(match_ids(replicas[0])) == 8


def test_a_short_create_request_id_is_an_invalid_argument(stub):
    for request_id in ("short-guessable", "has space 0123456789"):
        code, details = status_of(lambda request_id=request_id: create(stub, request_id))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in details
    assert match_ids(stub) == []
