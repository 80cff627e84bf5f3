"""``serai serve --workers N``: N processes on one port, and the supervisor that minds them."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from serai import config
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.cli import build_parser
from serai.commands import workers
from serai.config import from_args
from service_helpers import create, join_all
from waiting import wait_until

TINY = [sys.executable, str(Path(__file__).with_name("tiny_game.py"))]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _workers_of(process) -> list[int]:
    pids = []
    for pid in _children(process.process.pid):
        try:
            if b"--worker-index" in Path(f"/proc/{pid}/cmdline").read_bytes():
                pids.append(pid)
        except OSError:
            continue
    return sorted(pids)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _stubs(address: str, count: int) -> list[pb_grpc.MatchServiceStub]:
    # a local subchannel pool: each channel opens its own connection instead of sharing one
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [
        pb_grpc.MatchServiceStub(grpc.insecure_channel(address, options=options))
        for _ in range(count)
    ]


def test_workers_flag_reads_its_variable_and_zero_means_one_per_core(monkeypatch):
    monkeypatch.setenv("SERAI_WORKERS", "3")
    assert from_args(build_parser().parse_args(["serve"])).workers == 3
    settings = from_args(build_parser().parse_args(["serve", "--workers", "0"]))
    assert workers.worker_count(settings) == workers.usable_cores()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--workers", "-1"])


def test_one_per_core_counts_only_the_cores_this_process_may_use():
    pinned = subprocess.run(  # taskset -c 0: a process that may run on one core only
        [
            sys.executable,
            "-c",
            "import os; from serai.commands.workers import usable_cores; "
            "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); print(usable_cores())",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert pinned.stdout.strip() == "1"


@pytest.mark.parametrize(
    ("files", "quota"),
    [
        ({"cpu.max": "200000 100000\n"}, 2.0),
        ({"cpu.max": "150000 100000\n"}, 1.5),
        ({"cpu.max": "max 100000\n"}, None),
        ({"cpu/cpu.cfs_quota_us": "50000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 0.5),
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
        ({}, None),
    ],
)
def test_a_containers_cpu_limit_caps_one_per_core(tmp_path, files, quota):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert workers.cgroup_cpu_quota(tmp_path) == quota
    cores = len(os.sched_getaffinity(0))
    expected = min(cores, math.ceil(quota)) if quota else cores
    assert workers.usable_cores(tmp_path) == max(1, expected)


def test_a_worker_gets_every_setting_but_where_to_listen_and_where_redis_is():
    given = [
        "serve", "--max-message-bytes", "12345", "--grace-seconds", "2.5", "--log-format",
        "json", "--log-level", "warning", "--move-rate", "7.5", "--move-burst", "9",
        "--max-open-matches", "3", "--idle-seconds", "60", "--sweep-seconds", "0.25",
        "--redis-connections", "17", "--port", "5555", "--redis-url", "redis://example:1/0",
        "--workers", "4",
    ]  # fmt: skip
    settings = from_args(build_parser().parse_args(given))
    flags = config.worker_flags(settings)
    assert "--port" not in flags and "--redis-url" not in flags and "--workers" not in flags
    worker = from_args(build_parser().parse_args(["serve", *flags]))
    unset = {"host", "port", "redis_url", "redis_cluster", "data_dir", "workers"}
    for field in dataclasses.fields(settings):
        if field.name not in unset:
            assert getattr(worker, field.name) == getattr(settings, field.name), field.name


def test_two_workers_share_the_port_and_play_a_match_over_many_connections(start_serve, redis_url):
    server = start_serve("--workers", "2", "--redis-url", redis_url, command=TINY)
    assert server.log().count("serai listening on") == 1 and "2 workers" in server.log()
    pids = _workers_of(server)
    assert len(pids) == 2
    # 16 connections: the kernel puts each on one of the two workers; all on one is 2 in 65536
    stubs = _stubs(server.address, 16)
    match_id = create(stubs[0], seats=2, seed=7, hand="4", plays="3")
    tokens = join_all(stubs[1], match_id, 2)
    for stub in stubs:  # every connection answers, whichever worker holds it
        assert stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.match_id == match_id
    moves = 0
    while True:
        stub = stubs[moves % len(stubs)]
        snap = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        if not snap.to_act:
            break
        token = tokens[snap.to_act[0]]
        listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=token,
                move_id=listed.moves[0].id,
                expected_version=listed.version,
            )
        )
        moves += 1
    assert moves == 6
    final = stubs[-1].GetMatch(pb.GetMatchRequest(match_id=match_id))
    assert final.match.status == pb.MATCH_STATUS_FINISHED
    # Both workers served requests, so both hold connections (floor.py counts them per process).
    lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    assert {line["worker"] for line in lines if line["event"] == "request"} == {0, 1}


def test_only_the_first_worker_sweeps_turn_clocks(start_serve, redis_url):
    server = start_serve("--workers", "2", "--redis-url", redis_url, "--sweep-seconds", "0.5")
    sweeps = []
    for pid in _workers_of(server):
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        given = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--sweep-seconds"]
        index = argv[argv.index("--worker-index") + 1]
        sweeps.append((index, float(given[-1])))  # the last one given counts
    assert sorted(sweeps) == [("0", 0.5), ("1", 0.0)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_stops_every_worker_then_the_embedded_redis(start_serve, tmp_path, signum):
    server = start_serve("--workers", "2", "--data-dir", str(tmp_path / "data"), command=TINY)
    pids = _workers_of(server)
    assert len(pids) == 2
    redis_socket = Path(server.log().split("embedded Redis on socket ")[1].split(",")[0])
    stub = _stubs(server.address, 1)[0]
    create(stub, seats=2, seed=8)
    assert server.stop(signum) == 0
    assert not any(_alive(pid) for pid in pids)
    assert server.log().count('"event": "stopped"') == 2
    assert not redis_socket.exists()  # no TCP port; a running Redis keeps its socket there


def test_a_stop_signal_while_the_workers_start_is_a_clean_stop(tmp_path, redis_url):
    """A worker stopped before it listens exits by serve's start-up handler (128 + SIGTERM)."""
    command = [*TINY, "serve", "--workers", "2", "--port", "0", "--redis-url", redis_url]
    starting = tmp_path / "starting"
    starting.mkdir()
    env = {
        **os.environ,
        "TINY_WORKER_START_DELAY": "30",
        "TINY_WORKER_STARTING_DIR": str(starting),
    }
    with (tmp_path / "serve.log").open("wb") as log:
        supervisor = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    try:
        # the workers are past their imports, into their slow start
        wait_until(lambda: len(list(starting.iterdir())) == 2, "both workers starting", 120)
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(30) == 0, (tmp_path / "serve.log").read_text()
    finally:
        supervisor.kill()
        supervisor.wait()


