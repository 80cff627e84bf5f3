"""Watch delivery lag when Redis is far away: p50/p99/max from just before a SubmitMove to the
move's arrival at each watcher, for each added delay between the replicas and Redis.

Starts its own Redis and, for each ``--delay-ms`` (added each way, so a round trip costs twice
it more), a delaying TCP proxy in front of it (tests/reliability/delaying_proxy.py) and two
replicas in this process, each through the proxy. One plays ``--playing`` jaipur matches (list
the legal moves, submit one, pause ``--interval`` s); the other serves their watchers (both seats
and a spectator per match, through its watch hub), a spectator of each of ``--idle`` quiet
matches (which the hub looks at again every few seconds) and ``--arriving`` new spectators a
second, each reading its match from the start (the catch-up that stalled the hub). Play starts
once the first watchers have caught up; a new watcher's lag counts only moves submitted after it
opened. Example::

    python benchmarks/watch_latency.py --delay-ms 0 50 200 --playing 20 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _harness import pct
from serai import registry
from serai.matches import Matches
from serai.store.embedded import EmbeddedRedis
from serai.store.redis import RedisStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reliability"))
from delaying_proxy import DelayingProxy


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--delay-ms", type=float, nargs="+", default=[0, 50, 200], help="delays added each way"
    )
    parser.add_argument("--playing", type=int, default=20, help="matches played at once")
    parser.add_argument(
        "--interval", type=float, default=0.2, help="pause after each move of a match (s)"
    )
    parser.add_argument("--arriving", type=float, default=2.0, help="new spectators a second")
    parser.add_argument(
        "--idle", type=int, default=100, help="idle running matches, one spectator each"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each delay runs")
    return parser.parse_args()


class Lags:
    """Delivery lags, split by watchers there from the start and watchers that arrived."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], float] = {}
        self.steady: list[float] = []
        self.arrived: list[float] = []
        self.catch_up: list[float] = []
        self.opened = asyncio.Semaphore(0)  # released by each watch's first batch

    def seen(self, match_id: str, version: int, opened: float, into: list[float]) -> None:
        began = self.sent.get((match_id, version))
        if began is not None and began >= opened:
            into.append(time.perf_counter() - began)


async def watch(matches: Matches, match_id: str, token: str, lags: Lags, into: list[float]) -> None:
    opened = time.perf_counter()
    first = True
    async for batch in matches.watch(match_id, token):
        if first:
            first = False
            lags.opened.release()
            if into is lags.arrived:
                lags.catch_up.append(time.perf_counter() - opened)
        for event in batch.events:
            if event.kind == "move":
                lags.seen(match_id, event.version, opened, into)


async def play(matches: Matches, match_id: str, tokens: list[str], lags: Lags, args: Any) -> None:
    rng = random.Random(match_id)
    await asyncio.sleep(rng.random() * args.interval)
    now = await matches.get(match_id)
    while now.record.status == "running":  # two round trips a move: list, submit
        seat = now.to_act[0]
        listed = await matches.legal_moves(match_id, tokens[seat])
        lags.sent[(match_id, listed.version + 1)] = time.perf_counter()
        move_id = rng.choice(listed.moves).id
        now = (await matches.submit(match_id, tokens[seat], move_id=move_id)).snapshot
        await asyncio.sleep(args.interval)


async def idle_match(matches: Matches, index: int) -> str:
    record = await matches.create("jaipur", seats=2, seed=10_000 + index)
    await asyncio.gather(*(matches.join(record.match_id, seat) for seat in range(2)))
    return record.match_id


async def measure(args: Any, redis_port: int, delay_ms: float) -> dict[str, Any]:
    games = registry.load()
    async with DelayingProxy("127.0.0.1", redis_port, delay=delay_ms / 1000) as proxy:
        url = f"redis://127.0.0.1:{proxy.port}/0"
        play_store, watch_store = RedisStore.from_url(url), RedisStore.from_url(url)
        players = Matches(play_store, games)
        watchers = Matches(watch_store, games)
        hub = watchers.use_watch_hub(watch_store.event_feed())
        lags = Lags()
        tasks: list[asyncio.Task[None]] = []
        try:
            started = []
            for i in range(args.playing):
                record = await players.create("jaipur", seats=2, seed=i)
                tokens = [(await players.join(record.match_id, s)).token for s in range(2)]
                started.append((record.match_id, tokens))
            # quiet matches the hub follows (and looks at again now and then)
            idle = await asyncio.gather(*(idle_match(players, i) for i in range(args.idle)))
            for match_id in idle:
                tasks.append(asyncio.create_task(watch(watchers, match_id, "", lags, [])))
            for match_id, tokens in started:
                for token in (*tokens, ""):
                    tasks.append(
                        asyncio.create_task(watch(watchers, match_id, token, lags, lags.steady))
                    )
            for _ in tasks:  # every watcher there from the start has caught up
                await lags.opened.acquire()
            tasks += [asyncio.create_task(play(players, m, t, lags, args)) for m, t in started]
            rng = random.Random(7)
            end = time.perf_counter() + args.seconds
            while time.perf_counter() < end:
                await asyncio.sleep(1 / args.arriving if args.arriving else 1.0)
                if args.arriving:
                    match_id = rng.choice(started)[0]
                    tasks.append(
                        asyncio.create_task(watch(watchers, match_id, "", lags, lags.arrived))
                    )
            moves = len(lags.sent)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await hub.close()
            await play_store.close()
            await watch_store.close()
    return {"moves": moves, "lags": lags}


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name}: none"
    return (
        f"  {name}: n={len(values)} p50={pct(values, 0.5):.0f} ms "
        f"p99={pct(values, 0.99):.0f} ms max={max(values) * 1000:.0f} ms"
    )


async def main() -> int:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="serai-watch-latency-") as folder:
        redis_server = EmbeddedRedis(folder, persistent=False, private=False).start()
        try:
            for delay_ms in args.delay_ms:
                found = await measure(args, redis_server.port, delay_ms)
                lags = found["lags"]
                rate = found["moves"] / args.seconds
                print(
                    f"+{delay_ms:.0f} ms each way (round trip +{2 * delay_ms:.0f} ms), "
                    f"{args.playing} matches, {rate:.1f} moves/s:"
                )
                print(line("lag, watchers from the start", lags.steady))
                last = lags.steady[-len(lags.steady) // 4 :]
                print(line("... of which the last quarter (does lag grow?)", last))
                print(line("lag, arriving spectators", lags.arrived))
                print(line("arriving spectators' first batch", lags.catch_up))
        finally:
            redis_server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
