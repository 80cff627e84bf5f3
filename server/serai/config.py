"""Server settings: each one a flag of ``serai serve``, with an environment variable as default.

Precedence: flag, then environment, then the default below. Example::

    SERAI_REDIS_URL=redis://cache:6379/0 serai serve --port 50051
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serai import flag_values as values
from serai.flag_values import memory_bytes  # noqa: F401  (serve and tests read it here)
from serai.webhooks.urls import add_allow_host_argument, allowed_hosts

DEFAULT_PORT = 50051
DEFAULT_HTTP_PORT = 50052
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
EVENT_LOOPS = ("asyncio", "uvloop")  # serve --event-loop


@dataclass(frozen=True)
class Settings:
    """Everything ``serai serve`` can be told. ``redis_url`` None: start an embedded Redis."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    http_port: int | None = DEFAULT_HTTP_PORT  # None: no HTTP server
    http_allow_origin: tuple[str, ...] = ()
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
    max_open_per_peer: int = 100
    max_open_total: int = 10_000
    list_rate: float = 5.0
    list_burst: float = 10.0
    create_rate: float = 5.0
    create_burst: float = 100.0
    play_open_seconds: float = 10.0
    header_seconds: float = 10.0
    http_idle_seconds: float = 5.0
    grpc_idle_seconds: float = 300.0
    max_connections_per_peer: int = 256
    max_connections: int = 10_000
    idle_seconds: int = 24 * 3600
    sweep_seconds: float = 1.0
    redis_connections: int = 1000
    redis_timeout: float = 5.0
    redis_connect_timeout: float = 2.0
    redis_probe_seconds: float = 0.5
    redis_wait_replicas: int = 0
    redis_wait_ms: int = 500
    max_watches: int = 20_000
    max_watches_per_peer: int = 200
    max_watches_per_match: int = 2_000
    workers: int = 1
    chosen_seeds: str = "refuse"
    redis_maxmemory: str = "auto"
    redis_fsync: str = "everysec"
    require_api_key: bool = False
    house_bots: int = 16
    # None: with the embedded Redis, the SQLite file archive.sqlite3 in data_dir; else none
    archive_url: str | None = None
    keep_finished: float = 3600.0  # seconds a finished match stays in Redis once archived
    house_bots_per_client: int = 2
    metrics_port: str = "http"  # "http": on the HTTP port; "off"; or a port of its own
    metrics_token: str = ""
    admin_token: str = ""
    metrics_tenants: bool = False
    webhook_allow_host: tuple[str, ...] = ()  # hosts webhook URLs may name (none: no webhooks)
    queue_move_seconds: int = 60
    rate_people_against_bots: bool = False
    queue_bot_after: float = 0.0  # seconds a queued player waits before a house bot (0: never)
    provisional_games: int = 5
    event_loop: str = "asyncio"


