"""One scenario suite, run over native gRPC, Connect binary, Connect JSON and gRPC-Web against a
real serai serve: a whole Jaipur match, the errors of the proto header, idempotent retries and
Watch (resumed, and on a finished match) give the same answers, codes and messages on every
transport, and no seat receives the other's hidden cards on any of them."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from connect_helpers import TRANSPORTS, CallFailed, Transport
from google.protobuf import json_format
from google.protobuf.message import Message
from serai.api import match_service_pb2 as pb
from serai_jaipur import jaipur_pb2

# Codes of the proto header's error list that a scenario can trigger cheaply (UNAVAILABLE needs
# the store gone).
CHEAP_CODES = {
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "UNAUTHENTICATED",
    "PERMISSION_DENIED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "RESOURCE_EXHAUSTED",
}
MAX_MESSAGE_BYTES = 64 * 1024  # above the largest answer (a Jaipur ListLegalMoves with steps)


@pytest.fixture(scope="module")
def serve(start_module_serve: Callable[..., Any], redis_server: Any) -> Any:
    """One server for the module: every transport's run on the same settings, so that their
    transcripts compare (each run makes its own match, with its own request ids)."""
    return start_module_serve(
        "--redis-url", redis_server.url, "--max-message-bytes", str(MAX_MESSAGE_BYTES)
    )


_runs: dict[str, Scenario] = {}


def played(name: str, serve: Any) -> Scenario:
    """The scenario played once over the transport ``name`` (both tests read the same run)."""
    if name not in _runs:
        transport = Transport(name, serve.address, serve.http_address)
        try:
            _runs[name] = play_scenario(transport)
        finally:
            transport.close()
    return _runs[name]


class Scenario:
    """Plays the scenario over one transport and keeps what it received: the transcript (each
    answer or error, with what differs between runs, ids, tokens and times, made neutral) and
    the messages each seat received."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.transcript: list[Any] = []
        self.received: dict[int | None, list[Message]] = {0: [], 1: [], None: []}
        self.codes: set[str] = set()
        self.secrets: list[str] = []  # match id and tokens, replaced in the transcript
        self.event_ids: dict[str, str] = {}

    def call(self, seat: int | None, method: str, request: Message) -> Any:
        answer = self.transport.call(method, request)
        for secret in (getattr(answer, "match", None), getattr(answer, "seat_token", "")):
            secret = getattr(secret, "match_id", secret)
            if secret and secret not in self.secrets:
                self.secrets.append(secret)
        self.received[seat].append(answer)
        self.transcript.append((method, self._neutral(answer)))
        return answer

    def fails(self, method: str, request: Message, library_message: bool = False) -> str:
        with pytest.raises(CallFailed) as failure:
            self.transport.call(method, request)
        self.codes.add(failure.value.code)
        message = self._neutral_text(failure.value.message)
        if library_message:  # refused by the protocol library, before serai's handlers
            assert str(MAX_MESSAGE_BYTES) in message, message
            message = "<the library's words>"
        self.transcript.append((method, failure.value.code, message))
        return failure.value.code

    def watch(self, seat: int | None, request: pb.WatchRequest, until: str = "") -> list[Any]:
        events = self.transport.watch(request, until_event_id=until)
        self.received[seat].extend(events)
        self.transcript.append(("Watch", [self._neutral(event) for event in events]))
        return events

    def _neutral_text(self, text: str) -> str:
        for index, secret in enumerate(self.secrets):
            text = text.replace(secret, f"<secret {index}>")
        return re.sub(r"\d+-\d+", lambda m: self._event(m.group()), text)

    def _event(self, event_id: str) -> str:
        return self.event_ids.setdefault(event_id, f"<event {len(self.event_ids)}>")

    def _neutral(self, message: Message) -> Any:
        def walk(value: Any, key: str = "") -> Any:
            if isinstance(value, dict):
                return {
                    k: walk(v, k)
                    for k, v in value.items()
                    if k not in ("created_at_ms", "move_deadline_ms", "seed_commitment")
                }
            if isinstance(value, list):
                return [walk(v) for v in value]
            if isinstance(value, str) and key.endswith("event_id") and value:
                return self._event(value)
            if isinstance(value, str):
                return self._neutral_text(value)
            return value

        as_dict = json_format.MessageToDict(message, preserving_proto_field_name=True)
        return walk(as_dict)


