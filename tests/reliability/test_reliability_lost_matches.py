"""A match the store lost (a failover to a replica that had not received it, a restart without
persistence) is not answered as an id the client mistyped: its id carries the server's check,
so the answer is DATA_LOSS saying it was lost; and a move chosen at a version the store no
longer has says the moves after the store's version were lost.

The losses are made behind the server's back on a real Redis: the match's keys deleted (with
its entry in the index of every match ever made, as a failover loses them together), or put
back as they were two moves earlier (DUMP and RESTORE: the versions go backwards).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
from serai.matches import Matches, MatchLost, MatchNotFound, StaleVersion
from serai.matches.match_ids import issued
from serai.rpc.status import Code, status_of
from serai.store.redis import RedisStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from tiny_game import tiny_registry


def _keys_of(client: redis.Redis, match_id: str) -> list[bytes]:
    return list(client.scan_iter(match=f"serai:{{{match_id}}}:*"))


async def _move(matches: Matches, match_id: str, tokens: list[str]) -> int:
    """One legal move of the seat to act; the version it made."""
    now = await matches.get(match_id)
    seat = now.to_act[0]
    listed = await matches.legal_moves(match_id, tokens[seat])
    done = await matches.submit(match_id, tokens[seat], move_id=listed.moves[0].id)
    return done.snapshot.record.version


def _raised(call: Any) -> Exception:
    try:
        asyncio.run(call())
    except Exception as error:  # the test looks at which
        return error
    raise AssertionError("no error raised")


def test_a_match_lost_by_the_store_answers_data_loss_not_check_the_id(redis_url):
    """Deleted behind the server's back, a match it made answers DATA_LOSS ("lost in a store
    failover"); a made-up id, and one with a typo, still answer NOT_FOUND "check the id"."""
    client = redis.Redis.from_url(redis_url)

    async def made() -> str:
        store = RedisStore.from_url(redis_url)
        try:
            matches = Matches(store, tiny_registry())
            record = await matches.create("tiny", seats=2)
            with_request = await matches.create(
                "tiny", seats=2, request_id="r-1-a-random-one-of-16"
            )
            assert issued(record.match_id) and issued(with_request.match_id)
            return record.match_id
        finally:
            await store.close()

    match_id = asyncio.run(made())
    keys = _keys_of(client, match_id)
    assert keys
    client.delete(*keys)
    client.zrem("serai:index:all", match_id)
    typo = match_id[:-1] + ("0" if match_id[-1] != "0" else "1")

    def get(some_id: str) -> Any:
        async def call() -> None:
            store = RedisStore.from_url(redis_url)
            try:
                await Matches(store, tiny_registry()).get(some_id)
            finally:
                await store.close()

        return call

    lost = _raised(get(match_id))
    assert isinstance(lost, MatchLost)
    code, message = status_of(lost)
    assert code == Code.DATA_LOSS
    assert "lost in a store failover" in message and "check the id" not in message
    for unknown in ("0123456789abcdef0123", typo):
        error = _raised(get(unknown))
        assert type(error) is MatchNotFound
        assert status_of(error)[0] == Code.NOT_FOUND and "check the id" in str(error)


def test_a_move_at_a_version_the_store_lost_says_so(redis_url):
    """The match's keys put back as they were two moves earlier: a move chosen at the version
    the server had answered is refused (ABORTED, as any stale version) saying the store lost
    the moves after its version, not merely that the match moved on."""
    client = redis.Redis.from_url(redis_url)

    async def scenario() -> Exception:
        store = RedisStore.from_url(redis_url)
        try:
            matches = Matches(store, tiny_registry())
            record = await matches.create("tiny", seats=2, options={"hand": 4, "plays": 4})
            match_id = record.match_id
            tokens = [(await matches.join(match_id, s)).token for s in range(2)]
            before = {key: client.dump(key) for key in _keys_of(client, match_id)}
            await _move(matches, match_id, tokens)
            told = await _move(matches, match_id, tokens)
            for key, dumped in before.items():  # a failover to a replica two moves behind
                client.restore(key, 0, dumped, replace=True)
            now = await matches.get(match_id)
            seat = now.to_act[0]
            listed = await matches.legal_moves(match_id, tokens[seat])
            with pytest.raises(StaleVersion) as refused:
                await matches.submit(
                    match_id, tokens[seat], move_id=listed.moves[0].id, expected_version=told
                )
            return refused.value
        finally:
            await store.close()

    error = asyncio.run(scenario())
    assert status_of(error)[0] == Code.ABORTED
    assert "the store lost the moves after version" in str(error)
