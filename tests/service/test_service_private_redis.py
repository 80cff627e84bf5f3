"""serai's own embedded Redis holds every hand and deck: nobody but that serai may reach it.

It listens on a socket in the data folder only (no TCP port), wants a password drawn at each
start, and has no administrative commands; its files are its owner's alone, and the password is
in no command line and no log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc
import pytest
import redis
from redis.connection import parse_url
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import ADMIN_COMMANDS, EmbeddedRedis, _reply_to_ping, ping
from serai.store.redis.connect import printable_url
from service_helpers import slow_redis_server

TINY = [sys.executable, str(Path(__file__).with_name("tiny_game.py"))]
NOBODY = 65534

# One call of each command renamed away, as an intruder holding the password would send it.
ADMIN_CALLS = {
    "ACL": ("ACL", "SETUSER", "intruder", "on", ">pw", "~*", "+@all"),
    "BGSAVE": ("BGSAVE",),
    "CONFIG": ("CONFIG", "SET", "dir", "/tmp"),
    "DEBUG": ("DEBUG", "SLEEP", "0"),
    "FAILOVER": ("FAILOVER", "ABORT"),
    "FLUSHALL": ("FLUSHALL",),
    "FLUSHDB": ("FLUSHDB",),
    "KEYS": ("KEYS", "*"),
    "MIGRATE": ("MIGRATE", "127.0.0.1", "1", "k", "0", "100"),
    "MODULE": ("MODULE", "LOAD", "/tmp/evil.so"),
    "MONITOR": ("MONITOR",),
    "PSYNC": ("PSYNC", "?", "-1"),
    "REPLICAOF": ("REPLICAOF", "127.0.0.1", "1"),
    "RESTORE": ("RESTORE", "r", "0", "x"),
    "SAVE": ("SAVE",),
    "SHUTDOWN": ("SHUTDOWN", "NOSAVE"),
    "SLAVEOF": ("SLAVEOF", "127.0.0.1", "1"),
    "SWAPDB": ("SWAPDB", "0", "1"),
    "SYNC": ("SYNC",),
}


@pytest.fixture
def private(tmp_path: Path):
    with EmbeddedRedis(tmp_path / "data") as server:
        yield server


def _password(server: EmbeddedRedis) -> str:
    password = parse_url(server.url)["password"]
    assert password
    return str(password)


def test_without_the_password_it_answers_noauth(private: EmbeddedRedis) -> None:
    assert private.unix_socket is not None
    refused = _reply_to_ping("", 0, unix_socket=private.unix_socket)
    assert refused.startswith(b"-NOAUTH"), refused
    wrong = _reply_to_ping("", 0, unix_socket=private.unix_socket, password="guess")
    assert wrong.startswith(b"-WRONGPASS"), wrong
    anonymous = redis.Redis(unix_socket_path=str(private.unix_socket))
    with anonymous, pytest.raises(redis.AuthenticationError):
        anonymous.get("serai:index:open")
    assert ping("", 0, unix_socket=private.unix_socket, password=_password(private))


def test_it_listens_on_no_tcp_port(private: EmbeddedRedis) -> None:
    assert private.process is not None and private.port == 0
    with redis.Redis.from_url(private.url) as client:
        assert client.info("server")["tcp_port"] == 0
    listening = _listening_tcp_inodes()
    fd_dir = Path(f"/proc/{private.process.pid}/fd")
    held = {os.readlink(fd) for fd in fd_dir.iterdir()} if fd_dir.exists() else set()
    assert held, "cannot see the redis-server's file descriptors"
    assert not {f"socket:[{inode}]" for inode in listening} & held


def test_its_administrative_commands_are_unknown_even_with_the_password(
    private: EmbeddedRedis,
) -> None:
    assert set(ADMIN_CALLS) == set(ADMIN_COMMANDS)
    with redis.Redis.from_url(private.url) as client:
        client.set("serai:kept", "1")
        for call in ADMIN_CALLS.values():
            with pytest.raises(redis.ResponseError, match="unknown command"):
                client.execute_command(*call)
        assert client.get("serai:kept") == b"1"  # nothing was flushed, swapped or replaced
        assert client.ping()
    assert private.process is not None and private.process.poll() is None  # not shut down


def test_its_files_are_its_owner_s_and_the_password_is_only_in_redis_json(
    private: EmbeddedRedis,
) -> None:
    data, password = private.data_dir, _password(private)
    assert private.unix_socket is not None and private.unix_socket.parent == data.resolve()
    assert data.stat().st_mode & 0o777 == 0o700
    assert private.unix_socket.stat().st_mode & 0o077 == 0
    assert private.info_file.stat().st_mode & 0o777 == 0o600
    holders = [
        p.name for p in data.iterdir() if p.is_file() and password.encode() in p.read_bytes()
    ]
    assert holders == ["redis.json"]
    assert private.process is not None
    command_line = Path(f"/proc/{private.process.pid}/cmdline").read_bytes()
    assert password.encode() not in command_line


def test_each_start_draws_a_new_password(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "data") as first:
        before = _password(first)
    with EmbeddedRedis(tmp_path / "data") as second:
        assert _password(second) != before
        with redis.Redis.from_url(second.url) as client:
            assert client.ping()


def test_a_private_redis_loading_its_data_is_waited_for(tmp_path: Path) -> None:
    # Loading outlasts the start-up timeout; the timeout still leaves the stand-in (a Python
    # script) time to start answering on a loaded machine (0.5 s did not, once).
    fake = slow_redis_server(tmp_path / "slow-redis-server", loading_seconds=3.5)
    with EmbeddedRedis(tmp_path / "data", binary=str(fake), startup_timeout=2.5) as loading:
        assert loading.unix_socket is not None
        assert ping("", 0, unix_socket=loading.unix_socket, password=_password(loading))


def test_a_data_folder_too_deep_for_a_socket_is_a_clear_error(tmp_path: Path) -> None:
    from serai.store.embedded import EmbeddedRedisError

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    with pytest.raises(EmbeddedRedisError, match="too long for a unix socket"):
        EmbeddedRedis(deep).start()


@pytest.mark.parametrize("folder_mode", [None, 0o755], ids=["made-by-serai", "open-folder"])
def test_another_user_cannot_connect_even_with_the_password(folder_mode) -> None:
    """Run as uid 65534 (nobody): refused at the socket, whatever the folder's own mode."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run a client as a second uid (os.setuid)")
    parent = Path(tempfile.mkdtemp(prefix="serai-shared-"))  # in /tmp: every user may walk here
    try:
        parent.chmod(0o755)
        data = parent / "data"
        if folder_mode is not None:
            data.mkdir()
            data.chmod(folder_mode)
        with EmbeddedRedis(data) as server:
            assert server.unix_socket is not None
            said = _as_nobody(parent, server.unix_socket, server.info_file, _password(server))
        assert said == ["walked", "refused", "unreadable"]
    finally:
        shutil.rmtree(parent)