def play_scenario(transport: Transport) -> Scenario:
    run = Scenario(transport)
    create = pb.CreateMatchRequest(game="jaipur", seats=2, seed=7, request_id=str(uuid.uuid4()))
    match_id = run.call(None, "CreateMatch", create).match.match_id
    again = run.call(None, "CreateMatch", create)  # a retry: the same match, not a second one
    assert again.match.match_id == match_id

    tokens = []
    for seat, name in enumerate(("ada", "bo")):
        join = pb.JoinMatchRequest(match_id=match_id, seat=seat, player_name=name)
        join.request_id = str(uuid.uuid4())
        joined = run.call(seat, "JoinMatch", join)
        retried = run.call(seat, "JoinMatch", join)
        assert retried.replayed and retried.seat_token == joined.seat_token
        tokens.append(joined.seat_token)

    errors_while_running(run, match_id, tokens)

    chooser = random.Random(7)
    moves = 0
    resumed_at = ""
    while True:
        snapshot = run.call(None, "GetMatch", pb.GetMatchRequest(match_id=match_id))
        if snapshot.match.status == pb.MATCH_STATUS_FINISHED:
            break
        seat = snapshot.to_act[0]
        token = tokens[seat]
        listed = run.call(
            seat, "ListLegalMoves", pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        )
        submit = pb.SubmitMoveRequest(
            match_id=match_id,
            seat_token=token,
            move_id=chooser.choice(listed.moves).id,
            expected_version=listed.version,
            request_id=f"move-{moves}",
        )
        done = run.call(seat, "SubmitMove", submit)
        moves += 1
        if moves == 3:  # a retry answers the first answer and plays nothing twice
            replay = run.call(seat, "SubmitMove", submit)
            assert replay.replayed and replay.snapshot.version == done.snapshot.version
            stale = pb.SubmitMoveRequest()
            stale.CopyFrom(submit)
            stale.request_id = "move-stale"
            assert run.fails("SubmitMove", stale) == "ABORTED"
        if moves == 6:  # a live Watch, and one resumed after an event id
            for viewer in (0, 1):
                ask = pb.WatchRequest(match_id=match_id, seat_token=tokens[viewer])
                live = run.watch(viewer, ask, until=done.snapshot.last_event_id)
                assert live[-1].event_id == done.snapshot.last_event_id
                resumed_at = live[2].event_id
                ask.after_event_id = resumed_at
                resumed = run.watch(viewer, ask, until=done.snapshot.last_event_id)
                assert [e.event_id for e in resumed] == [e.event_id for e in live[3:]]
    assert moves > 6

    finished = pb.WatchRequest(match_id=match_id, seat_token=tokens[0])
    events = run.watch(0, finished)  # a finished match's Watch ends by itself
    assert events[-1].HasField("finished")
    assert events[-1].snapshot.match.status == pb.MATCH_STATUS_FINISHED
    run.watch(None, pb.WatchRequest(match_id=match_id, after_event_id=resumed_at))
    run.watch(1, pb.WatchRequest(match_id=match_id, seat_token=tokens[1]))
    final = run.call(None, "GetMatch", pb.GetMatchRequest(match_id=match_id))
    assert final.version == events[-1].version

    after_the_end = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], move_id="1.0")
    assert run.fails("SubmitMove", after_the_end) == "FAILED_PRECONDITION"
    return run


