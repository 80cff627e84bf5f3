"""The embedded redis-server: one per data folder, never someone else's, and clear when it fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis
from serai.cli import build_parser
from serai.commands import replay
from serai.store.embedded import EmbeddedRedis, EmbeddedRedisError, ping
from service_helpers import slow_redis_server


def test_a_data_folder_serves_one_embedded_redis_at_a_time(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as first:
        with pytest.raises(EmbeddedRedisError, match="in use by another serai"):
            EmbeddedRedis(tmp_path).start()
        assert (tmp_path / "redis.json").exists()  # the refused one did not take it away
        with redis.Redis.from_url(first.url) as client:
            assert client.ping()
    with EmbeddedRedis(tmp_path) as second, redis.Redis.from_url(second.url) as client:
        assert client.ping()  # free again once the first has stopped


def test_a_fixed_port_held_by_another_redis_is_not_taken_for_ours(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "theirs", persistent=False, private=False) as theirs:
        ours = EmbeddedRedis(tmp_path / "ours", private=False, port=theirs.port)
        with pytest.raises(EmbeddedRedisError, match="did not start"):
            ours.start()
        assert ours.process is None


def test_a_redis_loading_a_large_append_only_file_is_waited_for(tmp_path: Path) -> None:
    fake = slow_redis_server(tmp_path / "slow-redis-server", loading_seconds=1.5)
    loading = EmbeddedRedis(tmp_path / "data", private=False, binary=str(fake), startup_timeout=0.5)
    with loading:  # answers LOADING for three times the startup timeout: not a dead server
        assert ping("127.0.0.1", loading.port)


def test_a_data_folder_that_cannot_be_one_is_a_one_line_error(tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--data-dir", str(a_file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "cannot use" in done.stderr and str(a_file) in done.stderr
    assert "Traceback" not in done.stderr


def test_a_redis_that_fails_to_start_says_why_from_its_log(tmp_path: Path) -> None:
    (tmp_path / "appendonly.aof").mkdir()  # where Redis 6 wants its append-only file
    (tmp_path / "appendonlydir").mkdir()
    (tmp_path / "appendonlydir" / "appendonly.aof.manifest").mkdir()  # and where Redis 7 does
    with pytest.raises(EmbeddedRedisError) as failed:
        EmbeddedRedis(tmp_path).start()
    assert "redis.log" in str(failed.value)  # the last line of the log, and where the rest is


def test_replay_finds_the_data_of_redis_7_in_its_append_only_folder(tmp_path: Path, capsys) -> None:
    (tmp_path / "appendonlydir").mkdir()  # Redis 7's layout; the redis-server here may be 6
    args = build_parser().parse_args(["replay", "no-such-match", "--data-dir", str(tmp_path)])
    assert replay.run(args) == 1
    said = capsys.readouterr().err
    assert "no-such-match" in said and "no serai data" not in said  # it looked for the match


def test_replay_of_a_folder_without_redis_data_says_so(tmp_path: Path, capsys) -> None:
    args = build_parser().parse_args(["replay", "abc", "--data-dir", str(tmp_path)])
    assert replay.run(args) == 1
    assert "no serai data in" in capsys.readouterr().err


def test_the_data_it_makes_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """The append-only file holds every hand and the deck order."""
    data = tmp_path / "new" / "data"
    with EmbeddedRedis(data) as server, redis.Redis.from_url(server.url) as client:
        client.set("k", "v")
        client.bgrewriteaof()
        # redis.json (where it listens) and serai.lock are serai's, and hold no card
        made = {p: p.stat().st_mode for p in data.rglob("*") if p.suffix not in (".json", ".lock")}
    assert any("appendonly" in p.name for p in made) and any(p.name == "redis.log" for p in made)
    assert data.stat().st_mode & 0o777 == 0o700
    for path, mode in made.items():
        assert mode & 0o077 == 0, (path, oct(mode))


def test_its_memory_limit_refuses_writes_and_its_fsync_is_as_asked(tmp_path: Path) -> None:
    """noeviction: a full Redis refuses new data rather than drop a match's keys."""
    kept = ("CONFIG",)  # to read back what it was given
    with (
        EmbeddedRedis(
            tmp_path, maxmemory=5_000_000, appendfsync="always", keep_commands=kept
        ) as server,
        redis.Redis.from_url(server.url) as client,
    ):
        assert client.config_get("maxmemory") == {"maxmemory": "5000000"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.config_get("appendonly") == {"appendonly": "yes"}


def test_serve_gives_its_embedded_redis_the_memory_limit_and_fsync_of_its_flags(
    tmp_path: Path, monkeypatch
) -> None:
    from serai.commands import serve
    from serai.config import from_args
    from serai.store.embedded import default_maxmemory

    monkeypatch.delenv("SERAI_REDIS_MAXMEMORY", raising=False)
    monkeypatch.setenv("SERAI_REDIS_FSYNC", "always")
    data = str(tmp_path / "data")
    given = ["serve", "--data-dir", data, "--redis-maxmemory", "64MB"]
    settings = from_args(build_parser().parse_args(given))
    assert (settings.redis_maxmemory, settings.redis_fsync) == ("64mb", "always")
    url, where, embedded = serve._redis(settings)
    try:
        assert embedded is not None and url == embedded.url
        assert embedded.maxmemory == 64 * 1024**2 and embedded.appendfsync == "always"
        assert "socket" in where and "port" not in where and embedded.url.split("@")[0] not in where
    finally:
        assert embedded is not None
        embedded.stop()
    default = from_args(build_parser().parse_args(["serve", "--data-dir", data]))
    assert default.redis_maxmemory == "auto"
    monkeypatch.delenv("SERAI_REDIS_FSYNC")
    assert from_args(build_parser().parse_args(["serve"])).redis_fsync == "everysec"
    assert EmbeddedRedis(data).maxmemory == default_maxmemory() > 0


@pytest.mark.parametrize(
    ("given", "size"),
    [("0", 0), ("1000", 1000), ("2k", 2000), ("2kb", 2048), ("3m", 3_000_000), ("1gb", 1024**3)],
)
def test_a_memory_limit_is_read_as_redis_reads_sizes(given: str, size: int) -> None:
    from serai.config import from_args, memory_bytes

    settings = from_args(build_parser().parse_args(["serve", "--redis-maxmemory", given]))
    assert memory_bytes(settings.redis_maxmemory) == size


@pytest.mark.parametrize("given", ["lots", "-1", "1.5gb", "2tb", ""])
def test_a_memory_limit_that_is_no_size_is_a_usage_error(given: str, capsys) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--redis-maxmemory", given])
    assert "--redis-maxmemory" in capsys.readouterr().err


def test_redis_starts_with_no_python_code_in_the_forked_child(tmp_path: Path, monkeypatch) -> None:
    """A fork taken while gRPC's threads run must not run the interpreter in the child (CI saw
    'Fatal Python error: Segmentation fault' there, then 'redis-server did not start'): the
    umask, the new session and the parent-death signal are set by Popen and setpriv, not by a
    ``preexec_fn``."""
    started: list[dict] = []
    real_popen = subprocess.Popen

    def recording_popen(*args, **kwargs):
        started.append(kwargs)
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", recording_popen)
    with EmbeddedRedis(tmp_path, persistent=False) as server, redis.Redis.from_url(server.url) as c:
        assert c.ping()
    assert started and all(kwargs.get("preexec_fn") is None for kwargs in started)
    assert started[0]["umask"] == 0o077 and started[0]["start_new_session"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_redis_dies_with_the_thread_that_started_it(tmp_path: Path) -> None:
    """No orphan redis-server when the serai that started it is gone (kill -9 included)."""
    import threading
    import time

    server = EmbeddedRedis(tmp_path, persistent=False)
    starter = threading.Thread(target=server.start)
    starter.start()
    starter.join()
    process = server.process
    assert process is not None
    deadline = time.monotonic() + 30
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    exited = process.poll()
    server.stop()
    assert exited is not None, "redis-server outlived the thread that started it"
