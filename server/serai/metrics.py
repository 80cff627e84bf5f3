"""What an operator graphs and alerts on, in Prometheus' terms, counted in one place per kind.

Calls are counted where the request log writes their line (:mod:`serai.transports.request_log`, both
transports), calls by API key where the key is checked (:mod:`serai.rpc.auth`), moves and watchers
in the shared handlers, compare-and-set retries in the one CAS loop (:mod:`serai.matches.entries`),
clock expiries where a clock is enforced, webhook deliveries where each is attempted
(:mod:`serai.webhooks.dispatch`), Redis round trips, their latency and failures in the Redis store
(no call of its own: each is timed where it is made); the matches by status are read from the
store's indexes when scraped. Under ``serve --workers`` the supervisor gives every worker one
``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode: each process writes its figures
to files there, and whichever worker answers a scrape adds them all up), so the figures are the
service's, not one worker's. Example::

    observe_call("SubmitMove", "OK", 0.0004)
    text = await exposition(store)        # GET /metrics: the store counts its matches
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

from serai.store import Store

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
CAS_RETRIES = Counter(
    "serai_cas_retries",
    "Changes of a match planned again because another commit came first (a lost compare-and-set)",
)
CLOCK_SKEW = Gauge(
    "serai_clock_skew_seconds",
    "This replica's wall clock minus the store's (Redis TIME), as last measured; deadlines are "
    "taken on the store's clock whatever this says",
    multiprocess_mode="liveall",
)
CLOCK_EXPIRIES = Counter(
    "serai_clock_expiries",
    "Seats whose turn clock ran out (each lost, or had its default move played)",
)
STORE_SECONDS = Histogram(
    "serai_store_seconds",
    "Round trips to Redis by operation (a script, or a pipeline of commands), and their time; "
    "Watch's blocking reads are not counted",
    ["op"],
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2.5),
)
STORE_ERRORS = Counter(
    "serai_store_errors",
    "Redis failures by kind: unavailable (down, failing over), full (out of memory), refused",
    ["kind"],
)
WEBHOOK_DELIVERIES = Counter(
    "serai_webhook_deliveries",
    "Webhook delivery attempts by outcome: delivered (a 2xx), failed (retried later), gave_up "
    "(failed for a day), refused (the URL may not be called, or the key has no webhook)",
    ["outcome"],
)
TENANT_REQUESTS = Counter(
    "serai_tenant_requests",
    'Calls by the API key they carry (its name, the tenant; "" for calls without a key)',
    ["tenant"],
)

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


_store_children: dict[str, Any] = {}


def observe_store(op: str, seconds: float) -> None:
    """Count one round trip to Redis for ``op`` (a script's name, or what a pipeline does)."""
    child = _store_children.get(op)
    if child is None:
        child = _store_children[op] = STORE_SECONDS.labels(op)
    child.observe(seconds)


_tenant_children: dict[str, Any] = {}


def count_tenant_call(tenant: str) -> None:
    """Count one call with the API key ``tenant`` names ("": without a key). Only keys that
    passed are counted, so the labels are the store's key names, never a caller's text."""
    child = _tenant_children.get(tenant)
    if child is None:
        child = _tenant_children[tenant] = TENANT_REQUESTS.labels(tenant)
    child.inc()


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


async def exposition(store: Store | None) -> bytes:
    """The text a scrape gets: the process's (or workers') figures, and the store's matches."""
    text = generate_latest(registry())
    if store is None:
        return text
    counts = await store.match_counts()
    family = GaugeMetricFamily(
        "serai_matches", "Matches in the store by status (read at scrape)", labels=["status"]
    )
    for status, count in counts.items():
        family.add_metric([status], count)
    return text + generate_latest(_Fixed([family]))  # type: ignore[arg-type]