def _as_nobody(parent: Path, unix_socket: Path, info_file: Path, password: str) -> list[str]:
    """What uid 65534 gets: listing ``parent``, then AUTH with ``password`` on the socket, then
    reading redis.json."""
    probe = (
        "import json, os, socket, sys\n"
        f"os.setgroups([]); os.setgid({NOBODY}); os.setuid({NOBODY})\n"
        "parent, path, info, password = sys.argv[1:]\n"
        "said = ['walked' if os.listdir(parent) else 'empty']\n"
        "try:\n"
        "    s = socket.socket(socket.AF_UNIX); s.connect(path)\n"
        "    s.sendall(b'AUTH ' + password.encode() + b'\\r\\nGET x\\r\\n')\n"
        "    said.append('connected ' + s.recv(100).decode())\n"
        "except PermissionError:\n"
        "    said.append('refused')\n"
        "try:\n"
        "    open(info).read(); said.append('read')\n"
        "except PermissionError:\n"
        "    said.append('unreadable')\n"
        "print(json.dumps(said))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(parent), str(unix_socket), str(info_file), password],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_serve_s_embedded_redis_is_private_and_its_password_is_shown_nowhere(
    start_serve, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    server = start_serve("--data-dir", str(data), "--workers", "2", command=TINY)
    info = json.loads((data / "redis.json").read_text())
    url, password = info["url"], parse_url(info["url"])["password"]
    assert url.startswith("unix://") and info["port"] == 0 and password
    assert password not in printable_url(url)
    client = redis.Redis.from_url(url)
    with client, pytest.raises(redis.ResponseError, match="unknown command"):
        client.execute_command("CONFIG", "GET", "dir")
    stub = pb_grpc.MatchServiceStub(grpc.insecure_channel(server.address))
    created = stub.CreateMatch(pb.CreateMatchRequest(game="tiny", seats=2))
    assert created.match.match_id  # the workers reach it through the socket, with the password
    processes = [server.process.pid, info["pid"], *_children(server.process.pid)]
    assert len(processes) >= 4  # serve, its Redis, two workers
    for pid in processes:
        assert password.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes(), pid
    assert server.stop() == 0
    assert password not in server.log()
    assert password not in (data / "redis.log").read_text(errors="replace")


def _children(pid: int) -> list[int]:
    task = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in task.read_text().split()]


def _listening_tcp_inodes() -> set[str]:
    """Inodes of every listening TCP socket (IPv4 and IPv6) in this network namespace."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            next(rows)
            for row in rows:
                fields = row.split()
                if fields[3] == "0A":  # LISTEN
                    inodes.add(fields[9])
    return inodes
