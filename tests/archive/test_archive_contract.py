"""The Archive contract, run against every implementation (SQLite, and PostgreSQL on a server of
the tests' own): what is put comes back byte for byte, a second put writes nothing, and the
listings by tenant and by player are newest first and page without overlap."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from serai.archive import Archive, ArchivedMatch, ArchiveError
from serai.archive.opening import open_archive
from serai.store import LogEntry, MatchRecord, SeatRecord

T = TypeVar("T")


def _match(
    match_id: str,
    created_ms: int,
    tenant: str = "",
    players: tuple[str, ...] = (),
    game: str = "jaipur",
) -> Any:
    seats = tuple(
        SeatRecord(
            name=f"p{i}",
            joined=True,
            resigned=i == 1,
            token_hash="ab" * 32,
            entropy=bytes([i]) * 16,
            player=player,
        )
        for i, player in enumerate(players or ("", ""))
    )
    record = MatchRecord(
        match_id=match_id,
        game=game,
        options={"rounds": "3"},
        seed=12345678901234,
        created_ms=created_ms,
        status="finished",
        version=7,
        seats=seats,
        state=bytes(range(256)) * 3,
        outcome={"scores": [3, 1], "ranks": [0, 1]},
        last_event_id="1700000000000-3",
        client_id="bot",
        move_seconds=30,
        deadline_ms=0,
        server_seed=b"\x01" * 32,
        tenant=tenant,
    )
    log = (LogEntry(3, 0, b"\x08\x01"), LogEntry(4, 1, b""), LogEntry(5, 1, ended="resigned"))
    return ArchivedMatch(record, log, archived_ms=created_ms + 1000)


def _with(url: str, work: Callable[[Archive], Awaitable[T]]) -> T:
    async def run() -> T:
        archive = open_archive(url, Path("unused"))
        try:
            return await work(archive)
        finally:
            await archive.close()

    return asyncio.run(run())


def test_put_then_get_gives_the_match_back(archive_url: str) -> None:
    """Every field of the record (state, seats, seeds, outcome) and every log entry come back."""
    match = _match("m1", 1_000)

    async def work(archive: Archive) -> Any:
        assert await archive.get("m1") is None
        assert await archive.put(match) is True
        return await archive.get("m1")

    assert _with(archive_url, work) == match


def test_a_second_put_writes_nothing(archive_url: str) -> None:
    """A put again (a replica that crashed before letting the match expire) answers False and
    keeps one copy, with one row per player seat."""
    match = _match("m1", 1_000, players=("alice", "bob"))

    async def work(archive: Archive) -> Any:
        first = await archive.put(match)
        second = await archive.put(match)
        again = await asyncio.gather(*(archive.put(match) for _ in range(4)))
        return first, second, again, await archive.stats()

    first, second, again, stats = _with(archive_url, work)
    assert (first, second, again) == (True, False, [False] * 4)
    assert (stats.matches, stats.player_seats) == (1, 2)


def test_the_archive_survives_a_reopening(archive_url: str) -> None:
    """A second process (or a restart) finds what the first archived; migrations run once."""
    _with(archive_url, lambda archive: archive.put(_match("m1", 1_000)))
    assert _with(archive_url, lambda archive: archive.get("m1")) == _match("m1", 1_000)


def test_tenant_matches_are_newest_first_and_page(archive_url: str) -> None:
    """By (created_ms, match_id) descending, of that tenant only, without their state."""

    async def work(archive: Archive) -> Any:
        for i, created in enumerate([5, 9, 9, 1, 7]):
            await archive.put(_match(f"m{i}", created, tenant="acme"))
        await archive.put(_match("other", 8, tenant="globex"))
        first = await archive.tenant_matches("acme", 2)
        rest = await archive.tenant_matches(
            "acme", 10, after=(first[-1].created_ms, first[-1].match_id)
        )
        return first, rest, await archive.tenant_matches("", 10)

    first, rest, untenanted = _with(archive_url, work)
    assert [r.match_id for r in first] == ["m2", "m1"]
    assert [r.match_id for r in rest] == ["m4", "m0", "m3"]
    assert all(r.state == b"" and r.tenant == "acme" for r in first + rest)
    assert first[0].outcome == {"scores": [3, 1], "ranks": [0, 1]}
    assert untenanted == []


def test_player_matches_are_the_players_own(archive_url: str) -> None:
    """Only the matches in which that player of that tenant held a seat, newest first."""

    async def work(archive: Archive) -> Any:
        await archive.put(_match("a", 1, tenant="acme", players=("alice", "bob")))
        await archive.put(_match("b", 2, tenant="acme", players=("bob", "carol")))
        await archive.put(_match("c", 3, tenant="acme", players=("alice", "")))
        await archive.put(_match("d", 4, tenant="globex", players=("alice", "bob")))
        alice = await archive.player_matches("acme", "alice", 10)
        bob = await archive.player_matches("acme", "bob", 1)
        bob_rest = await archive.player_matches("acme", "bob", 10, after=(2, "b"))
        return alice, bob, bob_rest

    alice, bob, bob_rest = _with(archive_url, work)
    assert [r.match_id for r in alice] == ["c", "a"]
    assert [r.match_id for r in bob] == ["b"]
    assert [r.match_id for r in bob_rest] == ["a"]


def test_listings_by_game(archive_url: str) -> None:
    """With a game, only that game's matches, still newest first and paged."""

    async def work(archive: Archive) -> Any:
        await archive.put(_match("a", 1, tenant="acme", players=("alice",), game="jaipur"))
        await archive.put(_match("b", 2, tenant="acme", players=("alice",), game="nile"))
        await archive.put(_match("c", 3, tenant="acme", players=("alice",), game="jaipur"))
        return (
            await archive.tenant_matches("acme", 10, game="jaipur"),
            await archive.tenant_matches("acme", 10, game="jaipur", after=(3, "c")),
            await archive.player_matches("acme", "alice", 10, game="nile"),
            await archive.player_matches("acme", "alice", 10, game="jaipur", after=(3, "c")),
        )

    jaipur, jaipur_rest, nile, alice_rest = _with(archive_url, work)
    assert [r.match_id for r in jaipur] == ["c", "a"]
    assert [r.match_id for r in jaipur_rest] == ["a"]
    assert [r.match_id for r in nile] == ["b"]
    assert [r.match_id for r in alice_rest] == ["a"]


