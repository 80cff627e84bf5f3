"""GetReplay: a finished match step by step from each seat's view or a spectator's, each step the
presentation of the view that seat had then, with the verdict on its committed deal."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.matches import MatchNotRunning
from serai.presentation import presentation
from service_helpers import status_of
from test_service_transcripts import GAMES, play, start

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed


@pytest.fixture
def tiny(start_service: Any) -> Any:
    return start_service(registry=GAMES)


def test_a_finished_match_is_stepped_through_from_each_seat_and_a_spectator(tiny: Any) -> None:
    """The deal, then one step per move with its seat and label; each seat's steps are its own
    views (a spectator's too), and the committed deal checks out."""
    stub = tiny.stub()
    match_id, tokens = start(stub, hand="4", plays="3")
    play(stub, match_id, tokens)
    game = GAMES.games["tiny"]
    finished = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    for seat in (None, 0, 1):
        request = pb.GetReplayRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        replay = stub.GetReplay(request)
        assert replay.match.match_id == match_id and replay.deal_checked, replay.deal_check
        assert replay.deal_check.startswith("OK: 6 moves replayed")
        versions = [s.version for s in replay.steps]
        assert len(versions) == 7 and versions[0] == 0 and versions == sorted(set(versions))
        assert replay.steps[0].label == "the deal" and not replay.steps[0].HasField("seat")
        assert all(step.HasField("seat") and step.label for step in replay.steps[1:])
        if seat == 0:  # the last step is what seat 0 sees of the finished match
            assert replay.steps[-1].presentation == presentation(game, finished.view.value)


def test_a_replay_waits_for_the_end_and_names_a_seat_the_match_has(tiny: Any) -> None:
    stub = tiny.stub()
    match_id, tokens = start(stub, hand="4", plays="3")
    play(stub, match_id, tokens, moves=2)
    code, details = status_of(lambda: stub.GetReplay(pb.GetReplayRequest(match_id=match_id)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "once the match is finished" in details
    play(stub, match_id, tokens)
    code, details = status_of(
        lambda: stub.GetReplay(pb.GetReplayRequest(match_id=match_id, seat=2))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "seats 0 to 1, not 2" in details
    code, _ = status_of(lambda: stub.GetReplay(pb.GetReplayRequest(match_id="nope")))
    assert code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)


def test_an_operator_ends_a_running_match_and_its_replay_and_transcript_say_so(
    tiny: Any,
) -> None:
    """The console's end: the match finishes with no one winning, its transcript still verifies
    and its replay's last step says who ended it; a match not running cannot be ended."""
    stub = tiny.stub()
    match_id, tokens = start(stub, hand="4", plays="3")
    play(stub, match_id, tokens, moves=2)
    ended = tiny.run(tiny.matches.end(match_id))
    assert ended.record.status == "finished"
    assert ended.record.outcome["summary"] == "ended by the operator"
    assert ended.record.outcome["ranks"] == [0, 0]
    replay = stub.GetReplay(pb.GetReplayRequest(match_id=match_id))
    assert replay.deal_checked, replay.deal_check
    assert replay.steps[-1].label == "ended by the operator" and len(replay.steps) == 4
    with pytest.raises(MatchNotRunning, match="is over"):
        tiny.run(tiny.matches.end(match_id))


def test_an_operator_cancels_an_open_match_before_it_starts(tiny: Any) -> None:
    """The console's end on a match still waiting for a player cancels it: finished, cancelled,
    no one winning; its seated player's GetMatch says so, and its transcript and replay read."""
    stub = tiny.stub()
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2)).match.match_id
    token = stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat_token
    cancelled = tiny.run(tiny.matches.end(match_id))
    assert cancelled.record.status == "finished"
    outcome = cancelled.record.outcome
    assert outcome["cancelled"] and outcome["ranks"] == [0, 0]
    assert outcome["summary"] == "cancelled by the operator before it started"
    seen = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=token))
    assert seen.match.status == pb.MATCH_STATUS_FINISHED and seen.outcome.cancelled
    code, _ = status_of(lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    stub.GetTranscript(pb.GetTranscriptRequest(match_id=match_id))
    replay = stub.GetReplay(pb.GetReplayRequest(match_id=match_id))
    assert replay.steps[-1].label == "cancelled by the operator before it started"
    with pytest.raises(MatchNotRunning, match="is over"):
        tiny.run(tiny.matches.end(match_id))


def test_a_seat_cancels_its_own_match_before_it_starts_and_no_one_else_can(tiny: Any) -> None:
    """CancelMatch: the seat token decides (none is UNAUTHENTICATED, another match's is
    PERMISSION_DENIED); the match finishes cancelled as the operator's cancel leaves it, its
    replay says by whom, a repeated call answers the same, and a match that has started cannot
    be cancelled."""
    stub = tiny.stub()
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2)).match.match_id
    token = stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, player_name="ann")).seat_token
    other_id, other_tokens = start(stub, hand="4", plays="3")
    for wrong, refused in (
        ("", grpc.StatusCode.UNAUTHENTICATED),
        (other_tokens[0], grpc.StatusCode.PERMISSION_DENIED),
    ):
        code, _ = status_of(
            lambda wrong=wrong: stub.CancelMatch(
                pb.CancelMatchRequest(match_id=match_id, seat_token=wrong)
            )
        )
        assert code == refused
    cancel = pb.CancelMatchRequest(match_id=match_id, seat_token=token)
    cancelled = stub.CancelMatch(cancel)
    assert cancelled.match.status == pb.MATCH_STATUS_FINISHED and cancelled.outcome.cancelled
    assert cancelled.viewer_seat == 0 and list(cancelled.outcome.winners) == []
    assert cancelled.outcome.summary == "cancelled by seat 0 before it started"
    assert stub.CancelMatch(cancel).outcome == cancelled.outcome  # a retry: the same answer
    code, _ = status_of(lambda: stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    replay = stub.GetReplay(pb.GetReplayRequest(match_id=match_id))
    assert replay.steps[-1].label == "cancelled by seat 0 before it started"
    code, details = status_of(
        lambda: stub.CancelMatch(
            pb.CancelMatchRequest(match_id=other_id, seat_token=other_tokens[1])
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "resign instead" in details
