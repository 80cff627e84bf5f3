"""House bots, played by the SDK's bots: the implementation ``serai serve`` finds through the
entry-point group ``serai.house_bots`` (see :mod:`serai.house_bots`, the interface the server
declares), so that the server imports no client code. A person in a browser plays a greedy or
search bot without running ``serai bot`` anywhere.

Each bot is an ordinary client of the process's own gRPC port (the SDK's AsyncSeraiClient), so
it sees only what its seat sees, and it calls with the API key of whoever asked for it: it can
join only a match that caller could join. It takes a free seat, plays with the chosen strategy
to the end, then stops. A search thinks for a second a move: in processes of its own, at a
lower CPU priority (a thread would hold the GIL the event loop needs, and every other caller's
latency with it); the quick strategies think in a small thread pool. Which strategies a game
offers is the bots package's to say (:func:`serai_client.bots.strategies_for`); nothing here
names a game. At most ``limit`` bots play at once per process, ``per_owner`` of them for one
API key or client address; :meth:`HouseBots.close` ends them all at shutdown. Example::

    bots = HouseBots("127.0.0.1:50051", games, limit=16)
    started = await bots.start(match_id, "greedy", api_key=key_of_the_caller, owner="key:acme")
    ...
    await bots.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
import os
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import structlog
from serai.game import Game
from serai.house_bots import (
    DEFAULT_LIMIT,
    DEFAULT_PER_OWNER,
    MOVE_SECONDS,
    HouseBotError,
    StartedBot,
)

from serai_client import bots

THINKING_NICENESS = 10  # how much lower a search's processes run than the server's

# A client's error (its gRPC status) as the HTTP status the caller gets.
_HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "FAILED_PRECONDITION": 409,  # every seat is taken, or the match is over
    "RESOURCE_EXHAUSTED": 429,
    "UNAVAILABLE": 503,
}

_log = structlog.get_logger("serai.house_bots")


class HouseBots:
    """The bots one process plays; see the module's example. ``games``: the games it serves,
    by name; ``threads``: how many bots may think at the same moment."""

    def __init__(
        self,
        target: str,
        games: Mapping[str, Game[Any, Any, Any]],
        *,
        limit: int = DEFAULT_LIMIT,
        per_owner: int = DEFAULT_PER_OWNER,
        move_seconds: float = MOVE_SECONDS,
        threads: int | None = None,
    ) -> None:
        self.target = target
        self.limit = limit
        self.per_owner = per_owner  # 0: no limit
        self.move_seconds = move_seconds
        self._offered = {
            name: bots.strategies_for(name, game) for name, game in sorted(games.items())
        }
        workers = threads or max(1, min(4, os.cpu_count() or 1))
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="house-bot")
        self._thinkers = workers
        self._processes: ProcessPoolExecutor | None = None  # made at the first search
        self._playing: set[asyncio.Task[None]] = set()
        self._starting = 0  # admitted under the limit, seat not yet taken
        self._by_owner: dict[str, int] = {}  # bots playing or starting, by API key or address
        self._closing = False

    @property
    def running(self) -> int:
        return len(self._playing)

    def strategies(self) -> dict[str, list[str]]:
        """The strategies each game offers, by game name."""
        return {game: list(names) for game, names in self._offered.items()}

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
        calling with ``api_key``, counted as ``owner``'s (its API key or address, as
        :attr:`serai.rpc.context.CallContext.quota_key` writes it); raises HouseBotError if it
        cannot. With a ``seat_token`` it plays ``seat``, already joined for it (the queue's
        house bots: see :class:`serai.house_bots.QueueBots`)."""
        known = {name for names in self._offered.values() for name in names}
        if strategy not in known:
            raise HouseBotError(
                400, f"no bot strategy {strategy!r}; choose one of: {', '.join(sorted(known))}"
            )
        if self._closing:
            raise HouseBotError(503, "the server is stopping")
        if len(self._playing) + self._starting >= self.limit:
            raise HouseBotError(
                429,
                f"this server plays at most {self.limit} house bots at once "
                "(serai serve --house-bots); try again when a match ends",
            )
        if owner and self.per_owner and self._by_owner.get(owner, 0) >= self.per_owner:
            raise HouseBotError(
                429,
                f"you already have {self.per_owner} house bots playing on this server, the most "
                "one caller may (serai serve --house-bots-per-client); try again when one ends",
            )
        self._starting += 1
        self._count(owner, 1)
        started = False
        try:
            bot = await self._seat(match_id, strategy, seat, api_key, owner, seat_token)
            started = True
            return bot
        finally:
            self._starting -= 1
            if not started:
                self._count(owner, -1)

    def _count(self, owner: str, change: int) -> None:
        if not owner:
            return
        left = self._by_owner.get(owner, 0) + change
        if left > 0:
            self._by_owner[owner] = left
        else:
            self._by_owner.pop(owner, None)

    async def _seat(
        self,
        match_id: str,
        strategy: str,
        seat: int | None,
        api_key: str,
        owner: str,
        seat_token: str,
    ) -> StartedBot:
        from serai_client.aio import AsyncSeraiClient
        from serai_client.errors import SeraiError
        from serai_client.types import SeatHandle

        client = AsyncSeraiClient(self.target, api_key=api_key, client_id="house-bot")
        try:
            try:
                game = (await client.get_match(match_id)).game
            except SeraiError as error:
                raise _http_error(error) from None
            offered = self._offered.get(game, ())
            if strategy not in offered:
                raise HouseBotError(
                    400,
                    f"{game} has no {strategy} bot; it offers: {', '.join(offered) or 'none'}",
                )
            try:
                player = self._make(strategy, game)
            except ValueError as error:
                raise HouseBotError(400, str(error)) from None
            name = f"{strategy} bot"
            if seat_token and seat is not None:
                handle = SeatHandle(match_id, seat, seat_token, game, name)
            else:
                try:
                    handle = await client.join(match_id, seat, player_name=name)
                except SeraiError as error:
                    raise _http_error(error) from None
        except BaseException:
            await client.close()
            raise
        task = asyncio.get_running_loop().create_task(
            self._play(client, handle, player, self._thinking(strategy, game))
        )
        self._playing.add(task)
        task.add_done_callback(self._playing.discard)
        task.add_done_callback(lambda _: self._count(owner, -1))
        _log.info("house bot joined", match=match_id, seat=handle.seat, strategy=strategy)
        return StartedBot(match_id, game, handle.seat, strategy, name)

    def _options(self, strategy: str) -> tuple[tuple[str, Any], ...]:
        return (("time_limit", self.move_seconds),) if strategy == "search" else ()

    def _make(self, strategy: str, game: str) -> Any:
        return bots.make_strategy(strategy, game, **dict(self._options(strategy)))

    def _thinking(self, strategy: str, game: str) -> Any:
        """How a bot of ``strategy`` chooses each move, off the event loop: a search in the
        processes (its own strategy there, built once per process), the rest in the threads."""
        loop = asyncio.get_running_loop()
        if strategy != "search":

            async def in_thread(chosen_by: Any, snapshot: Any, moves: Any) -> Any:
                return await loop.run_in_executor(self._pool, chosen_by.choose, snapshot, moves)

            return in_thread
        if self._processes is None:
            self._processes = ProcessPoolExecutor(
                self._thinkers,
                # never fork: this process runs gRPC's threads (a forked child may crash in them)
                mp_context=multiprocessing.get_context("spawn"),
                initializer=os.nice,
                initargs=(THINKING_NICENESS,),
            )
        processes, options = self._processes, self._options(strategy)

        async def in_process(chosen_by: Any, snapshot: Any, moves: Any) -> Any:
            from serai.api import match_service_pb2 as pb

            # as bytes: the messages' classes are not importable by the names pickle gives them
            listed = pb.ListLegalMovesResponse(
                seat=moves.seat, version=moves.version, moves=[move.proto for move in moves.moves]
            )
            chosen = await loop.run_in_executor(
                processes,
                choose_in_process,
                strategy,
                game,
                options,
                snapshot.proto.SerializeToString(),
                listed.SerializeToString(),
            )
            return moves.by_id(chosen)

        return in_process

    async def _play(self, client: Any, handle: Any, strategy: Any, think: Any) -> None:
        from serai_client.bots.aio import play_seat_async
        from serai_client.errors import SeraiError

        where = {"match": handle.match_id, "seat": handle.seat, "strategy": strategy.name}
        try:
            final = await play_seat_async(client, handle, strategy, think=think)
            _log.info("house bot done", finished=final.finished, **where)
        except asyncio.CancelledError:
            _log.info("house bot stopped", **where)  # the server is stopping
            raise
        except SeraiError as error:
            _log.warning("house bot gave up", error=str(error), **where)
        except Exception:
            _log.exception("house bot failed", **where)
        finally:
            await client.close()

    async def close(self) -> None:
        """Stop every bot (their clients closed, their seats left as they are) and the pool;
        a search thinking now ends within its time per move, unwaited."""
        self._closing = True
        playing = list(self._playing)
        for task in playing:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*playing, return_exceptions=True)
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=False, cancel_futures=True)


