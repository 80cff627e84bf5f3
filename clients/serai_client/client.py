"""The synchronous Python client of a serai server.

Example — create a Jaipur match, take both seats, play the first legal move::

    with SeraiClient("localhost:50051") as client:
        match = client.create_match("jaipur", seed=7)
        me = client.join(match.match_id, player_name="ada")
        other = client.join(match.match_id)
        snapshot = client.get_match(me)          # snapshot.view is a typed JaipurView
        mover = me if snapshot.acts(me.seat) else other
        client.play(mover, lambda snap, moves: moves.moves[0])
        for event in client.watch(me):           # resumes by itself after a dropped connection
            print(event.describe())

Every failure raises one :class:`serai_client.errors.SeraiError` subclass per status code.
Unary calls retry UNAVAILABLE with backoff (CreateMatch, JoinMatch and SubmitMove keep their
request id, so a retry never makes a second match, claims a second seat or plays a move twice); a
watch reconnects and resumes after the last event it delivered.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any, TypeVar

import grpc
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc

from serai_client._core import (
    DEFAULT_TARGET,
    RESUMABLE_CODES,
    ApiKeyInterceptor,
    Backoff,
    ClientCore,
    PlayBook,
    default_client_id,
    new_request_id,
    not_to_act,
    token_of,
)
from serai_client.errors import SeraiError, StaleVersionError, UnavailableError, from_rpc_error
from serai_client.types import (
    Choice,
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


class SeraiClient:
    """A connection to one server. Thread-safe for calls; close it (or use ``with``) when done.

    ``timeout`` bounds each unary call; ``unavailable_for`` is how long unary calls and watches
    keep retrying while the server cannot be reached before raising UnavailableError.
    ``api_key``: the app's key (``serai keys create``), sent with every call as
    ``authorization: Bearer <key>``.
    """

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        timeout: float = 10.0,
        unavailable_for: float = 30.0,
        decoder: Decoder | None = None,
        client_id: str | None = None,
        api_key: str = "",
        channel: grpc.Channel | None = None,
    ) -> None:
        self.target = target
        self.timeout = timeout
        self.unavailable_for = unavailable_for
        self._core = ClientCore(decoder, client_id or default_client_id("python"))
        self._channel = channel or grpc.insecure_channel(target)
        calls = self._channel
        if api_key:
            calls = grpc.intercept_channel(self._channel, ApiKeyInterceptor(api_key))
        self._stub = pb_grpc.MatchServiceStub(calls)
        self._closed = False

    @property
    def decoder(self) -> Decoder:
        return self._core.decoder

    def close(self) -> None:
        """Close the channel; watches in progress end (their iteration stops, no error)."""
        self._closed = True
        self._channel.close()

    def __enter__(self) -> SeraiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- calls -----------------------------------------------------------------------------------

    def list_games(self) -> list[pb.GameInfo]:
        return list(self._call(self._stub.ListGames, pb.ListGamesRequest()).games)

    def list_matches(
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
        page = self.list_matches_page(status, game, limit, player_token=player_token)
        return list(page.matches)

    def list_matches_page(
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
        return self._call(self._stub.ListMatches, request)

    def iter_matches(
        self, status: int = pb.MATCH_STATUS_UNSPECIFIED, game: str = "", page_size: int = 0
    ) -> Generator[pb.MatchSummary, None, None]:
        """Every match, newest first, fetched a page at a time as the iteration goes on; each
        once, whatever is created meanwhile (newer matches than the first page are not listed).
        The server rate-limits ListMatches: a caller that loops may get ResourceExhaustedError."""
        token = ""
        while True:
            page = self.list_matches_page(status, game, page_size, token)
            yield from page.matches
            token = page.next_page_token
            if not token:
                return

    def create_match(
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
        return self._call(self._stub.CreateMatch, request).match

    def join(
        self,
        match_id: str,
        seat: int | None = None,
        player_name: str = "",
        *,
        player_token: str = "",
    ) -> SeatHandle:
        """Claim a seat (the lowest free one when ``seat`` is None); keep the handle's token.
        ``player_token``: a JWT the app signed naming the player (its ``name`` replaces
        ``player_name``): the seat is that player's, who can :meth:`reclaim_seat` it later."""
        request = self._core.join_request(match_id, seat, player_name, player_token)
        return self._core.handle(self._call(self._stub.JoinMatch, request), player_name)

    def reclaim_seat(self, match_id: str, player_token: str) -> SeatHandle:
        """The seat the player token's player holds in the match, with a new token, from any
        device; the seat's earlier token stops working. NotFoundError when the player holds no
        seat there."""
        request = pb.ReclaimSeatRequest(match_id=match_id, player_token=player_token)
        return self._core.handle(self._call(self._stub.ReclaimSeat, request), "")

    def rematch(self, seat: SeatHandle) -> SeatHandle:
        """The same players again once ``seat``'s match is finished: a new committed deal, the
        seats rotated by one. Each seat asks; all land in the same new match. The handle of
        this player's seat there (IllegalMoveError, FAILED_PRECONDITION, while the match runs)."""
        request = self._core.rematch_request(seat)
        return self._core.handle(self._call(self._stub.Rematch, request), seat.player_name)

    # --- the community: queues, ratings, leaderboards --------------------------------------------

    def join_queue(
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
        """Wait in the game's queue until the server seats the player, and return the seat.
        ``pool`` "rated" needs ``player_token``; "casual" takes guests. ``on_waiting`` gets each
        waiting update (position, players waiting). A dropped stream is opened again (the
        server answers the same match if the player was paired meanwhile)."""
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
                for update in self._stub.JoinQueue(request):
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
            time.sleep(wait)

    def leave_queue(
        self,
        game: str,
        player_token: str,
        *,
        seats: int = 0,
        options: Mapping[str, object] | None = None,
        pool: str = "rated",
    ) -> bool:
        """Take the player out of the queue; False when it was not waiting (already paired)."""
        queued = self._core.queue_request(game, seats=seats, options=options, pool=pool)
        request = pb.LeaveQueueRequest(
            game=game, options=queued.options, seats=seats, pool=pool, player_token=player_token
        )
        return self._call(self._stub.LeaveQueue, request).left

    def get_rating(
        self, game: str, player_token: str, *, pool: str = "rated", bot: bool = False
    ) -> pb.GetRatingResponse:
        """The player's rating in the game's pool (the starting one before any rated match),
        with its recent changes, newest first."""
        request = pb.GetRatingRequest(game=game, pool=pool, player_token=player_token, bot=bot)
        return self._call(self._stub.GetRating, request)

    def list_leaderboard(
        self,
        game: str,
        *,
        pool: str = "rated",
        limit: int = 0,
        page_token: str = "",
        bots: bool = False,
    ) -> pb.ListLeaderboardResponse:
        """One page of the game's leaderboard, best first (``bots``: the bots' one); pass its
        ``next_page_token`` as ``page_token`` for the next."""
        request = pb.ListLeaderboardRequest(
            game=game, pool=pool, limit=limit, page_token=page_token, bots=bots
        )
        return self._call(self._stub.ListLeaderboard, request)

    def get_match(self, match: SeatHandle | str, *, presentation: bool = False) -> Snapshot:
        """The match as this seat sees it (a match id alone: as a spectator); ``presentation``:
        with the view described for people (``snapshot.proto.presentation``)."""
        request = self._core.get_request(match)
        request.presentation = presentation
        return self._core.snapshot(self._call(self._stub.GetMatch, request))

    def legal_moves(self, seat: SeatHandle) -> LegalMoves:
        request = pb.ListLegalMovesRequest(match_id=seat.match_id, seat_token=seat.token)
        return self._core.legal_moves(seat.game, self._call(self._stub.ListLegalMoves, request))

    def submit(
        self,
        seat: SeatHandle,
        move_id: str | None = None,
        *,
        move: object | None = None,
        expected_version: int = 0,
        request_id: str | None = None,
        choose: Choice | None = None,
        max_attempts: int = 5,
    ) -> SubmitResult:
        """Play a move by id (from :meth:`legal_moves`) or typed (``move``: the game's message).

        With ``choose``, a stale ``expected_version`` (ABORTED) is retried: the SDK fetches the
        fresh snapshot and moves, asks ``choose`` again and submits its answer, up to
        ``max_attempts`` in all. Without it, StaleVersionError reaches the caller.
        """
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
                answer = self._call(self._stub.SubmitMove, request)
                return self._core.submit_result(answer, attempt)
            except StaleVersionError as error:
                if choose is None or attempt >= max_attempts:
                    raise
                snapshot = self.get_match(seat)
                if not snapshot.acts(seat.seat):
                    raise not_to_act(error, snapshot, seat.seat) from None
                moves = self.legal_moves(seat)
                chosen = self._core.chosen_id(choose(snapshot, moves), moves)
                request = pb.SubmitMoveRequest(
                    match_id=seat.match_id,
                    seat_token=seat.token,
                    expected_version=moves.version,
                    move_id=chosen,
                    request_id=new_request_id(),
                )
                attempt += 1

    def play(self, seat: SeatHandle, choose: Choice, *, max_attempts: int = 5) -> SubmitResult:
        """Choose on the current snapshot and moves, and submit; ABORTED chooses again."""
        snapshot = self.get_match(seat)
        moves = self.legal_moves(seat)
        chosen = self._core.chosen_id(choose(snapshot, moves), moves)
        return self.submit(
            seat,
            chosen,
            expected_version=moves.version,
            choose=choose,
            max_attempts=max_attempts,
        )

    def resign(self, seat: SeatHandle) -> Snapshot:
        request = pb.ResignRequest(match_id=seat.match_id, seat_token=seat.token)
        return self._core.snapshot(self._call(self._stub.Resign, request))

    def transcript(self, match: SeatHandle | str) -> str:
        """The match's transcript (JSON text, for ``serai verify``): a seat's while it runs,
        anyone's once finished."""
        match_id, token = token_of(match)
        request = pb.GetTranscriptRequest(match_id=match_id, seat_token=token)
        return str(self._call(self._stub.GetTranscript, request).transcript)

    def watch(
        self, match: SeatHandle | str, after_event_id: str = "", *, resume: bool = True
    ) -> Generator[Event, None, None]:
        """Events after ``after_event_id`` ("" for all), then new ones as they come.

        A dropped connection (a server restart, a network blip) is survived: the watch reconnects
        with backoff and asks for the events after the last one it delivered, so none is missed
        or repeated. It ends after the match finishes or the client is closed, or raises once the
        server stays out of reach for ``unavailable_for`` seconds. Closing the iterator cancels
        the stream.
        """
        match_id, token = token_of(match)
        last = after_event_id
        finished = False
        backoff = Backoff(give_up=self.unavailable_for)
        while not self._closed:
            request = pb.WatchRequest(match_id=match_id, seat_token=token, after_event_id=last)
            call = self._stub.Watch(request)
            try:
                for proto in call:
                    if not event_is_after(proto.event_id, last):
                        continue  # already delivered before the reconnect
                    last = proto.event_id
                    backoff.reset()
                    event = self._core.event(proto)
                    finished = finished or event.kind == "finished"
                    yield event
                if finished or self._read_to_the_end(match, last):
                    return
                error: SeraiError = UnavailableError("the server ended the watch early")
            except grpc.RpcError as rpc_error:
                if self._closed:
                    return
                error = from_rpc_error(rpc_error)
                if not resume or rpc_error.code() not in RESUMABLE_CODES:
                    raise error from None
            finally:
                call.cancel()
            if not resume:
                return
            wait = backoff.delay()
            if wait is None:
                raise error
            time.sleep(wait)

    def open_play(
        self,
        seat: SeatHandle,
        after_event_id: str = "",
        *,
        steps: bool = False,
        presentation: bool = False,
        resume: bool = True,
        keep_open: bool = False,
    ) -> PlaySession:
        """A Play stream for ``seat``: iterate it for the match's events (with the seat's legal
        moves whenever it is to act) and the answers to what you send with
        :meth:`PlaySession.move` and :meth:`PlaySession.resign`. Resumes by itself, as
        :meth:`watch` does; a server without Play raises a SeraiError whose ``code`` is
        UNIMPLEMENTED on the first iteration. ``steps``: the legal moves carry their steps;
        ``presentation``: the snapshots describe the view for people. ``keep_open``: the
        stream outlives the match; once an iteration has ended, :meth:`PlaySession.follow` the
        next match and iterate again (one stream per seat for match after match). Example::

            with client.open_play(seat) as session:
                for update in session:
                    if update.moves:
                        session.move(update.moves.moves[0], expected_version=update.moves.version)
        """
        return PlaySession(
            self,
            seat,
            after_event_id,
            steps=steps,
            presentation=presentation,
            resume=resume,
            keep_open=keep_open,
        )

    # --- plumbing --------------------------------------------------------------------------------

    def _read_to_the_end(self, match: SeatHandle | str, last: str) -> bool:
        """Whether the match is over and ``last`` is its newest event: nothing left to read.

        A stream that ends before the finished event (a server shutting down) is reopened even
        when the match has finished meanwhile, so that its last events are still delivered.
        One try, not get_match's retries: the watch's own backoff is the one budget of waiting.
        """
        try:
            snapshot = self._stub.GetMatch(self._core.get_request(match), timeout=self.timeout)
        except grpc.RpcError:
            return False
        return self._core.read_to_the_end(snapshot, last)

    def _call(self, method: Callable[..., T], request: Any) -> T:
        backoff = Backoff(give_up=self.unavailable_for)
        while True:
            try:
                return method(request, timeout=self.timeout)
            except grpc.RpcError as rpc_error:
                error = from_rpc_error(rpc_error)
                if not isinstance(error, UnavailableError):
                    raise error from None
                wait = backoff.delay()
                if wait is None:
                    raise error from None
                time.sleep(wait)


class PlaySession:
    """One seat's Play stream, reopened after a dropped connection (ABORTED, UNAVAILABLE, ...)
    after the last event it delivered, with the moves still unanswered sent again under their
    request ids (none lost, none played twice); a move answered UNAVAILABLE (the server's store
    did not answer) is sent again after a backoff, not handed over, until ``unavailable_for``.
    Iterate it (once a match) for :class:`PlayUpdate`; ``move`` and ``resign`` may be called
    from any thread. An iteration ends after the match's last event (with ``keep_open``, once
    every move is answered too, the stream kept for :meth:`follow`) or :meth:`close`; see
    :meth:`SeraiClient.open_play`."""

    def __init__(
        self,
        client: SeraiClient,
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
        self._outgoing: queue.SimpleQueue[pb.PlayRequest | None] | None = None
        self._call: Any = None  # the stream; kept between matches with keep_open
        self._closed = False

    @property
    def last_event_id(self) -> str:
        """The last event delivered: where a new session would resume."""
        return self._book.last

    def move(
        self,
        choice: LegalMove | str | None = None,
        *,
        move: object | None = None,
        expected_version: int = 0,
        request_id: str | None = None,
    ) -> str:
        """Send a move: a legal move (or its id), or typed (``move``); its request id, which
        names its answer."""
        request = self._book.move_request(choice, move, expected_version, request_id)
        self._send(request)
        return request.move.request_id

    def resign(self, request_id: str | None = None) -> str:
        """Resign the seat; the request id of the answer to come."""
        request = self._book.resign_request(request_id)
        self._send(request)
        return request.resign.request_id

    def follow(self, seat: SeatHandle, after_event_id: str = "") -> None:
        """With ``keep_open``, once an iteration has ended: the next match to play, ``seat``'s,
        on the same stream; iterate the session again for it."""
        self._book = self._book.following(seat, after_event_id)
        self._send(self._book.opening()[0])  # else the next stream's opening sends it

    def close(self) -> None:
        """End the stream; the iteration stops."""
        self._closed = True
        outgoing, call = self._outgoing, self._call
        if outgoing is not None:
            outgoing.put(None)
        if call is not None:
            call.cancel()

    def __enter__(self) -> PlaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, request: pb.PlayRequest) -> None:
        outgoing = self._outgoing
        if outgoing is not None:  # else it goes with the next stream's opening (it is pending)
            outgoing.put(request)

    def __iter__(self) -> Iterator[PlayUpdate]:
        client, book = self._client, self._book
        backoff = Backoff(give_up=client.unavailable_for)
        retry = Backoff(give_up=client.unavailable_for)  # of moves answered UNAVAILABLE
        while not (self._closed or client._closed):
            call, outgoing = self._call, self._outgoing
            if call is None or outgoing is None:  # a new stream (else the one kept open)
                outgoing = queue.SimpleQueue()
                self._outgoing = outgoing  # first: a move sent meanwhile is not missed
                for request in book.opening():
                    outgoing.put(request)
                call = self._call = client._stub.Play(_drain(outgoing))
            kept = False
            try:
                for proto in call:
                    update = book.update(proto)
                    if update is not None:
                        backoff.reset()
                        yield update
                    resends = book.take_resends()
                    if resends:  # answered UNAVAILABLE: sent again after a wait (applied once)
                        wait = retry.delay()
                        if wait is None:
                            raise UnavailableError("the server's store stayed unavailable; gave up")
                        time.sleep(wait)
                        for request in resends:
                            outgoing.put(request)
                    elif update is not None and update.answer is not None:
                        retry.reset()
                    if book.keep_open and book.done:
                        kept = True  # the stream stays for follow()
                        return
                if book.finished or client._read_to_the_end(book.seat, book.last):
                    return
                error: SeraiError = UnavailableError("the server ended the Play stream early")
            except grpc.RpcError as rpc_error:
                if self._closed or client._closed:
                    return
                error = from_rpc_error(rpc_error)
                if not self._resume or rpc_error.code() not in RESUMABLE_CODES:
                    raise error from None
            finally:
                if not kept:
                    self._outgoing = self._call = None
                    outgoing.put(None)
                    call.cancel()
            if not self._resume:
                return
            wait = backoff.delay()
            if wait is None:
                raise error
            time.sleep(wait)


def _drain(outgoing: queue.SimpleQueue[pb.PlayRequest | None]) -> Iterator[pb.PlayRequest]:
    """The requests of one stream, as grpc reads them (in a thread of its own)."""
    while (request := outgoing.get()) is not None:
        yield request
