"""What an operator graphs and alerts on, in Prometheus' terms, counted in one place per kind.

Calls are counted where the request log writes their line (:mod:`serai.transports.request_log`,
both transports), moves and watchers in the shared handlers; the matches by status are read
from the store's indexes when scraped. Under ``serve --workers`` the supervisor gives every
worker one ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode: each process
writes its figures to files there, and whichever worker answers a scrape adds them all up), so
the figures are the service's, not one worker's. Example::

    observe_call("SubmitMove", "OK", 0.0004)
    text = await exposition(store)        # GET /metrics
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

from serai.store import STATUSES

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

REQUESTS = Counter(
    "serai_requests", "Calls answered, by method and status code", ["method", "code"]
)
LATENCY = Histogram(
    "serai_request_seconds",
    "Time from a call's request decoded to its answer (a Watch: its whole life), by method",
    ["method"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60),
)
MOVES = Counter("serai_moves_committed", "Moves committed (a retried request counts once)")
WATCHERS = Gauge("serai_watchers", "Watch streams open now", multiprocess_mode="livesum")

# (method, code) -> the counter's and the histogram's children: labels() costs a dict lookup
# and a lock a call; this costs one lookup.
_children: dict[tuple[str, str], tuple[Any, Any]] = {}


def observe_call(method: str, code: str, seconds: float) -> None:
    """Count one call that ended with ``code`` (gRPC's name) after ``seconds``."""
    children = _children.get((method, code))
    if children is None:
        children = _children[(method, code)] = (
            REQUESTS.labels(method, code),
            LATENCY.labels(method),
        )
    children[0].inc()
    children[1].observe(seconds)


def registry() -> CollectorRegistry:
    """The figures of this process, or of every worker of the service in multiprocess mode."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        gathered = CollectorRegistry()
        multiprocess.MultiProcessCollector(gathered)  # type: ignore[no-untyped-call]
        return gathered
    return REGISTRY


class _Fixed(Collector):
    def __init__(self, families: Iterable[Any]) -> None:
        self._families = list(families)

    def collect(self) -> Iterable[Any]:
        return self._families


async def match_counts(redis: Any, tenants: Iterable[str]) -> dict[str, int]:
    """Matches by status, from the store's indexes (those without a key and each tenant's)."""
    from serai.store.redis.keys import index_key

    pipe = redis.pipeline(transaction=False)
    names = ["", *tenants]
    for status in STATUSES:
        for tenant in names:
            pipe.zcard(index_key(status, None, tenant))
    counts = iter(await pipe.execute())
    return {status: sum(next(counts) for _ in names) for status in STATUSES}


async def exposition(redis: Any | None) -> bytes:
    """The text a scrape gets: the process's (or workers') figures, and the store's matches."""
    text = generate_latest(registry())
    if redis is None:
        return text
    from serai.store.redis.encoding import text as decoded
    from serai.store.redis.keys import API_KEYS_KEY

    tenants = [decoded(name) for name in await redis.smembers(API_KEYS_KEY)]
    counts = await match_counts(redis, tenants)
    family = GaugeMetricFamily(
        "serai_matches", "Matches in the store by status (read at scrape)", labels=["status"]
    )
    for status, count in counts.items():
        family.add_metric([status], count)
    return text + generate_latest(_Fixed([family]))  # type: ignore[arg-type]
