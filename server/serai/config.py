"""Server settings: each one a flag of ``serai serve``, with an environment variable as default.

Precedence: flag, then environment, then the default below. Example::

    SERAI_REDIS_URL=redis://cache:6379/0 serai serve --port 50051
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 50051
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """Everything ``serai serve`` can be told. ``redis_url`` None: start an embedded Redis."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    redis_url: str | None = None
    redis_cluster: str | None = None
    data_dir: Path = Path("data")
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    grace_seconds: float = 10.0
    watch_block_ms: int = 1000
    cache_size: int = 4096
    log_format: str = "auto"
    log_level: str = "info"
    move_rate: float = 1000.0
    move_burst: float = 2000.0
    max_open_matches: int = 100
    idle_seconds: int = 24 * 3600
    sweep_seconds: float = 1.0
    redis_connections: int = 1000


def _env(name: str, default: str | None) -> str | None:
    return os.environ.get(f"SERAI_{name}", default)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server flags, each defaulting to its SERAI_* environment variable."""
    d = Settings()
    parser.add_argument(
        "--host",
        default=_env("HOST", d.host),
        help=f"address to listen on; 0.0.0.0 or [::] for every interface (env SERAI_HOST, "
        f"default {d.host})",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(_env("PORT", str(d.port)) or d.port),
        help=f"TCP port; 0 picks a free one (env SERAI_PORT, default {d.port})",
    )
    parser.add_argument(
        "--redis-url",
        default=_env("REDIS_URL", None),
        help="an existing Redis: redis://host:port/db, unix:///path/redis.sock, a Sentinel "
        "group redis+sentinel://[:password@]host:port[,host:port...]/service_name[/db] or a "
        "Redis Cluster redis+cluster://[:password@]host:port[,host:port...] "
        "(env SERAI_REDIS_URL; default: start an embedded Redis in --data-dir)",
    )
    parser.add_argument(
        "--redis-cluster",
        default=_env("REDIS_CLUSTER", None),
        metavar="HOST:PORT,...",
        help="a Redis Cluster, by some of its nodes (the rest are discovered); replaces "
        "--redis-url (env SERAI_REDIS_CLUSTER)",
    )
    parser.add_argument(
        "--redis-connections",
        type=int,
        default=int(_env("REDIS_CONNECTIONS", str(d.redis_connections)) or d.redis_connections),
        help="most Redis connections this replica opens (per node of a cluster); each request in "
        "flight and each waiting Watch holds one, more wait for a free one (env "
        f"SERAI_REDIS_CONNECTIONS, default {d.redis_connections})",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(_env("DATA_DIR", str(d.data_dir)) or d.data_dir),
        help="folder of the embedded Redis's append-only file (env SERAI_DATA_DIR, "
        f"default ./{d.data_dir})",
    )
    parser.add_argument(
        "--max-message-bytes",
        type=int,
        default=int(_env("MAX_MESSAGE_BYTES", str(d.max_message_bytes)) or 0),
        help="largest request or response; bigger ones get RESOURCE_EXHAUSTED "
        f"(env SERAI_MAX_MESSAGE_BYTES, default {d.max_message_bytes})",
    )
    parser.add_argument(
        "--move-rate",
        type=float,
        default=float(_env("MOVE_RATE", str(d.move_rate)) or 0),
        help="SubmitMove calls per second allowed on one client connection, on average; more "
        "get RESOURCE_EXHAUSTED; 0: no limit. Behind a proxy every client shares its connection: "
        f"raise it or set 0 there (env SERAI_MOVE_RATE, default {d.move_rate:g})",
    )
    parser.add_argument(
        "--move-burst",
        type=float,
        default=float(_env("MOVE_BURST", str(d.move_burst)) or 0),
        help="SubmitMove calls one connection may make at once before --move-rate applies "
        f"(env SERAI_MOVE_BURST, default {d.move_burst:g})",
    )
    parser.add_argument(
        "--max-open-matches",
        type=int,
        default=int(_env("MAX_OPEN_MATCHES", str(d.max_open_matches)) or 0),
        help="unfinished matches one CreateMatch client_id may have; more get "
        "RESOURCE_EXHAUSTED; 0: no limit (env SERAI_MAX_OPEN_MATCHES, "
        f"default {d.max_open_matches})",
    )
    parser.add_argument(
        "--idle-seconds",
        type=int,
        default=int(_env("IDLE_SECONDS", str(d.idle_seconds)) or 0),
        help="an unfinished match nobody changes for this long is dropped (then NOT_FOUND, "
        "'expired'); finished ones are kept; 0: never (env SERAI_IDLE_SECONDS, default "
        f"{d.idle_seconds})",
    )
    parser.add_argument(
        "--sweep-seconds",
        type=float,
        default=float(_env("SWEEP_SECONDS", str(d.sweep_seconds)) or 0),
        help="how often this replica looks for turn clocks that ran out in matches nobody reads "
        f"(env SERAI_SWEEP_SECONDS, default {d.sweep_seconds:g})",
    )
    parser.add_argument(
        "--grace-seconds",
        type=float,
        default=float(_env("GRACE_SECONDS", str(d.grace_seconds)) or 0),
        help="on SIGTERM/SIGINT, how long in-flight requests may take to finish "
        f"(env SERAI_GRACE_SECONDS, default {d.grace_seconds})",
    )
    parser.add_argument(
        "--log-format",
        choices=("auto", "json", "pretty"),
        default=_env("LOG_FORMAT", d.log_format),
        help="auto: JSON lines unless stdout is a terminal (env SERAI_LOG_FORMAT, default auto)",
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default=_env("LOG_LEVEL", d.log_level),
        help="least severe level logged (env SERAI_LOG_LEVEL, default info)",
    )


def from_args(args: argparse.Namespace) -> Settings:
    return Settings(
        host=args.host,
        port=args.port,
        redis_url=args.redis_url or None,
        redis_cluster=args.redis_cluster or None,
        data_dir=args.data_dir,
        max_message_bytes=args.max_message_bytes,
        grace_seconds=args.grace_seconds,
        log_format=args.log_format,
        log_level=args.log_level,
        move_rate=args.move_rate,
        move_burst=args.move_burst,
        max_open_matches=args.max_open_matches,
        idle_seconds=args.idle_seconds,
        sweep_seconds=args.sweep_seconds,
        redis_connections=args.redis_connections,
    )
