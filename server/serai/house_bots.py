"""House bots as the server sees them: bots that ``serai serve`` plays itself, so that a person in
a browser can play one without running ``serai bot`` anywhere (``POST /bots``, see
:mod:`serai.transports.connect.bots`).

The server declares what it needs (:class:`HouseBots`) and finds an implementation through the
entry-point group ``serai.house_bots``, as it finds games through ``serai.games``: the SDK's
(:mod:`serai_client.house_bots`) plays each bot as an ordinary client of this process's own gRPC
port, so it sees only what its seat sees. The server imports no client code. Example::

    bots = load("", games, limit=16, per_owner=2)   # None: no implementation installed
    bots.target = local_target("0.0.0.0", 50051)    # once the gRPC port listens
    started = await bots.start(match_id, "greedy", api_key=key, owner="key:acme")

The matchmaking queue seats house bots too (serve's --queue-bot-after): :class:`QueueBots` is
them as the queue sees them (:class:`serai.community.HouseSeats`); the queue joins a bot's seat
itself and the bot plays it by its seat token, with this process's house pass
(:class:`serai.rpc.auth.HousePasses`) for the player's tenant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol

import structlog

from serai.game import Game
from serai.matches import Joined

GROUP = "serai.house_bots"
DEFAULT_LIMIT = 16
DEFAULT_PER_OWNER = 2
MOVE_SECONDS = 1.0
"""How long a search bot may think about one move."""
QUEUE_STRATEGY = "greedy"
"""What a house bot the queue seats plays, where the game offers it (else its first strategy):
quick, and a fair opponent for someone who waited."""

_log = structlog.get_logger("serai.house_bots")


class HouseBotError(Exception):
    """A bot that cannot be started: the HTTP ``status`` and why, for the caller."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class StartedBot:
    """A bot that took its seat and plays on."""

    match_id: str
    game: str
    seat: int
    strategy: str
    player_name: str


class HouseBots(Protocol):
    """The bots one process plays: at most ``limit`` at once, ``per_owner`` for one API key or
    address; ``target`` is this process's own gRPC address, set once it listens."""

    target: str
    limit: int

    def __init__(
        self,
        target: str,
        games: Mapping[str, Game[Any, Any, Any]],
        *,
        limit: int = DEFAULT_LIMIT,
        per_owner: int = DEFAULT_PER_OWNER,
    ) -> None: ...

    @property
    def running(self) -> int:
        """Bots playing now."""
        ...

    def strategies(self) -> dict[str, list[str]]:
        """The strategies each game offers, by game name."""
        ...

    async def start(
        self,
        match_id: str,
        strategy: str,
        *,
        seat: int | None = None,
        api_key: str = "",
        owner: str = "",
        seat_token: str = "",
    ) -> StartedBot:
        """A bot playing ``strategy`` in a free seat of ``match_id`` (``seat``, or the lowest),
        calling with ``api_key``, counted as ``owner``'s; HouseBotError if it cannot. With a
        ``seat_token``, the bot plays ``seat``, joined for it already, by that token."""
        ...

    async def close(self) -> None:
        """Stop every bot, leaving their seats as they are."""
        ...


class QueueBots:
    """The house bots as the matchmaking queue seats them (:class:`serai.community.HouseSeats`):
    ``pass_for`` gives the credential of a bot playing in a tenant (see the module)."""

    def __init__(self, bots: HouseBots, pass_for: Callable[[str], str]) -> None:
        self.bots = bots
        self.pass_for = pass_for

    def strategy(self, game: str) -> str | None:
        offered = self.bots.strategies().get(game, [])
        if not offered or self.bots.running >= self.bots.limit:
            return None
        return QUEUE_STRATEGY if QUEUE_STRATEGY in offered else offered[0]

    async def play(self, joined: Joined, tenant: str, strategy: str) -> None:
        await self.bots.start(
            joined.record.match_id,
            strategy,
            seat=joined.seat,
            api_key=self.pass_for(tenant),
            seat_token=joined.token,
        )


def load(
    target: str,
    games: Mapping[str, Game[Any, Any, Any]],
    *,
    limit: int = DEFAULT_LIMIT,
    per_owner: int = DEFAULT_PER_OWNER,
) -> HouseBots | None:
    """The installed implementation of :class:`HouseBots` (the first of the group
    :data:`GROUP`, by name), made for ``games``; None, logged, when none is installed or it fails
    to load."""
    for found in sorted(entry_points(group=GROUP), key=lambda entry: entry.name):
        try:
            made: HouseBots = found.load()(target, games, limit=limit, per_owner=per_owner)
        except Exception as error:  # a broken plugin: no house bots, the server serves on
            _log.warning("house bots failed to load", entry=found.value, error=repr(error))
            continue
        return made
    _log.info("no house bots installed", group=GROUP)
    return None


def local_target(host: str, port: int) -> str:
    """The address this process's own gRPC port answers on, from the host it listens on."""
    bare = host.strip("[]")
    if bare in ("", "0.0.0.0"):
        return f"127.0.0.1:{port}"
    if bare == "::":
        return f"[::1]:{port}"
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"
