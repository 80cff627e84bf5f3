"""The Python SDK against the real server and a real Redis (the ``service`` fixture)."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import threading
import time
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.matches.limits import Limits
from serai_client import (
    AsyncSeraiClient,
    DataLossError,
    IllegalMoveError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    SeatHandle,
    SeraiClient,
    StaleVersionError,
)
from serai_client._core import default_client_id
from serai_client.bots import make_strategy, play_seat
from serai_client.types import Event, LegalMove, LegalMoves, event_is_after
from serai_jaipur import jaipur_pb2
from serai_jaipur.moves import TakeCamels


@pytest.fixture
def client(service: Any) -> Any:
    with SeraiClient(service.address, timeout=10, unavailable_for=5) as sdk:
        yield sdk


def seated_match(client: SeraiClient, seed: int = 7) -> tuple[SeatHandle, SeatHandle]:
    match = client.create_match("jaipur", seed=seed)
    return client.join(match.match_id, player_name="ada"), client.join(match.match_id)


def mover(client: SeraiClient, seats: tuple[SeatHandle, SeatHandle]) -> SeatHandle:
    snapshot = client.get_match(seats[0])
    return seats[0] if snapshot.acts(seats[0].seat) else seats[1]


def test_list_games_names_jaipur_as_playable(client: SeraiClient) -> None:
    games = {game.name: game for game in client.list_games()}
    assert games["jaipur"].playable
    assert games["jaipur"].min_players == 2


def test_join_keeps_the_seat_token_and_the_view_is_the_typed_jaipur_view(client):
    ada, bob = seated_match(client)
    assert (ada.seat, bob.seat) == (0, 1)
    assert ada.token and bob.token and ada.token != bob.token
    assert ada.game == "jaipur" and ada.player_name == "ada"
    assert ada.token not in repr(ada) and ada.token not in str(ada)  # logs and tracebacks
    snapshot = client.get_match(ada)
    assert isinstance(snapshot.view, jaipur_pb2.View)
    assert snapshot.viewer_seat == 0
    own, other = snapshot.view.players[0], snapshot.view.players[1]
    assert own.HasField("hand")
    assert sum(value for _, value in own.hand.ListFields()) == own.hand_size
    assert not other.HasField("hand")  # the other seat's cards never reach this seat
    spectator = client.get_match(ada.match_id)
    assert spectator.viewer_seat is None
    assert not any(p.HasField("hand") for p in spectator.view.players)


class _LostAnswer(grpc.RpcError):
    """What grpcio raises when the connection drops after the server did the work."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection reset (the answer was lost)"


def lose_the_first_answer(client: SeraiClient, method: str) -> list[Any]:
    """Make the first call of ``method`` reach the server and its answer get lost; the
    requests sent, as the client retries."""
    real = getattr(client._stub, method)
    sent: list[Any] = []

    def answer_lost_once(request: Any, **kwargs: Any) -> Any:
        sent.append(request)
        answer = real(request, **kwargs)  # the server does the work ...
        if len(sent) == 1:
            raise _LostAnswer()  # ... and the client never hears of it
        return answer

    setattr(client._stub, method, answer_lost_once)
    return sent


def test_a_join_whose_answer_was_lost_is_retried_and_gets_the_seat_it_claimed(client):
    match = client.create_match("jaipur", seed=3)
    sent = lose_the_first_answer(client, "JoinMatch")
    ada = client.join(match.match_id, player_name="ada")
    assert len(sent) == 2 and sent[0].request_id and sent[0].request_id == sent[1].request_id
    assert ada.seat == 0
    spectator = client.get_match(match.match_id)
    assert [s.joined for s in spectator.proto.match.seats] == [True, False]
    assert client.get_match(ada).viewer_seat == 0  # the token it got back acts for the seat
    assert client.join(match.match_id).seat == 1


def test_a_create_whose_answer_was_lost_is_retried_and_makes_one_match(client):
    sent = lose_the_first_answer(client, "CreateMatch")
    match = client.create_match("jaipur", seed=3)
    assert len(sent) == 2 and sent[0].request_id and sent[0].request_id == sent[1].request_id
    assert [m.match_id for m in client.list_matches()] == [match.match_id]
    assert client.create_match("jaipur").match_id != match.match_id  # a new call, a new match


