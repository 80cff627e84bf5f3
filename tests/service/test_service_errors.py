"""Every failure answers its status code and a message saying what to do; none changes a thing."""

from __future__ import annotations

import dataclasses
import time

import grpc
import pytest
from conftest import InProcessServer
from google.protobuf import any_pb2, struct_pb2, wrappers_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from serai.api import match_service_pb2 as pb
from serai.game import GameInfo
from serai.matches.limits import Limits
from serai.registry import Registry
from serai.unplayable import UnplayableGame
from service_helpers import create, join_all, status_of
from tiny_game import TinyGame

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

Code = grpc.StatusCode


class Someday(UnplayableGame):
    info = GameInfo(
        name="someday",
        title="Someday",
        min_players=2,
        max_players=2,
        version="0",
        summary="not written yet",
        playable=False,
    )


class Buggy(TinyGame):
    """Tiny with a bug that names a hidden card in its exception."""

    info = dataclasses.replace(TinyGame.info, name="buggy", title="Buggy")

    def legal_moves(self, state, seat):
        raise KeyError(f"secret {state.hands[1 - seat][0]}")


@pytest.fixture
def server(start_service):
    games = {"tiny": TinyGame(), "someday": Someday(), "buggy": Buggy()}
    return start_service(registry=Registry(games))


@pytest.fixture
def stub(server):
    return server.stub()


@pytest.fixture
def running(stub):
    """A running 2-seat tiny match: (match id, tokens)."""
    match_id = create(stub, seats=2, seed=21)
    return match_id, join_all(stub, match_id, 2)


def _submit(stub, match_id, token, *, move_id="", card="", version=0, payload=None):
    request = pb.SubmitMoveRequest(match_id=match_id, seat_token=token, expected_version=version)
    if payload is not None:
        request.payload.CopyFrom(payload)
    elif card:
        request.payload.Pack(wrappers_pb2.StringValue(value=card))
    elif move_id:
        request.move_id = move_id
    return stub.SubmitMove(request)


def _hand(stub, match_id, token):
    view = struct_pb2.Struct()
    stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=token)).view.Unpack(view)
    return list(view["hand"])


def test_an_unknown_game_is_not_found_with_the_installed_names(stub):
    code, details = status_of(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="chess")))
    assert code == Code.NOT_FOUND
    assert "chess" in details and "buggy, someday, tiny" in details


def test_a_game_not_playable_yet_is_a_failed_precondition(stub):
    code, details = status_of(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="someday")))
    assert code == Code.FAILED_PRECONDITION
    assert "not playable yet" in details


def test_bad_options_and_seat_counts_are_invalid_arguments(stub):
    for request in (
        pb.CreateMatchRequest(game="tiny", options={"colour": "red"}),
        pb.CreateMatchRequest(game="tiny", options={"hand": "9"}),
        pb.CreateMatchRequest(game="tiny", seats=7),
        pb.CreateMatchRequest(game=""),
    ):
        code, details = status_of(lambda request=request: stub.CreateMatch(request))
        assert code == Code.INVALID_ARGUMENT, details


def test_a_megabyte_option_gets_a_short_message(stub):
    """An option's name or value is echoed as a short escaped prefix with its length."""
    huge = "9" * 1_000_000
    for options in ({"hand": huge}, {"simultaneous": huge}, {huge: "1"}):
        request = pb.CreateMatchRequest(game="tiny", options=options)
        code, details = status_of(lambda request=request: stub.CreateMatch(request))
        assert code == Code.INVALID_ARGUMENT, details
        assert "(1000000 characters)" in details and len(details) < 200, details


def test_an_unknown_match_is_not_found_everywhere(stub):
    for call in (
        lambda: stub.GetMatch(pb.GetMatchRequest(match_id="nosuchmatch")),
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id="nosuchmatch")),
        lambda: stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id="nosuchmatch", seat_token="x")
        ),
        lambda: _submit(stub, "nosuchmatch", "x", move_id="1.0"),
        lambda: stub.Resign(pb.ResignRequest(match_id="nosuchmatch", seat_token="x")),
        lambda: list(stub.Watch(pb.WatchRequest(match_id="nosuchmatch"))),
        lambda: stub.GetMatch(pb.GetMatchRequest(match_id="{braces}")),
    ):
        code, details = status_of(call)
        assert (code == Code.NOT_FOUND and "check the id" in details) or "match ids" in details


