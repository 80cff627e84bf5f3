"""The asyncio Python client: the same calls as :class:`SeraiClient`, awaited.

Example::

    async with AsyncSeraiClient("localhost:50051") as client:
        match = await client.create_match("jaipur")
        me = await client.join(match.match_id)
        async for event in client.watch(me):
            print(event.describe())
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

import grpc
from grpc import aio
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc

from serai_client._core import (
    DEFAULT_TARGET,
    RESUMABLE_CODES,
    Backoff,
    ClientCore,
    PlayBook,
    aio_api_key_interceptors,
    default_client_id,
    new_request_id,
    not_to_act,
    token_of,
)
from serai_client.errors import SeraiError, StaleVersionError, UnavailableError, from_rpc_error
from serai_client.types import (
    Decoder,
    Event,
    LegalMove,
    LegalMoves,
    PlayUpdate,
    QueueMatch,
    SeatHandle,
    Snapshot,
    SubmitResult,
    event_is_after,
)

T = TypeVar("T")

AsyncChoice = Callable[[Snapshot, LegalMoves], "LegalMove | str | Awaitable[LegalMove | str]"]
"""A choice function for the asyncio client; it may be a coroutine function."""


class AsyncSeraiClient:
    """An asyncio connection to one server; see :class:`serai_client.SeraiClient`."""

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        timeout: float = 10.0,
        unavailable_for: float = 30.0,
        decoder: Decoder | None = None,
        client_id: str | None = None,
        api_key: str = "",
        channel: aio.Channel | None = None,
    ) -> None:
        """``channel``: one of your own (TLS, options, interceptors) instead of an insecure one
        to ``target``; closed with the client. ``api_key``: the app's key, sent with every call
        as ``authorization: Bearer <key>`` (with your own ``channel``, add
        ``aio_api_key_interceptors(key)`` to it yourself: an asyncio channel takes them only
        when made)."""
        self.target = target
        self.timeout = timeout
        self.unavailable_for = unavailable_for
        self._core = ClientCore(decoder, client_id or default_client_id("python-aio"))
        if channel is not None and api_key:
            raise ValueError(
                "api_key with your own channel: make it with "
                "interceptors=aio_api_key_interceptors(api_key) instead"
            )
        interceptors = aio_api_key_interceptors(api_key) if api_key else None
        self._channel = channel or aio.insecure_channel(target, interceptors=interceptors)
        self._stub = pb_grpc.MatchServiceStub(self._channel)
        self._closed = False

    @property
    def decoder(self) -> Decoder:
        return self._core.decoder

    async def close(self) -> None:
        """Close the channel; watches in progress end (their iteration stops, no error)."""
        self._closed = True
        await self._channel.close()

    async def __aenter__(self) -> AsyncSeraiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def list_games(self) -> list[pb.GameInfo]:
        return list((await self._call(self._stub.ListGames, pb.ListGamesRequest())).games)

    async def list_matches(
        self,
        status: int = pb.MATCH_STATUS_UNSPECIFIED,
        game: str = "",
        limit: int = 0,
        *,
        player_token: str = "",
    ) -> list[pb.MatchSummary]:
        """The newest matches: one page (at most 100; see :meth:`iter_matches` for all). With a
        ``player_token`` (signed by the app whose ``api_key`` the client sends), only the
        matches where that player holds a seat."""
        page = await self.list_matches_page(status, game, limit, player_token=player_token)
        return list(page.matches)

    async def list_matches_page(
        self,
        status: int = pb.MATCH_STATUS_UNSPECIFIED,
        game: str = "",
        limit: int = 0,
        page_token: str = "",
        *,
        player_token: str = "",
    ) -> pb.ListMatchesResponse:
        """One page of matches, newest first, and its ``next_page_token`` ("" at the last):
        pass that as ``page_token``, with the same status, game and player token, for the next
        page."""
        request = pb.ListMatchesRequest(
            status=status,  # type: ignore[arg-type]
            game=game,
            limit=limit,
            page_token=page_token,
            player_token=player_token,
        )
        return await self._call(self._stub.ListMatches, request)

    async def iter_matches(
        self, status: int = pb.MATCH_STATUS_UNSPECIFIED, game: str = "", page_size: int = 0
    ) -> AsyncGenerator[pb.MatchSummary, None]:
        """Every match, newest first, fetched a page at a time as the iteration goes on; each
        once, whatever is created meanwhile (newer matches than the first page are not listed).
        The server rate-limits ListMatches: a caller that loops may get ResourceExhaustedError."""
        token = ""
        while True:
            page = await self.list_matches_page(status, game, page_size, token)
            for match in page.matches:
                yield match
            token = page.next_page_token
            if not token:
                return

    async def create_match(
        self,
        game: str,
        seats: int = 2,
        options: Mapping[str, object] | None = None,
        seed: int | None = None,
        *,
        move_seconds: int = 0,
        timeout_policy: str = "lose",
        bank_seconds: int = 0,
        spectator_delay_moves: int = 0,
        rated: bool = False,
    ) -> pb.MatchSummary:
        """A new open match. ``move_seconds`` > 0 gives each turn a clock; a seat that runs out
        loses (``timeout_policy`` "lose") or has its first legal move played ("default_move").
        ``bank_seconds``: each seat's time bank on top, spent once a move takes longer.
        ``spectator_delay_moves``: spectators see the match that many moves late while it runs.
        ``rated``: the match moves ratings when it ends, if every seat was joined with a player
        token."""
        request = self._core.create_request(
            game,
            seats,
            options,
            seed,
            move_seconds,
            timeout_policy,
            bank_seconds,
            spectator_delay_moves,
        )
        request.rated = rated
        return (await self._call(self._stub.CreateMatch, request)).match

    async def join(
        self,
        match_id: str,
        seat: int | None = None,
        player_name: str = "",
        *,
        player_token: str = "",
    ) -> SeatHandle:
        request = self._core.join_request(match_id, seat, player_name, player_token)
        return self._core.handle(await self._call(self._stub.JoinMatch, request), player_name)

    async def reclaim_seat(self, match_id: str, player_token: str) -> SeatHandle:
        """The seat the player token's player holds in the match, with a new token (the old
        one stops working); see :meth:`serai_client.SeraiClient.reclaim_seat`."""
        request = pb.ReclaimSeatRequest(match_id=match_id, player_token=player_token)
        return self._core.handle(await self._call(self._stub.ReclaimSeat, request), "")

    async def rematch(self, seat: SeatHandle) -> SeatHandle:
        """The same players again; see :meth:`serai_client.SeraiClient.rematch`."""
        request = self._core.rematch_request(seat)
        return self._core.handle(await self._call(self._stub.Rematch, request), seat.player_name)

    # --- the community: queues, ratings, leaderboards (as SeraiClient's) ------------------------

    async def join_queue(
        self,
        game: str,
        *,
        seats: int = 0,
        options: Mapping[str, object] | None = None,
        pool: str = "rated",
        player_token: str = "",
        player_name: str = "",
        bot: bool = False,
        on_waiting: Callable[[pb.QueueWaiting], None] | None = None,
    ) -> QueueMatch:
        """See :meth:`serai_client.client.SeraiClient.join_queue`."""
        request = self._core.queue_request(
            game,
            seats=seats,
            options=options,
            pool=pool,
            player_token=player_token,
            player_name=player_name,
            bot=bot,
        )
        backoff = Backoff(give_up=self.unavailable_for)
        while True:
            try:
                async for update in self._stub.JoinQueue(request):
                    if update.HasField("matched"):
                        return self._core.queue_match(update.matched, player_name)
                    if on_waiting is not None:
                        on_waiting(update.waiting)
                    backoff.reset()
            except grpc.RpcError as rpc_error:
                error = from_rpc_error(rpc_error)
                if rpc_error.code() not in RESUMABLE_CODES:
                    raise error from None
            wait = backoff.delay()
            if wait is None:
                raise UnavailableError("the queue's stream kept ending before a match")
            await asyncio.sleep(wait)

    async def leave_queue(
        self,
        game: str,
        player_token: str,
        *,
        seats: int = 0,
        options: Mapping[str, object] | None = None,
        pool: str = "rated",
    ) -> bool:
        """See :meth:`serai_client.client.SeraiClient.leave_queue`."""
        queued = self._core.queue_request(game, seats=seats, options=options, pool=pool)
        request = pb.LeaveQueueRequest(
            game=game, options=queued.options, seats=seats, pool=pool, player_token=player_token
        )
        return bool((await self._call(self._stub.LeaveQueue, request)).left)

    async def get_rating(
        self, game: str, player_token: str, *, pool: str = "rated", bot: bool = False
    ) -> pb.GetRatingResponse:
        """See :meth:`serai_client.client.SeraiClient.get_rating`."""
        request = pb.GetRatingRequest(game=game, pool=pool, player_token=player_token, bot=bot)
        return await self._call(self._stub.GetRating, request)

    async def list_leaderboard(
        self,
        game: str,
        *,
        pool: str = "rated",
        limit: int = 0,
        page_token: str = "",
        bots: bool = False,
    ) -> pb.ListLeaderboardResponse:
        """See :meth:`serai_client.client.SeraiClient.list_leaderboard`."""
        request = pb.ListLeaderboardRequest(
            game=game, pool=pool, limit=limit, page_token=page_token, bots=bots
        )
        return await self._call(self._stub.ListLeaderboard, request)

    async def get_match(self, match: SeatHandle | str) -> Snapshot:
        request = self._core.get_request(match)
        return self._core.snapshot(await self._call(self._stub.GetMatch, request))

    async def legal_moves(self, seat: SeatHandle) -> LegalMoves:
        request = pb.ListLegalMovesRequest(match_id=seat.match_id, seat_token=seat.token)
        answer = await self._call(self._stub.ListLegalMoves, request)
        return self._core.legal_moves(seat.game, answer)

    async def submit(
        self,
        seat: SeatHandle,
        move_id: str | None = None,
        *,
        move: object | None = None,
        expected_version: int = 0,
        request_id: str | None = None,
        choose: AsyncChoice | None = None,
        max_attempts: int = 5,
    ) -> SubmitResult:
        """See :meth:`SeraiClient.submit`: ABORTED is retried through ``choose`` when given."""
        request = self._core.submit_request(
            seat,
            move_id=move_id,
            move=move,
            expected_version=expected_version,
            request_id=request_id,
        )
        attempt = 1
        while True:
            try:
                answer = await self._call(self._stub.SubmitMove, request)
                return self._core.submit_result(answer, attempt)
            except StaleVersionError as error:
                if choose is None or attempt >= max_attempts:
                    raise
                snapshot = await self.get_match(seat)
                if not snapshot.acts(seat.seat):
                    raise not_to_act(error, snapshot, seat.seat) from None
                moves = await self.legal_moves(seat)
                chosen = self._core.chosen_id(await _resolve(choose(snapshot, moves)), moves)
                request = pb.SubmitMoveRequest(
                    match_id=seat.match_id,
                    seat_token=seat.token,
                    expected_version=moves.version,
                    move_id=chosen,
                    request_id=new_request_id(),
                )
                attempt += 1

    async def play(
        self, seat: SeatHandle, choose: AsyncChoice, *, max_attempts: int = 5
    ) -> SubmitResult:
        snapshot = await self.get_match(seat)
        moves = await self.legal_moves(seat)
        chosen = self._core.chosen_id(await _resolve(choose(snapshot, moves)), moves)
        return await self.submit(
            seat, chosen, expected_version=moves.version, choose=choose, max_attempts=max_attempts
        )

    async def resign(self, seat: SeatHandle) -> Snapshot:
        request = pb.ResignRequest(match_id=seat.match_id, seat_token=seat.token)
        return self._core.snapshot(await self._call(self._stub.Resign, request))

    async def transcript(self, match: SeatHandle | str) -> str:
        """As :meth:`serai_client.Client.transcript`."""
        match_id, token = token_of(match)
        request = pb.GetTranscriptRequest(match_id=match_id, seat_token=token)
        return str((await self._call(self._stub.GetTranscript, request)).transcript)

    async def watch(
        self, match: SeatHandle | str, after_event_id: str = "", *, resume: bool = True
    ) -> AsyncGenerator[Event, None]:
        """See :meth:`SeraiClient.watch`: resumes after a dropped connection, no event twice."""
        match_id, token = token_of(match)
        last = after_event_id
        finished = False
        backoff = Backoff(give_up=self.unavailable_for)
        while not self._closed:
            request = pb.WatchRequest(match_id=match_id, seat_token=token, after_event_id=last)
            call = self._stub.Watch(request)
            try:
                async for proto in call:
                    if not event_is_after(proto.event_id, last):
                        continue
                    last = proto.event_id
                    backoff.reset()
                    event = self._core.event(proto)
                    finished = finished or event.kind == "finished"
                    yield event
                if finished or await self._read_to_the_end(match, last):
                    return
                error: SeraiError = UnavailableError("the server ended the watch early")
            except grpc.RpcError as rpc_error:
                if self._closed:
                    return
                error = from_rpc_error(rpc_error)
                if not resume or rpc_error.code() not in RESUMABLE_CODES:
                    raise error from None
            except asyncio.CancelledError:
                # Closing the channel cancels its calls, which reaches us as a cancellation; a
                # cancellation of our own task is another matter, and goes on.
                task = asyncio.current_task()
                if self._closed and task is not None and not task.cancelling():
                    return
                raise
            finally:
                call.cancel()
            if not resume:
                return
            wait = backoff.delay()
            if wait is None:
                raise error
            await asyncio.sleep(wait)

    def open_play(
        self,
        seat: SeatHandle,
        after_event_id: str = "",
        *,
        steps: bool = False,
        presentation: bool = False,
        resume: bool = True,
        keep_open: bool = False,
    ) -> AsyncPlaySession:
        """See :meth:`SeraiClient.open_play`; iterate it with ``async for``. Example::

        async with client.open_play(seat) as session:
            async for update in session:
                if update.moves:
                    session.move(update.moves.moves[0], expected_version=update.moves.version)
        """
        return AsyncPlaySession(
            self,
            seat,
            after_event_id,
            steps=steps,
            presentation=presentation,
            resume=resume,
            keep_open=keep_open,
        )

    async def _read_to_the_end(self, match: SeatHandle | str, last: str) -> bool:
        """Whether the match is over and ``last`` is its newest event: nothing left to read (one
        try: the watch's own backoff is the one budget of waiting)."""
        try:
            request = self._core.get_request(match)
            snapshot = await self._stub.GetMatch(request, timeout=self.timeout)
        except grpc.RpcError:
            return False
        return self._core.read_to_the_end(snapshot, last)

    async def _call(self, method: Callable[..., Any], request: Any) -> Any:
        backoff = Backoff(give_up=self.unavailable_for)
        while True:
            try:
                return await method(request, timeout=self.timeout)
            except grpc.RpcError as rpc_error:
                error = from_rpc_error(rpc_error)
                if not isinstance(error, UnavailableError):
                    raise error from None
                wait = backoff.delay()
                if wait is None:
                    raise error from None
                await asyncio.sleep(wait)


async def _resolve(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value  # a coroutine, Task or Future


class AsyncPlaySession:
    """One seat's Play stream for asyncio; see :class:`serai_client.client.PlaySession` (the
    same resumption; ``move`` and ``resign`` queue the request and return its id at once)."""

    def __init__(
        self,
        client: AsyncSeraiClient,
        seat: SeatHandle,
        after_event_id: str,
        *,
        steps: bool,
        presentation: bool = False,
        resume: bool,
        keep_open: bool = False,
    ) -> None:
        self._client = client
        self._book = PlayBook(
            client._core,
            seat,
            after_event_id,
            steps=steps,
            presentation=presentation,
            keep_open=keep_open,
        )
        self._resume = resume
        self._outgoing: asyncio.Queue[pb.PlayRequest | None] | None = None
        self._call: Any = None
        self._closed = False

    @property
    def last_event_id(self) -> str:
        return self._book.last

    def move(
        self,
        choice: LegalMove | str | None = None,
        *,
        move: object | None = None,
        expected_version: int = 0,
        request_id: str | None = None,
    ) -> str:
        """Send a move (a legal move or its id, or typed ``move``); its request id."""
        request = self._book.move_request(choice, move, expected_version, request_id)
        self._send(request)
        return request.move.request_id

    def resign(self, request_id: str | None = None) -> str:
        request = self._book.resign_request(request_id)
        self._send(request)
        return request.resign.request_id

    def follow(self, seat: SeatHandle, after_event_id: str = "") -> None:
        """See :meth:`serai_client.client.PlaySession.follow`."""
        self._book = self._book.following(seat, after_event_id)
        self._send(self._book.opening()[0])  # else the next stream's opening sends it

    def close(self) -> None:
        self._closed = True
        if self._outgoing is not None:
            self._outgoing.put_nowait(None)
        if self._call is not None:
            self._call.cancel()

    async def __aenter__(self) -> AsyncPlaySession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def _send(self, request: pb.PlayRequest) -> None:
        if self._outgoing is not None:  # else it goes with the next stream's opening
            self._outgoing.put_nowait(request)

    async def __aiter__(self) -> AsyncIterator[PlayUpdate]:
        client, book = self._client, self._book
        backoff = Backoff(give_up=client.unavailable_for)
        retry = Backoff(give_up=client.unavailable_for)  # of moves answered UNAVAILABLE
        while not (self._closed or client._closed):
            call, outgoing = self._call, self._outgoing
            if call is None or outgoing is None:  # a new stream (else the one kept open)
                outgoing = asyncio.Queue()
                self._outgoing = outgoing
                for request in book.opening():
                    outgoing.put_nowait(request)
                call = self._call = client._stub.Play(_drain(outgoing))
            kept = False
            try:
                while (proto := await call.read()) is not grpc.aio.EOF:
                    update = book.update(proto)
                    if update is not None:
                        backoff.reset()
                        yield update
                    resends = book.take_resends()
                    if resends:  # answered UNAVAILABLE: sent again after a wait (applied once)
                        wait = retry.delay()
                        if wait is None:
                            raise UnavailableError("the server's store stayed unavailable; gave up")
                        await asyncio.sleep(wait)
                        for request in resends:
                            outgoing.put_nowait(request)
                    elif update is not None and update.answer is not None:
                        retry.reset()
                    if book.keep_open and book.done:
                        kept = True  # the stream stays for follow()
                        return
                if book.finished or await client._read_to_the_end(book.seat, book.last):
                    return
                error: SeraiError = UnavailableError("the server ended the Play stream early")
            except grpc.RpcError as rpc_error:
                if self._closed or client._closed:
                    return
                error = from_rpc_error(rpc_error)
                if not self._resume or rpc_error.code() not in RESUMABLE_CODES:
                    raise error from None
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if (self._closed or client._closed) and task is not None and not task.cancelling():
                    return
                raise
            finally:
                if not kept:
                    self._outgoing = self._call = None
                    outgoing.put_nowait(None)
                    call.cancel()
            if not self._resume:
                return
            wait = backoff.delay()
            if wait is None:
                raise error
            await asyncio.sleep(wait)


async def _drain(outgoing: asyncio.Queue[pb.PlayRequest | None]) -> AsyncIterator[pb.PlayRequest]:
    while (request := await outgoing.get()) is not None:
        yield request