def test_the_sync_and_async_clients_follow_every_page_of_a_listing(client, service):
    """list_matches answers one page, as before; iter_matches follows next_page_token to the end,
    and list_matches_page hands the token out."""
    made = [client.create_match("jaipur").match_id for _ in range(7)]
    newest_first = [m.match_id for m in client.list_matches()]
    assert sorted(newest_first) == sorted(made)
    assert [m.match_id for m in client.list_matches(limit=3)] == newest_first[:3]
    assert [m.match_id for m in client.iter_matches(page_size=3)] == newest_first
    page = client.list_matches_page(limit=5)
    rest = client.list_matches_page(limit=5, page_token=page.next_page_token)
    assert [m.match_id for m in [*page.matches, *rest.matches]] == newest_first
    assert rest.next_page_token == ""

    async def listed() -> list[str]:
        async with AsyncSeraiClient(service.address) as aio_client:
            return [m.match_id async for m in aio_client.iter_matches(page_size=2)]

    assert asyncio.run(listed()) == newest_first


def test_legal_moves_carry_typed_payloads_and_a_move_by_id_is_played(client):
    seats = seated_match(client)
    seat = mover(client, seats)
    moves = client.legal_moves(seat)
    assert moves.seat == seat.seat and len(moves) > 0
    assert all(isinstance(m.payload, jaipur_pb2.Move) for m in moves.moves)
    before = client.get_match(seat).version
    result = client.submit(seat, moves.moves[0].id, expected_version=moves.version)
    assert result.label == moves.moves[0].label
    assert result.snapshot.version == before + 1
    assert not result.snapshot.acts(seat.seat)


def test_a_typed_move_is_played_as_a_message_or_as_the_plugins_own_value(client):
    seats = seated_match(client, seed=3)
    seat = mover(client, seats)
    camels = client.get_match(seat).view.market.camel
    assert camels > 0  # Jaipur starts with 3 camels in the market at least
    result = client.submit(seat, move=TakeCamels(camels))
    assert result.label == f"take all {camels} camels"
    other = seats[1] if seat is seats[0] else seats[0]
    message = client.legal_moves(other).moves[0].payload
    assert client.submit(other, move=message).snapshot.acts(seat.seat)


def test_a_stale_version_raises_without_a_choice_function_and_is_retried_with_one(client):
    seats = seated_match(client)
    seat = mover(client, seats)
    moves = client.legal_moves(seat)
    with pytest.raises(StaleVersionError) as caught:
        client.submit(seat, moves.moves[0].id, expected_version=moves.version + 5)
    assert str(caught.value)  # the server's own message
    asked: list[int] = []

    def choose(snapshot, fresh):
        asked.append(fresh.version)
        return fresh.moves[-1]

    result = client.submit(
        seat, moves.moves[0].id, expected_version=moves.version + 5, choose=choose
    )
    assert result.attempts == 2
    assert asked == [moves.version]
    assert result.label == moves.moves[-1].label


def test_a_match_the_store_lost_is_data_loss_not_not_found(start_service):
    """A match the server made whose keys are gone (a store failover lost them) raises
    DataLossError, which a client can tell from NotFoundError (a mistyped id)."""
    import redis

    server = start_service(cache_size=0)  # no copy kept in the server: the store answers
    with SeraiClient(server.address, timeout=10) as sdk:
        match_id = sdk.create_match("jaipur", seed=3).match_id
        store = redis.Redis.from_url(server.redis_url)
        try:
            store.delete(*store.scan_iter(match=f"serai:{{{match_id}}}:*"))
            store.zrem("serai:index:all", match_id)  # lost with it: not an expired match
        finally:
            store.close()
        with pytest.raises(DataLossError) as lost:
            sdk.get_match(match_id)
        assert "lost" in str(lost.value) and not isinstance(lost.value, NotFoundError)


