"""Bad input of every kind gets a proper status and changes nothing: random bytes and broken
protobuf to every method, wrong ids, huge fields, wrong tokens, moves for the wrong seat. A seat
token never acts or sees for another seat, and tokens are compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

import grpc
from google.protobuf import any_pb2, wrappers_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serai.api import match_service_pb2 as pb

Code = grpc.StatusCode
METHODS = (
    "ListGames",
    "CreateMatch",
    "JoinMatch",
    "ListMatches",
    "GetMatch",
    "ListLegalMoves",
    "SubmitMove",
    "Resign",
)
# Answers a client may get for bad input; UNKNOWN or INTERNAL would mean the server broke.
PROPER = set(Code) - {Code.UNKNOWN, Code.INTERNAL}


def _running_jaipur(stub):
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=11)).match.match_id
    tokens = [
        stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=s)).seat_token for s in (0, 1)
    ]
    snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    return match_id, tokens, snapshot.to_act[0]


def _state(service, match_id):
    """What must not change: the stored record and the log."""

    async def read():
        record = await service.store.load(match_id)
        return record, await service.store.read_log(match_id)

    return service.run(read())


def _raw(channel, method):
    path = f"/serai.v1.MatchService/{method}"
    return channel.unary_unary(path, request_serializer=None, response_deserializer=None)


def _code(call):
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    return Code.OK


def test_random_bytes_to_every_method_get_a_proper_status_and_change_nothing(service):
    stub = service.stub()
    channel = service.channel()
    match_id, _tokens, _seat = _running_jaipur(stub)
    before = _state(service, match_id)
    seen: set[Code] = set()

    @settings(
        max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
    )
    @given(
        method=st.sampled_from((*METHODS, "Watch")),
        body=st.one_of(
            st.binary(max_size=300),
            # a real request cut short or with a flipped byte: broken protobuf
            st.tuples(st.integers(0, 40), st.integers(0, 255)).map(
                lambda cut: _broken(match_id, *cut)
            ),
        ),
    )
    def fuzz(method, body):
        if method == "Watch":
            path = "/serai.v1.MatchService/Watch"
            call = channel.unary_stream(path, request_serializer=None, response_deserializer=None)
            code = _code(lambda: [None for _ in call(body, timeout=5)])
            # a Watch that parses may legitimately stream until its timeout
            assert code in PROPER, (method, body, code)
        else:
            code = _code(lambda: _raw(channel, method)(body, timeout=10))
            assert code in PROPER and code != Code.DEADLINE_EXCEEDED, (method, body, code)
        seen.add(code)

    fuzz()
    assert Code.INVALID_ARGUMENT in seen or Code.NOT_FOUND in seen
    assert _state(service, match_id) == before
    assert stub.ListGames(pb.ListGamesRequest(), timeout=10).games  # still serving


def _broken(match_id, cut, flip):
    data = bytearray(
        pb.SubmitMoveRequest(
            match_id=match_id, seat_token="x" * 20, move_id="3.1", request_id="r1"
        ).SerializeToString()
    )
    if flip % 2:
        data[cut % len(data)] ^= flip
        return bytes(data)
    return bytes(data[: cut % len(data)])


def test_wrong_ids_tokens_seats_and_huge_fields_get_proper_statuses_and_change_nothing(service):
    stub = service.stub()
    match_id, tokens, seat = _running_jaipur(stub)
    _other_id, other_tokens, _ = _running_jaipur(stub)
    waiting = tokens[1 - seat]  # a real token, but not that seat's turn
    before = _state(service, match_id)
    wrong_payload = any_pb2.Any()
    wrong_payload.Pack(wrappers_pb2.StringValue(value="sell 3 cloth"))

    ids = st.one_of(
        st.just(match_id),
        st.text(max_size=80),
        st.just("x" * 100_000),
        st.from_regex(r"[0-9a-f]{16}", fullmatch=True),
    )
    tokens_ = st.one_of(
        st.just(""),
        st.just(waiting),
        st.just(other_tokens[0]),
        st.just(tokens[seat][:-1] + ("A" if tokens[seat][-1] != "A" else "B")),
        st.text(max_size=64),
        st.just("t" * 200_000),
    )
    move_ids = st.one_of(
        st.from_regex(r"[0-9]{1,3}\.[0-9]{1,3}", fullmatch=True), st.text(max_size=30)
    )

    @settings(
        max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
    )
    @given(
        method=st.sampled_from(("GetMatch", "ListLegalMoves", "SubmitMove", "Resign", "JoinMatch")),
        mid=ids,
        token=tokens_,
        move_id=move_ids,
        typed=st.booleans(),
        expected=st.integers(0, 2**64 - 1),
        request_id=st.text(max_size=200),
        seat_no=st.integers(-(2**31), 2**31 - 1),
    )
    def fuzz(method, mid, token, move_id, typed, expected, request_id, seat_no):
        if method == "GetMatch":
            request = pb.GetMatchRequest(match_id=mid, seat_token=token)
        elif method == "ListLegalMoves":
            request = pb.ListLegalMovesRequest(match_id=mid, seat_token=token)
        elif method == "Resign":  # with a real token of this match it would resign: alter it
            token = token + "x" if token == waiting else token
            request = pb.ResignRequest(match_id=mid, seat_token=token)
        elif method == "JoinMatch":
            request = pb.JoinMatchRequest(match_id=mid, seat=seat_no, player_name=token[:100])
        else:
            request = pb.SubmitMoveRequest(
                match_id=mid, seat_token=token, expected_version=expected, request_id=request_id
            )
            if typed:
                request.payload.CopyFrom(wrong_payload)
            else:
                request.move_id = move_id
        code = _code(lambda: getattr(stub, method)(request, timeout=10))
        assert code in PROPER and code != Code.DEADLINE_EXCEEDED, (method, request, code)
        if method in ("SubmitMove", "Resign", "JoinMatch"):
            assert code != Code.OK, (method, request)  # nothing here may act on a match

    fuzz()
    assert _state(service, match_id) == before


def test_a_seat_token_neither_sees_nor_moves_for_another_seat(stub):
    match_id, tokens, seat = _running_jaipur(stub)
    waiting = 1 - seat
    for mine, token in enumerate(tokens):
        snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=token))
        assert snapshot.viewer_seat == mine
        listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        assert listed.seat == mine
    # the waiting seat's token cannot play the acting seat's listed move
    listed = stub.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
    )
    move = pb.SubmitMoveRequest(
        match_id=match_id, seat_token=tokens[waiting], move_id=listed.moves[0].id
    )
    assert _code(lambda: stub.SubmitMove(move)) == Code.FAILED_PRECONDITION
    views = [
        stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=t)).view.value
        for t in tokens
    ]
    assert views[0] != views[1]  # each seat sees its own hand only
    # a token of another match, or one altered by a character, belongs to no seat here
    _other_id, other_tokens, _ = _running_jaipur(stub)
    for token in (other_tokens[0], tokens[0][:-1] + ("A" if tokens[0][-1] != "A" else "B")):
        request = pb.GetMatchRequest(match_id=match_id, seat_token=token)
        assert _code(lambda request=request: stub.GetMatch(request)) == Code.PERMISSION_DENIED


def test_seat_tokens_are_compared_in_constant_time_against_every_seat(stub, monkeypatch):
    match_id, tokens, _seat = _running_jaipur(stub)
    compared: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[0]))
    digest = hashlib.sha256(tokens[0].encode()).hexdigest()
    # every seat's stored hash is compared (no early exit), with hmac.compare_digest
    assert len(compared) == 2 and all(b == digest for _a, b in compared)
    compared.clear()
    wrong = pb.GetMatchRequest(match_id=match_id, seat_token="not-a-token")
    assert _code(lambda: stub.GetMatch(wrong)) == Code.PERMISSION_DENIED
    assert len(compared) == 2


def test_unknown_methods_are_unimplemented_and_the_server_keeps_serving(service):
    channel = service.channel()
    for i in range(30):
        call = channel.unary_unary(
            f"/serai.v1.MatchService/Nope{i}", request_serializer=None, response_deserializer=None
        )
        assert _code(lambda call=call: call(b"", timeout=10)) == Code.UNIMPLEMENTED
    assert service.stub().ListGames(pb.ListGamesRequest(), timeout=10).games
