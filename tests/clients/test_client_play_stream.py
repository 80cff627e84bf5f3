"""The SDK's Play sessions (sync and asyncio) and the bots' loop on them: whole matches, a
stream cut mid-match resumed with its unanswered move sent again, and the fallback to Watch +
SubmitMove on a server without Play."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from serai.api import match_service_pb2 as pb
from serai.matches import WatchBehind
from serai.rpc.play import PlayStreams
from serai.rpc.status import Code, RpcError
from serai_client import AsyncSeraiClient, SeraiClient
from serai_client.bots import play_seat
from serai_client.bots.random_bot import RandomStrategy

_original_play = PlayStreams.play


def _pick(moves: Any) -> Any:
    """A move that makes the match end (always the first can go round in circles)."""
    return moves.moves[moves.version * 7919 % len(moves.moves)]


def _bots_play(address: str, game: str, seats: int = 2) -> tuple[Any, list[Any]]:
    with SeraiClient(address) as client:
        match = client.create_match(game, seats=seats, seed=5)
        handles = [client.join(match.match_id, player_name=f"bot{i}") for i in range(seats)]
        finals: dict[int, Any] = {}

        def run(i: int) -> None:
            finals[i] = play_seat(client, handles[i], RandomStrategy(i))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(seats)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
        assert len(finals) == seats, "a bot did not finish"
        return client.get_match(match.match_id), [finals[i] for i in range(seats)]


def test_bots_play_a_whole_match_over_play_without_watching(service, monkeypatch):
    """play_seat moves on Play's offers: it never opens a Watch or lists moves."""

    def no(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the bot left the Play stream")

    monkeypatch.setattr(SeraiClient, "watch", no)
    monkeypatch.setattr(SeraiClient, "legal_moves", no)
    final, finals = _bots_play(service.address, "jaipur")
    assert final.finished and all(f.finished for f in finals)
    assert [f.outcome for f in finals] == [final.outcome, final.outcome]


def test_bots_fall_back_to_watch_and_submit_where_play_is_unimplemented(service, monkeypatch):
    async def unimplemented(self: Any, requests: Any, ctx: Any) -> AsyncIterator[Any]:
        raise RpcError(Code.UNIMPLEMENTED, "no Play here")
        yield

    monkeypatch.setattr(PlayStreams, "play", unimplemented)
    final, finals = _bots_play(service.address, "jaipur")
    assert final.finished and all(f.finished for f in finals)


def test_a_session_resumes_after_aborted_and_sends_its_unanswered_move_again(service, monkeypatch):
    """The first stream dies (ABORTED) in place of a move's answer: the session reopens after
    the last event it delivered, sends the move again, and gets it answered (replayed) once."""
    opened: list[int] = []

    async def flaky(self: Any, requests: Any, ctx: Any) -> AsyncIterator[Any]:
        opened.append(1)
        first = len(opened) == 1
        async for update in _original_play(self, requests, ctx):  # each update as its bytes
            if first and pb.PlayUpdate.FromString(update).HasField("answer"):
                raise WatchBehind("fell behind")
            yield update

    monkeypatch.setattr(PlayStreams, "play", flaky)
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=9)
        me, other = (client.join(match.match_id) for _ in range(2))
        other_done = threading.Thread(target=play_seat, args=(client, other, RandomStrategy(4)))
        events: list[str] = []
        answers: list[Any] = []
        with client.open_play(me) as session:
            for update in session:
                if not other_done.is_alive() and not events:
                    other_done.start()  # its stream opens after this one, the flaky one
                if update.answer is not None:
                    answers.append(update.answer)
                    continue
                events.append(update.event.id)
                if update.moves:
                    session.move(_pick(update.moves), expected_version=update.moves.version)
        other_done.join(120)
        assert len(opened) > 2  # the first stream, its replacement, and the other seat's
        assert answers[0].submitted is not None and answers[0].submitted.replayed
        assert all(a.error is None for a in answers)
        every = [e.id for e in client.watch(match.match_id)]
        assert events == every  # nothing lost, nothing twice
        assert client.get_match(match.match_id).finished


def _take(session: Any, update: Any, i: int, final: Any) -> Any:
    """One update of seat ``i``'s session: answers must be good, its turn is played; the
    newest snapshot so far."""
    if update.answer is not None:
        assert update.answer.error is None, update.answer.error
    elif update.snapshot is not None:
        final = update.snapshot
    if update.moves and update.snapshot.acts(i):
        session.move(_pick(update.moves), expected_version=update.moves.version)
    return final


async def _aplay_on(session: Any, i: int) -> Any:
    """:func:`_play_on` for an asyncio session."""
    final = None
    async for update in session:
        final = _take(session, update, i, final)
    return final


def test_the_asyncio_session_plays_a_whole_match(service):
    async def main() -> list[Any]:
        async with AsyncSeraiClient(service.address) as client:
            match = await client.create_match("jaipur", seed=3)
            seats = [await client.join(match.match_id) for _ in range(2)]

            async def play(i: int) -> Any:
                async with client.open_play(seats[i]) as session:
                    return await _aplay_on(session, i)

            return await asyncio.wait_for(asyncio.gather(play(0), play(1)), 120)

    finals = asyncio.run(main())
    assert all(f.finished for f in finals)
    assert finals[0].outcome == finals[1].outcome
    assert finals[0].proto.match.status == pb.MATCH_STATUS_FINISHED


