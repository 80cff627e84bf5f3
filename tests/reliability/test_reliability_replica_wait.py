"""--redis-wait-replicas: a move is acknowledged only once that many Redis replicas have it; with
its replica stopped, the move answers UNAVAILABLE (applied on the primary, not acknowledged), and
sent again with the same request id once the replica is back it is applied exactly once."""

from __future__ import annotations

import os
import signal
import uuid

import grpc
import pytest
import redis as redis_py
from reliability_helpers import poll
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from serai.store.embedded import EmbeddedRedis


@pytest.fixture
def primary_and_replica(tmp_path):
    primary = EmbeddedRedis(tmp_path / "primary", persistent=False, private=False).start()
    replica = EmbeddedRedis(tmp_path / "replica", persistent=False, private=False).start()
    to_replica = redis_py.Redis(port=replica.port)
    to_primary = redis_py.Redis(port=primary.port)
    try:
        to_replica.replicaof("127.0.0.1", primary.port)
        poll(lambda: to_primary.info("replication").get("slave0", {}).get("state") == "online")
        yield primary, replica
    finally:
        to_replica.close()
        to_primary.close()
        if replica.process is not None and replica.process.poll() is None:
            os.kill(replica.process.pid, signal.SIGCONT)
        replica.stop()
        primary.stop()


def test_a_move_is_acknowledged_once_its_replica_has_it(start_serve, primary_and_replica):
    primary, replica = primary_and_replica
    server = start_serve("--redis-url", primary.url, "--redis-wait-replicas", "1")
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        match_id = stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=3)).match.match_id
        tokens = [
            stub.JoinMatch(pb.JoinMatchRequest(match_id=match_id, seat=s)).seat_token
            for s in (0, 1)
        ]
        seat = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).to_act[0]
        listed = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
        )
        move = pb.SubmitMoveRequest(
            match_id=match_id,
            seat_token=tokens[seat],
            move_id=listed.moves[0].id,
            expected_version=listed.version,
            request_id=uuid.uuid4().hex,
        )

        os.kill(replica.process.pid, signal.SIGSTOP)  # the replica confirms nothing now
        with pytest.raises(grpc.RpcError) as refused:
            stub.SubmitMove(move, timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "not acknowledged" in refused.value.details()
        assert "same request_id" in refused.value.details()

        os.kill(replica.process.pid, signal.SIGCONT)
        answer = stub.SubmitMove(move, timeout=10)  # the same request: applied once, not twice
        assert answer.snapshot.version == listed.version + 1
        again = stub.GetMatch(pb.GetMatchRequest(match_id=match_id))
        assert again.version == listed.version + 1


def test_a_new_match_waits_for_replicas_the_primary_does_not_have(start_serve, primary_and_replica):
    primary, _replica = primary_and_replica
    server = start_serve(
        "--redis-url", primary.url, "--redis-wait-replicas", "2", "--redis-wait-ms", "50"
    )
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateMatch(pb.CreateMatchRequest(game="jaipur"), timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "only 1 of 2 replicas" in refused.value.details()


def test_a_cluster_cannot_wait_for_replicas():
    from serai.store.redis import open_store
    from serai.store.redis.replication import ReplicaWait

    with pytest.raises(ValueError, match="not a Redis Cluster"):
        open_store("", cluster="127.0.0.1:7000", replica_wait=ReplicaWait(1, 100))


def test_a_primary_refusing_writes_for_want_of_replicas_answers_unavailable(start_serve, tmp_path):
    """min-replicas-to-write, the primary's own guard: its refusal passes, so UNAVAILABLE."""
    primary = EmbeddedRedis(tmp_path / "primary", persistent=False, private=False).start()
    try:
        server = start_serve("--redis-url", primary.url)
        redis_py.Redis(port=primary.port).config_set("min-replicas-to-write", 1)
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.CreateMatch(pb.CreateMatchRequest(game="jaipur"), timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE, refused.value.details()
            assert "too few replicas" in refused.value.details()
    finally:
        primary.stop()