def _setting(
    parser: argparse.ArgumentParser,
    flag: str,
    help: str,
    *,
    kind: Callable[[str], Any] = str,
    default_text: str | None = None,
    **options: Any,
) -> None:
    """Add ``flag`` (``--move-rate`` sets ``Settings.move_rate``), default ``SERAI_MOVE_RATE``.

    The help text gets "(env SERAI_..., default ...)" appended; ``default_text`` overrides how
    the default is shown (None: the Settings value; "" shows none).

    The variable's value is given to argparse as the default's text, which argparse reads with
    ``kind`` as it would the flag's: a bad value is the same one-line usage error as on the
    command line, and only for the command that reads it. ``choices`` are checked in ``kind``
    too, as argparse does not check a default against them.
    """
    field = flag.removeprefix("--").replace("-", "_")
    env = f"SERAI_{field.upper()}"
    default = getattr(Settings(), field)
    from_env = os.environ.get(env)
    shown = f"{default:g}" if isinstance(default, float) else str(default)
    shown = shown if default_text is None else default_text
    choices = options.get("choices")
    parser.add_argument(
        flag,
        type=values.one_of(kind, choices, env) if choices else kind,
        default=from_env if from_env else default,
        help=f"{help} (env {env}" + (f", default {shown})" if shown else ")"),
        **options,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server flags, each defaulting to its SERAI_* environment variable, in two groups:
    what an operator sets, and tuning (whose defaults suit most servers)."""
    operator = parser.add_argument_group("what an operator sets")
    for flags in (_listening, _data, _access, _watching_the_server, _community):
        flags(operator)
    add_allow_host_argument(operator)  # webhooks: see serai.webhooks
    tuning = parser.add_argument_group("tuning (the defaults suit most servers)")
    for flags in (
        _redis_tuning,
        _durability,
        _connection_limits,
        _rates,
        _stream_limits,
        _process_tuning,
    ):
        flags(tuning)


def _listening(group: Any) -> None:
    """Where serai listens, and in how many processes."""
    _setting(group, "--host", "address to listen on; 0.0.0.0 or [::] for every interface")
    _setting(group, "--port", "TCP port of native gRPC; 0 picks a free one", kind=values.port)
    _setting(
        group,
        "--http-port",
        "TCP port of the same API over HTTP/1.1 (no TLS): the Connect protocol "
        "(JSON or binary, so curl works), gRPC-Web for browsers, and grpc.health.v1; 0 picks a "
        "free one; off: none",
        kind=values.http_port,
    )
    from_env = os.environ.get("SERAI_HTTP_ALLOW_ORIGIN", "")
    group.add_argument(
        "--http-allow-origin",
        action="append",
        type=lambda text: text.strip().rstrip("/"),
        default=None,
        metavar="ORIGIN",
        help="a browser origin (scheme://host[:port]) whose pages may call the HTTP port (CORS); "
        "repeat for more; * for any (env SERAI_HTTP_ALLOW_ORIGIN, comma-separated; default none)",
    )
    group.set_defaults(http_allow_origin_env=values.origins(from_env))
    _setting(
        group,
        "--workers",
        "server processes sharing --port (SO_REUSEPORT), as one Python process uses one core; "
        "0: one per CPU core this process may use (its CPU affinity and container CPU limit)",
        kind=values.workers,
        metavar="N",
    )


def _data(group: Any) -> None:
    """Where matches live: Redis for those playing, the archive for finished ones."""
    _setting(
        group,
        "--redis-url",
        "an existing Redis: redis://host:port/db, unix:///path/redis.sock, a Sentinel "
        "group redis+sentinel://[:password@]host:port[,host:port...]/service_name[/db] or a "
        "Redis Cluster redis+cluster://[:password@]host:port[,host:port...]",
        default_text="none: start an embedded Redis in --data-dir",
    )
    _setting(
        group,
        "--redis-cluster",
        "a Redis Cluster, by some of its nodes (the rest are discovered); replaces --redis-url",
        default_text="",
        metavar="HOST:PORT,...",
    )
    _setting(
        group,
        "--data-dir",
        "folder of the embedded Redis's append-only file, and of the socket it listens on (its "
        "owner's alone: a folder made here is mode 0700)",
        kind=Path,
        default_text=f"./{Settings().data_dir}",
    )
    _setting(
        group,
        "--archive-url",
        "where finished matches are kept once they leave Redis: postgresql://user:password@host:"
        "port/database (every replica shares it), or sqlite:///path/file (one host); GetMatch, "
        "GetTranscript, ListMatches, export and replay read it",
        default_text="with the embedded Redis, the SQLite file archive.sqlite3 in --data-dir; "
        "with --redis-url or --redis-cluster, none: finished matches stay in Redis",
    )
    _setting(
        group,
        "--keep-finished",
        "how long a finished match stays in Redis once the archive has it (then only the "
        "archive has it): 90 (seconds), 2s, 30m, 1h, 7d; 0: it leaves at once",
        kind=values.duration,
        default_text="1h",
    )


def _community(group: Any) -> None:
    """Matchmaking and ratings (JoinQueue, GetRating, ListLeaderboard)."""
    _setting(
        group,
        "--queue-move-seconds",
        "the turn clock of the matches the queue makes, in seconds: a paired player who never "
        "plays loses on time, and the others go on; 0: no clock",
        kind=values.at_least(0, int),
        metavar="SECONDS",
    )
    _setting(
        group,
        "--rate-people-against-bots",
        "whether a rated match of people against bots moves the people's ratings (and the "
        "bots'); by default such a match moves no rating. true or false; the flag alone is true",
        kind=values.boolean,
        nargs="?",
        const=True,
        metavar="BOOL",
    )
    _setting(
        group,
        "--queue-bot-after",
        "a player who waits this long in a queue is seated with house bots (this process "
        "plays them, up to --house-bots; rated on the bots' leaderboard: see "
        "--rate-people-against-bots): 30 (seconds), 45s, 2m; 0: never",
        kind=values.duration,
        default_text="0 (never)",
        metavar="DURATION",
    )
    _setting(
        group,
        "--provisional-games",
        "rated matches a player plays on a leaderboard before its rating is shown as settled "
        "(Rating.provisional)",
        kind=values.at_least(0, int),
        metavar="N",
    )


def _access(group: Any) -> None:
    """Who may call, and what they may ask for."""
    _setting(
        group,
        "--require-api-key",
        "every call but health, reflection and ListGames needs an API key (`serai keys create`), "
        "sent as `authorization: Bearer <key>` or `x-serai-key: <key>`; without it a key is "
        "still honoured when sent. true or false; the flag alone is true",
        kind=values.boolean,
        nargs="?",
        const=True,
        metavar="BOOL",
    )
    _setting(
        group,
        "--chosen-seeds",
        "whether CreateMatch may choose the seed: a creator who chose it can work out the whole "
        "deal (every hand, the deck order) with the game's open code, so by default such a "
        "request is refused (INVALID_ARGUMENT); allow it for tests, tournaments and replays "
        "among players who trust the creator (such matches show seed_chosen)",
        choices=("allow", "refuse"),
    )


def _watching_the_server(group: Any) -> None:
    """What the server says of itself, and to whom: metrics, the console, logs."""
    _setting(
        group,
        "--metrics-port",
        "where GET /metrics (Prometheus) is served: http, on the HTTP port; a TCP port of its "
        "own (on --host; keep it off the public network), and then not on the HTTP port; "
        "off: nowhere",
        kind=values.metrics_port,
        metavar="PORT|http|off",
    )
    _setting(
        group,
        "--metrics-token",
        "a secret a scrape must send as `authorization: Bearer <token>` (else 401); set it by "
        "the environment variable, which ps does not show; none: /metrics is open to whoever "
        "reaches its port",
        default_text="",
        metavar="TOKEN",
    )
    _setting(
        group,
        "--admin-token",
        "the secret that opens the operator's console at /admin on the HTTP port (every "
        "tenant's matches and hidden cards, ending a match); set it by the environment "
        "variable, which ps does not show; none: the console is off",
        default_text="",
        metavar="TOKEN",
    )
    _setting(
        group,
        "--log-format",
        "auto: JSON lines unless stdout is a terminal",
        choices=("auto", "json", "pretty"),
    )
    _setting(
        group,
        "--log-level",
        "least severe level logged",
        choices=("debug", "info", "warning", "error"),
    )


def _redis_tuning(group: Any) -> None:
    """How this process talks to Redis."""
    _setting(
        group,
        "--redis-connections",
        "most Redis connections this process opens (per node of a cluster; each of --workers "
        "opens its own); each request in flight holds one, more wait for a free one (Watches "
        "share two per node, whatever their number)",
        kind=values.at_least(1, int),
    )
    _setting(
        group,
        "--redis-timeout",
        "longest wait for one Redis reply (or for a free connection) before the call "
        "answers UNAVAILABLE, for every kind of --redis-url; 1.5 s or more, as a Watch's read "
        "blocks for 1 s. Calls arriving while Redis is known down (see --redis-probe-seconds) "
        "do not wait at all",
        kind=values.at_least(1.5, float),
        metavar="SECONDS",
    )
    _setting(
        group,
        "--redis-connect-timeout",
        "longest wait for a new Redis connection (each node, sentinel or master)",
        kind=values.at_least(0.1, float),
        metavar="SECONDS",
    )
    _setting(
        group,
        "--redis-probe-seconds",
        "how often this process pings Redis; a ping refused, or two in a row not answered "
        "within twice this, mark the store down: health says NOT_SERVING (grpc.health.v1, /readyz) "
        "and calls answer UNAVAILABLE at once, until a ping (every fifth of this meanwhile) is "
        "answered",
        kind=values.at_least(0.05, float),
        metavar="SECONDS",
    )


def _durability(group: Any) -> None:
    """What a move's acknowledgement promises, and the embedded Redis's limits."""
    _setting(
        group,
        "--redis-wait-replicas",
        "durability: acknowledge a move (or a new match) only once this many Redis replicas have "
        "it (Redis WAIT); fewer within --redis-wait-ms: the call answers UNAVAILABLE, the move "
        "applied on the primary but not acknowledged, and a resend with the same request_id "
        "applies it once. 0: acknowledged when the primary has it, as Redis replicates, so a "
        "failover may lose the last moves acknowledged (see deploy/README.md, Durability). "
        "One Redis or a Sentinel group, not a cluster",
        kind=values.at_least(0, int),
        metavar="N",
    )
    _setting(
        group,
        "--redis-wait-ms",
        "durability: how long a move waits for --redis-wait-replicas replicas",
        kind=values.at_least(1, int),
        metavar="MS",
    )
    _setting(
        group,
        "--redis-maxmemory",
        "most data the embedded Redis holds (not used with --redis-url): when full it refuses "
        "new matches and moves (RESOURCE_EXHAUSTED) and never drops one; bytes, or 512mb, 2gb; "
        "0: no limit",
        kind=values.memory_size,
        default_text="auto: a quarter of this machine's memory, or of the container's limit",
    )
    _setting(
        group,
        "--redis-fsync",
        "when the embedded Redis forces its append-only file to disk (not used with "
        "--redis-url): everysec, a machine crash may lose the last second of moves; always, "
        "before each move is answered, slower",
        choices=("always", "everysec"),
    )


def _connection_limits(group: Any) -> None:
    """What one connection may hold and take."""
    _setting(
        group,
        "--header-seconds",
        "how long a new connection may take to send a request's headers (HTTP port) or its "
        "HTTP/2 preface and settings (gRPC port) before it is closed, so that slow or silent "
        "connections (slowloris) cannot hold file descriptors; 0: no limit on HTTP, grpc's "
        "120 s on gRPC",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--http-idle-seconds",
        "how long an HTTP connection may wait for its next request (keep-alive) before it is "
        "closed",
        kind=values.at_least(0.1, float),
    )
    _setting(
        group,
        "--grpc-idle-seconds",
        "how long a gRPC connection with no call in progress is kept before it is closed "
        "(GOAWAY: a client opens a new one at its next call, unnoticed); 0: for ever",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--max-connections-per-peer",
        "most connections one client address (the host; an IPv6 /64 as one) may hold open to "
        "each port of this process: on the HTTP port more are closed as they open, on the gRPC "
        "port within a second (grpc counts none per address: serai looks at its sockets, on "
        "Linux); 0: no limit. With --workers, each worker counts its own. Behind a proxy every "
        "client shares its address: raise it or set 0 there",
        kind=values.at_least(0, int),
    )
    _setting(
        group,
        "--max-connections",
        "most connections open to each port of this process, from every client together (keep "
        "it under the open-file limit, ulimit -n); more are closed as they open; 0: no limit",
        kind=values.at_least(0, int),
    )
    _setting(
        group,
        "--max-message-bytes",
        "largest request or response; bigger ones get RESOURCE_EXHAUSTED",
        kind=values.at_least(1, int),
    )


def _rates(group: Any) -> None:
    """How often a caller may move, list and create."""
    _setting(
        group,
        "--move-rate",
        "SubmitMove calls per second allowed on one client connection, on average; more get "
        "RESOURCE_EXHAUSTED; 0: no limit. Behind a proxy every client shares its connection: "
        "raise it or set 0 there",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--move-burst",
        "SubmitMove calls one connection may make at once before --move-rate applies",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--list-rate",
        "ListMatches, GetTranscript and GetReplay calls per second allowed from one client "
        "address (gRPC and HTTP together, "
        "in each server process), on average; more get RESOURCE_EXHAUSTED; 0: no limit. Behind "
        "a proxy every client shares its address: raise it or set 0 there",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--list-burst",
        "ListMatches, GetTranscript and GetReplay calls one address may make at once before "
        "--list-rate applies",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--create-rate",
        "CreateMatch calls per second allowed from one API key, or from one client address "
        "for calls without a key (gRPC and HTTP together, in each server process), on "
        "average; more get RESOURCE_EXHAUSTED; 0: no limit. Finished matches are kept, so "
        "this bounds how fast one caller can fill the store. Behind a proxy every client "
        "without a key shares its address: raise it or set 0 there",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--create-burst",
        "CreateMatch calls one key or address may make at once before --create-rate applies",
        kind=values.at_least(0, float),
    )


def _stream_limits(group: Any) -> None:
    """How many streams, unfinished matches and house bots one caller and the process may hold."""
    _setting(
        group,
        "--max-watches",
        "most Watch streams this process serves at once; more are refused (RESOURCE_EXHAUSTED)",
        kind=values.at_least(1, int),
    )
    _setting(
        group,
        "--max-watches-per-peer",
        "most Watch streams one client address may hold open on this process (a client opening "
        "more connections gets no more), so that no client takes every slot",
        kind=values.at_least(1, int),
    )
    _setting(
        group,
        "--max-watches-per-match",
        "most Watch streams of one match on this process",
        kind=values.at_least(1, int),
    )
    _setting(
        group,
        "--play-open-seconds",
        "how long a new Play stream may take to send its PlayRequest.open before it is ended "
        "(DEADLINE_EXCEEDED); until then it counts as one of --max-watches and "
        "--max-watches-per-peer; 0: no limit",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--max-open-per-peer",
        "unfinished matches the CreateMatch calls from one client address may have (the host, "
        "not the port; an IPv6 /64 as one), whatever their client_id; more get "
        "RESOURCE_EXHAUSTED; 0: no limit. Behind a proxy every client shares its address: "
        "raise it or set 0 there, and rely on --max-open-total",
        kind=values.at_least(0, int),
    )
    _setting(
        group,
        "--max-open-total",
        "unfinished matches the whole store may hold, from every client and replica (each "
        "takes about 7 KB); more CreateMatch calls get RESOURCE_EXHAUSTED; 0: no limit",
        kind=values.at_least(0, int),
    )
    _setting(
        group,
        "--max-open-matches",
        "unfinished matches one CreateMatch client_id may have (a label the client chooses: a "
        "courtesy limit among bots sharing an address; --max-open-per-peer is the one a client "
        "cannot reset); more get RESOURCE_EXHAUSTED; 0: no limit",
        kind=values.at_least(0, int),
    )


def _process_tuning(group: Any) -> None:
    """The process's own clocks, its house bots and its metrics' detail."""
    _setting(
        group,
        "--house-bots",
        "most bots this process plays itself at once, started by POST /bots on the HTTP port "
        '(a browser\'s "play against a greedy or search bot"; each joins as a client of the '
        "gRPC port with the caller's API key); 0: none, and /bots answers 404",
        kind=values.at_least(0, int),
        metavar="N",
    )
    _setting(
        group,
        "--house-bots-per-client",
        "most of --house-bots one caller may have playing at once (by its API key, else its "
        "address); more POST /bots get 429; 0: no limit",
        kind=values.at_least(0, int),
        metavar="N",
    )
    _setting(
        group,
        "--idle-seconds",
        "an unfinished match nobody changes for this long is dropped (then NOT_FOUND, "
        "'expired'); finished ones stay until archived (see --keep-finished); 0: never",
        kind=values.at_least(0, int),
    )
    _setting(
        group,
        "--sweep-seconds",
        "how often this replica looks for turn clocks that ran out in matches nobody reads",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--grace-seconds",
        "on SIGTERM/SIGINT, how long in-flight requests may take to finish",
        kind=values.at_least(0, float),
    )
    _setting(
        group,
        "--event-loop",
        "the event loop each process runs on: asyncio's own, or uvloop's (libuv; needs the "
        "uvloop package: pip install uvloop)",
        choices=EVENT_LOOPS,
    )
    _setting(
        group,
        "--metrics-tenants",
        "count calls by API key name (serai_tenant_requests{tenant=...}): every tenant's name "
        "is then on /metrics. true or false; the flag alone is true",
        kind=values.boolean,
        nargs="?",
        const=True,
        metavar="BOOL",
    )


def from_args(args: argparse.Namespace) -> Settings:
    """The settings the parsed flags give: each field from the flag of its name, but for the few
    converted on the way (an empty URL is none; origins may come from the environment)."""
    named = {f.name: getattr(args, f.name) for f in dataclasses.fields(Settings) if f.name in args}
    origins = args.http_allow_origin
    converted = {
        "http_allow_origin": tuple(
            origins if origins is not None else getattr(args, "http_allow_origin_env", ())
        ),
        "redis_url": args.redis_url or None,
        "redis_cluster": args.redis_cluster or None,
        "archive_url": args.archive_url or None,
        "webhook_allow_host": tuple(sorted(allowed_hosts(args).hosts)),
    }
    return Settings(**{**named, **converted})


# Where Redis and the archive are, where to listen and how many workers: the supervisor sets
# these itself (the URLs in the environment, where ps cannot show a password).
_SET_BY_SUPERVISOR = frozenset(
    {"host", "port", "http_port", "redis_url", "redis_cluster", "data_dir", "workers"}
    | {"archive_url"}
)
# Secrets: given to the workers in their environment (see serai.commands.workers), never as flags.
SECRET_SETTINGS = {"metrics_token": "SERAI_METRICS_TOKEN", "admin_token": "SERAI_ADMIN_TOKEN"}


def worker_flags(settings: Settings) -> list[str]:
    """The flags that give a worker process ``settings`` (see serai.commands.workers): every
    flag of :func:`add_arguments` but those the supervisor sets itself, so a flag added there
    reaches the workers without a word here."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    flags: list[str] = []
    for action in parser._actions:  # argparse has no public list of a parser's options
        if (
            not action.option_strings
            or action.dest in _SET_BY_SUPERVISOR
            or action.dest in SECRET_SETTINGS
        ):
            continue
        value = getattr(settings, action.dest)
        if isinstance(value, tuple):  # a repeatable flag: once per value
            for item in value:
                flags += [action.option_strings[0], str(item)]
            continue
        flags += [
            action.option_strings[0],
            repr(value) if isinstance(value, float) else str(value),
        ]
    return flags
