"""Transcripts: GetTranscript and ``serai export`` write a match that ``serai verify`` replays
offline; any change to a move, a hash or the seed material fails at the right place, and a seat's
transcript of a running match holds nothing that seat could not see."""

from __future__ import annotations

import argparse
import base64
import copy
import json
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.commands import transcript as transcript_command
from serai.matches import LimitExceeded, fairness, transcripts
from serai.rpc.context import CallContext
from serai.rpc.handlers import MatchHandlers
from serai.rpc.limits import RateLimiter
from serai.store import MatchRecord
from service_helpers import status_of
from tiny_game import tiny_registry

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

GAMES = tiny_registry()


@pytest.fixture
def tiny(start_service: Any) -> Any:
    return start_service(registry=GAMES)


def start(stub: Any, **options: str) -> tuple[str, list[str]]:
    """A tiny match with a committed deal, both seats joined (each with its entropy)."""
    request = pb.CreateMatchRequest(game="tiny", seats=2, options=options)
    match_id = stub.CreateMatch(request).match.match_id
    tokens = [
        stub.JoinMatch(
            pb.JoinMatchRequest(match_id=match_id, entropy=bytes([i + 1]) * 16)
        ).seat_token
        for i in range(2)
    ]
    return match_id, tokens


def play(stub: Any, match_id: str, tokens: list[str], moves: int = 1000) -> None:
    """The first legal move of the seat to act, ``moves`` times or until the match ends."""
    for _ in range(moves):
        snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        if snapshot.match.status != pb.MATCH_STATUS_RUNNING:
            return
        token = tokens[snapshot.to_act[0]]
        legal = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        request = pb.SubmitMoveRequest(
            match_id=match_id, seat_token=token, move_id=legal.moves[0].id
        )
        stub.SubmitMove(request)


def transcript(stub: Any, match_id: str, token: str = "") -> dict[str, Any]:
    request = pb.GetTranscriptRequest(match_id=match_id, seat_token=token)
    document: dict[str, Any] = json.loads(stub.GetTranscript(request).transcript)
    return document


@pytest.fixture
def finished(tiny: Any) -> dict[str, Any]:
    stub = tiny.stub()
    match_id, tokens = start(stub, hand="4", plays="3")
    play(stub, match_id, tokens)
    return transcript(stub, match_id)


def test_a_finished_match_transcript_verifies(finished):
    verdict = transcripts.verify(finished, GAMES.games)
    assert verdict.ok, verdict
    assert verdict.moves == len(finished["moves"]) == 6
    assert finished["plugin_version"] == GAMES.games["tiny"].info.version
    assert finished["seed"]["seat_entropy"] == [("01" * 16), ("02" * 16)]


def _flip_move_byte(document: dict[str, Any], index: int) -> None:
    move = bytearray(base64.b64decode(document["moves"][index]["move"]))
    move[-1] ^= 0x01
    document["moves"][index]["move"] = base64.b64encode(bytes(move)).decode()


def _flip_hex(value: str) -> str:
    return ("1" if value[0] == "0" else "0") + value[1:]


def _set(path: tuple[Any, ...], change: Any) -> Any:
    def mutate(document: dict[str, Any]) -> None:
        *parents, last = path
        target: Any = document
        for key in parents:
            target = target[key]
        target[last] = change(target[last])

    return mutate