def test_each_failure_is_its_own_exception_with_the_servers_message(client):
    seats = seated_match(client)
    with pytest.raises(NotFoundError) as missing:
        client.get_match("no-such-match")
    assert "no-such-match" in str(missing.value)
    forged = SeatHandle(seats[0].match_id, 0, "not-the-token", "jaipur")
    with pytest.raises(PermissionDeniedError):
        client.legal_moves(forged)
    waiting = seats[1] if mover(client, seats) is seats[0] else seats[0]
    with pytest.raises(IllegalMoveError) as refused:
        client.submit(waiting, move=TakeCamels(1))
    assert refused.value.details


def test_watch_gives_every_event_once_in_order_and_ends_with_the_match(client):
    seats = seated_match(client, seed=11)
    seen: list[str] = []
    kinds: list[str] = []

    def watch() -> None:
        for event in client.watch(seats[0].match_id):
            seen.append(event.id)
            kinds.append(event.kind)

    watcher = threading.Thread(target=watch)
    watcher.start()
    bots = [make_strategy("random", "jaipur", seed) for seed in (1, 2)]
    players = [
        threading.Thread(target=play_seat, args=(client, seat, bot))
        for seat, bot in zip(seats, bots, strict=True)
    ]
    for thread in players:
        thread.start()
    for thread in (*players, watcher):
        thread.join(60)
    assert not watcher.is_alive()
    final = client.get_match(seats[0])
    assert final.finished and final.outcome is not None
    assert len(seen) == len(set(seen))
    assert all(event_is_after(b, a) for a, b in itertools.pairwise(seen))
    assert seen[-1] == final.last_event_id
    assert kinds[:4] == ["created", "joined", "joined", "started"]
    assert kinds[-1] == "finished"
    assert kinds.count("move") == final.version - 2  # two joins, then one version per move


def test_the_asyncio_client_does_the_same_round_trip(service):
    async def scenario() -> tuple[int, str, list[str]]:
        async with AsyncSeraiClient(service.address) as client:
            match = await client.create_match("jaipur", seed=5)
            a = await client.join(match.match_id)
            b = await client.join(match.match_id)
            snapshot = await client.get_match(a)
            seat = a if snapshot.acts(a.seat) else b
            result = await client.play(seat, lambda snap, moves: moves.moves[0])
            seat = b if seat is a else a  # the other seat's turn now

            async def first(snap: object, moves: LegalMoves) -> LegalMove:
                return moves.moves[0]

            # A choice may answer a coroutine, or a Task or Future of the move.
            second = await client.play(
                seat, lambda snap, moves: asyncio.ensure_future(first(snap, moves))
            )
            assert second.snapshot.version == result.snapshot.version + 1
            kinds = []
            async for event in client.watch(a):
                kinds.append(event.kind)
                if event.kind == "move":
                    break
            assert isinstance(snapshot.view, jaipur_pb2.View)
            return result.snapshot.version, result.label, kinds

    version, label, kinds = asyncio.run(scenario())
    assert label
    assert kinds[-1] == "move" and "started" in kinds
    assert version > 0


