"""JoinMatch with a request id: a retry answers the first seat and token and claims nothing more.

A client that lost JoinMatch's answer (the connection dropped after the seat was claimed, or the
server answered UNAVAILABLE after the commit) retries it. Without a request id that retry claims
another seat (or fails on the seat it asked for, and the token is lost for good); with one it gets
back what the first call got.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import grpc
import pytest
import redis
from serai.api import match_service_pb2 as pb
from service_helpers import at_once, create, status_of

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed


def join(stub: Any, match_id: str, request_id: str, **fields: Any) -> pb.JoinMatchResponse:
    return stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, request_id=request_id, **fields))


def joined_seats(stub: Any, match_id: str) -> list[int]:
    match = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match
    return [seat.seat for seat in match.seats if seat.joined]


def test_a_repeated_join_answers_the_first_seat_and_token_and_claims_nothing(stub):
    match_id = create(stub, game="jaipur")
    first = join(stub, match_id, "join-a-0123456789", player_name="ada")
    version = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version
    again = join(stub, match_id, "join-a-0123456789", player_name="ada")

    assert (again.seat, again.seat_token) == (first.seat, first.seat_token) == (0, again.seat_token)
    assert (first.replayed, again.replayed) == (False, True)
    assert joined_seats(stub, match_id) == [0]
    assert stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version == version
    # another id is another player: the next seat, and the match starts
    other = join(stub, match_id, "join-b-0123456789")
    assert (other.seat, other.replayed) == (1, False)
    assert other.match.status == pb.MATCH_STATUS_RUNNING


def test_without_a_request_id_a_retry_claims_a_second_seat(stub):
    """What the request id is for: the old behaviour, still that of a join without one."""
    match_id = create(stub, game="jaipur")
    first = stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id))
    again = stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id))
    assert (first.seat, again.seat) == (0, 1)
    assert first.seat_token != again.seat_token


def test_the_first_answer_stands_whatever_the_retry_asks_and_after_the_match_started(stub):
    match_id = create(stub, game="jaipur")
    first = join(stub, match_id, "join-a-0123456789", seat=1, player_name="ada")
    last = join(stub, match_id, "join-b-0123456789", player_name="bob")
    assert (first.seat, last.seat) == (1, 0)
    running = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    assert running.match.status == pb.MATCH_STATUS_RUNNING

    again = join(stub, match_id, "join-a-0123456789", seat=0, player_name="someone else")
    assert (again.seat, again.seat_token, again.replayed) == (1, first.seat_token, True)
    assert [s.player_name for s in again.match.seats] == ["bob", "ada"]
    assert stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version == running.version
    # the token answered again acts for the seat
    listed = stub.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id, seat_token=again.seat_token)
    )
    assert listed.seat == 1


def test_one_request_id_on_two_matches_claims_a_seat_on_each(stub):
    first_match, second_match = create(stub, game="jaipur"), create(stub, game="jaipur")
    first = join(stub, first_match, "same-id-0123456789")
    second = join(stub, second_match, "same-id-0123456789")
    assert not first.replayed and not second.replayed
    assert first.seat_token != second.seat_token
    assert joined_seats(stub, first_match) == joined_seats(stub, second_match) == [0]


@pytest.mark.store("redis")  # reads Redis itself
def test_the_store_holds_neither_the_request_id_nor_the_token(stub, redis_url):
    match_id = create(stub, game="jaipur")
    request_id = "a-request-id-to-look-for-9f3c"
    token = join(stub, match_id, request_id).seat_token
    client = redis.Redis.from_url(redis_url)
    try:
        stored = []
        for key in client.scan_iter():
            kind = client.type(key)
            if kind == b"hash":
                stored += [*client.hgetall(key).keys(), *client.hgetall(key).values()]
            elif kind == b"stream":
                for _id, fields in client.xrange(key):
                    stored += [*fields.keys(), *fields.values()]
            elif kind == b"list":
                stored += client.lrange(key, 0, -1)
            elif kind == b"zset":
                stored += client.zrange(key, 0, -1)
            elif kind == b"string":
                stored.append(client.get(key))
        assert stored, "nothing was read back"
        blob = b"\n".join(stored)
        assert match_id.encode() in blob  # the scan does see the match
        assert request_id.encode() not in blob
        assert token.encode() not in blob
    finally:
        client.close()


@pytest.mark.store("redis")  # replicas share a store
def test_two_replicas_answering_one_request_id_at_once_claim_one_seat(start_service):
    """The two joins race to one commit; the loser finds the winner's seat under its id. Which
    one commits first is up to the scheduler, so the race is run on several matches."""
    replicas = [start_service().stub(), start_service().stub()]
    for seed in range(8):
        match_id = create(replicas[0], game="jaipur", seed=seed)
        answers = at_once([partial(join, s, match_id, "raced-id-0123456789") for s in replicas])
        assert len(answers) == 2
        assert {(a.seat, a.seat_token) for a in answers} == {(0, answers[0].seat_token)}
        assert joined_seats(replicas[0], match_id) == [0]


def test_a_bad_join_request_id_is_an_invalid_argument(stub):
    match_id = create(stub, game="jaipur")
    for request_id in ("has space", "x" * 129, "line\nbreak", "short-guessable"):
        code, details = status_of(lambda request_id=request_id: join(stub, match_id, request_id))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in details
    assert joined_seats(stub, match_id) == []


def test_seats_stored_before_join_ids_load_and_new_ones_round_trip():
    from serai.store import SeatRecord
    from serai.store.redis.encoding import dump_seats, load_seats

    old = b'[{"n":"ada","j":1,"r":0,"t":"ab"},{"n":"","j":0,"r":0,"t":""}]'
    assert load_seats(old) == (SeatRecord("ada", True, False, "ab"), SeatRecord())
    assert dump_seats(load_seats(old)).encode() == old  # a seat without a join id adds nothing
    seats = (SeatRecord("ada", True, False, "ab", join_id="01" * 32, sealed_token="ff" * 32),)
    assert load_seats(dump_seats(seats).encode()) == seats