def test_stats_count_and_span(archive_url: str) -> None:
    async def work(archive: Archive) -> Any:
        empty = await archive.stats()
        await archive.put(_match("a", 10, tenant="acme"))
        await archive.put(_match("b", 30))
        return empty, await archive.stats()

    empty, stats = _with(archive_url, work)
    assert (empty.matches, empty.oldest_ms, empty.newest_ms) == (0, None, None)
    assert (stats.matches, stats.tenants, stats.oldest_ms, stats.newest_ms) == (2, 2, 10, 30)
    assert 0 < stats.body_bytes <= stats.total_bytes


def test_a_damaged_body_is_an_archive_error(tmp_path: Path) -> None:
    """A row that does not decode is an error naming it, never a wrong match."""
    import sqlite3

    url = f"sqlite://{tmp_path / 'a.sqlite3'}"
    _with(url, lambda archive: archive.put(_match("m1", 1)))
    with sqlite3.connect(tmp_path / "a.sqlite3") as db:
        db.execute("UPDATE archived_matches SET body = x'00ff'")
    with pytest.raises(ArchiveError, match="does not decode"):
        _with(url, lambda archive: archive.get("m1"))


def test_an_archive_url_of_another_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="postgresql://"):
        open_archive("mysql://host/db", Path("data"))


def test_prune_deletes_what_is_older_of_one_tenant_or_all(archive_url: str) -> None:
    """A retention: the matches created before the time (of that tenant only, when named) go,
    their player rows with them; the rest stay."""

    async def work(archive: Archive) -> Any:
        await archive.put(_match("old-acme", 10, tenant="acme", players=("alice",)))
        await archive.put(_match("new-acme", 30, tenant="acme", players=("alice",)))
        await archive.put(_match("old-globex", 10, tenant="globex"))
        first = await archive.prune(20, tenant="acme")
        left = await archive.tenant_matches("acme", 10), await archive.tenant_matches("globex", 10)
        alice = await archive.player_matches("acme", "alice", 10)
        second = await archive.prune(20)
        return first, left, alice, second, await archive.stats()

    first, (acme, globex), alice, second, stats = _with(archive_url, work)
    assert first == 1 and [r.match_id for r in acme] == ["new-acme"]
    assert [r.match_id for r in globex] == ["old-globex"]
    assert [r.match_id for r in alice] == ["new-acme"]
    assert second == 1 and (stats.matches, stats.player_seats) == (1, 1)
