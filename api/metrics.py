"""GET /metrics in the Prometheus text format (prometheus-client).

Per GraphQL operation (the root fields a request selects, so the label set is the schema's, never
user text): requests by outcome and latency, and errors by code (STORE_UNAVAILABLE is the
store's). Read from the runtime at scrape time: memories ingested, users held in each
per-user cache, engine restarts and whether the engine answers. One registry per app, so that
several apps in one process (tests) do not collide.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response
from strawberry.extensions import SchemaExtension

from api.errors import error_code
from graph.request_cost import Tally, counting

# context calls take tens of milliseconds, long rememberMany batches seconds
STATEMENT_BUCKETS = (1, 2, 4, 6, 8, 10, 12, 16, 24, 32, 64, 128)
# a context call's stages take from tens of microseconds (scoring) to tens of milliseconds (parse)
STAGE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25)
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The app's registry and the instruments the request path updates."""

    def __init__(self, runtime: Callable[[], Any]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "recollect_graphql_requests",
            "GraphQL requests by root field and outcome (ok or error)",
            ["operation", "outcome"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "recollect_graphql_request_seconds",
            "GraphQL execution time by root field",
            ["operation"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.statements = Histogram(
            "recollect_graph_statements",
            "Graph statements (round trips on Bolt) per GraphQL request, by root field",
            ["operation"],
            buckets=STATEMENT_BUCKETS,
            registry=self.registry,
        )
        self.stages = Histogram(
            "recollect_stage_seconds",
            "Time per stage of a request, by root field: context's follow, header, parse, "
            "cards, lookup, bm25, candidates, embed (waiting for the message's vector), faiss, "
            "rank, assess, records, block (graph/request_cost.py; the names are the code's)",
            ["operation", "stage"],
            buckets=STAGE_BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "recollect_graphql_errors",
            "GraphQL errors by code (STORE_UNAVAILABLE comes from the store)",
            ["code"],
            registry=self.registry,
        )
        self.tool_calls = Counter(
            "recollect_mcp_tool_calls",
            "MCP tool calls (/mcp) by tool and outcome (ok or error)",
            ["tool", "outcome"],
            registry=self.registry,
        )
        self.tool_latency = Histogram(
            "recollect_mcp_tool_seconds",
            "MCP tool call time by tool",
            ["tool"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.tool_errors = Counter(
            "recollect_mcp_tool_errors",
            "MCP tool errors by code (the codes GraphQL uses)",
            ["code"],
            registry=self.registry,
        )
        self.registry.register(_RuntimeCollector(runtime))

    def observe_tool(self, tool: str, seconds: float, code: str | None) -> None:
        """One MCP tool call (api/mcp_server.py)."""
        self.tool_calls.labels(tool, "error" if code else "ok").inc()
        self.tool_latency.labels(tool).observe(seconds)
        if code:
            self.tool_errors.labels(code).inc()

    def observe(
        self, operations: list[str], seconds: float, codes: list[str], tally: Tally | None = None
    ) -> None:
        outcome = "error" if codes else "ok"
        for operation in operations or ["unknown"]:
            self.requests.labels(operation, outcome).inc()
            self.latency.labels(operation).observe(seconds)
            self.statements.labels(operation).observe(tally.statements if tally else 0)
            for stage, spent in (tally.seconds if tally else {}).items():
                self.stages.labels(operation, stage).observe(spent)
        for code in codes:
            self.errors.labels(code).inc()

    async def endpoint(self, request: Request) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class _RuntimeCollector(Collector):
    """What the runtime knows, read when scraped (nothing to keep in step)."""

    def __init__(self, runtime: Callable[[], Any]) -> None:
        self.runtime = runtime

    def collect(self) -> Iterator[Any]:
        rt = self.runtime()
        if rt is None:  # still starting
            return
        ingested = CounterMetricFamily(
            "recollect_memories_ingested", "Memories written since the service started"
        )
        ingested.add_metric([], rt.service.ingested)
        yield ingested
        cached = GaugeMetricFamily(
            "recollect_cached_users", "Users held in each per-user cache", labels=["cache"]
        )
        for cache, users in rt.service.caches.sizes().items():
            cached.add_metric([cache], users)
        yield cached
        usage = rt.service.caches.usage()
        held = GaugeMetricFamily(
            "recollect_cache_bytes",
            "What the users held in the per-user caches weighed when last used",
        )
        held.add_metric([], usage["bytes"])
        yield held
        budget = GaugeMetricFamily(
            "recollect_cache_budget_bytes", "The per-user caches' budget (RECOLLECT_CACHE_MB)"
        )
        budget.add_metric([], usage["budget_bytes"])
        yield budget
        evictions = CounterMetricFamily(
            "recollect_cache_evictions", "Users whose caches were evicted to stay within budget"
        )
        evictions.add_metric([], usage["evictions"])
        yield evictions
        reconciled = CounterMetricFamily(
            "recollect_cache_catch_ups",
            "Caches brought up to the graph's change sequence: a delta applied or a user reloaded",
            labels=["how"],
        )
        reconciled.add_metric(["delta"], rt.service.reconciled.deltas)
        reconciled.add_metric(["reload"], rt.service.reconciled.reloads)
        yield reconciled
        pending = GaugeMetricFamily(
            "recollect_background_pending",
            "Background tasks queued or running (episodes, access statistics, index rebuilds)",
        )
        pending.add_metric([], rt.service.background.pending)
        yield pending
        yield from _background(rt.service.background)
        restarts = CounterMetricFamily(
            "recollect_engine_restarts", "Embedded engine restarts after it died"
        )
        restarts.add_metric([], rt.restarts)
        yield restarts
        up = GaugeMetricFamily("recollect_engine_up", "1 when the graph engine answers a ping")
        up.add_metric([], 1.0 if rt.executor.ping() else 0.0)
        yield up


def _background(background: Any) -> Iterator[Any]:
    """Failed tries by task, and the tasks parked after failing every try (graph/background.py)."""
    failures = CounterMetricFamily(
        "recollect_background_failures",
        "Failed tries of background tasks, by task (each is tried again, then parked)",
        labels=["task"],
    )
    for task, count in sorted(background.failures.items()):
        failures.add_metric([task], count)
    yield failures
    parked = GaugeMetricFamily(
        "recollect_background_parked",
        "Background tasks that failed every try, listed in /healthz until replayed",
    )
    parked.add_metric([], len(background.parked()))
    yield parked


class MetricsExtension(SchemaExtension):
    """Times each execution and reports it to the request context's `metrics`, if any."""

    def on_execute(self) -> Iterator[None]:
        started = time.perf_counter()
        with counting() as tally:
            yield
        context = self.execution_context.context
        metrics: Metrics | None = getattr(context, "metrics", None)
        if metrics is None:
            return
        result = self.execution_context.result
        codes = [error_code(e) for e in (result.errors or [])] if result is not None else []
        metrics.observe(
            _root_fields(self.execution_context),
            time.perf_counter() - started,
            codes,
            tally,
        )


def _root_fields(execution_context: Any) -> list[str]:
    document = execution_context.graphql_document
    if document is None:
        return []
    names: list[str] = []
    for definition in document.definitions:
        selection_set = getattr(definition, "selection_set", None)
        for selection in getattr(selection_set, "selections", ()):
            name = getattr(getattr(selection, "name", None), "value", None)
            if name and name not in names:
                names.append(name)
    return names
