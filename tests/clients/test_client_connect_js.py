"""The Connect client in JavaScript (clients/connect-js) plays a whole Jaipur match over the HTTP
port of a real serai serve: what a web or Node app gets without native gRPC."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from serai.api import match_service_pb2 as pb
from serai.api import match_service_pb2_grpc as pb_grpc
from test_client_node import NO_NODE, npm_ci_once

CONNECT_JS_DIR = Path(__file__).resolve().parents[2] / "clients" / "connect-js"


def install_connect_client() -> None:
    npm_ci_once(CONNECT_JS_DIR, CONNECT_JS_DIR / "node_modules" / "@connectrpc" / "connect-node")


@pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")
@pytest.mark.parametrize("encoding", [[], ["--json"]], ids=["binary", "json"])
def test_the_connect_client_plays_a_whole_jaipur_match_over_http(
    start_serve: Callable[..., Any], redis_url: str, encoding: list[str]
) -> None:
    install_connect_client()
    serve = start_serve("--redis-url", redis_url)
    node = subprocess.run(
        ["node", "play.js", "--server", f"http://{serve.http_address}", "--seed", "3", *encoding],
        cwd=CONNECT_JS_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert node.returncode == 0, node.stderr
    match_id = node.stdout.split("match ")[1].split(" ")[0]
    with grpc.insecure_channel(serve.address) as channel:
        native = pb_grpc.MatchServiceStub(channel)
        final = native.GetMatch(pb.GetMatchRequest(match_id=match_id))
        events = list(native.Watch(pb.WatchRequest(match_id=match_id)))
    assert final.match.status == pb.MATCH_STATUS_FINISHED
    assert f"result: {final.outcome.summary}" in node.stdout
    assert f"finished at version {final.version}" in node.stdout
    played = int(node.stdout.split("played ")[-1].split(" moves")[0])
    assert played == sum(1 for event in events if event.WhichOneof("kind") == "move") > 0
    for seat in (0, 1):  # each seat watched its own stream to the end
        assert f"seat {seat} played " in node.stdout


@pytest.mark.skipif(NO_NODE, reason="node and npm are not installed on this machine")
def test_the_connect_client_sends_the_api_key_a_server_requires(
    start_serve: Callable[..., Any], redis_url: str, make_api_key: Callable[[str], str]
) -> None:
    """With --require-api-key: --api-key (or SERAI_API_KEY) plays the match; no key, refused."""
    install_connect_client()
    key = make_api_key("acme")
    serve = start_serve("--redis-url", redis_url, "--require-api-key", "--http-port", "0")
    environment = {k: v for k, v in os.environ.items() if k != "SERAI_API_KEY"}

    def play(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["node", "play.js", "--server", f"http://{serve.http_address}", "--seed", "3", *args],
            cwd=CONNECT_JS_DIR,
            capture_output=True,
            text=True,
            timeout=120,
            env={**environment, **(env or {})},
        )

    with_flag = play("--api-key", key)
    assert with_flag.returncode == 0, with_flag.stderr
    assert "result: " in with_flag.stdout
    with_env = play("--json", env={"SERAI_API_KEY": key})
    assert with_env.returncode == 0, with_env.stderr
    assert "result: " in with_env.stdout
    refused = play()
    assert refused.returncode == 1 and "Unauthenticated" in refused.stderr
