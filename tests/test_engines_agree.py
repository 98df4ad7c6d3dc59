"""The embedded engine and the suite's graph server (Neo4j under `make test-neo4j`) agree: the
hand-written conversation remembered through a service on each, every read statement returns the
same rows and `context` composes the same block. Runs only when the suite has a graph server
(RECOLLECT_TEST_GRAPH_URI); under `make test` there is one engine, nothing to compare.

Rows are compared after two mappings, which are the only things allowed to differ: memory ids
(random per write) become the memory's external id (a session's episode: `episode:<session>`),
and what differs by design (`UNSHARED`: times of the writes, random ids) is left out. Floats are
compared to 12 significant digits: FalkorDB's native protocol returns 15 (it stores and orders by
the full double), Neo4j all 17. Where the engines differ, the fix is a same-named
file under cypher/<engine>/ (graph/queries.py), never a branch in Python.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from api.runtime import Runtime, start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.recall.retrieval import ContextRequest, retrieve
from graph.write.profiles import EXPERTISE_TYPES
from tests.conftest import TEST_GRAPH_URI, graph_settings
from tests.conversation import USER, new_memories

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        TEST_GRAPH_URI is None,
        reason="compares the embedded engine with RECOLLECT_TEST_GRAPH_URI's server, not set",
    ),
]

# what differs by design: times of the writes (a row's `at` is its newest created_at), the change
# log's random epoch, the FAISS id derived from the random memory id, and the change sequence a
# write took (the episodes of two sessions that end together are written in either order)
UNSHARED = {"created_at", "last_accessed_at", "ended_at", "at", "epoch", "vector_id", "seq"}
# scoped by the namespace like the user id, and the server's suite runs in a namespace
UNSHARED |= {"external_key"}
KEYS = ["person:mary", "person:alice_smith", "place:boston", "org:acme_corp"]
QUESTIONS = [
    "Where does Mary live now?",
    "Who does Alice work with at Acme?",
    "What did we talk about in Boston?",
    "How is my sister doing?",
]


def _remember(runtime: Runtime) -> None:
    runtime.service.remember_many(new_memories())
    runtime.service.drain()


@pytest.fixture(scope="module")
def engines(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[tuple[Runtime, Runtime]]:
    """(embedded, server): the same turns remembered through a service on each."""
    here: Path = tmp_path_factory.mktemp("engines")
    embedded = start(Settings(data_dir=here / "embedded"), extractor, embedder)
    try:
        server_dir = here / "server"
        server = start(
            Settings(data_dir=server_dir, **graph_settings(server_dir)), extractor, embedder
        )
        try:
            for runtime in (embedded, server):
                _remember(runtime)
            yield embedded, server
        finally:
            server.close()
    finally:
        embedded.close()


def _aliases(runtime: Runtime) -> dict[str, str]:
    """Memory id -> the name the same memory has on both engines."""
    store = runtime.store
    records = store.memories(USER, list(store.memory_vector_ids(USER)))
    return {str(i): r.external_id or f"episode:{r.session_id}" for i, r in records.items()}


def _reads(runtime: Runtime) -> dict[str, dict[str, Any]]:
    """Every read statement of the store with parameters that return something."""
    ids = sorted(_aliases(runtime))
    base = {"user_id": USER}
    return {
        "count_memories": base,
        "get_memories": {**base, "ids": ids},
        "memory_facts": {**base, "ids": ids},
        "neighbour_facts": {**base, "ids": ids},
        "get_memory_embeddings": {**base, "ids": ids},
        "memories_in_time": {**base, "start": 0.0, "end": 4e9, "limit": 500},
        "memories_since": {**base, "since": 0, "upto": 2**62},
        "entity_catalog": base,
        "entity_cards": {
            **base,
            "keys": KEYS,
            "limit": 3,
            "types": ["LIVES_IN"],
            "evidence": 2,
            "bare": KEYS[:1],
        },
        "role_catalog": base,
        "topic_candidates": base,
        "session_people": {**base, "session_id": "s01", "turns": 8},
        "list_entities": {**base, "type": None, "search": None, "after": None, "limit": 500},
        "count_entities": {**base, "type": "person", "search": None},
        "entity_memories": {**base, "keys": KEYS, "limit": 5},
        "user_facts": base,
        "list_memory_texts": base,
        "list_memory_vectors": base,
        "find_existing_memories": {
            **base,
            "external_ids": ["turn-1", "turn-2"],
            "content_hashes": [],
        },
        "last_in_sessions": {**base, "sessions": ["s01", "s15"]},
        "write_start": {**base, "sessions": ["s01", "s15"]},
        "session_turns": {**base, "session_id": "s15"},
        "session_entities": {**base, "session_id": "s01", "limit": 50},
        "get_session": {**base, "session_id": "s01"},
        "recent_sessions": base,
        "speaker_turns": base,
        "session_facts": {**base, "session_id": "s01"},
        "turn_self_facts": {**base, "ids": ids, "types": list(EXPERTISE_TYPES)},
        "coverage_mentions": {**base, "ids": ids},
        "coverage_relations": {**base, "ids": ids},
        "change_mark": base,
        "change_log": base,
        "export_memories": {**base, "after": None, "limit": 100_000},
        "export_entities": {**base, "after": None, "limit": 100_000},
        "export_mentions": {**base, "after": None, "limit": 100_000},
        "export_relations": {**base, "after": None, "limit": 100_000},
        "export_sessions": {**base, "after": None, "limit": 100_000},
        "export_in_session": {**base, "after": None, "limit": 100_000},
        "export_next": {**base, "after": None, "limit": 100_000},
        "export_summaries": {**base, "after": None, "limit": 100_000},
    }


def _norm(value: Any, aliases: dict[str, str]) -> Any:
    """`value` with memory ids named by their aliases, wall-clock fields left out, floats to 12
    significant digits and lists sorted (the engines need not agree on an unordered list)."""
    if isinstance(value, str):
        if value.startswith(("{", "[")):  # a JSON property (a session's profile tally) holds ids
            try:
                return _norm(json.loads(value), aliases)
            except ValueError:
                pass
        return aliases.get(value, value)
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, list | tuple):
        return sorted((_norm(v, aliases) for v in value), key=json.dumps)
    if isinstance(value, dict):
        return {k: _norm(v, aliases) for k, v in sorted(value.items()) if k not in UNSHARED}
    return value


def _canonical(rows: list[dict[str, Any]], aliases: dict[str, str]) -> list[str]:
    return sorted(json.dumps(_norm(r, aliases), sort_keys=True) for r in rows)


def _cards(result: Any, aliases: dict[str, str]) -> list[list[str]]:
    """Each card's relations in their order, each relation canonical."""
    return [
        [json.dumps(_norm(asdict(r), aliases), sort_keys=True) for r in card.relations]
        for card in result.cards
    ]


