"""The operator's console (``/admin``, see :mod:`serai.transports.connect.admin`): what this
server holds across every tenant, a match with its hidden parts, and ending a match. Answers are
plain JSON values; the transport checks the operator's token before any of these is called.

Example::

    admin = AdminHandlers(handlers, house_bots)
    overview = await admin.overview()        # {"tenants": [...], "keys": [...], ...}
    await admin.end("3f2a9c0d1e4b5a6f")      # the match ends (or, open, is cancelled)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from serai.metrics import exposition
from serai.presentation import presentation
from serai.rpc.convert import snapshot, summary
from serai.store import Status

if TYPE_CHECKING:
    from serai.house_bots import HouseBots
    from serai.rpc.handlers import MatchHandlers

# Matches listed per tenant and status: a console shows the newest, not an archive.
LISTED = 20
_STATUSES: tuple[Status, ...] = ("running", "open", "finished")


class AdminHandlers:
    """The console's calls over the same core and key store the match handlers use."""

    def __init__(self, handlers: MatchHandlers, house_bots: HouseBots | None = None) -> None:
        self.matches = handlers.matches
        self.auth = handlers.auth
        self.house_bots = house_bots

    async def overview(self) -> dict[str, Any]:
        """Every tenant's newest matches by status, the API keys and their limits, the house
        bots playing, and the figures /metrics has."""
        keys = await self.auth.keys.list() if self.auth is not None else []
        tenants = []
        for tenant in ["", *(key.name for key in keys)]:
            listed: dict[str, Any] = {"tenant": tenant}
            for status in _STATUSES:
                page = await self.matches.list_page(status, limit=LISTED, tenant=tenant)
                listed[status] = [_dict(summary(record)) for record in page.matches]
            tenants.append(listed)
        bots = self.house_bots
        return {
            "tenants": tenants,
            "keys": [
                {
                    "name": key.name,
                    "createdMs": key.created_ms,
                    "revokedMs": key.revoked_ms,
                    "maxOpenMatches": key.max_open_matches,
                    "moveRate": key.move_rate,
                    "moveBurst": key.move_burst,
                    "playerTokens": key.players is not None,
                }
                for key in keys
            ],
            "houseBots": None
            if bots is None
            else {"running": bots.running, "limit": bots.limit, "strategies": bots.strategies()},
            "figures": _figures(await exposition(self.matches.store)),
        }

    async def match(self, match_id: str) -> dict[str, Any]:
        """The match as every seat sees it and as a spectator does: the operator's view holds
        each seat's hidden cards, which no seat's does."""
        entry = await self.matches.inspect(match_id)
        record, game = entry.record, entry.game
        views = []
        if entry.state is not None and record.status != "open":
            for seat in [None, *range(len(record.seats))]:
                view = game.view_bytes(game.view(entry.state, seat))
                views.append({"seat": seat, "presentation": _dict(presentation(game, view))})
        return {"match": _dict(summary(record)), "tenant": record.tenant, "views": views}

    async def end(self, match_id: str) -> dict[str, Any]:
        """End a running match, no one winning, or cancel an open one (see
        :meth:`serai.matches.Matches.end`)."""
        return _dict(snapshot(await self.matches.end(match_id)))


def _dict(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(message)


def _figures(text: bytes) -> list[list[str]]:
    """The samples of a Prometheus exposition, as [name with labels, value]."""
    samples = []
    for line in text.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples.append([name, value])
    return samples
