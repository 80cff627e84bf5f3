"""``serai serve`` and ``serai replay`` as processes: replicas, restarts, replay, logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import redis
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import ping
from service_helpers import Watcher, create, join_all

TINY = [sys.executable, str(Path(__file__).with_name("tiny_game.py"))]


def _stub(process):
    channel = grpc.insecure_channel(process.address)
    return pb_grpc.MatchServiceStub(channel)


def _play(stub, match_id, tokens, moves=None):
    """Play the first legal move until the match ends (or ``moves`` moves); the labels."""
    labels = []
    while moves is None or len(labels) < moves:
        snap = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        if not snap.to_act:
            break
        token = tokens[snap.to_act[0]]
        listed = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id, seat_token=token))
        done = stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                seat_token=token,
                move_id=listed.moves[0].id,
                expected_version=listed.version,
            )
        )
        labels.append(done.label)
    return labels


def _replay(*args):
    return subprocess.run([*TINY, "replay", *args], capture_output=True, text=True, timeout=60)


def test_a_watcher_on_one_process_sees_the_moves_made_through_another(start_serve, redis_url):
    first = start_serve("--redis-url", redis_url, command=TINY)
    second = start_serve("--redis-url", redis_url, command=TINY)
    on_first, on_second = _stub(first), _stub(second)
    match_id = create(on_first, seats=2, seed=31, hand="4", plays="3")
    tokens = join_all(on_second, match_id, 2)
    watcher = Watcher(on_first, match_id, tokens[0])
    watcher.start()
    labels = _play(on_second, match_id, tokens)
    events = watcher.finish()
    assert [e.move.label for e in events if e.HasField("move")] == labels
    assert len(labels) == 6 and events[-1].HasField("finished")
    assert events[-1].snapshot.viewer_seat == 0
    assert events[-1].snapshot.match.status == pb.MATCH_STATUS_FINISHED


def test_a_restart_on_the_same_data_dir_continues_the_match(start_serve, tmp_path):
    data = tmp_path / "data"
    server = start_serve("--data-dir", str(data), command=TINY)
    assert "embedded Redis" in server.log()
    stub = _stub(server)
    match_id = create(stub, seats=2, seed=41, hand="4", plays="3")
    tokens = join_all(stub, match_id, 2)
    played = _play(stub, match_id, tokens, moves=3)
    before = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1]))
    redis_port = json.loads((data / "redis.json").read_text())["port"]

    assert server.stop() == 0
    assert not ping("127.0.0.1", redis_port) and not (data / "redis.json").exists()
    assert (data / "appendonly.aof").exists()
    lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    moves = [line for line in lines if line.get("method") == "SubmitMove"]
    assert len(moves) == 3
    assert {"match_id", "seat", "status", "latency_ms"} <= set(moves[0])
    assert moves[0]["match_id"] == match_id and moves[0]["status"] == "OK"

    again = start_serve("--data-dir", str(data), command=TINY)
    stub = _stub(again)
    after = stub.GetMatch(pb.GetMatchRequest(match_id=match_id, seat_token=tokens[1]))
    assert after == before
    played += _play(stub, match_id, tokens)
    assert len(played) == 6
    final = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
    assert final.match.status == pb.MATCH_STATUS_FINISHED

    while_running = _replay(match_id, "--data-dir", str(data))
    assert while_running.returncode == 0, while_running.stderr
    assert "OK" in while_running.stdout and "6 moves replayed" in while_running.stdout
    assert again.stop() == 0
    stopped = _replay(match_id, "--data-dir", str(data))  # starts its own Redis on the folder
    assert stopped.returncode == 0, stopped.stderr


def test_replay_reports_a_tampered_state_and_an_unknown_match(start_service, redis_url):
    from tiny_game import tiny_registry

    stub = start_service(registry=tiny_registry()).stub()
    match_id = create(stub, seats=2, seed=51)
    tokens = join_all(stub, match_id, 2)
    _play(stub, match_id, tokens, moves=2)
    good = _replay(match_id, "--redis-url", redis_url)
    assert good.returncode == 0 and "2 moves replayed" in good.stdout
    client = redis.Redis.from_url(redis_url)
    key = f"serai:{{{match_id}}}:match"
    state = json.loads(client.hget(key, "state"))
    state["h"][0].reverse()
    client.hset(key, "state", json.dumps(state, sort_keys=True))
    client.close()
    bad = _replay(match_id, "--redis-url", redis_url)
    assert bad.returncode == 1 and "MISMATCH" in bad.stdout
    unknown = _replay("nosuchmatch", "--redis-url", redis_url)
    assert unknown.returncode == 1 and "no match 'nosuchmatch'" in unknown.stderr


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_server_cleanly_and_ends_open_watches(
    start_serve, redis_url, signal_name
):
    import signal

    server = start_serve("--redis-url", redis_url, "--grace-seconds", "5", command=TINY)
    stub = _stub(server)
    match_id = create(stub, seats=2, seed=61)
    watcher = Watcher(stub, match_id)
    watcher.start()
    stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id))  # the watch is surely live now
    assert server.stop(getattr(signal, signal_name)) == 0
    watcher.join(10)
    assert not watcher.is_alive()
    assert "stopped" in server.log()


def test_serve_uses_a_redis_on_a_unix_socket(start_serve, tmp_path):
    from serai.store.embedded import EmbeddedRedis

    socket = tmp_path / "r.sock"
    with EmbeddedRedis(
        tmp_path / "redis", persistent=False, private=False, unix_socket=socket
    ) as db:
        assert db.url.startswith("unix://")
        server = start_serve("--redis-url", db.url, command=TINY)
        stub = _stub(server)
        match_id = create(stub, seats=2, seed=71)
        tokens = join_all(stub, match_id, 2)
        assert len(_play(stub, match_id, tokens)) == 4
        assert server.stop() == 0


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_exits_non_zero_when_its_embedded_redis_dies(start_serve, tmp_path, workers):
    """Else every call would answer UNAVAILABLE for good while health said SERVING."""
    import os
    import signal

    data = tmp_path / "data"
    server = start_serve("--data-dir", str(data), "--workers", workers, command=TINY)
    os.kill(json.loads((data / "redis.json").read_text())["pid"], signal.SIGKILL)
    assert server.process is not None
    assert server.process.wait(30) == 1
    assert "the embedded redis-server" in server.log() and "exited" in server.log()


def _in_a_pid_namespace() -> list[str]:
    """unshare's prefix that runs a command as PID 1 of a new PID namespace, or skip."""
    import shutil

    prefix = ["unshare", "--pid", "--fork", "--map-root-user"]
    if shutil.which("unshare") is None or subprocess.run([*prefix, "true"]).returncode != 0:
        pytest.skip("unshare cannot make a PID namespace here")
    return prefix


