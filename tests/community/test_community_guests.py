"""Rated play for guests (a browser's "Play rated"), through the handlers every transport calls,
on the in-memory store: a guest key is a player wherever a player token is taken, with or
without an API key; two guests are paired in the rated queue, and once their match is rated
GetMatchRatings answers each seat's new rating and change."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
from typing import Any

import pytest
from serai import registry
from serai.api import match_service_pb2 as pb
from serai.matches import Matches, MatchNotFound
from serai.rpc.context import CallContext, Principal
from serai.rpc.handlers import MatchHandlers
from serai.rpc.status import Code, RpcError
from serai.store.memory import MemoryStore

GAMES = registry.load()
GUEST = CallContext("ipv4:127.0.0.1:1")  # no API key: the "" tenant


def guest_key() -> str:
    return "guest_" + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")


async def matched(handlers: MatchHandlers, key: str, name: str, ctx: CallContext) -> Any:
    request = pb.JoinQueueRequest(game="jaipur", player_token=key, player_name=name)
    updates = handlers.JoinQueue(request, ctx)
    async with contextlib.aclosing(updates):  # type: ignore[type-var]
        async for update in updates:
            if update.HasField("matched"):
                return update.matched
    raise AssertionError("the stream ended unmatched")


def run(test: Any) -> Any:
    async def main() -> Any:
        store = MemoryStore()
        try:
            return await asyncio.wait_for(test(MatchHandlers(Matches(store, GAMES))), 60)
        finally:
            await store.close()

    return asyncio.run(main())


def test_two_guests_play_a_rated_match_and_see_each_seats_new_rating() -> None:
    """Paired in the rated queue by their guest keys alone; once rated, GetMatchRatings gives
    both seats' new scores and changes (the winner's up, the loser's down), GetRating the guest's
    own history, and the leaderboard lists both by name."""

    async def test(handlers: MatchHandlers) -> None:
        ada_key, bo_key = guest_key(), guest_key()
        ada, bo = await asyncio.gather(
            matched(handlers, ada_key, "ada", GUEST), matched(handlers, bo_key, "bo", GUEST)
        )
        assert ada.match_id == bo.match_id and ada.rated and {ada.seat, bo.seat} == {0, 1}
        asking = pb.GetMatchRatingsRequest(match_id=ada.match_id)
        assert not (await handlers.GetMatchRatings(asking, GUEST)).ratings  # not finished
        resign = pb.ResignRequest(match_id=bo.match_id, seat_token=bo.seat_token)
        await handlers.Resign(resign, GUEST)
        assert not (await handlers.GetMatchRatings(asking, GUEST)).ratings  # not rated yet
        assert await handlers.community.rater.drain() == 1
        ratings = (await handlers.GetMatchRatings(asking, GUEST)).ratings
        assert [r.seat for r in ratings] == [0, 1]
        by_seat = {r.seat: r for r in ratings}
        won, lost = by_seat[ada.seat], by_seat[bo.seat]
        assert won.rating.player_name == "ada" and lost.rating.player_name == "bo"
        assert won.change.score > won.change.score_before
        assert lost.change.score < lost.change.score_before
        assert won.rating.games == 1 and won.rating.provisional
        assert won.change.match_id == ada.match_id and won.change.place == 0
        mine = await handlers.GetRating(
            pb.GetRatingRequest(game="jaipur", player_token=ada_key), GUEST
        )
        assert mine.rating.score == pytest.approx(won.change.score)
        assert [c.match_id for c in mine.history] == [ada.match_id]
        board = await handlers.ListLeaderboard(pb.ListLeaderboardRequest(game="jaipur"), GUEST)
        assert [r.player_name for r in board.ratings] == ["ada", "bo"]

    run(test)


def test_a_guest_is_one_player_of_each_api_key_and_sees_only_its_matches() -> None:
    """The same guest key under an app's key (even one that takes no player tokens) is that
    tenant's player: another tenant's match ratings are NOT_FOUND, and a malformed guest key is
    UNAUTHENTICATED, saying what a guest key is."""

    async def test(handlers: MatchHandlers) -> None:
        app = CallContext("ipv4:127.0.0.1:2", Principal("app"))
        key = guest_key()
        first, _ = await asyncio.gather(
            matched(handlers, key, "cy", app), matched(handlers, guest_key(), "di", app)
        )
        asking = pb.GetMatchRatingsRequest(match_id=first.match_id)
        assert not (await handlers.GetMatchRatings(asking, app)).ratings
        with pytest.raises(MatchNotFound):
            await handlers.GetMatchRatings(asking, GUEST)
        listed = await handlers.ListMatches(pb.ListMatchesRequest(player_token=key), app)
        assert [m.match_id for m in listed.matches] == [first.match_id]
        elsewhere = await handlers.ListMatches(pb.ListMatchesRequest(player_token=key), GUEST)
        assert not elsewhere.matches
        with pytest.raises(RpcError) as refused:
            await handlers.GetRating(
                pb.GetRatingRequest(game="jaipur", player_token="guest_short"), GUEST
            )
        assert refused.value.code == Code.UNAUTHENTICATED
        assert "43 base64url characters" in str(refused.value)

    run(test)
