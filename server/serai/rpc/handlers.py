"""serai.v1.MatchService as plain async methods, whatever the transport carrying the calls.

Each method takes the request message and a :class:`CallContext` and returns the response
message (``Watch`` yields its messages); failures are the domain's exceptions, which the
transport maps with :mod:`serai.rpc.status`. Nothing here knows gRPC, so a second transport
calls the same methods. Example::

    handlers = MatchHandlers(matches)
    answer = await handlers.GetMatch(pb.GetMatchRequest(match_id=...), CallContext("ipv4:..."))
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, cast

from google.protobuf import any_pb2

from serai.api import match_service_pb2 as pb
from serai.community import Community
from serai.matches import (
    BadRequest,
    Matches,
    PackedMove,
    Submitted,
    WatchBatch,
)
from serai.matches.transcripts import dumps as dumps_transcript
from serai.metrics import MOVES, WATCHERS
from serai.rpc import community as community_rpc
from serai.rpc.context import CallContext, Principal
from serai.rpc.convert import (
    PB_TO_STATUS,
    POLICY_FROM_PB,
    event,
    game_info,
    replay_steps,
    snapshot,
    summary,
)
from serai.rpc.limits import RateLimiter
from serai.rpc.play import OPEN_SECONDS, PlayStreams
from serai.rpc.players import player_of
from serai.rpc.responses import LegalMoveBytes, MovePayloads, SeatLegalMoves, SubmitResponses
from serai.rpc.status import Code, RpcError

if TYPE_CHECKING:
    from serai.rpc.auth import Authenticator


class MatchHandlers:
    """One method per RPC of serai.v1.MatchService, over a :class:`serai.matches.Matches`.

    ``move_limiter`` limits SubmitMove per ``ctx.peer`` (a connection), ``list_limiter``
    ListMatches and GetTranscript together per ``ctx.quota_key`` (an address: a listing or a
    transcript costs the server far more than it costs the caller, and new connections are
    free); none by default. One ``list_limiter`` may
    serve several transports' handlers, so that a caller has one rate on all of them.
    ``auth`` (:mod:`serai.rpc.auth`) is what every transport asks for the CallContext of a call
    that may carry an API key; None: keys are not looked at (an embedded, single-user server).
    ``create_limiter`` limits CreateMatch per ``ctx.quota_key`` (an API key, else an address),
    ``play_open_seconds`` how long a Play stream may take to send its open (0: no limit).
    ``community``: the queues and ratings (:mod:`serai.community`) the community's RPCs serve;
    by default one of its own over ``matches``.
    """

    def __init__(
        self,
        matches: Matches,
        move_limiter: RateLimiter | None = None,
        list_limiter: RateLimiter | None = None,
        auth: Authenticator | None = None,
        *,
        create_limiter: RateLimiter | None = None,
        play_open_seconds: float = OPEN_SECONDS,
        community: Community | None = None,
    ) -> None:
        self.matches = matches
        self.community = community or Community(matches)
        self.auth = auth
        self.move_limiter = move_limiter or RateLimiter(0, 0)
        self.list_limiter = list_limiter or RateLimiter(0, 0)
        self.create_limiter = create_limiter or RateLimiter(0, 0)
        self.payloads = MovePayloads()
        self.seat_moves = SeatLegalMoves(LegalMoveBytes(self.payloads))
        self.responses = SubmitResponses()
        self.key_move_limiters: dict[str, tuple[tuple[float, float], RateLimiter]] = {}
        self.play_streams = PlayStreams(self, open_seconds=play_open_seconds)

    async def recheck(self, ctx: CallContext, method: str) -> None:
        """A stream's API key checked again (from the process's key cache, so a revocation
        ends a stream as soon as it refuses a unary call): RpcError(UNAUTHENTICATED) once the
        key is revoked. Streams call it before each batch they send and each move they play."""
        if ctx.principal is not None and self.auth is not None:
            await self.auth.principal(ctx.api_key, method)

    async def ListGames(
        self, request: pb.ListGamesRequest, ctx: CallContext
    ) -> pb.ListGamesResponse:
        return pb.ListGamesResponse(games=[game_info(info) for info in self.matches.games()])

    async def CreateMatch(
        self, request: pb.CreateMatchRequest, ctx: CallContext
    ) -> pb.CreateMatchResponse:
        whose = "from this API key" if ctx.principal is not None else "from this address"
        self.create_limiter.check(ctx.quota_key, "CreateMatch calls", whose)
        if not request.game:
            raise BadRequest("game is empty: name one of the games ListGames lists")
        policy = POLICY_FROM_PB.get(request.timeout_policy)
        if policy is None:
            raise BadRequest(
                f"unknown timeout_policy {request.timeout_policy}; "
                "use LOSE, DEFAULT_MOVE or LOSE_OR_CANCEL"
            )
        record = await self.matches.create(
            request.game,
            seats=request.seats,
            options=dict(request.options),
            seed=request.seed if request.HasField("seed") else None,
            client_id=request.client_id,
            move_seconds=request.move_seconds,
            timeout_policy=policy,  # type: ignore[arg-type]
            bank_seconds=request.bank_seconds,
            request_id=request.request_id,
            quota_key=ctx.quota_key,
            tenant=ctx.tenant,
            max_open=None if ctx.principal is None else ctx.principal.max_open_matches,
            spectator_delay_moves=request.spectator_delay_moves,
        )
        if request.rated:
            await self.community.register_created(record)
        return pb.CreateMatchResponse(match=summary(record))

    async def JoinMatch(
        self, request: pb.JoinMatchRequest, ctx: CallContext
    ) -> pb.JoinMatchResponse:
        player_name, player_id = request.player_name, ""
        if request.player_token:
            player = await player_of(ctx.principal, request.player_token, "JoinMatch")
            player_id, player_name = player.id, player.name or player_name
        joined = await self.matches.join(
            request.match_id,
            seat=request.seat if request.HasField("seat") else None,
            player_name=player_name,
            request_id=request.request_id,
            entropy=request.entropy,
            tenant=ctx.tenant,
            player_id=player_id,
        )
        return pb.JoinMatchResponse(
            seat=joined.seat,
            seat_token=joined.token,
            match=summary(joined.record),
            replayed=joined.replayed,
        )

    async def Rematch(self, request: pb.RematchRequest, ctx: CallContext) -> pb.JoinMatchResponse:
        whose = "from this API key" if ctx.principal is not None else "from this address"
        self.create_limiter.check(ctx.quota_key, "CreateMatch calls", whose)
        joined = await self.matches.rematch(
            request.match_id,
            request.seat_token,
            entropy=request.entropy,
            tenant=ctx.tenant,
            quota_key=ctx.quota_key,
            max_open=None if ctx.principal is None else ctx.principal.max_open_matches,
        )
        # a rated match's rematch is rated too, and its house bots ask for it too
        await self.community.rematched(request.match_id, joined.record)
        return pb.JoinMatchResponse(
            seat=joined.seat,
            seat_token=joined.token,
            match=summary(joined.record),
            replayed=joined.replayed,
        )

    async def ListMatches(
        self, request: pb.ListMatchesRequest, ctx: CallContext
    ) -> pb.ListMatchesResponse:
        self.list_limiter.check(ctx.quota_key, "ListMatches calls", "from this address")
        if request.status and request.status not in PB_TO_STATUS:
            raise BadRequest(f"unknown status {request.status}; use OPEN, RUNNING or FINISHED")
        player_id = ""
        if request.player_token:
            player_id = (await player_of(ctx.principal, request.player_token, "ListMatches")).id
        page = await self.matches.list_page(
            status=PB_TO_STATUS.get(request.status),
            game=request.game or None,
            limit=request.limit,
            page_token=request.page_token,
            tenant=ctx.tenant,
            player_id=player_id,
        )
        return pb.ListMatchesResponse(
            matches=[summary(r) for r in page.matches], next_page_token=page.next_page_token
        )

    async def GetMatch(self, request: pb.GetMatchRequest, ctx: CallContext) -> pb.MatchSnapshot:
        found = await self.matches.get(request.match_id, request.seat_token, ctx.tenant)
        return snapshot(found, presented=request.presentation)

    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, ctx: CallContext
    ) -> pb.ListLegalMovesResponse:
        entry, seat = await self.matches.seated(request.match_id, request.seat_token, ctx.tenant)
        response = pb.ListLegalMovesResponse(seat=seat, version=entry.record.version)
        # the bytes Play sends, kept per (match, version, seat): built once for both paths
        response.MergeFromString(self.seat_moves.field(entry, seat, steps=True))
        return response

    async def SubmitMove(
        self, request: pb.SubmitMoveRequest, ctx: CallContext
    ) -> pb.SubmitMoveResponse:
        which = request.WhichOneof("move")
        done = await self.submit(
            ctx,
            request.match_id,
            request.seat_token,
            move_id=request.move_id if which == "move_id" else "",
            payload=request.payload if which == "payload" else None,
            expected_version=request.expected_version,
            request_id=request.request_id,
        )
        return self.responses.submitted(done)

    async def submit(
        self,
        ctx: CallContext,
        match_id: str,
        token: str,
        *,
        move_id: str,
        payload: any_pb2.Any | None,
        expected_version: int,
        request_id: str,
    ) -> Submitted:
        """A move as SubmitMove and Play make it: within the caller's move rate (its API key's,
        else its connection's), counted once however often it is retried."""
        principal = ctx.principal
        if principal is not None and principal.move_rate > 0:
            self._key_moves(principal)
        else:
            self.move_limiter.check(ctx.peer, "moves", "on this connection")
        done = await self.matches.submit(
            match_id,
            token,
            move_id=move_id,
            payload=None if payload is None else PackedMove(payload.type_url, payload.value),
            expected_version=expected_version,
            request_id=request_id,
            tenant=ctx.tenant,
        )
        if not done.replayed:
            MOVES.inc()
        return done

    async def GetTranscript(
        self, request: pb.GetTranscriptRequest, ctx: CallContext
    ) -> pb.GetTranscriptResponse:
        # A finished match's transcript replays it whole: rated as a listing, for the same reason.
        calls = "ListMatches and GetTranscript calls"
        self.list_limiter.check(ctx.quota_key, calls, "from this address")
        document = await self.matches.transcript(request.match_id, request.seat_token, ctx.tenant)
        return pb.GetTranscriptResponse(transcript=dumps_transcript(document))

    async def GetReplay(
        self, request: pb.GetReplayRequest, ctx: CallContext
    ) -> pb.GetReplayResponse:
        # A replay is a transcript with every view: rated as GetTranscript is.
        calls = "ListMatches, GetTranscript and GetReplay calls"
        self.list_limiter.check(ctx.quota_key, calls, "from this address")
        viewer = request.seat if request.HasField("seat") else None
        steps = await self.matches.replay_steps(request.match_id, viewer, ctx.tenant)
        return replay_steps(steps)

    def _key_moves(self, principal: Principal) -> None:
        """An API key's own move rate, for all its connections to this process together."""
        asked = (principal.move_rate, principal.move_burst)
        made = self.key_move_limiters.get(principal.name)
        if made is None or made[0] != asked:  # new, or the key's limits changed
            made = self.key_move_limiters[principal.name] = (asked, RateLimiter(*asked, keys=1))
        made[1].check(principal.name, "moves", "with this API key on this server")

    async def ReclaimSeat(
        self, request: pb.ReclaimSeatRequest, ctx: CallContext
    ) -> pb.JoinMatchResponse:
        if not request.player_token:
            raise RpcError(
                Code.UNAUTHENTICATED,
                "ReclaimSeat needs the player's player_token (the seat is the player's whom it "
                "names)",
            )
        player = await player_of(ctx.principal, request.player_token, "ReclaimSeat")
        joined = await self.matches.reclaim(request.match_id, player.id, ctx.tenant)
        return pb.JoinMatchResponse(
            seat=joined.seat, seat_token=joined.token, match=summary(joined.record)
        )

    async def Resign(self, request: pb.ResignRequest, ctx: CallContext) -> pb.MatchSnapshot:
        return snapshot(await self.matches.resign(request.match_id, request.seat_token, ctx.tenant))

    async def CancelMatch(
        self, request: pb.CancelMatchRequest, ctx: CallContext
    ) -> pb.MatchSnapshot:
        cancelled = await self.matches.cancel(request.match_id, request.seat_token, ctx.tenant)
        return snapshot(cancelled)

    async def Watch(
        self, request: pb.WatchRequest, ctx: CallContext
    ) -> AsyncIterator[pb.MatchEvent]:
        """The match's events after ``after_event_id``, the last of each batch with the snapshot
        the watcher may see; closed with the stream, so the watch's slot is freed at once."""
        batches = cast(
            AsyncGenerator[WatchBatch, None],  # Matches.watch is an async generator
            self.matches.watch(
                request.match_id,
                request.seat_token,
                request.after_event_id,
                peer=ctx.peer,
                tenant=ctx.tenant,
            ),
        )
        WATCHERS.inc()
        try:
            async with contextlib.aclosing(batches):
                async for batch in batches:
                    await self.recheck(ctx, "Watch")
                    last = len(batch.events) - 1
                    for i, stored in enumerate(batch.events):
                        message = event(stored)
                        if i == last:
                            message.snapshot.CopyFrom(
                                snapshot(batch.snapshot, presented=request.presentation)
                            )
                        yield message
        finally:
            WATCHERS.dec()

    def Play(
        self, requests: AsyncIterator[pb.PlayRequest], ctx: CallContext
    ) -> AsyncIterator[bytes]:
        """A seat's events with its legal moves, and its moves' answers, each PlayUpdate as its
        message's bytes (a transport sends them as they are): see :mod:`serai.rpc.play`."""
        return self.play_streams.play(requests, ctx)

    # The community (issue 35): see serai.rpc.community.

    def JoinQueue(
        self, request: pb.JoinQueueRequest, ctx: CallContext
    ) -> AsyncIterator[pb.QueueUpdate]:
        return community_rpc.join_queue(self.community, request, ctx)

    async def LeaveQueue(
        self, request: pb.LeaveQueueRequest, ctx: CallContext
    ) -> pb.LeaveQueueResponse:
        return await community_rpc.leave_queue(self.community, request, ctx)

    async def GetRating(
        self, request: pb.GetRatingRequest, ctx: CallContext
    ) -> pb.GetRatingResponse:
        return await community_rpc.get_rating(self.community, request, ctx)

    async def ListLeaderboard(
        self, request: pb.ListLeaderboardRequest, ctx: CallContext
    ) -> pb.ListLeaderboardResponse:
        self.list_limiter.check(ctx.quota_key, "ListMatches calls", "from this address")
        return await community_rpc.list_leaderboard(self.community, request, ctx)

    async def GetMatchRatings(
        self, request: pb.GetMatchRatingsRequest, ctx: CallContext
    ) -> pb.GetMatchRatingsResponse:
        # Not rate-limited as listings are: a GetMatch and a few reads of one board, which an
        # end-of-match summary asks until the ratings are in.
        return await community_rpc.get_match_ratings(self.community, request, ctx)
