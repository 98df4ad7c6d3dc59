"""SIGKILL in the middle of a large rememberMany — of the service, and of the engine — and then:
every acknowledged memory is there, nothing is duplicated, a batch is all or nothing, the vector
index agrees with the graph, and context answers. The service runs as a real `recollect serve`."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.runtime import start
from api.settings import Settings
from bench.spawn import children, served
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import embedded_only

pytestmark = [pytest.mark.slow, embedded_only]  # the embedded engine itself

USER = "crash"
BATCH = 32
REMEMBER_MANY = "mutation($i: [MemoryInput!]!) { rememberMany(inputs: $i) { id externalId } }"


def _batch(n: int) -> list[dict[str, Any]]:
    return [
        {
            "userId": USER,
            "externalId": f"b{n}-{i}",
            "speaker": "Ann",
            "sessionId": f"s{n}",
            "text": f"In batch {n}, turn {i}: my friend Tom{i} visited Lisbon and Porto.",
        }
        for i in range(BATCH)
    ]


def _load(base: str, stop: threading.Event, acknowledged: dict[int, list[str]]) -> None:
    """Sends batches until stopped; records the batches whose response said they were written."""
    n = 0
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            try:
                body = client.post(
                    f"{base}/graphql", json={"query": REMEMBER_MANY, "variables": {"i": _batch(n)}}
                ).json()
            except httpx.HTTPError:
                return  # the service died mid-request: this batch is not acknowledged
            if body.get("data") and body["data"]["rememberMany"]:
                acknowledged[n] = [m["id"] for m in body["data"]["rememberMany"]]
            n += 1


def _verify(
    data_dir: Path, acknowledged: dict[int, list[str]], extractor: Extractor, embedder: Embedder
) -> None:
    runtime = start(Settings(data_dir=data_dir), extractor, embedder)
    try:
        store = runtime.store
        graph_ids = set(store.memory_vector_ids(USER))
        for ids in acknowledged.values():
            assert set(ids) <= graph_ids, "an acknowledged memory was lost"
        rows = runtime.executor.run(
            "export_memories", {"user_id": USER, "after": None, "limit": 1_000_000}
        )
        external = [row["props"]["external_id"] for row in rows]
        assert len(external) == len(set(external)) == len(graph_ids), "a memory was duplicated"
        # all or nothing: every batch in the graph is complete, so the count is a multiple
        assert len(graph_ids) % BATCH == 0, "a batch was half-written"
        assert len(graph_ids) >= BATCH * len(acknowledged)
        runtime.service.caches.follow(USER)  # the user's first call reconciles its index
        assert runtime.vectors.ids(USER) == graph_ids
        from graph.recall.retrieval import ContextRequest, retrieve

        answer = retrieve(runtime.service, ContextRequest(USER, "Who visited Lisbon?"))
        assert answer.memories and "Lisbon" in answer.memories[0].memory.text
    finally:
        runtime.close()


@pytest.mark.parametrize("victim", ["service", "engine"])
def test_sigkill_during_remember_many(
    tmp_path: Path, victim: str, extractor: Extractor, embedder: Embedder
) -> None:
    acknowledged: dict[int, list[str]] = {}
    stop = threading.Event()
    with served(tmp_path, timeout=120) as (process, base):
        sender = threading.Thread(target=_load, args=(base, stop, acknowledged))
        sender.start()
        deadline = time.monotonic() + 120
        while len(acknowledged) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(acknowledged) >= 3
        time.sleep(0.3)  # now most likely in the middle of the next batch
        if victim == "service":
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
        else:
            engines = children(process.pid)
            assert engines, "no engine child process found"
            os.kill(engines[0], signal.SIGKILL)
            # the service restarts its engine; the load goes on for a moment, then stops
            time.sleep(3)
        stop.set()
        sender.join(60)
    _verify(tmp_path, acknowledged, extractor, embedder)


def test_sigterm_stops_the_service_cleanly_and_saves_its_caches(tmp_path: Path) -> None:
    """`recollect serve` on SIGTERM (what a supervisor sends) closes its runtime before it ends:
    uvicorn raised the signal again after its own shutdown, and the default handler ended the
    process before the BM25 and FAISS files were saved or the background work finished."""
    turns = [
        {"userId": "term", "text": t, "speaker": "Ines"}
        for t in ("I moved to Tartu in May.", "My dog Pepper loves the beach.")
    ]
    with served(tmp_path, timeout=120) as (process, base):
        for query, variables in [
            (REMEMBER_MANY, {"i": turns}),
            ('{ context(userId: "term", message: "Where did I move?") { tokens } }', {}),
        ]:
            body = httpx.post(
                f"{base}/graphql", json={"query": query, "variables": variables}, timeout=60
            ).json()
            assert not body.get("errors"), body
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
    assert list((tmp_path / "lexical").glob("*.bm25"))  # saved only by the clean stop
    assert list((tmp_path / "vectors").glob("*.faiss"))