def test_default_client_ids_are_per_process_not_one_quota_for_every_user(start_service):
    # The server bounds unfinished matches per client id: a constant default would make every
    # SDK user on earth share one quota. Each process gets its own id; an app may pass its own.
    server = start_service(limits=Limits(max_open_matches=1))
    with SeraiClient(server.address) as ours, SeraiClient(server.address) as ours_again:
        ours.create_match("jaipur")
        with pytest.raises(ResourceExhaustedError, match="finish or resign"):
            ours_again.create_match("jaipur")  # same process, same client
    with SeraiClient(server.address, client_id="another-install") as theirs:
        assert theirs.create_match("jaipur").match_id
    other_process = subprocess.run(
        [sys.executable, "-c", "from serai_client._core import default_client_id as d; print(d())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert other_process.startswith("serai-python@")
    assert other_process != default_client_id()


def test_a_match_with_a_turn_clock_is_created_by_either_client(service):
    with SeraiClient(service.address) as client:
        clocked = client.create_match("jaipur", move_seconds=30, timeout_policy="default_move")
        plain = client.create_match("jaipur")
        with pytest.raises(ValueError, match="timeout_policy"):
            client.create_match("jaipur", move_seconds=30, timeout_policy="forfeit")
    assert clocked.move_seconds == 30
    assert clocked.timeout_policy == pb.TIMEOUT_POLICY_DEFAULT_MOVE
    assert plain.move_seconds == 0 and plain.timeout_policy == pb.TIMEOUT_POLICY_UNSPECIFIED

    async def create() -> pb.MatchSummary:
        async with AsyncSeraiClient(service.address) as client:
            return await client.create_match("jaipur", move_seconds=5)

    clocked = asyncio.run(create())
    assert clocked.move_seconds == 5 and clocked.timeout_policy == pb.TIMEOUT_POLICY_LOSE


def test_both_clients_take_a_channel_of_the_caller_s_own(service):
    """A channel the caller made (TLS, options, interceptors) is used, and closed with the
    client."""
    options = [("grpc.primary_user_agent", "serai-test-agent")]
    with SeraiClient(channel=grpc.insecure_channel(service.address, options=options)) as client:
        assert "jaipur" in {g.name for g in client.list_games()}

    async def listed() -> set[str]:
        channel = grpc.aio.insecure_channel(service.address, options=options)
        async with AsyncSeraiClient(channel=channel) as client:
            names = {g.name for g in await client.list_games()}
        assert channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN  # closed with it
        return names

    assert "jaipur" in asyncio.run(listed())


def test_closing_a_client_ends_its_watches_without_an_error(service):
    match_id = SeraiClient(service.address).create_match("jaipur").match_id
    client = SeraiClient(service.address)
    seen: list[str] = []
    outcome: list[object] = []

    def watch() -> None:
        try:
            seen.extend(event.kind for event in client.watch(match_id))
            outcome.append("ended")
        except BaseException as error:  # reported below
            outcome.append(error)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    deadline = time.monotonic() + 20
    while not seen and time.monotonic() < deadline:
        time.sleep(0.02)
    client.close()
    watcher.join(20)
    assert seen == ["created"] and outcome == ["ended"]

    async def watch_then_close() -> list[str]:
        kinds: list[str] = []
        aio_client = AsyncSeraiClient(service.address)

        async def collect() -> None:
            async for event in aio_client.watch(match_id):
                kinds.append(event.kind)

        task = asyncio.ensure_future(collect())
        while not kinds:
            await asyncio.sleep(0.02)
        await aio_client.close()
        await asyncio.wait_for(task, 20)  # ends; raises if the watch raised
        return kinds

    assert asyncio.run(watch_then_close()) == ["created"]


def test_a_watch_the_server_has_no_room_for_yet_waits_for_room(start_service):
    service = start_service(limits=Limits(max_watches=1))
    stub = service.stub()
    match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur")).match.match_id
    holder = stub.Watch(pb.WatchRequest(match_id=match_id), timeout=60)
    next(holder)  # the server's one watch is taken
    seen: list[object] = []

    def watch() -> None:
        with SeraiClient(service.address, unavailable_for=20) as client:
            try:
                seen.append(next(iter(client.watch(match_id))).kind)
            except Exception as error:  # reported below
                seen.append(error)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.5)  # its first tries are refused (RESOURCE_EXHAUSTED)
    holder.cancel()
    watcher.join(30)
    assert seen == ["created"]


def test_an_event_describes_a_private_announcement_as_its_reader_got_it():
    def line(**announcement: Any) -> str:
        proto = pb.MatchEvent(announcement=pb.Announcement(**announcement))
        return Event(proto, None).describe()

    assert line(text="round 1 ends") == "round 1 ends"
    told = line(text="seat 1 holds a Duelist", to_seats=[0])
    assert told == "to seat 0 alone: seat 1 holds a Duelist"
    withheld = line(text="seat 0 looked at seat 1's card", to_seats=[0], withheld=True)
    assert withheld == "seat 0 looked at seat 1's card (private to seat 0)"


def test_create_match_takes_the_clock_bank_and_spectator_delay(client):
    match = client.create_match(
        "jaipur", move_seconds=86_400, bank_seconds=3_600, spectator_delay_moves=2
    )
    assert (match.move_seconds, match.bank_seconds, match.spectator_delay_moves) == (
        86_400,
        3_600,
        2,
    )