MUTATIONS = {
    "a move's bytes": (lambda d: _flip_move_byte(d, 2), "move 3 "),
    "a move's label": (_set(("moves", 1, "label"), lambda v: v + "x"), "move 2 "),
    "a state hash": (_set(("moves", 4, "state_hash"), _flip_hex), "move 5 "),
    "the last hash": (_set(("moves", 5, "state_hash"), _flip_hex), "move 6 "),
    "a move's seat": (_set(("moves", 3, "seat"), lambda v: 1 - v), "move 4 "),
    "the deal hash": (_set(("deal_hash",), _flip_hex), "the deal"),
    "the server seed": (_set(("seed", "server_seed"), _flip_hex), "the seed"),
    "a seat's entropy": (_set(("seed", "seat_entropy", 1), _flip_hex), "the seed"),
    "the seed": (_set(("seed", "seed"), lambda v: v ^ 1), "the seed"),
    "the commitment": (_set(("seed_commitment",), _flip_hex), "the seed"),
    "the options": (_set(("options", "hand"), lambda v: 3), "the deal"),
    "the outcome": (_set(("outcome", "scores"), lambda v: [v[1], v[0] + 1]), "the end"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_changed_transcript_fails_where_it_was_changed(finished, name):
    mutate, where = MUTATIONS[name]
    changed = copy.deepcopy(finished)
    mutate(changed)
    verdict = transcripts.verify(changed, GAMES.games)
    assert not verdict.ok
    assert (verdict.where + " ").startswith(where), verdict


def test_every_move_byte_flipped_fails_at_that_move(finished):
    """Whatever byte of a move is changed, verify stops at that move, not later."""
    for index, entry in enumerate(finished["moves"]):
        raw = base64.b64decode(entry["move"])
        for at in range(len(raw)):
            changed = copy.deepcopy(finished)
            move = bytearray(raw)
            move[at] ^= 0x20
            changed["moves"][index]["move"] = base64.b64encode(bytes(move)).decode()
            verdict = transcripts.verify(changed, GAMES.games)
            assert verdict.where.startswith(f"move {index + 1} "), (at, verdict)


def test_a_running_matchs_seat_transcript_holds_only_what_that_seat_saw(tiny):
    stub = tiny.stub()
    match_id, tokens = start(stub, hand="4", plays="3")
    play(stub, match_id, tokens, moves=3)  # seat 0 played twice, seat 1 once
    record = tiny.run(tiny.matches.store.load(match_id))
    assert isinstance(record, MatchRecord) and record.status == "running"
    state = GAMES.games["tiny"].decode_state(record.state)
    seen = transcript(stub, match_id, tokens[0])

    text = json.dumps(seen)
    assert "seed" not in seen and "deal_hash" not in seen and "outcome" not in seen
    assert "state_hash" not in text
    for card in state.hands[1]:  # seat 1's unplayed cards: hidden from seat 0
        assert card not in text
    assert record.server_seed.hex() not in text and str(record.seed) not in text
    # seat 0 has the bytes of its own moves only; every move's label, as Watch showed it
    assert [("move" in m, m["seat"]) for m in seen["moves"]] == [(True, 0), (False, 1), (True, 0)]
    assert all(m["label"] for m in seen["moves"])
    verdict = transcripts.verify(seen, GAMES.games)
    assert not verdict.ok and "not finished" in verdict.problem


def test_the_move_that_ends_the_match_answers_with_the_seed_reveal(tiny):
    stub = tiny.stub()
    match_id, tokens = start(stub)
    answers = []
    for _ in range(4):
        seat = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).to_act[0]
        request = pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        move_id = stub.ListLegalMoves(request).moves[0].id
        submit = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[seat], move_id=move_id)
        answers.append(stub.SubmitMove(submit).snapshot.match)
    assert [a.HasField("seed_reveal") for a in answers] == [False, False, False, True]
    reveal = answers[-1].seed_reveal
    assert fairness.opens(answers[0].seed_commitment, reveal.server_seed)


def test_a_running_match_has_no_transcript_for_a_spectator_or_a_wrong_token(tiny):
    stub = tiny.stub()
    match_id, _ = start(stub)
    _, other_tokens = start(stub)
    code, details = status_of(lambda: transcript(stub, match_id))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "seat_token" in details
    code, _ = status_of(lambda: transcript(stub, match_id, other_tokens[0]))
    assert code == grpc.StatusCode.PERMISSION_DENIED