def test_an_empty_match_id_is_an_invalid_argument(stub):
    code, _ = status_of(lambda: stub.GetMatch(pb.GetMatchRequest(match_id="")))
    assert code == Code.INVALID_ARGUMENT


def test_a_taken_seat_and_a_full_match_are_failed_preconditions(stub):
    match_id = create(stub, seats=2)
    stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=1))
    code, details = status_of(
        lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=1))
    )
    assert code == Code.FAILED_PRECONDITION and "free seats: 0" in details
    code, _ = status_of(lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=5)))
    assert code == Code.INVALID_ARGUMENT
    assert stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat == 0
    code, details = status_of(lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)))
    assert code == Code.FAILED_PRECONDITION and "every seat" in details


def test_a_missing_token_is_unauthenticated_and_a_wrong_one_permission_denied(stub, running):
    match_id, tokens = running
    other_match = create(stub, seats=2)
    other_token = stub.JoinMatch(pb.JoinMatchRequest(match_id=other_match)).seat_token
    code, details = status_of(
        lambda: stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id))
    )
    assert code == Code.UNAUTHENTICATED and "seat_token" in details
    code, _ = status_of(lambda: _submit(stub, match_id, "", move_id="2.0"))
    assert code == Code.UNAUTHENTICATED
    code, _ = status_of(lambda: stub.Resign(pb.ResignRequest(match_id=match_id)))
    assert code == Code.UNAUTHENTICATED
    for token in ("not-a-token", other_token, tokens[0] + "x"):
        code, details = status_of(
            lambda token=token: stub.GetMatch(
                pb.GetMatchRequest(match_id=match_id, seat_token=token)
            )
        )
        assert code == Code.PERMISSION_DENIED and "JoinMatch" in details
        code, _ = status_of(lambda token=token: _submit(stub, match_id, token, move_id="2.0"))
        assert code == Code.PERMISSION_DENIED
        code, _ = status_of(
            lambda token=token: list(
                stub.Watch(pb.WatchRequest(match_id=match_id, seat_token=token))
            )
        )
        assert code == Code.PERMISSION_DENIED


def test_moves_refused_for_every_reason_change_nothing(stub, running):
    match_id, tokens = running
    before = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    hand0, hand1 = _hand(stub, match_id, tokens[0]), _hand(stub, match_id, tokens[1])
    version = before.version

    def move(token=tokens[0], **how):
        return lambda: _submit(stub, match_id, token, **how)

    not_a_string = _packed(wrappers_pb2.Int32Value(value=3))
    many_nines = "9" * 5000  # more digits than int() reads
    garbage = any_pb2.Any(type_url=_packed(wrappers_pb2.StringValue()).type_url, value=b"\xff\xff")
    expectations = [
        (move(tokens[1], card=hand1[0]), Code.FAILED_PRECONDITION, "turn"),  # not your turn
        (move(card=hand1[0]), Code.FAILED_PRECONDITION, "do not hold"),  # the rule's reason
        (move(card=hand0[0], version=version - 1), Code.ABORTED, "version"),  # stale version
        (move(move_id=f"{version - 1}.0"), Code.ABORTED, "list the legal"),  # an old move id
        (move(move_id=f"{version}.99"), Code.NOT_FOUND, "ListLegalMoves"),  # no such move
        (move(move_id="first"), Code.NOT_FOUND, "ListLegalMoves"),
        (move(move_id=f"{version}.\u00b2"), Code.NOT_FOUND, "ListLegalMoves"),  # "²".isdigit()
        (move(move_id=f"{version}.{many_nines}"), Code.NOT_FOUND, "ListLegalMoves"),
        (move(move_id=f"{version}.0\n"), Code.NOT_FOUND, "ListLegalMoves"),
        (move(), Code.INVALID_ARGUMENT, "move_id"),  # neither a move id nor a payload
        (move(payload=not_a_string), Code.INVALID_ARGUMENT, "google.protobuf.StringValue"),
        (move(payload=garbage), Code.INVALID_ARGUMENT, "decoded"),
        (move(card="diamond"), Code.INVALID_ARGUMENT, "gem01"),  # the plugin cannot read it
    ]
    for call, code, words in expectations:
        got, details = status_of(call)
        assert got == code, details
        assert words in details
    after = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    assert after.version == version
    assert after.view == before.view and after.last_event_id == before.last_event_id


