"""Committed, jointly random deals: the server commits to its seed at CreateMatch, each seat adds
entropy at JoinMatch, the game deals from both at the start, and the seed material is shown only
once the match is finished, so that anyone can check the deal and no seat could foresee it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

import grpc
import pytest
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.matches import fairness
from serai.store import MatchRecord
from serai.store.redis.encoding import record_fields, record_from_fields
from service_helpers import RecordingStub, Watcher, status_of
from store_records import running_record

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed


def create(stub: Any, **fields: Any) -> pb.MatchSummary:
    return stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2, **fields)).match


def join(stub: Any, match_id: str, entropy: bytes, **fields: Any) -> pb.JoinMatchResponse:
    request = pb.JoinMatchRequest(match_id=match_id, entropy=entropy, **fields)
    return stub.JoinMatch(request)


def stored(service: Any, match_id: str) -> MatchRecord:
    record = service.run(service.matches.store.load(match_id))
    assert isinstance(record, MatchRecord)
    return record


def test_the_commitment_opens_to_its_server_seed_only():
    server_seed = fairness.new_server_seed()
    published = fairness.commitment(server_seed)
    prefix = b"serai/v1/seed-commitment\x00"
    assert published == hashlib.sha256(prefix + server_seed).digest()
    assert fairness.opens(published, server_seed)
    assert not fairness.opens(published, fairness.new_server_seed())
    assert not fairness.opens(published, server_seed[:-1])
    assert published != hashlib.sha256(server_seed).digest()  # the prefix separates domains


def test_a_seats_entropy_changes_the_seed_and_the_deal():
    jaipur = registry.load().games["jaipur"]
    options = jaipur.resolve_options({})
    server_seed = bytes(32)

    def deal(*entropy: bytes) -> bytes:
        seed = fairness.match_seed(server_seed, entropy)
        return jaipur.encode_state(jaipur.setup(2, seed, options))

    assert deal(b"a", b"b") == deal(b"a", b"b")
    assert deal(b"a", b"b") != deal(b"a", b"c")
    assert deal(b"a", b"b") != deal(b"b", b"a")  # seat order counts
    # parts are length-prefixed: moving a byte from one seat's part to the next is another seed
    assert fairness.match_seed(server_seed, [b"ab", b""]) != fairness.match_seed(
        server_seed, [b"a", b"b"]
    )


def test_a_finished_match_reveals_what_opens_the_commitment_and_gives_the_deal(service, stub):
    created = create(stub)
    assert len(created.seed_commitment) == 32 and not created.seed_chosen
    assert not created.HasField("seed_reveal")
    first = join(stub, created.match_id, b"\x01" * 16)
    join(stub, created.match_id, b"\x02" * 5)
    stub.Resign(pb.ResignRequest(match_id=created.match_id, seat_token=first.seat_token))

    finished = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id)).match
    reveal = finished.seed_reveal
    assert finished.seed_commitment == created.seed_commitment
    listed = stub.ListMatches(pb.ListMatchesRequest()).matches
    assert [m.seed_commitment for m in listed] == [created.seed_commitment]
    assert listed[0].seed_reveal == finished.seed_reveal
    assert fairness.opens(created.seed_commitment, reveal.server_seed)
    assert list(reveal.seat_entropy) == [b"\x01" * 16, b"\x02" * 5]
    assert reveal.seed == fairness.match_seed(reveal.server_seed, reveal.seat_entropy)
    # the game dealt from that seed: its deal, and the stored log replayed on it, are the match
    jaipur = service.matches.game("jaipur")
    record = stored(service, created.match_id)
    dealt = jaipur.setup(2, reveal.seed, jaipur.resolve_options({}))
    assert record.seed == reveal.seed
    assert service.run(service.matches.replay(created.match_id)).ok
    assert record.state == jaipur.encode_state(dealt)  # no move was played before the resign


def test_before_the_start_every_open_match_shows_the_same_placeholder_deal(stub):
    views = []
    for _ in range(2):
        match_id = create(stub).match_id
        token = join(stub, match_id, b"\x07" * 16).seat_token
        snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=token))
        assert snapshot.match.status == pb.MATCH_STATUS_OPEN
        views.append(snapshot.view.SerializeToString())
    assert views[0] == views[1]


def test_no_seat_receives_the_seed_material_before_the_end(service, stub):
    """GetMatch, JoinMatch, ListLegalMoves, SubmitMove answers and Watch events of a running
    match hold neither the server seed, nor the seed, nor the other seat's entropy."""
    recording = RecordingStub(stub)
    match_id = recording.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2)).match.match_id
    entropy = [bytes([0xA0 + i]) * 16 for i in range(2)]
    tokens = [join(recording, match_id, entropy[i]).seat_token for i in range(2)]
    watchers = [Watcher(recording, match_id, token) for token in [*tokens, ""]]
    for watcher in watchers:
        watcher.start()
    for _ in range(6):
        snapshot = recording.GetMatch(pb.GetMatchRequest(match_id=match_id))
        seat = snapshot.to_act[0]
        moves = recording.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        recording.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[seat], move_id=moves.moves[0].id
            )
        )
        recording.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1 - seat]))
    record = stored(service, match_id)
    assert record.status == "running"
    secret_forms = [
        record.server_seed,
        record.server_seed.hex().encode(),
        str(record.seed).encode(),
        record.seed.to_bytes(8, "big"),
        pb.SeedReveal(seed=record.seed).SerializeToString()[1:],  # the seed as a varint
    ]
    received = recording.everything()
    for secret in secret_forms:
        assert secret not in received
    for part in entropy:  # no answer sends a seat's entropy back, to it or to another
        assert part not in received
    for message in recording.messages:
        match = getattr(message, "match", None) or getattr(message, "snapshot", None)
        if isinstance(match, pb.MatchSnapshot):
            match = match.match
        if isinstance(match, pb.MatchSummary):
            assert not match.HasField("seed_reveal")

    recording.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))
    for watcher in watchers:
        events = watcher.finish()
        assert events[-1].snapshot.match.seed_reveal.server_seed == record.server_seed