def test_a_dead_worker_stops_the_others_and_the_supervisor_fails(start_serve, redis_url):
    server = start_serve("--workers", "2", "--redis-url", redis_url, command=TINY)
    first, second = _workers_of(server)
    os.kill(second, signal.SIGKILL)
    assert server.process is not None
    code = server.process.wait(30)
    assert code == 1
    assert f"worker 1 (pid {second}) exited with status -9" in server.log()
    deadline = time.monotonic() + 5
    while _alive(first) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(first)


def test_workers_that_cannot_listen_make_the_supervisor_fail(start_serve, redis_url):
    import socket

    with socket.socket() as taken:  # a plain listener: no SO_REUSEPORT, so nobody may share it
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"port {port} on 127.0.0.1 is taken"):
            start_serve("--workers", "2", "--redis-url", redis_url, "--port", str(port))


def test_a_second_server_with_workers_cannot_join_the_first_ones_port(start_serve, redis_url):
    first = start_serve("--workers", "2", "--redis-url", redis_url)
    port = first.address.rpartition(":")[2]
    with pytest.raises(RuntimeError, match=f"port {port} on 127.0.0.1 is taken"):
        start_serve("--workers", "2", "--redis-url", redis_url, "--port", port)
    assert len(_workers_of(first)) == 2