def _counting_streams(monkeypatch: Any) -> list[int]:
    """Every Play stream the server opens, counted."""
    opened: list[int] = []

    async def counted(self: Any, requests: Any, ctx: Any) -> AsyncIterator[Any]:
        opened.append(1)
        async for update in _original_play(self, requests, ctx):
            yield update

    monkeypatch.setattr(PlayStreams, "play", counted)
    return opened


def _play_on(session: Any, i: int) -> Any:
    """One iteration of a session: the match played to its end; its last snapshot."""
    final = None
    for update in session:
        final = _take(session, update, i, final)
    return final


def test_a_kept_session_plays_match_after_match_on_one_stream_per_seat(service, monkeypatch):
    """keep_open: each seat's session follows the next match on the stream it has; the server
    opens two streams for three matches, and each match ends as the plugin says."""
    opened = _counting_streams(monkeypatch)
    with SeraiClient(service.address) as client:
        matches = [client.create_match("jaipur", seed=3 + k).match_id for k in range(3)]
        seats = [[client.join(m, player_name=f"bot{i}") for i in range(2)] for m in matches]
        finals: dict[tuple[int, int], Any] = {}

        def run(i: int) -> None:
            with client.open_play(seats[0][i], keep_open=True) as session:
                for k in range(3):
                    if k:
                        session.follow(seats[k][i])
                    finals[(k, i)] = _play_on(session, i)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
        assert len(opened) == 2
        for k, match_id in enumerate(matches):
            final = client.get_match(match_id)
            assert final.finished
            assert finals[(k, 0)].outcome == finals[(k, 1)].outcome == final.outcome
            assert finals[(k, 0)].proto.match.match_id == match_id


def test_a_session_follows_only_a_kept_stream_and_only_after_its_match(service):
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=1).match_id
        seats = [client.join(match) for _ in range(2)]
        with client.open_play(seats[0]) as plain, pytest.raises(ValueError, match="keep_open"):
            plain.follow(seats[1])
        with (
            client.open_play(seats[0], keep_open=True) as kept,
            pytest.raises(ValueError, match="once this one"),
        ):
            kept.follow(seats[1])


def test_the_asyncio_session_keeps_its_stream_for_the_next_match(service, monkeypatch):
    opened = _counting_streams(monkeypatch)

    async def main() -> list[list[Any]]:
        async with AsyncSeraiClient(service.address) as client:
            matches = [(await client.create_match("jaipur", seed=7 + k)).match_id for k in (0, 1)]
            seats = [[await client.join(m) for _ in range(2)] for m in matches]

            async def play(i: int) -> list[Any]:
                finals = []
                async with client.open_play(seats[0][i], keep_open=True) as session:
                    for k in (0, 1):
                        if k:
                            session.follow(seats[k][i])
                        finals.append(await _aplay_on(session, i))
                return finals

            return await asyncio.wait_for(asyncio.gather(play(0), play(1)), 180)

    played = asyncio.run(main())
    assert len(opened) == 2
    for k in (0, 1):
        assert played[0][k].finished and played[0][k].outcome == played[1][k].outcome
    assert played[0][0].proto.match.match_id != played[0][1].proto.match.match_id


def test_a_session_without_a_token_is_refused_as_submit_is(service):
    from serai_client import UnauthenticatedError
    from serai_client.types import SeatHandle

    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=1)
        nobody = SeatHandle(match.match_id, 0, "", "jaipur")
        with pytest.raises(UnauthenticatedError), client.open_play(nobody) as session:
            next(iter(session))


def test_a_session_reopened_after_the_last_event_is_offered_its_moves_again(service):
    """A player that comes back while it is to act, having seen every event (a new session
    after the last event id it kept), is offered its moves again and can play."""
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=9)
        handles = [client.join(match.match_id) for _ in range(2)]
        to_act = client.get_match(match.match_id).to_act[0]
        me = handles[to_act]
        with client.open_play(me) as session:
            offer = next(update for update in session if update.moves)
        with client.open_play(me, offer.event.id) as session:
            again = next(iter(session))
            assert again.event.kind == "" and again.event.id == offer.event.id
            assert again.moves is not None and again.moves.version == offer.moves.version
            session.move(_pick(again.moves), expected_version=again.moves.version)
            answer = next(update for update in session if update.answer is not None).answer
            assert answer.error is None and answer.submitted is not None


def test_a_move_answered_unavailable_is_sent_again_and_played_once(service, monkeypatch):
    """The store did not answer (UNAVAILABLE in the move's answer): the session sends the move
    again with its request id after a wait, instead of handing the failure to the player."""
    from serai.rpc.handlers import MatchHandlers
    from serai.store import StoreUnavailable

    original = MatchHandlers.submit
    tried: list[str] = []

    async def flaky(self: Any, *args: Any, **kwargs: Any) -> Any:
        tried.append(kwargs["request_id"])
        if len(tried) == 1:
            raise StoreUnavailable("Redis cannot be reached: a test's hiccup")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(MatchHandlers, "submit", flaky)
    with SeraiClient(service.address) as client:
        match = client.create_match("jaipur", seed=9)
        handles = [client.join(match.match_id) for _ in range(2)]
        me = handles[client.get_match(match.match_id).to_act[0]]
        sent = ""
        with client.open_play(me) as session:
            for update in session:
                if update.moves and not sent:
                    sent = session.move(_pick(update.moves), expected_version=update.moves.version)
                if update.answer is not None:
                    answer = update.answer
                    break
        assert answer.request_id == sent and answer.error is None
        assert answer.submitted is not None and not answer.submitted.replayed
        assert tried == [sent, sent]
        assert client.get_match(match.match_id).version == update.answer.submitted.snapshot.version
