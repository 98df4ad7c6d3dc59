"""GET /metrics: Prometheus text with requests, latency and errors per GraphQL operation, ingest
counts, cache sizes and engine state — on the embedded engine with the real models."""

from __future__ import annotations

import threading

from tests.conftest import Api
from tests.documents import REMEMBER_MANY, Samples, metric_samples

ASK = 'query { context(userId: "mx-secret-user", message: "Where does Mary live?") { text } }'
BAD = 'query { context(userId: "mx-secret-user", message: "Mary?", tokenBudget: 1) { text } }'


def _samples(api: Api) -> Samples:
    response = api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "mx-secret-user" not in response.text, "no user data in the metrics"
    return metric_samples(response.text)


def test_metrics_count_operations_errors_ingest_and_caches(api: Api) -> None:
    before = _samples(api)
    inputs = [{"userId": "mx-secret-user", "text": "My sister Mary lives in Boston."}]
    api.ok(REMEMBER_MANY, inputs=inputs)
    api.ok(ASK)
    api.ok(ASK)
    api.raw(BAD)
    after = _samples(api)

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    ok = "recollect_graphql_requests_total"
    assert delta(ok, operation="context", outcome="ok") == 2
    assert delta(ok, operation="rememberMany", outcome="ok") == 1
    assert delta("recollect_graphql_request_seconds_count", operation="context") == 3
    assert delta("recollect_memories_ingested_total") == 1
    # the statements each request sent to the graph reach the metrics through the worker threads
    assert delta("recollect_graph_statements_count", operation="context") == 3
    assert delta("recollect_graph_statements_sum", operation="context") >= 2 * 4
    assert delta("recollect_graph_statements_sum", operation="rememberMany") >= 1
    # each stage's time reaches the metrics through the worker thread, and the stages of a call
    # are disjoint: together they fit within the execution time
    stages = ("parse", "embed", "cards", "rank", "records", "block", "header", "bm25", "faiss")
    spent = {s: delta("recollect_stage_seconds_sum", operation="context", stage=s) for s in stages}
    assert all(
        delta("recollect_stage_seconds_count", operation="context", stage=s) == 2
        for s in ("parse", "rank", "records")
    ), spent
    assert spent["parse"] > 0 and spent["rank"] > 0
    total = sum(
        v
        for (name, labels), v in after.items()
        if name == "recollect_stage_seconds_sum" and ("operation", "context") in labels
    ) - sum(
        v
        for (name, labels), v in before.items()
        if name == "recollect_stage_seconds_sum" and ("operation", "context") in labels
    )
    assert 0 < total <= delta("recollect_graphql_request_seconds_sum", operation="context")
    assert after[("recollect_cached_users", (("cache", "vectors"),))] >= 1
    held, budget = after[("recollect_cache_bytes", ())], after[("recollect_cache_budget_bytes", ())]
    assert 0 < held <= budget == int(api.runtime.settings.cache_mb * 2**20)
    assert after[("recollect_cache_evictions_total", ())] == 0
    assert ("recollect_cache_catch_ups_total", (("how", "delta"),)) in after
    assert after[("recollect_engine_up", ())] == 1
    assert after[("recollect_engine_restarts_total", ())] == 0
    assert delta(ok, operation="context", outcome="error") == 1
    code = api.error_code(BAD)
    assert delta("recollect_graphql_errors_total", code=code) == 1


def test_background_pending_counts_queued_work_until_it_is_done(api: Api) -> None:
    service = api.runtime.service
    service.drain()
    release = threading.Event()
    service.background.run(release.wait, 30)
    service.background.run(lambda: None)
    assert _samples(api)[("recollect_background_pending", ())] == 2
    release.set()
    service.drain()
    assert _samples(api)[("recollect_background_pending", ())] == 0
