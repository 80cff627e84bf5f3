"""Looking at matches without changing them (though a read may enforce a clock that ran out:
see :meth:`serai.matches.clocks.Clocks.current`): the list, one match as a seat or a spectator
sees it, and a seat's legal moves with their ids. Listings of finished matches (and of every
status) include the archive's, once there is one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from serai.archive import Archive
from serai.game import Seat
from serai.matches import access, paging, spectating
from serai.matches.cache import Entry
from serai.matches.clocks import Clocks
from serai.matches.values import LegalMove, LegalMoves, MatchPage, Snapshot
from serai.store import MatchRecord, Status, Store


def snapshot(entry: Entry, seat: Seat | None) -> Snapshot:
    """The match as ``seat`` (None: a spectator) may see it."""
    running = entry.record.status == "running"
    to_act = tuple(entry.game.to_act(entry.state)) if running else ()
    return Snapshot(entry.record, entry.game, seat, entry.view_for(seat), to_act, entry)


class Reading:
    """ListMatches, GetMatch and ListLegalMoves."""

    def __init__(self, store: Store, clocks: Clocks, archive: Archive | None = None) -> None:
        self.store = store
        self.clocks = clocks
        self.archive = archive

    async def list_matches(
        self, status: Status | None = None, game: str | None = None, limit: int = 50
    ) -> list[MatchRecord]:
        """The first page of matches, newest first, by status and game (any when None)."""
        return list((await self.list_page(status, game, limit)).matches)

    async def list_page(
        self,
        status: Status | None = None,
        game: str | None = None,
        limit: int = 50,
        page_token: str = "",
        tenant: str = "",
        player_id: str = "",
    ) -> MatchPage:
        """A page of matches newest first, by status and game (any when None): at most
        :data:`~serai.matches.paging.MAX_PAGE` (``limit`` 0: the default), after the match
        ``page_token`` names ("": from the newest); see :mod:`serai.matches.paging`. With a
        ``player_id`` (a player token's, checked by the service), only the matches in which
        that player holds a seat."""
        size = paging.page_size(limit)
        game = game or None
        after = paging.read_page_token(page_token, status, game)
        # One more than the page: whether there is a next page is known without another call.
        if player_id:
            records = await self.store.player_matches(
                tenant, access.player_key(player_id), status, game, size + 1, after=after
            )
        else:
            records = await self.store.list_matches(
                status, game, size + 1, after=after, tenant=tenant
            )
        if self.archive is not None and status in (None, "finished"):
            records = await self._with_archived(records, tenant, player_id, game, size + 1, after)
        if len(records) <= size:
            return MatchPage(tuple(records), "")
        last = records[size - 1]
        token = paging.page_token(status, game, last.created_ms, last.match_id)
        return MatchPage(tuple(records[:size]), token)

    async def _with_archived(
        self,
        records: list[MatchRecord],
        tenant: str,
        player_id: str,
        game: str | None,
        limit: int,
        after: tuple[int, str] | None,
    ) -> list[MatchRecord]:
        """``records`` (the store's) merged with the archive's matches of the same listing: both
        are ordered by (created_ms, match_id) descending and paged from the same position, so the
        first ``limit`` of the merge are the page's; a match in both (archived, not expired yet)
        once, as the store has it."""
        assert self.archive is not None
        if player_id:
            player = access.player_key(player_id)
            archived = await self.archive.player_matches(
                tenant, player, limit, game=game, after=after
            )
        else:
            archived = await self.archive.tenant_matches(tenant, limit, game=game, after=after)
        if not archived:
            return records
        merged = {record.match_id: record for record in archived}
        merged.update((record.match_id, record) for record in records)
        ordered = sorted(merged.values(), key=lambda r: (r.created_ms, r.match_id), reverse=True)
        return ordered[:limit]

    async def get(self, match_id: str, token: str = "", tenant: str | None = None) -> Snapshot:
        """The match as the token's seat sees it, or as a spectator without a token."""
        entry = await self.clocks.current(match_id)
        access.check_tenant(entry, tenant)
        seat = access.authenticate(entry, token)
        if seat is None and spectating.delayed(entry):
            entry = await spectating.spectator_entry(self.clocks.entries, entry)
        return snapshot(entry, seat)

    async def legal_moves(self, match_id: str, token: str, tenant: str | None = None) -> LegalMoves:
        """The seat's legal moves now, each with an id valid at this version (empty if none)."""
        return legal_moves_of(*await self.seated(match_id, token, tenant))

    async def seated(
        self, match_id: str, token: str, tenant: str | None = None
    ) -> tuple[Entry, Seat]:
        """The match now and the token's seat in it (Unauthenticated without one): what a
        seat's legal moves are listed from."""
        entry = await self.clocks.current(match_id)
        access.check_tenant(entry, tenant)
        return entry, access.require_seat(entry, token)


def legal_moves_of(entry: Entry, seat: Seat) -> LegalMoves:
    """The seat's legal moves at the entry's version, each with its id (empty if it is not to
    act): what ListLegalMoves lists, and what a Play stream sends with a snapshot."""
    record = entry.record
    listed = tuple(
        LegalMove(f"{record.version}.{i}", entry.game.label(move), move)
        for i, move in enumerate(moves_of(entry, seat))
    )
    return LegalMoves(entry.game, seat, record.version, listed)


def moves_of(entry: Entry, seat: Seat) -> Sequence[Any]:
    """The seat's legal moves at the entry's version, in the game's order; none unless the
    match is running and the seat is to act."""
    if entry.record.status == "running" and seat in entry.game.to_act(entry.state):
        return entry.legal_for(seat)
    return ()
