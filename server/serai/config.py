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
    data_dir: Path = Path("data")
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    grace_seconds: float = 10.0
    watch_block_ms: int = 1000
    cache_size: int = 4096
    log_format: str = "auto"
    log_level: str = "info"


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
        help="an existing Redis: redis://host:port/db or unix:///path/redis.sock "
        "(env SERAI_REDIS_URL; default: start an embedded Redis in --data-dir)",
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
        data_dir=args.data_dir,
        max_message_bytes=args.max_message_bytes,
        grace_seconds=args.grace_seconds,
        log_format=args.log_format,
        log_level=args.log_level,
    )