def test_every_read_statement_answers_the_same_on_both(
    engines: tuple[Runtime, Runtime],
) -> None:
    embedded, server = engines
    mine, theirs = _aliases(embedded), _aliases(server)
    assert sorted(mine.values()) == sorted(theirs.values())
    ours_reads, their_reads = _reads(embedded), _reads(server)
    differ: list[str] = []
    empty: list[str] = []
    for name, params in ours_reads.items():
        here = embedded.executor.run(name, params)
        there = server.executor.run(name, their_reads[name])
        if _canonical(here, mine) != _canonical(there, theirs):
            differ.append(name)
        if not here:
            empty.append(name)
    assert differ == []
    assert empty == [], "these compared nothing: give them parameters that find rows"


def test_context_composes_the_same_block_on_both(engines: tuple[Runtime, Runtime]) -> None:
    embedded, server = engines
    mine, theirs = _aliases(embedded), _aliases(server)
    as_of = time.time()
    for question in QUESTIONS:
        request = ContextRequest(USER, question, as_of=as_of)
        here = retrieve(embedded.service, request)
        there = retrieve(server.service, request)
        assert here.memories, question
        assert [mine[m.memory.id] for m in here.memories] == [
            theirs[m.memory.id] for m in there.memories
        ], question
        assert [round(m.score, 9) for m in here.memories] == [
            round(m.score, 9) for m in there.memories
        ], question
        assert _cards(here, mine) == _cards(there, theirs), question
        assert here.seeds == there.seeds, question
        assert here.text == there.text, question
