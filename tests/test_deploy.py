"""deploy/ and the Dockerfile agree with the code and with each other: the files parse, every
``serai serve`` command in them parses with the real CLI, and the ports line up (compose command,
nginx upstream and listen, Kubernetes containerPort, probes and Services, Dockerfile EXPOSE/CMD).

Docker itself is not run here (not every CI machine has it); these checks catch the drift that
makes a deployment fail on its first start.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from serai.cli import build_parser
from serai.commands import serve
from serai.config import DEFAULT_MAX_MESSAGE_BYTES

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def _serve_args(command: list[str]) -> Any:
    """The namespace ``serai serve ...`` parses to; fails on an unknown flag or a bad value."""
    assert command[:2] == ["serai", "serve"], command
    args = build_parser().parse_args(command[1:])
    assert args.run is serve.run
    return args


def _compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose" / "docker-compose.yml").read_text())


def _kubernetes(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((DEPLOY / "kubernetes" / name).read_text()) if d]


def _one(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, (kind, name)
    return found[0]


def _dockerfile() -> tuple[list[int], list[str]]:
    text = (ROOT / "Dockerfile").read_text()
    exposed = [int(p) for line in re.findall(r"^EXPOSE\s+(.+)$", text, re.M) for p in line.split()]
    cmd = re.findall(r"^CMD\s+(.+)$", text, re.M)
    assert len(cmd) == 1
    return exposed, json.loads(cmd[0])


def _nginx() -> str:
    text = (DEPLOY / "compose" / "nginx.conf").read_text()
    return re.sub(r"#.*", "", text)


def test_every_yaml_file_parses():
    files = sorted(DEPLOY.rglob("*.yml")) + sorted(DEPLOY.rglob("*.yaml"))
    assert len(files) >= 3
    for path in files:
        assert [d for d in yaml.safe_load_all(path.read_text()) if d], path


def test_the_dockerfile_command_parses_and_exposes_its_port():
    exposed, cmd = _dockerfile()
    args = _serve_args(cmd)
    assert args.host == "0.0.0.0"
    assert exposed == [args.port, args.http_port]


def test_compose_replicas_proxy_and_redis_agree():
    services = _compose()["services"]
    args = _serve_args(services["serai"]["command"])
    assert args.host == "0.0.0.0"
    assert services["serai"]["deploy"]["replicas"] >= 2
    # the replicas' Redis is the compose service, on the port redis.conf (the default) uses
    redis_url = args.redis_url
    assert redis_url.startswith("redis://redis:6379/")
    assert "redis" in services and "serai" in services["proxy"]["depends_on"]
    nginx = _nginx()
    upstream = re.search(r"upstream\s+serai\s*\{(.*?)\}", nginx, re.S)
    assert upstream, "nginx has no upstream serai"
    assert re.findall(r"server\s+serai:(\d+)", upstream[1]) == [str(args.port)]
    listens = {int(p) for p in re.findall(r"listen\s+(\d+)", nginx)}
    published = services["proxy"]["ports"]
    inside = {int(str(p).split(":")[-1]) for p in published}
    assert inside == listens
    assert re.search(r"grpc_pass\s+grpc://serai\s*;", nginx)
    # the HTTP port (Connect, gRPC-Web, JSON) has its own upstream, unbuffered for Watch
    http = re.search(r"upstream\s+serai_http\s*\{(.*?)\}", nginx, re.S)
    assert http, "nginx has no upstream serai_http"
    assert re.findall(r"server\s+serai:(\d+)", http[1]) == [str(args.http_port)]
    assert re.search(r"proxy_pass\s+http://serai_http\s*;", nginx)
    assert re.search(r"proxy_buffering\s+off\s*;", nginx)
    # the proxy lets through what the replicas accept
    body = re.search(r"client_max_body_size\s+(\d+)([km]?)", nginx)
    assert body
    size = int(body[1]) * {"": 1, "k": 1024, "m": 1024 * 1024}[body[2]]
    assert size >= args.max_message_bytes == DEFAULT_MAX_MESSAGE_BYTES


def test_compose_replicas_are_ready_while_redis_answers():
    services = _compose()["services"]
    args = _serve_args(services["serai"]["command"])
    check = " ".join(services["serai"]["healthcheck"]["test"])
    assert f"127.0.0.1:{args.http_port}/readyz" in check


def test_compose_restarts_what_exits():
    # serve exits non-zero when it cannot go on; without a policy the replica would stay down
    for name, service in _compose()["services"].items():
        assert service.get("restart") in ("always", "unless-stopped"), name


def test_kubernetes_ports_probes_services_and_redis_agree():
    docs = _kubernetes("serai.yaml")
    deployment = _one(docs, "Deployment", "serai")
    pod = deployment["spec"]["template"]
    assert (
        deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    )
    (container,) = pod["spec"]["containers"]
    args = _serve_args(container.get("command", []) + container.get("args", []))
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["grpc"] == args.port
    # readiness follows Redis (/readyz), liveness does not (/healthz), both on the HTTP port
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        asked = container[probe]["httpGet"]
        assert asked["path"] == path, probe
        assert asked["port"] in ("http", args.http_port), probe
    # SIGTERM lets in-flight moves finish: Kubernetes must wait longer than the server does
    assert pod["spec"]["terminationGracePeriodSeconds"] > args.grace_seconds
    service = _one(docs, "Service", "serai")
    assert service["spec"]["selector"] == pod["metadata"]["labels"]
    assert ports["http"] == args.http_port
    service_ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert set(service_ports) == {"grpc", "http"}
    port = service_ports["grpc"]
    assert port["targetPort"] in (ports["grpc"], "grpc") and port["port"] == args.port
    port = service_ports["http"]
    assert port["targetPort"] in (ports["http"], "http") and port["port"] == args.http_port

    redis_docs = _kubernetes("redis.yaml")
    redis_service = _one(redis_docs, "Service", "serai-redis")
    redis_set = _one(redis_docs, "StatefulSet", "serai-redis")
    match = re.fullmatch(r"redis://([^:/]+):(\d+)/\d+", args.redis_url)
    assert match and match[1] == redis_service["metadata"]["name"]
    assert int(match[2]) == redis_service["spec"]["ports"][0]["port"]
    (redis_container,) = redis_set["spec"]["template"]["spec"]["containers"]
    assert redis_container["ports"][0]["containerPort"] == int(match[2])
    assert redis_service["spec"]["selector"] == redis_set["spec"]["template"]["metadata"]["labels"]


@pytest.mark.parametrize(
    "config",
    [
        (DEPLOY / "redis" / "redis.conf").read_text(),
        _kubernetes("redis.yaml")[0]["data"]["redis.conf"],
    ],
    ids=["compose", "kubernetes"],
)
def test_redis_keeps_every_committed_move_and_never_evicts_a_match(config):
    settings = {}
    for line in config.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            key, _, value = line.partition(" ")
            settings.setdefault(key, value)
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] in ("everysec", "always")
    assert settings["maxmemory-policy"] == "noeviction"
    assert settings.get("maxmemory", "0") not in ("0", "")  # else the policy never acts
    assert settings.get("timeout", "0") == "0"  # Watch holds idle connections open


def test_the_readme_says_docker_was_not_run_here():
    readme = (DEPLOY / "README.md").read_text()
    assert "redis+sentinel://" in readme and "--redis-cluster" in readme
    assert readme.startswith("# ") and "**Not tried with Docker.**" in readme.splitlines()[2]
