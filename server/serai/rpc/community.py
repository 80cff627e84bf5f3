"""The community's RPCs (JoinQueue, LeaveQueue, GetRating, ListLeaderboard) as the handler layer
serves them: who is asking (a player token, or a guest), the queue or board named, and the
answers as messages. :class:`serai.rpc.handlers.MatchHandlers` calls these, for every transport.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

from serai.api import match_service_pb2 as pb
from serai.community import RATED_POOL, Community, Matched, RatingChange, Seeker
from serai.matches import BadRequest
from serai.matches.access import player_key
from serai.matches.requests import check_player_name
from serai.rpc.context import CallContext
from serai.rpc.convert import summary
from serai.rpc.players import player_of
from serai.rpc.status import Code, RpcError
from serai.store.community import QueueKey, RatingBoard, RatingRow

LEADERBOARD_PAGE = 50
LEADERBOARD_MOST = 100
_PAGE_PREFIX = "lb1:"


async def _player(ctx: CallContext, token: str, method: str, why: str) -> tuple[str, str]:
    """(player key, name) of the player ``token`` names; UNAUTHENTICATED without one."""
    if not token:
        raise RpcError(Code.UNAUTHENTICATED, f"{method} needs a player_token: {why}")
    player = await player_of(ctx.principal, token, method)
    return player_key(player.id), player.name


def _queue(community: Community, ctx: CallContext, request: pb.JoinQueueRequest) -> QueueKey:
    return community.matchmaking.queue(
        ctx.tenant, request.game, dict(request.options), request.seats, request.pool
    )


async def seeker_of(request: pb.JoinQueueRequest, ctx: CallContext) -> Seeker:
    """Who joins: the player a token names; a guest (casual only) without one."""
    check_player_name(request.player_name)
    if request.player_token or (request.pool or RATED_POOL) == RATED_POOL:
        player, name = await _player(
            ctx,
            request.player_token,
            "JoinQueue",
            "rated play is for players an app vouches for, or guests with a guest key (or queue "
            "in the casual pool as a guest)",
        )
        return Seeker(player, name or request.player_name or "player", request.bot)
    return Seeker(
        f"guest-{secrets.token_hex(16)}", request.player_name or "guest", request.bot, guest=True
    )


async def join_queue(
    community: Community, request: pb.JoinQueueRequest, ctx: CallContext
) -> AsyncIterator[pb.QueueUpdate]:
    queue = _queue(community, ctx, request)
    seeker = await seeker_of(request, ctx)
    async for update in community.matchmaking.wait(queue, seeker):
        if isinstance(update, Matched):
            joined = update.joined
            matched = pb.QueueMatched(
                match_id=joined.record.match_id,
                seat=joined.seat,
                seat_token=joined.token,
                match=summary(joined.record),
                rated=update.rated,
            )
            yield pb.QueueUpdate(matched=matched)
        else:
            yield pb.QueueUpdate(
                waiting=pb.QueueWaiting(
                    position=update.position,
                    waiting=update.waiting,
                    waited_ms=update.waited_ms,
                    estimate_ms=update.estimate_ms,
                )
            )


async def leave_queue(
    community: Community, request: pb.LeaveQueueRequest, ctx: CallContext
) -> pb.LeaveQueueResponse:
    queue = community.matchmaking.queue(
        ctx.tenant, request.game, dict(request.options), request.seats, request.pool
    )
    player, _ = await _player(
        ctx, request.player_token, "LeaveQueue", "a guest leaves by closing its JoinQueue stream"
    )
    return pb.LeaveQueueResponse(left=await community.matchmaking.leave(queue, player))


def _board(community: Community, ctx: CallContext, game: str, pool: str) -> RatingBoard:
    queue = community.matchmaking.queue(ctx.tenant, game, {}, 0, pool)
    return RatingBoard(ctx.tenant, queue.game, queue.pool)


def rating(community: Community, row: RatingRow, rank: int = 0) -> pb.Rating:
    return pb.Rating(
        player_name=row.name,
        mu=row.mu,
        sigma=row.sigma,
        score=row.score,
        games=row.games,
        provisional=community.ratings.provisional(row),
        bot=row.bot,
        rank=rank,
    )


def _change(change: RatingChange) -> pb.RatingChange:
    return pb.RatingChange(
        match_id=change.match_id,
        mu=change.mu,
        sigma=change.sigma,
        score=change.score,
        score_before=change.score_before,
        place=change.place,
        at_ms=change.at_ms,
    )


async def get_rating(
    community: Community, request: pb.GetRatingRequest, ctx: CallContext
) -> pb.GetRatingResponse:
    board = _board(community, ctx, request.game, request.pool)
    player, name = await _player(ctx, request.player_token, "GetRating", "whose rating to read")
    ratings = community.ratings
    row = await ratings.row(board, player, name, request.bot)
    history = await ratings.history(board, player)
    return pb.GetRatingResponse(
        rating=rating(community, row), history=[_change(c) for c in history]
    )


def _offset(page_token: str) -> int:
    if not page_token:
        return 0
    digits = page_token.removeprefix(_PAGE_PREFIX)
    if not page_token.startswith(_PAGE_PREFIX) or not digits.isdigit() or len(digits) > 9:
        raise BadRequest(
            "page_token was not made by ListLeaderboard: pass next_page_token unchanged, or "
            '"" for the first page'
        )
    return int(digits)


async def list_leaderboard(
    community: Community, request: pb.ListLeaderboardRequest, ctx: CallContext
) -> pb.ListLeaderboardResponse:
    board = _board(community, ctx, request.game, request.pool)
    if request.limit < 0:
        raise BadRequest("limit must be 0 (the default page) or more")
    limit = min(request.limit or LEADERBOARD_PAGE, LEADERBOARD_MOST)
    offset = _offset(request.page_token)
    rows = await community.ratings.leaderboard(board, request.bots, offset, limit + 1)
    following = f"{_PAGE_PREFIX}{offset + limit}" if len(rows) > limit else ""
    return pb.ListLeaderboardResponse(
        ratings=[rating(community, row, offset + i) for i, row in enumerate(rows[:limit])],
        next_page_token=following,
    )


async def get_match_ratings(
    community: Community, request: pb.GetMatchRatingsRequest, ctx: CallContext
) -> pb.GetMatchRatingsResponse:
    moved = await community.match_ratings(request.match_id, ctx.tenant)
    return pb.GetMatchRatingsResponse(
        ratings=[
            pb.SeatRating(seat=seat, rating=rating(community, row), change=_change(change))
            for seat, row, change in moved
        ]
    )