def test_a_retried_join_keeps_the_first_entropy(service, stub):
    match_id = create(stub).match_id
    first = join(stub, match_id, b"\x01" * 16, request_id="join-a-0123456789")
    again = join(stub, match_id, b"\x09" * 16, request_id="join-a-0123456789")
    assert again.replayed and again.seat_token == first.seat_token
    join(stub, match_id, b"\x02" * 16)
    record = stored(service, match_id)
    assert [s.entropy for s in record.seats] == [b"\x01" * 16, b"\x02" * 16]
    assert record.seed == fairness.match_seed(record.server_seed, [b"\x01" * 16, b"\x02" * 16])


def test_a_retried_create_keeps_its_commitment(stub):
    request = pb.CreateMatchRequest(game="jaipur", seats=2, request_id="create-0123456789ab")
    first = stub.CreateMatch(request).match
    again = stub.CreateMatch(request).match
    assert first.match_id == again.match_id
    assert first.seed_commitment == again.seed_commitment != b""


def test_a_chosen_seed_deals_as_chosen_and_ignores_entropy(service, stub):
    created = create(stub, seed=7)
    assert created.seed_chosen and created.seed_commitment == b""
    join(stub, created.match_id, b"\x01" * 16)
    join(stub, created.match_id, b"\x02" * 16)
    jaipur = service.matches.game("jaipur")
    record = stored(service, created.match_id)
    assert record.seed == 7 and record.server_seed == b""
    assert record.state == jaipur.encode_state(jaipur.setup(2, 7, jaipur.resolve_options({})))


def test_records_before_commitments_and_with_them_read_back_as_written():
    old = running_record("m1")
    assert "server" not in record_fields(old)
    assert "e" not in json.loads(record_fields(old)["seats"])[0]
    assert record_from_fields("m1", _as_stored(record_fields(old))) == old
    new = replace(
        old,
        server_seed=bytes(range(32)),
        seats=(replace(old.seats[0], entropy=b"\x01\x02"), old.seats[1]),
    )
    assert record_from_fields("m1", _as_stored(record_fields(new))) == new


def _as_stored(fields: dict[str, bytes | str]) -> dict[str, bytes | None]:
    return {
        name: value.encode() if isinstance(value, str) else value for name, value in fields.items()
    }


def test_too_much_entropy_is_refused(stub):
    match_id = create(stub).match_id
    code, details = status_of(lambda: join(stub, match_id, bytes(65)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 64" in details