def choose_in_process(
    strategy: str, game: str, options: tuple[tuple[str, Any], ...], snapshot: bytes, moves: bytes
) -> str:
    """The id of the move ``strategy`` chooses, run in a thinking process: ``snapshot`` a
    MatchSnapshot's bytes, ``moves`` a ListLegalMovesResponse's."""
    from serai.api import match_service_pb2 as pb

    from serai_client.types import LegalMove, LegalMoves, Snapshot

    decoder = _decoder()
    seen = pb.MatchSnapshot.FromString(snapshot)
    listed = pb.ListLegalMovesResponse.FromString(moves)
    offered = LegalMoves(
        listed.seat,
        listed.version,
        tuple(LegalMove(m.id, m.label, decoder.move(game, m.payload), m) for m in listed.moves),
    )
    view = Snapshot(seen, decoder.view(game, seen.view))
    return str(_strategy(strategy, game, options).choose(view, offered).id)


@functools.cache
def _decoder() -> Any:
    from serai_client.types import Decoder

    return Decoder()


@functools.cache
def _strategy(strategy: str, game: str, options: tuple[tuple[str, Any], ...]) -> Any:
    """A thinking process's strategy for ``game``, made once (a search loads the plugins)."""
    return bots.make_strategy(strategy, game, **dict(options))


def _http_error(error: Any) -> HouseBotError:
    """A SeraiError from the bot's call, as the caller's HTTP error (the same words it would
    get making that call itself)."""
    status = _HTTP_STATUS.get(getattr(error.code, "name", ""), 502)
    return HouseBotError(status, str(error))