def _export_args(tiny: Any, match_id: str, **given: Any) -> argparse.Namespace:
    fields = {"match_id": match_id, "seat": None, "output": None, "data_dir": None}
    return argparse.Namespace(redis_url=tiny.redis_url, **(fields | given))


def verify(path: Any, commitment: str | None = None) -> int:
    args = argparse.Namespace(file=str(path), commitment=commitment)
    return transcript_command.run_verify(args, GAMES)


@pytest.mark.store("redis")  # serai transcript export reads Redis
def test_export_writes_what_get_transcript_gives_and_verify_accepts_it(tiny, tmp_path, capsys):
    stub = tiny.stub()
    match_id, tokens = start(stub)
    play(stub, match_id, tokens)
    path = tmp_path / "match.json"
    assert transcript_command.run_export(_export_args(tiny, match_id, output=path), GAMES) == 0
    assert json.loads(path.read_text()) == transcript(stub, match_id)

    assert verify(path) == 0
    said = capsys.readouterr().out
    assert "OK: 4 moves replayed" in said and "commitment was not checked" in said
    seen_at_start = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.seed_commitment
    assert verify(path, base64.b64encode(seen_at_start).decode()) == 0
    assert "not checked" not in capsys.readouterr().out
    assert verify(path, seen_at_start.hex()) == 0
    assert verify(path, bytes(32).hex()) == 1
    assert "not the match you saw start" in capsys.readouterr().out
    changed = json.loads(path.read_text())
    changed["moves"][1]["state_hash"] = _flip_hex(changed["moves"][1]["state_hash"])
    path.write_text(json.dumps(changed))
    assert verify(path) == 1
    assert "FAILED at move 2 (version" in capsys.readouterr().out


@pytest.mark.store("redis")  # serai transcript export reads Redis
def test_export_of_a_running_match_is_a_seats_only(tiny, capsys):
    stub = tiny.stub()
    match_id, tokens = start(stub)
    play(stub, match_id, tokens, moves=1)
    assert transcript_command.run_export(_export_args(tiny, match_id), GAMES) == 1
    assert "--seat N" in capsys.readouterr().err
    assert transcript_command.run_export(_export_args(tiny, match_id, seat=1), GAMES) == 0
    seen = json.loads(capsys.readouterr().out)
    assert seen["viewer_seat"] == 1 and "seed" not in seen


def test_get_transcript_is_rated_with_list_matches_per_address(tiny):
    """A finished match's transcript replays the whole match: a caller looping on it is held to
    the listing rate (--list-rate), counted together with its ListMatches calls."""
    stub = tiny.stub()
    match_id, tokens = start(stub)
    play(stub, match_id, tokens)
    limiter = RateLimiter(rate=1, burst=2, clock=lambda: 0.0)
    handlers = MatchHandlers(tiny.matches, list_limiter=limiter)
    ctx = CallContext(peer="ipv4:10.0.0.7:5000")
    request = pb.GetTranscriptRequest(match_id=match_id)
    tiny.run(handlers.ListMatches(pb.ListMatchesRequest(), ctx))
    assert json.loads(tiny.run(handlers.GetTranscript(request, ctx)).transcript)["moves"]
    with pytest.raises(LimitExceeded, match="ListMatches and GetTranscript calls per second"):
        tiny.run(handlers.GetTranscript(request, ctx))
    other = CallContext(peer="ipv4:10.0.0.8:5000")
    assert tiny.run(handlers.GetTranscript(request, other)).transcript


def test_verify_notes_a_deal_no_seat_added_entropy_to(tiny):
    stub = tiny.stub()
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2)).match.match_id
    tokens = [stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat_token for _ in "ab"]
    play(stub, match_id, tokens)
    verdict = transcripts.verify(transcript(stub, match_id), GAMES.games)
    assert verdict.ok and "the server alone could have chosen this deal" in str(verdict)