def test_a_sigterm_while_starting_stops_serve_even_as_pid_1(tmp_path):
    """PID 1 (a container's main process) ignores a signal it has no handler for."""
    import os
    import signal
    import time

    from service_helpers import slow_redis_server

    bin_dir, data = tmp_path / "bin", tmp_path / "data"
    bin_dir.mkdir()
    slow_redis_server(bin_dir / "redis-server", loading_seconds=600)  # loads for ever
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    serve = [sys.executable, "-m", "serai.cli", "serve", "--port", "0", "--data-dir", str(data)]
    with (tmp_path / "serve.log").open("wb") as log:
        outer = subprocess.Popen([*_in_a_pid_namespace(), *serve], env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while not (data / "loading").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (data / "loading").exists(), (tmp_path / "serve.log").read_text()
        (serai,) = Path(f"/proc/{outer.pid}/task/{outer.pid}/children").read_text().split()
        os.kill(int(serai), signal.SIGTERM)  # serai is PID 1 in there, loading its Redis
        assert outer.wait(30) == 128 + signal.SIGTERM
    finally:
        outer.kill()
        outer.wait()


def test_serve_as_the_readme_starts_it_refuses_a_chosen_seed(start_serve, tmp_path):
    """Whoever chose the seed could work out every hand: by default CreateMatch may not."""
    server = start_serve("--data-dir", str(tmp_path / "data"), chosen_seeds=None)
    assert "--chosen-seeds" not in server.command
    stub = _stub(server)
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2, seed=12345))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "seed" in refused.value.details()
    created = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seats=2))
    assert created.match.match_id and not created.match.seed_chosen


def test_replay_prints_the_seed_only_of_a_finished_match_unless_asked(start_service, redis_url):
    """The seed gives away every hand and the deck order of a match still being played."""
    from tiny_game import tiny_registry

    seed = "987654321"
    stub = start_service(registry=tiny_registry()).stub()
    match_id = create(stub, seats=2, seed=int(seed), hand="4", plays="2")
    tokens = join_all(stub, match_id, 2)
    _play(stub, match_id, tokens, moves=1)
    running = _replay(match_id, "--redis-url", redis_url)
    assert running.returncode == 0 and "1 moves replayed" in running.stdout, running.stderr
    assert seed not in running.stdout + running.stderr and "--show-seed" in running.stdout
    asked = _replay(match_id, "--redis-url", redis_url, "--show-seed")
    assert asked.returncode == 0 and f"seed {seed}" in asked.stdout
    _play(stub, match_id, tokens)
    finished = _replay(match_id, "--redis-url", redis_url)
    assert finished.returncode == 0 and f"seed {seed}" in finished.stdout, finished.stdout