def test_a_request_id_with_spaces_or_too_long_is_an_invalid_argument(stub, running):
    match_id, tokens = running
    for request_id in ("has space", "x" * 129, "line\nbreak", "trailing-newline\n"):
        request = pb.SubmitMoveRequest(
            match_id=match_id, seat_token=tokens[0], move_id="2.0", request_id=request_id
        )
        code, details = status_of(lambda request=request: stub.SubmitMove(request))
        assert code == Code.INVALID_ARGUMENT and "request_id" in details


def _packed(message):
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def test_moves_before_the_start_and_after_the_end_are_failed_preconditions(stub, running):
    waiting = create(stub, seats=2)
    token = stub.JoinMatch(pb.JoinMatchRequest(match_id=waiting)).seat_token
    code, details = status_of(lambda: _submit(stub, waiting, token, card="gem01"))
    assert code == Code.FAILED_PRECONDITION and "has not started" in details
    match_id, tokens = running
    finished = stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[1]))
    assert finished.match.status == pb.MATCH_STATUS_FINISHED
    assert list(finished.outcome.ranks) == [0, 1] and list(finished.outcome.winners) == [0]
    code, details = status_of(
        lambda: _submit(stub, match_id, tokens[0], move_id=f"{finished.version}.0")
    )
    assert code == Code.FAILED_PRECONDITION and "over" in details
    code, _ = status_of(
        lambda: stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))
    )
    assert code == Code.FAILED_PRECONDITION


def test_a_resignation_among_three_ranks_the_resigner_last_and_the_others_first(stub):
    match_id = create(stub, seats=3)
    tokens = join_all(stub, match_id, 3)
    done = stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[1]))
    assert list(done.outcome.ranks) == [0, 2, 0] and list(done.outcome.winners) == [0, 2]
    assert done.match.seats[1].resigned
    assert not done.to_act


def test_an_oversized_message_is_resource_exhausted(stub, running):
    match_id, tokens = running
    huge = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], request_id="x" * 2_000_000)
    huge.move_id = "2.0"
    code, _ = status_of(lambda: stub.SubmitMove(huge))
    assert code == Code.RESOURCE_EXHAUSTED
    assert stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).version == 2


def test_a_store_that_cannot_be_reached_is_unavailable():
    from serai.store.embedded import free_port

    server = InProcessServer(f"redis://127.0.0.1:{free_port()}/0", Registry({"tiny": TinyGame()}))
    server.start()
    try:
        stub = server.stub()
        code, details = status_of(lambda: stub.GetMatch(pb.GetMatchRequest(match_id="abc")))
        assert code == Code.UNAVAILABLE and "retry" in details
        code, _ = status_of(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="tiny")))
        assert code == Code.UNAVAILABLE
    finally:
        server.stop()


@pytest.mark.parametrize(
    "event_id",
    [
        "yesterday",
        "1-0\n",  # "$" would let the newline through
        "\u0661-\u0660",  # Arabic-Indic digits: "\d" would take them, Redis does not
        "18446744073709551616-0",  # 2**64: past a stream id's 64 bits
        "99999999999999999999999-0",
    ],
)
def test_a_bad_event_id_to_resume_from_is_an_invalid_argument(stub, running, event_id):
    match_id, _ = running
    code, details = status_of(
        lambda: list(stub.Watch(pb.WatchRequest(match_id=match_id, after_event_id=event_id)))
    )
    assert code == Code.INVALID_ARGUMENT and "event_id" in details


