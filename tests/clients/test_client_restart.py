"""A watch survives a server restart: it reconnects, resumes after the last event it delivered,
and neither misses nor repeats an event. The server is a real ``serai serve`` process, stopped
(gracefully, or killed) and started again on the same port and the same Redis mid-match."""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
import time
from typing import Any

import pytest
from serai_client import AsyncSeraiClient, SeraiClient
from serai_client.bots.random_bot import RandomStrategy
from serai_client.errors import UnavailableError
from serai_client.types import Event
from waiting import wait_until


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def play_moves(client: SeraiClient, seats: list[Any], count: int) -> int:
    """Play up to ``count`` random legal moves (seeded); how many were played."""
    bot = RandomStrategy(seed=5)
    played = 0
    while played < count:
        snapshot = client.get_match(seats[0].match_id)
        if snapshot.finished:
            break
        client.play(seats[snapshot.to_act[0]], bot.choose)
        played += 1
    return played


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "killed"])
def test_a_watch_resumes_after_a_server_restart_and_misses_no_event(start_serve, redis_url, how):
    port = str(free_port())
    first = start_serve("--port", port, "--redis-url", redis_url)
    client = SeraiClient(first.address, timeout=5, unavailable_for=40)
    match = client.create_match("jaipur", seed=21)
    seats = [client.join(match.match_id), client.join(match.match_id)]
    seen: list[Event] = []
    errors: list[BaseException] = []

    def watch() -> None:
        try:
            seen.extend(client.watch(match.match_id))
        except BaseException as error:  # reported by the test below
            errors.append(error)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert play_moves(client, seats, 6) == 6
    wait_until(lambda: sum(e.kind == "move" for e in seen) == 6, "the six moves seen")

    first.stop(how)
    second = start_serve("--port", port, "--redis-url", redis_url)
    assert second.address == first.address
    assert play_moves(client, seats, 6) == 6  # on the restarted server
    client.resign(seats[0])  # the match ends, and with it the watch
    watcher.join(60)
    assert not watcher.is_alive() and not errors

    with SeraiClient(second.address) as fresh:
        everything = [event.id for event in fresh.watch(match.match_id)]
    ids = [event.id for event in seen]
    assert ids == everything  # every event, in order, none twice
    assert [e.kind for e in seen].count("move") == 12
    assert seen[-1].kind == "finished"
    client.close()


def test_the_asyncio_watch_also_resumes_after_a_killed_server(start_serve, redis_url):
    port = str(free_port())
    first = start_serve("--port", port, "--redis-url", redis_url)
    client = SeraiClient(first.address, timeout=5, unavailable_for=40)
    match = client.create_match("jaipur", seed=22)
    seats = [client.join(match.match_id), client.join(match.match_id)]
    seen: list[Event] = []
    errors: list[BaseException] = []

    async def collect() -> None:
        async with AsyncSeraiClient(first.address, unavailable_for=40) as aio:
            async for event in aio.watch(match.match_id):
                seen.append(event)

    def watch() -> None:
        try:
            asyncio.run(collect())
        except BaseException as error:  # reported by the test below
            errors.append(error)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert play_moves(client, seats, 4) == 4
    wait_until(lambda: sum(e.kind == "move" for e in seen) == 4, "the four moves seen")
    first.stop(signal.SIGKILL)
    start_serve("--port", port, "--redis-url", redis_url)
    assert play_moves(client, seats, 4) == 4
    client.resign(seats[1])
    watcher.join(60)
    assert not watcher.is_alive() and not errors
    with SeraiClient(first.address) as fresh:
        assert [e.id for e in seen] == [e.id for e in fresh.watch(match.match_id)]
    client.close()


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_watch_gives_up_after_one_unavailable_for_when_the_server_stops_for_good(
    start_serve, redis_url, flavour
):
    """A graceful stop ends the stream; the watch then asks where the match is (one try) and
    reconnects with backoff: its one budget is ``unavailable_for``, not twice that (the ask used
    to retry for a whole budget of its own first). 3 s of budget; 5 s would be the old double."""
    server = start_serve("--port", str(free_port()), "--redis-url", redis_url)
    with SeraiClient(server.address) as client:
        match = client.create_match("jaipur", seed=23)
        for _ in range(2):
            client.join(match.match_id)
    outcome: list[tuple[str, float]] = []
    stopped: list[float] = []
    seen: list[str] = []

    def watch() -> None:
        try:
            if flavour == "sync":
                with SeraiClient(server.address, unavailable_for=3) as client:
                    for event in client.watch(match.match_id):
                        seen.append(event.kind)
            else:

                async def collect() -> None:
                    async with AsyncSeraiClient(server.address, unavailable_for=3) as client:
                        async for event in client.watch(match.match_id):
                            seen.append(event.kind)

                asyncio.run(collect())
        except UnavailableError:
            outcome.append(("unavailable", time.monotonic() - stopped[0]))
        except BaseException as error:  # reported below
            outcome.append((repr(error), 0.0))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    wait_until(lambda: "started" in seen, "the watch read the events so far")
    stopped.append(time.monotonic())
    server.stop(signal.SIGTERM)
    watcher.join(30)
    assert outcome and outcome[0][0] == "unavailable", outcome
    assert outcome[0][1] < 5.0, outcome  # about 3 s: one budget
