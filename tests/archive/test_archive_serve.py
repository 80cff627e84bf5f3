"""``serai serve --keep-finished 2s``: a finished match's keys leave Redis, and GetMatch,
GetTranscript, ``serai export`` (then ``serai verify``) and ``serai replay`` still work, from the
archive (SQLite, and a real PostgreSQL); ``serai archive stats`` counts it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import redis
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc
from serai.store.redis.keys import match_keys


def _serai(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "serai.cli", *args], capture_output=True, text=True, timeout=120
    )


def _play_and_resign(stub: Any, moves: int = 4) -> str:
    match_id = stub.CreateMatch(
        pb.CreateMatchRequest(game="jaipur", seats=2, seed=11)
    ).match.match_id
    tokens = [stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id)).seat_token for _ in range(2)]
    for _ in range(moves):
        snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        token = tokens[snapshot.to_act[0]]
        legal = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, seat_token=token, move_id=legal.moves[0].id)
        )
    stub.Resign(pb.ResignRequest(match_id=match_id, seat_token=tokens[0]))
    return match_id


def test_serve_keeps_finished_matches_in_the_archive(
    start_serve: Callable[..., Any], redis_url: str, archive_url: str, tmp_path: Path
) -> None:
    serve = start_serve(
        "--redis-url", redis_url, "--archive-url", archive_url, "--keep-finished", "2s"
    )
    client = redis.Redis.from_url(redis_url)
    with grpc.insecure_channel(serve.address) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        match_id = _play_and_resign(stub)
        before = stub.GetTranscript(pb.GetTranscriptRequest(match_id=match_id)).transcript
        deadline = time.monotonic() + 60
        while client.exists(*match_keys(match_id)):
            assert time.monotonic() < deadline, f"never left Redis:\n{serve.log()}"
            time.sleep(0.05)
        snapshot = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        assert snapshot.match.status == pb.MATCH_STATUS_FINISHED
        after = stub.GetTranscript(pb.GetTranscriptRequest(match_id=match_id)).transcript
    assert json.loads(after) == json.loads(before)

    path = tmp_path / "match.json"
    store = ["--redis-url", redis_url, "--archive-url", archive_url]
    exported = _serai("export", match_id, *store, "-o", str(path))
    assert exported.returncode == 0, exported.stderr
    verified = _serai("verify", str(path))
    assert verified.returncode == 0 and "OK: 4 moves" in verified.stdout, verified.stdout
    replayed = _serai("replay", match_id, *store)
    assert replayed.returncode == 0 and ": OK:" in replayed.stdout, replayed.stderr
    stats = _serai("archive", "stats", "--archive-url", archive_url)
    assert stats.returncode == 0 and "matches: 1\n" in stats.stdout, stats.stderr


def test_serve_refuses_an_archive_url_of_another_kind(
    start_serve: Callable[..., Any], redis_url: str, tmp_path: Path
) -> None:
    done = _serai("serve", "--redis-url", redis_url, "--port", "0", "--archive-url", "mysql://x/y")
    assert done.returncode == 1
    assert "--archive-url" in done.stderr and "postgresql://" in done.stderr


def test_keep_finished_refuses_what_is_no_duration() -> None:
    done = _serai("serve", "--keep-finished", "soon")
    assert done.returncode == 2 and "'soon': give a duration" in done.stderr


def test_the_embedded_set_up_archives_in_the_data_folder(
    start_serve: Callable[..., Any], tmp_path: Path
) -> None:
    """``serai serve`` with no Redis URL nor archive URL (the README's set-up): finished matches
    go to data/archive.sqlite3, made on its own."""
    data = tmp_path / "data"
    serve = start_serve("--data-dir", str(data), "--keep-finished", "2s")
    with grpc.insecure_channel(serve.address) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        match_id = _play_and_resign(stub, moves=2)
        deadline = time.monotonic() + 60
        while not _archived(data / "archive.sqlite3", match_id):
            assert time.monotonic() < deadline, f"never archived:\n{serve.log()}"
            time.sleep(0.1)
        assert stub.GetTranscript(pb.GetTranscriptRequest(match_id=match_id)).transcript


def _archived(path: Path, match_id: str) -> bool:
    import sqlite3

    if not path.exists():
        return False
    with sqlite3.connect(path) as db:
        try:
            query = "SELECT 1 FROM archived_matches WHERE match_id = ?"
            return db.execute(query, (match_id,)).fetchone() is not None
        except sqlite3.OperationalError:  # the schema not made yet
            return False
