"""The Play stream over a real gRPC server and Redis: whole matches equal to the unary path's,
retries, resumption, hidden information, move failures as answers, and its first message."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2, wrappers_pb2
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.game import OptionValue, Seat, seeded_rng
from serai.matches.limits import Limits
from serai.rpc.context import CallContext
from serai.rpc.handlers import MatchHandlers
from service_helpers import PlayStream, create, join_all, watch_all
from tiny_game import DECK, TinyGame, TinyState, tiny_registry
from waiting import wait_until

pytestmark = pytest.mark.store("memory")  # tests of the core: no redis-server needed

GAMES = ("jaipur", "nile", "sobek")


def _pick(version: int, count: int) -> int:
    """Which legal move both paths play at a version (the first alone can go round in circles)."""
    return version * 7919 % count


def _unary_match(stub: Any, game: str, seed: int) -> tuple[list[str], list[pb.MatchSnapshot]]:
    match_id = create(stub, game, seats=2, seed=seed)
    tokens = join_all(stub, match_id, 2)
    labels = []
    while True:
        now = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        if now.match.status == pb.MATCH_STATUS_FINISHED:
            break
        seat = now.to_act[0]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        done = stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=tokens[seat],
                move_id=listed.moves[_pick(listed.version, len(listed.moves))].id,
                expected_version=listed.version,
            )
        )
        labels.append(done.label)
    finals = [
        stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[s])) for s in (0, 1)
    ]
    return labels, finals


def _play_seat(stream: PlayStream, seat: Seat, finals: dict[Seat, pb.MatchSnapshot]) -> None:
    """Read the stream to its end, moving (as the unary path chooses) whenever it offers moves
    and the seat is the first to act."""
    while (update := stream.next()) is not None:
        if update.HasField("answered"):  # an answer with the event its move wrote last
            assert not update.answered.HasField("error"), update.answered.error
        if update.HasField("answer"):
            assert not update.answer.HasField("error"), update.answer.error
            continue
        if not update.event.HasField("snapshot"):
            continue
        snap = update.event.snapshot
        finals[seat] = snap
        if update.legal_moves and snap.to_act[0] == seat:
            moves = update.legal_moves
            chosen = moves[_pick(snap.version, len(moves))]
            stream.move(f"{seat}-{snap.version}", chosen.id, snap.version)


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_over_play_ends_as_over_the_unary_calls(start_service, game):
    """Each game, every seat on Play: the same moves, outcome and final views as SubmitMove."""
    if game not in registry.load():
        pytest.skip(f"{game} is not installed")
    server = start_service()
    stub = server.stub()
    labels, unary_finals = _unary_match(stub, game, seed=4242)

    match_id = create(stub, game, seats=2, seed=4242)
    tokens = join_all(stub, match_id, 2)
    streams = [PlayStream(server.stub(), match_id, tokens[s]) for s in (0, 1)]
    finals: dict[Seat, pb.MatchSnapshot] = {}
    threads = [threading.Thread(target=_play_seat, args=(streams[s], s, finals)) for s in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
        assert not thread.is_alive()

    played = [u.event.move.label for u in streams[0].received if u.event.HasField("move")]
    assert played == labels
    for seat in (0, 1):
        assert finals[seat].match.status == pb.MATCH_STATUS_FINISHED
        assert finals[seat].view == unary_finals[seat].view
        assert finals[seat].outcome == unary_finals[seat].outcome
        assert finals[seat].version == unary_finals[seat].version


@pytest.fixture
def tiny(start_service):
    return start_service(registry=tiny_registry())


def _running(stub: Any, **options: str) -> tuple[str, list[str]]:
    match_id = create(stub, "tiny", hand="4", plays="4", **options)
    return match_id, join_all(stub, match_id, 2)


def _offered(stream: PlayStream) -> pb.PlayUpdate:
    """The next update that offers legal moves."""
    while True:
        update = stream.next()
        assert update is not None
        if update.legal_moves:
            return update


def test_a_retry_on_a_new_stream_answers_the_first_answer(tiny):
    """The same request id on a new stream: replayed, the first label, nothing played twice."""
    stub = tiny.stub()
    match_id, tokens = _running(stub)
    first = PlayStream(tiny.stub(), match_id, tokens[0])
    offer = _offered(first)
    version = offer.event.snapshot.version
    first.move("once", offer.legal_moves[1].id, version)
    answer = first.answer()
    assert answer.request_id == "once" and not answer.submitted.replayed
    first.close()

    again = PlayStream(tiny.stub(), match_id, tokens[0])
    again.move("once", offer.legal_moves[1].id, version)
    retried = again.answer()
    assert retried.request_id == "once" and retried.submitted.replayed
    assert retried.submitted.label == answer.submitted.label
    assert retried.submitted.snapshot.version == version + 1
    now = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    assert now.version == version + 1 and list(now.to_act) == [1]
    again.close()


def test_a_stream_cut_mid_match_resumes_without_loss_or_repeat(tiny):
    """Cut after some moves, reopened after the last event received: every event once."""
    stub = tiny.stub()
    match_id, tokens = _running(stub)
    received: list[str] = []
    seat1 = PlayStream(tiny.stub(), match_id, tokens[1])
    threading.Thread(target=_play_seat, args=(seat1, 1, {}), daemon=True).start()

    stream = PlayStream(tiny.stub(), match_id, tokens[0])
    moves = 0
    while moves < 2:
        update = _offered(stream)
        stream.move(f"m{moves}", update.legal_moves[0].id, update.event.snapshot.version)
        stream.answer()
        moves += 1
    stream.close()
    received = [u.event.event_id for u in stream.received if u.HasField("event")]

    resumed = PlayStream(tiny.stub(), match_id, tokens[0], after=received[-1])
    _play_seat(resumed, 0, {})
    # a restatement of the event it resumed after (no kind) is where the match stands, not an event
    received += [
        u.event.event_id
        for u in resumed.received
        if u.HasField("event") and u.event.WhichOneof("kind")
    ]
    assert received == [e.event_id for e in watch_all(stub, match_id)]


def test_a_stream_resumed_after_the_last_event_offers_the_seat_its_moves_again(tiny):
    """A client that reconnects while it is to act, having seen every event, is offered its
    moves again (the watch alone would send nothing until someone moved), and can move."""
    stub = tiny.stub()
    match_id, tokens = _running(stub)
    first = PlayStream(tiny.stub(), match_id, tokens[0])
    offer = _offered(first)
    first.close()

    resumed = PlayStream(tiny.stub(), match_id, tokens[0], after=offer.event.event_id)
    again = resumed.next()
    assert again is not None and again.HasField("event")
    assert again.event.event_id == offer.event.event_id
    assert not again.event.WhichOneof("kind")  # a restatement, not a new event
    assert again.event.snapshot.version == offer.event.snapshot.version
    assert [m.id for m in again.legal_moves] == [m.id for m in offer.legal_moves]
    resumed.move("after-resume", again.legal_moves[0].id, again.event.snapshot.version)
    assert not resumed.answer().HasField("error")
    resumed.close()


def test_an_illegal_move_and_a_stale_version_are_answers_and_the_stream_goes_on(tiny):
    stub = tiny.stub()
    match_id, tokens = _running(stub)
    stream = PlayStream(tiny.stub(), match_id, tokens[0])
    offer = _offered(stream)
    version = offer.event.snapshot.version
    nobody = any_pb2.Any()
    nobody.Pack(wrappers_pb2.StringValue(value="gem40x"))
    stream.move("bad", payload=nobody)
    bad = stream.answer()
    assert bad.request_id == "bad" and bad.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    unary = pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[0], payload=nobody)
    with pytest.raises(grpc.RpcError) as failure:
        stub.SubmitMove(unary)
    assert bad.error.message == failure.value.details()  # the unary call's very words

    stream.move("stale", offer.legal_moves[0].id, version - 1)
    stale = stream.answer()
    assert stale.error.code == grpc.StatusCode.ABORTED.value[0]
    stream.move("", offer.legal_moves[0].id, version)
    assert stream.answer().error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]

    stream.move("good", offer.legal_moves[0].id, version)
    good = stream.answer()
    assert good.request_id == "good" and good.submitted.snapshot.version == version + 1
    stream.close()


def test_resigning_over_play_ends_the_match_and_the_stream(tiny):
    stub = tiny.stub()
    match_id, tokens = _running(stub)
    stream = PlayStream(tiny.stub(), match_id, tokens[1])
    stream.send(pb.PlayRequest(resign=pb.PlayResign(request_id="bye")))
    answer = stream.answer()
    assert answer.request_id == "bye"
    assert answer.resigned.match.status == pb.MATCH_STATUS_FINISHED
    assert list(answer.resigned.outcome.ranks) == [0, 1]
    while stream.next() is not None:
        pass
    events = [u.event for u in stream.received if u.HasField("event")]
    assert events[-1].HasField("finished") and events[-2].resigned.seat == 1


def _play_match_on(stream: PlayStream, seat: Seat, finals: dict[Seat, pb.MatchSnapshot]) -> None:
    """As :func:`_play_seat`, until the seat's snapshot says the match has finished: a kept
    stream does not end with its match."""
    while True:
        update = stream.next()
        assert update is not None, "a kept stream ended with its match"
        if update.HasField("answer"):
            assert not update.answer.HasField("error"), update.answer.error
            continue
        if not update.event.HasField("snapshot"):
            continue
        snap = finals[seat] = update.event.snapshot
        if snap.match.status == pb.MATCH_STATUS_FINISHED:
            return
        if update.legal_moves and snap.to_act[0] == seat:
            chosen = update.legal_moves[_pick(snap.version, len(update.legal_moves))]
            stream.move(f"{snap.match.match_id}-{seat}-{snap.version}", chosen.id, snap.version)


def _open(match_id: str, token: str) -> pb.PlayRequest:
    return pb.PlayRequest(open=pb.PlayOpen(match_id=match_id, seat_token=token, keep_open=True))


def test_a_kept_stream_plays_match_after_match_and_ends_when_the_client_closes_its_side(tiny):
    """With keep_open, one stream per seat plays three matches in turn: each match's events
    all arrive, once and in order, and each ends finished; the stream ends OK only once the
    client has closed its side."""
    stub = tiny.stub()
    matches = [_running(stub) for _ in range(3)]
    streams = [
        PlayStream(tiny.stub(), matches[0][0], matches[0][1][seat], keep_open=True)
        for seat in (0, 1)
    ]
    for index, (match_id, tokens) in enumerate(matches):
        if index:
            for seat, stream in enumerate(streams):
                stream.send(_open(match_id, tokens[seat]))
        marks = [len(stream.received) for stream in streams]
        finals: dict[Seat, pb.MatchSnapshot] = {}
        threads = [
            threading.Thread(target=_play_match_on, args=(streams[seat], seat, finals))
            for seat in (0, 1)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert [finals[seat].match.match_id for seat in (0, 1)] == [match_id, match_id]
        now = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        assert now.match.status == pb.MATCH_STATUS_FINISHED and now.version > 2
        expected = [e.event_id for e in watch_all(stub, match_id)]
        for seat, stream in enumerate(streams):
            got = [u.event for u in stream.received[marks[seat] :] if u.HasField("event")]
            assert [e.event_id for e in got] == expected
            assert got[-1].HasField("finished")

    for stream in streams:
        stream.send(None)  # the client closes its side: the stream ends OK
        while (update := stream.next()) is not None:
            assert update.HasField("answer")  # at most the answer to the last move


def test_a_kept_stream_takes_a_next_open_only_once_its_match_has_ended(tiny):
    stub = tiny.stub()
    (first, tokens), (second, others) = _running(stub), _running(stub)
    early = PlayStream(tiny.stub(), first, tokens[0], keep_open=True)
    _offered(early)
    early.send(_open(second, others[0]))
    with pytest.raises(grpc.RpcError) as failure:
        while early.next() is not None:
            pass
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "once the match it follows has ended" in failure.value.details()

    kept = PlayStream(tiny.stub(), first, tokens[1], keep_open=True)
    kept.send(pb.PlayRequest(resign=pb.PlayResign(request_id="bye")))
    resigned = kept.answer()
    assert resigned.resigned.match.status == pb.MATCH_STATUS_FINISHED
    # before or after the session's end: answered as on the ended match, the stream goes on
    kept.move("late", "3.0", 3)
    late = kept.answer()
    unary = pb.SubmitMoveRequest(
        match_id=first, seat_token=tokens[1], move_id="3.0", expected_version=3
    )
    with pytest.raises(grpc.RpcError) as refused:
        stub.SubmitMove(unary)
    assert late.request_id == "late" and late.error.code == refused.value.code().value[0]
    kept.send(pb.PlayRequest(resign=pb.PlayResign(request_id="bye")))
    assert kept.answer().resigned == resigned.resigned  # resigning again: the same answer

    kept.send(_open(second, others[1]))
    while not (told := kept.next()).event.HasField("snapshot"):  # type: ignore[union-attr]
        pass
    assert told.event.snapshot.match.match_id == second  # type: ignore[union-attr]
    kept.close()


def test_a_move_sent_once_a_kept_streams_match_has_ended_is_answered(tiny):
    """The race of a move sent just as the session of its match ends, forced: the session's
    watch has ended (its end queued) before the move arrives, and the stream's updates are read
    only after. The move is answered (as on the ended match), not taken by the session's reader
    and then dropped with the session."""
    stub = tiny.stub()
    match_id, tokens = _running(stub)
    answer = tiny.run(_move_after_the_watch_ends(tiny, match_id, tokens))
    assert answer.request_id == "late"
    assert answer.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0], answer


class _WatchSaysItsEnd:
    """The matches, but for a watch that sets ``ended`` once it has given its last batch."""

    def __init__(self, matches: Any) -> None:
        self.matches = matches
        self.ended = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.matches, name)

    async def watch(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        batches = self.matches.watch(*args, **kwargs)
        async with contextlib.aclosing(batches):
            async for batch in batches:
                yield batch
        self.ended.set()


async def _move_after_the_watch_ends(
    server: Any, match_id: str, tokens: list[str]
) -> pb.PlayAnswer:
    handlers = MatchHandlers(server.matches)
    matches = handlers.matches = _WatchSaysItsEnd(server.matches)  # type: ignore[assignment]
    sent: asyncio.Queue[pb.PlayRequest] = asyncio.Queue()
    asked = asyncio.Event()  # the stream asked for the request after the last one sent

    async def requests() -> AsyncIterator[pb.PlayRequest]:
        while True:
            request = await sent.get()
            yield request
            asked.set()

    updates = handlers.play_streams.play(requests(), CallContext(peer="ipv4:127.0.0.1:1"))
    await sent.put(_open(match_id, tokens[0]))
    async with contextlib.aclosing(updates):  # type: ignore[type-var]
        await asyncio.wait_for(anext(updates), 30)  # the session runs
        await server.matches.resign(match_id, tokens[1])
        await asyncio.wait_for(matches.ended.wait(), 30)  # the session's end is queued
        asked.clear()
        await sent.put(pb.PlayRequest(move=pb.PlayMove(request_id="late", move_id="3.0")))
        # Taken from the stream's requests: a session reader still reading would have it now
        # (its wakeup was due before this task's).
        await asyncio.wait_for(asked.wait(), 30)
        while True:
            sent_bytes = await asyncio.wait_for(anext(updates), 30)  # TimeoutError: never answered
            update = pb.PlayUpdate.FromString(sent_bytes)  # the handler gives each as its bytes
            if update.HasField("answer"):
                return update.answer


def test_a_kept_stream_between_matches_holds_a_watchs_place(start_service):
    """With one watch a client: the stream kept between two matches still counts, so a Watch
    is refused meanwhile; its next open takes the place back for that match."""
    service = start_service(registry=tiny_registry(), limits=Limits(max_watches_per_peer=1))
    stub = service.stub()
    (first, tokens), (second, others) = _running(stub), _running(stub)
    kept = PlayStream(service.stub(), first, tokens[1], keep_open=True)
    kept.send(pb.PlayRequest(resign=pb.PlayResign(request_id="bye")))
    assert kept.answer().resigned.match.status == pb.MATCH_STATUS_FINISHED
    while not any(u.event.HasField("finished") for u in kept.received):  # it may come first
        kept.next()
    # the match is over: the stream took its place for the wait before it said so, and keeps
    # it once the match's session is gone
    watching = service.matches._watching
    wait_until(lambda: first not in watching.by_match, "the first match's watch gave its place")
    assert sum(watching.by_peer.values()) == 1  # the kept stream's wait, the only one
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(stub.Watch(pb.WatchRequest(match_id=second), timeout=30)))
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

    kept.send(_open(second, others[0]))
    offer = _offered(kept)
    assert offer.event.snapshot.match.match_id == second
    kept.close()


@pytest.mark.parametrize(
    "first",
    [
        pb.PlayRequest(resign=pb.PlayResign(request_id="r")),
        pb.PlayRequest(move=pb.PlayMove(request_id="m", move_id="3.0")),
        pb.PlayRequest(),
    ],
)
def test_a_stream_that_does_not_open_first_is_invalid_argument(tiny, first):
    stub = tiny.stub()
    with pytest.raises(grpc.RpcError) as failure:
        list(stub.Play(iter([first]), timeout=30))
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "open" in failure.value.details()


def test_a_stream_without_a_seat_token_is_unauthenticated_as_submit_move_is(tiny):
    stub = tiny.stub()
    match_id, _tokens = _running(stub)
    opened = pb.PlayRequest(open=pb.PlayOpen(match_id=match_id))
    with pytest.raises(grpc.RpcError) as failure:
        list(stub.Play(iter([opened]), timeout=30))
    with pytest.raises(grpc.RpcError) as unary:
        stub.SubmitMove(pb.SubmitMoveRequest(match_id=match_id, move_id="3.0"))
    assert failure.value.code() == unary.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert failure.value.details() == unary.value.details()


# --- hidden information ----------------------------------------------------------------------


class SecretTiny(TinyGame):
    """Tiny, with seat 0 always dealt gem01..gem04 and seat 1 gem05, gem06 (which it plays)
    and two more cards chosen by the seed, which it never plays: matches of two seeds differ
    only in what seat 0 may not know."""

    info = dataclasses.replace(TinyGame.info, name="secret")

    def setup(self, players: int, seed: int, options: Mapping[str, OptionValue]) -> TinyState:
        rest = list(DECK[10:])
        seeded_rng(seed, "deal").shuffle(rest)
        hands = (DECK[:4], tuple(sorted((*DECK[4:6], *rest[:2]))))
        return TinyState(hands, ((), ()), 0, 2, False)


def _seat0_sees(server: Any, seed: int) -> tuple[list[bytes], list[bytes], set[str]]:
    """Seat 0's Play updates (events, answers: each in its order), made comparable across
    matches (ids, times and the summary cleared), and seat 1's hidden cards."""
    stub = server.stub()
    match_id = create(stub, "secret", seats=2, seed=seed)
    tokens = join_all(stub, match_id, 2)
    stream = PlayStream(server.stub(), match_id, tokens[0], steps=True)
    for card in ("gem05", "gem06"):
        offer = _offered(stream)
        version = offer.event.snapshot.version
        stream.move(f"m{version}", offer.legal_moves[0].id, version)
        stream.answer()
        _until_version(stream, version + 1)  # its event too, before seat 1 moves
        played = any_pb2.Any()
        played.Pack(wrappers_pb2.StringValue(value=card))
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[1], payload=played)
        )
    while stream.next() is not None:
        pass
    hidden = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1]))
    secret = {v.string_value for v in _hand(hidden)} - {"gem05", "gem06"}
    events, answers = [], []
    for update in stream.received:
        assert secret.isdisjoint(_cards_in(update.SerializeToString()))
        update.event.event_id = ""
        for snap in (update.event.snapshot, update.answer.submitted.snapshot):
            snap.ClearField("match")
            snap.last_event_id = ""
        (answers if update.HasField("answer") else events).append(update.SerializeToString())
    return events, answers, secret


