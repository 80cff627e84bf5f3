"""Whole matches through the service: the plugin's own outcome, views, and what each seat learns."""

from __future__ import annotations

import contextlib
import random

import grpc
import pytest
from google.protobuf import struct_pb2
from serai import registry
from serai.api import match_service_pb2 as pb
from service_helpers import RecordingStub, Watcher, create, join_all
from tiny_game import DECK, TinyGame, tiny_registry

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed


@pytest.fixture
def tiny(start_service):
    return start_service(registry=tiny_registry())


def test_a_whole_jaipur_match_between_two_clients_ends_as_the_plugin_says(start_service):
    games = registry.load()
    if "jaipur" not in games:
        pytest.skip("the Jaipur plugin is not installed")
    game = games.get("jaipur")
    server = start_service(registry=games)
    seed = 2026
    host = server.stub()
    match_id = create(host, "jaipur", seats=2, seed=seed)
    spectator = Watcher(RecordingStub(server.stub()), match_id)
    spectator.start()
    tokens = join_all(host, match_id, 2)
    clients = [RecordingStub(server.stub()), RecordingStub(server.stub())]
    watchers = [Watcher(clients[s], match_id, tokens[s]) for s in range(2)]
    for watcher in watchers:
        watcher.start()

    state = game.setup(2, seed, game.resolve_options({}))
    states = {2: state}  # by match version: created 0, two joins, then one per move
    labels = []
    choose = random.Random(3)
    while game.to_act(state):
        seat = game.to_act(state)[0]
        client = clients[seat]
        listed = client.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        expected = game.legal_moves(state, seat)
        assert [m.label for m in listed.moves] == [game.label(m) for m in expected]
        index = choose.randrange(len(expected))
        done = client.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=tokens[seat],
                move_id=listed.moves[index].id,
                expected_version=listed.version,
                request_id=f"move-{listed.version}",
            )
        )
        state = game.apply(state, seat, expected[index])
        states[done.snapshot.version] = state
        labels.append(done.label)
        assert done.snapshot.view == _packed(game, game.view(state, seat))

    final = host.GetMatch(pb.GetMatchRequest(match_id=match_id))
    outcome = game.outcome(state)
    assert final.match.status == pb.MATCH_STATUS_FINISHED
    assert list(final.outcome.scores) == list(outcome.scores)
    assert list(final.outcome.ranks) == list(outcome.ranks)
    assert list(final.outcome.winners) == list(outcome.winners)

    for viewer, watcher in [(0, watchers[0]), (1, watchers[1]), (None, spectator)]:
        events = watcher.finish()
        assert [e.move.label for e in events if e.HasField("move")] == labels
        assert events[-1].HasField("finished")
        for event in events:
            if event.HasField("snapshot"):
                version = event.snapshot.version
                if version in states:
                    want = _packed(game, game.view(states[version], viewer))
                    assert event.snapshot.view == want
    for seat, client in enumerate(clients):  # every view the seat got hides the other hand
        assert client.messages
        for message in client.messages:
            for view in _views_in(message, game):
                other = view.players[1 - seat]
                assert not other.HasField("hand") and not other.bonus_tokens


def test_no_seat_ever_receives_another_seats_hidden_cards(tiny):
    host = tiny.stub()
    match_id = create(host, "tiny", seats=3, seed=99, hand="4", plays="2")
    tokens = join_all(host, match_id, 3)
    clients = [RecordingStub(tiny.stub()) for _ in range(3)]
    spectator = RecordingStub(tiny.stub())
    watchers = [Watcher(clients[s], match_id, tokens[s]) for s in range(3)]
    watchers.append(Watcher(spectator, match_id))
    for watcher in watchers:
        watcher.start()

    game = TinyGame()
    state = game.setup(3, 99, game.resolve_options({"hand": "4", "plays": "2"}))
    nobody = sorted(set(DECK) - {card for hand in state.hands for card in hand})
    while game.to_act(state):
        seat = game.to_act(state)[0]
        client, token = clients[seat], tokens[seat]
        for other in range(3):  # errors too: not your turn, a card nobody holds, a stale version
            if other != seat:
                _try(clients[other].ListLegalMoves, match_id, tokens[other])
                _try_move(clients[other], match_id, tokens[other], state.hands[other][0])
        _try_move(client, match_id, token, nobody[0])
        client.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=token))
        spectator.GetMatch(pb.GetMatchRequest(match_id=match_id))
        listed = client.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=token)
        )
        client.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=token,
                move_id=listed.moves[-1].id,
                expected_version=listed.version,
            )
        )
        state = game.apply(state, seat, game.legal_moves(state, seat)[-1])
    for watcher in watchers:
        watcher.finish()

    kept = [set(hand) for hand in state.hands]  # never played: hidden for ever
    assert all(len(cards) == 2 for cards in kept)
    for seat, client in enumerate(clients):
        seen = client.everything()
        assert all(card.encode() in seen for card in kept[seat])  # the check can see cards
        for other in range(3):
            if other != seat:
                leaked = [card for card in kept[other] if card.encode() in seen]
                assert not leaked, f"seat {seat} received seat {other}'s hidden {leaked}"
    assert not [card for hand in kept for card in hand if card.encode() in spectator.everything()]


def _try(method, match_id, token):
    with contextlib.suppress(grpc.RpcError):
        method(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))


def _try_move(client, match_id, token, card):
    from google.protobuf import any_pb2, wrappers_pb2

    payload = any_pb2.Any()
    payload.Pack(wrappers_pb2.StringValue(value=card))
    for expected_version in (0, 1):
        try:
            client.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    seat_token=token,
                    payload=payload,
                    expected_version=expected_version,
                )
            )
        except grpc.RpcError as refused:  # refused as a client error, never as a crash
            assert refused.code() in _PROBE_REFUSALS, (refused.code(), refused.details())
        else:  # pragma: no cover - every probe must be refused
            raise AssertionError(f"a probe move {card} was accepted")


# not your turn or not legal, a stale expected version, a card the seat does not hold
_PROBE_REFUSALS = {
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.INVALID_ARGUMENT,
}


def _packed(game, view):
    from google.protobuf import any_pb2

    packed = any_pb2.Any()
    packed.Pack(game.view_to_proto(view), deterministic=True)
    return packed


def _views_in(message, game):
    """The game view inside a message a client received (responses and watch events), if any."""
    if isinstance(message, pb.MatchSnapshot):
        snapshot = message
    elif isinstance(message, pb.SubmitMoveResponse | pb.MatchEvent):
        snapshot = message.snapshot
    else:
        return []
    if not snapshot.HasField("view"):
        return []
    view = game.view_message()
    assert snapshot.view.Unpack(view)
    return [view]


def test_tiny_views_are_structs_of_the_seats_own_hand(tiny):
    stub = tiny.stub()
    match_id = create(stub, "tiny", seats=2, seed=5)
    tokens = join_all(stub, match_id, 2)
    snap = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1]))
    view = struct_pb2.Struct()
    snap.view.Unpack(view)
    game = TinyGame()
    state = game.setup(2, 5, game.resolve_options({}))
    assert list(view["hand"]) == list(state.hands[1])
    assert snap.viewer_seat == 1 and list(snap.to_act) == [0]
    spectator = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    assert not spectator.HasField("viewer_seat")
    spectator.view.Unpack(view)
    assert "hand" not in view