def test_the_largest_event_id_is_accepted_and_nothing_comes_after_it(stub, running):
    match_id, _ = running
    largest = f"{2**64 - 1}-{2**64 - 1}"
    call = stub.Watch(pb.WatchRequest(match_id=match_id, after_event_id=largest), timeout=1)
    code, details = status_of(lambda: list(call))
    assert code == Code.DEADLINE_EXCEEDED, details  # waited for events, found none


def test_a_client_id_or_match_id_with_a_trailing_newline_is_refused(stub, running):
    request = pb.CreateMatchRequest(game="tiny", client_id="bot\n")
    code, details = status_of(lambda: stub.CreateMatch(request))
    assert code == Code.INVALID_ARGUMENT and "client_id" in details
    match_id, _ = running
    code, details = status_of(lambda: stub.GetMatch(pb.GetMatchRequest(match_id=match_id + "\n")))
    assert code == Code.NOT_FOUND and "match ids are" in details  # as any id of the wrong form


def test_a_plugin_bug_is_internal_and_its_text_is_not_sent(stub):
    match_id = create(stub, "buggy", seats=2)
    token = join_all(stub, match_id, 2)[0]
    request = pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
    code, details = status_of(lambda: stub.ListLegalMoves(request))
    assert code == Code.INTERNAL
    assert "secret" not in details and "gem" not in details and "report it" in details


def test_health_and_reflection_are_served(server):
    channel = server.channel()
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "serai.v1.MatchService"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
    answers = reflect.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    )
    names = {s.name for a in answers for s in a.list_services_response.service}
    assert {"serai.v1.MatchService", "grpc.health.v1.Health"} <= names


def test_health_watch_streams_serving_then_not_serving_when_the_server_drains(start_service):
    service = start_service()
    health = health_pb2_grpc.HealthStub(service.channel())
    watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=30)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    service.run(service.server.health.enter_graceful_shutdown())  # what a stop does first
    assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
    watch.cancel()


def test_watches_beyond_the_servers_limit_are_refused_until_one_ends(start_service):
    """A waiting Watch holds a Redis connection; past the limit, moves would wait for one."""
    service = start_service(limits=Limits(max_watches=2))
    stub = service.stub()
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=1)).match.match_id

    def watch():
        stream = stub.Watch(pb.WatchRequest(match_id=match_id), timeout=60)
        next(stream)  # the created event: the watch is live
        return stream

    first, second = watch(), watch()
    code, details = status_of(watch)
    assert code == Code.RESOURCE_EXHAUSTED and "the most it allows" in details
    first.cancel()
    deadline = time.monotonic() + 30
    while service.matches.watching > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    watch().cancel()  # room again
    second.cancel()


def test_list_games_and_list_matches_by_status_and_game(stub, running):
    games = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    games.pop("buggy")
    assert games["tiny"].playable and not games["someday"].playable
    assert [o.name for o in games["tiny"].options] == ["hand", "plays", "simultaneous"]
    assert games["tiny"].options[2].default_value == "false"
    plays = games["tiny"].options[1]
    assert (plays.minimum, plays.maximum) == (1, 4)
    assert not games["tiny"].options[0].HasField("minimum")  # "hand" has choices instead
    match_id, _ = running
    waiting = create(stub, seats=2)
    listed = stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_RUNNING))
    assert [m.match_id for m in listed.matches] == [match_id]
    listed = stub.ListMatches(pb.ListMatchesRequest(game="tiny"))
    assert [m.match_id for m in listed.matches] == [waiting, match_id]
    assert listed.matches[1].seats[0].player_name == "p0"
    assert not stub.ListMatches(pb.ListMatchesRequest(game="someday")).matches
    assert len(stub.ListMatches(pb.ListMatchesRequest(limit=1)).matches) == 1