def _until_version(stream: PlayStream, version: int) -> None:
    if any(u.event.snapshot.version >= version for u in stream.received):
        return
    while (update := stream.next()) is not None:
        if update.event.snapshot.version >= version:
            return


def _hand(snap: pb.MatchSnapshot) -> Any:
    from google.protobuf import struct_pb2

    view = struct_pb2.Struct()
    snap.view.Unpack(view)
    return view.fields["hand"].list_value.values


def _cards_in(data: bytes) -> set[str]:
    return {card for card in DECK if card.encode() in data}


def test_two_matches_differing_only_in_hidden_cards_give_a_seat_byte_identical_updates(
    start_service,
):
    """Whatever seat 1 holds unseen, seat 0's every pushed message is the same, byte for byte."""
    games = tiny_registry()
    server = start_service(
        registry=registry.Registry({**games.games, "secret": SecretTiny()}, games.broken)
    )
    events_a, answers_a, secret_a = _seat0_sees(server, 1)
    events_b, answers_b, secret_b = _seat0_sees(server, 2)
    assert secret_a != secret_b  # the matches do differ, in what seat 0 may not know
    assert events_a == events_b
    assert answers_a == answers_b


def test_a_whole_match_over_play_through_the_processs_watch_hub(tiny):
    """The hub (what `serai serve` watches through) feeds Play streams as it feeds Watch."""
    hub = tiny.run(_use_hub(tiny))
    try:
        stub = tiny.stub()
        match_id, tokens = _running(stub)
        streams = [PlayStream(tiny.stub(), match_id, tokens[s]) for s in (0, 1)]
        finals: dict[Seat, pb.MatchSnapshot] = {}
        threads = [
            threading.Thread(target=_play_seat, args=(streams[s], s, finals)) for s in (0, 1)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
            assert not thread.is_alive()
        every = [e.event_id for e in watch_all(stub, match_id)]
        for stream in streams:
            assert [u.event.event_id for u in stream.received if u.HasField("event")] == every
        assert finals[0].match.status == finals[1].match.status == pb.MATCH_STATUS_FINISHED
    finally:
        tiny.run(hub.close())


async def _use_hub(server: Any) -> Any:
    return server.matches.use_watch_hub(server.store.event_feed())


@pytest.mark.parametrize("through_hub", [False, True], ids=["direct", "hub"])
def test_answers_with_their_events_come_once_each_and_the_events_as_watch_lists_them(
    tiny, through_hub
):
    """PlayOpen.answer_with_event: each move's answer comes once, alone or in the update of the
    last event its move wrote (PlayUpdate.answered, with that event's snapshot and the seat's
    legal moves); each stream's events are the match's, each once and in order."""
    hub = tiny.run(_use_hub(tiny)) if through_hub else None
    try:
        stub = tiny.stub()
        match_id, tokens = _running(stub)
        streams = [
            PlayStream(tiny.stub(), match_id, tokens[s], answer_with_event=True) for s in (0, 1)
        ]
        finals: dict[Seat, pb.MatchSnapshot] = {}
        threads = [
            threading.Thread(target=_play_seat, args=(streams[s], s, finals)) for s in (0, 1)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
            assert not thread.is_alive()
        every = [e.event_id for e in watch_all(stub, match_id)]
        moves = [e.version for e in watch_all(stub, match_id) if e.HasField("move")]
        answered = 0
        for seat, stream in enumerate(streams):
            assert [u.event.event_id for u in stream.received if u.HasField("event")] == every
            ids = [u.answer.request_id for u in stream.received if u.HasField("answer")]
            riding = [u for u in stream.received if u.HasField("answered")]
            ids += [u.answered.request_id for u in riding]
            mine = [u.event.snapshot.version for u in stream.received if u.legal_moves]
            assert sorted(ids) == sorted({f"{seat}-{v}" for v in mine if v + 1 in moves})
            for update in riding:  # the answer's snapshot is the event's, as the seat sees it
                assert update.event.HasField("snapshot")
                assert update.answered.submitted.snapshot.version == update.event.version
                assert update.answered.submitted.snapshot.view == update.event.snapshot.view
            answered += len(riding)
        if not through_hub:  # one loop, no sockets: the answer is ready before the event
            assert answered > 0
        assert finals[0].match.status == finals[1].match.status == pb.MATCH_STATUS_FINISHED
    finally:
        if hub is not None:
            tiny.run(hub.close())