def errors_while_running(run: Scenario, match_id: str, tokens: list[str]) -> None:
    """One failing call for each cheap code of the proto header (some codes more than once)."""
    fails = run.fails
    assert fails("CreateMatch", pb.CreateMatchRequest(game="")) == "INVALID_ARGUMENT"
    assert fails("CreateMatch", pb.CreateMatchRequest(game="jaipur", seats=5)) == (
        "INVALID_ARGUMENT"
    )
    assert fails("ListMatches", pb.ListMatchesRequest(status=99)) == "INVALID_ARGUMENT"
    bad_id = pb.SubmitMoveRequest(
        match_id=match_id, seat_token=tokens[0], move_id="1.0", request_id="a b"
    )
    assert fails("SubmitMove", bad_id) == "INVALID_ARGUMENT"
    assert fails("GetMatch", pb.GetMatchRequest(match_id="nope")) == "NOT_FOUND"
    assert fails("CreateMatch", pb.CreateMatchRequest(game="chess")) == "NOT_FOUND"
    to_act = run.transport.call("GetMatch", pb.GetMatchRequest(match_id=match_id)).to_act[0]
    unknown_move = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[to_act], move_id="x")
    assert fails("SubmitMove", unknown_move) in ("NOT_FOUND", "INVALID_ARGUMENT")
    no_token = pb.SubmitMoveRequest(match_id=match_id, move_id="1.0")
    assert fails("SubmitMove", no_token) == "UNAUTHENTICATED"
    assert fails("ListLegalMoves", pb.ListLegalMovesRequest(match_id=match_id)) == (
        "UNAUTHENTICATED"
    )
    wrong = pb.ListLegalMovesRequest(match_id=match_id, seat_token="not-a-token")
    assert fails("ListLegalMoves", wrong) == "PERMISSION_DENIED"
    wrong_view = pb.GetMatchRequest(match_id=match_id, seat_token="not-a-token")
    assert fails("GetMatch", wrong_view) == "PERMISSION_DENIED"
    taken = pb.JoinMatchRequest(match_id=match_id, seat=0, player_name="cy")
    assert fails("JoinMatch", taken) == "FAILED_PRECONDITION"
    legal = run.transport.call(
        "ListLegalMoves", pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[to_act])
    )
    waiting = 1 - to_act
    not_your_turn = pb.SubmitMoveRequest(
        match_id=match_id, seat_token=tokens[waiting], move_id=legal.moves[0].id
    )
    assert fails("SubmitMove", not_your_turn) == "FAILED_PRECONDITION"
    stale = pb.SubmitMoveRequest(
        match_id=match_id,
        seat_token=tokens[to_act],
        move_id=legal.moves[0].id,
        expected_version=legal.version + 1,
    )
    assert fails("SubmitMove", stale) == "ABORTED"
    big = pb.CreateMatchRequest(game="jaipur", options={"x": "y" * 2 * MAX_MESSAGE_BYTES})
    # gRPC core and connectrpc each word their size refusal (only the code is serai's to say).
    assert fails("CreateMatch", big, library_message=True) == "RESOURCE_EXHAUSTED"


@pytest.mark.parametrize("name", TRANSPORTS)
def test_the_scenario_gives_the_same_answers_on_every_transport(name: str, serve: Any) -> None:
    run = played(name, serve)
    assert run.codes == CHEAP_CODES
    expected = played("native", serve).transcript
    assert len(run.transcript) == len(expected)
    for step, (got, want) in enumerate(zip(run.transcript, expected, strict=True)):
        assert got == want, f"step {step} differs on {name}"


@pytest.mark.parametrize("name", TRANSPORTS)
def test_no_seat_receives_the_other_seats_hidden_cards_on_any_transport(
    name: str, serve: Any
) -> None:
    """Every view a seat received (answers, move snapshots, Watch events) leaves the other
    seat's hand and bonus tokens out; a spectator sees no hand at all."""
    run = played(name, serve)
    checked = 0
    for seat, messages in run.received.items():
        assert messages
        for message in messages:
            for view in _views_in(message):
                checked += 1
                hidden = [1 - seat] if seat is not None else [0, 1]
                for other in hidden:
                    player = view.players[other]
                    assert not player.HasField("hand") and not player.bonus_tokens, (seat, name)
                if seat is not None:
                    assert view.players[seat].HasField("hand")
    assert checked > 50


def _views_in(message: Message) -> list[Any]:
    if isinstance(message, pb.MatchSnapshot):
        snapshot = message
    elif isinstance(message, pb.SubmitMoveResponse | pb.MatchEvent):
        snapshot = message.snapshot
    else:
        return []
    if not snapshot.HasField("view"):
        return []
    view = jaipur_pb2.View()
    assert snapshot.view.Unpack(view)
    return [view]
