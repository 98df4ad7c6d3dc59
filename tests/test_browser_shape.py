"""What an analyst sees in Neo4j Browser: typed labels, captions and native relationship types,
checked with the analyst queries on the real embedded engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph.vocabulary import EDGE_TYPES, ENTITY_LABELS
from tests.conftest import Api, embedded_only
from tests.documents import REMEMBER_MANY

pytestmark = embedded_only  # the embedded engine itself

ANALYST = Path(__file__).resolve().parents[1] / "cypher" / "analyst"


def _analyst(api: Api, name: str, **params: Any) -> list[dict[str, Any]]:
    """Runs an analyst query with the engine's native client (not a service statement)."""
    from falkordb import FalkorDB

    engine = api.runtime.engine
    assert engine is not None
    graph = FalkorDB(host="127.0.0.1", port=engine.port).select_graph("recollect")
    result = graph.query((ANALYST / f"{name}.cypher").read_text(encoding="utf-8"), params)
    header = [column[1] for column in result.header]
    return [dict(zip(header, row, strict=True)) for row in result.result_set]


def test_graph_is_readable_in_the_browser(api: Api) -> None:
    texts = [
        "My sister Mary lives in Boston and works at Acme Corp.",
        "I visited Japan with my friend Tom last spring; it was a wonderful and very long trip.",
        "I've been learning Portuguese for a year now.",
    ]
    api.ok(REMEMBER_MANY, inputs=[{"userId": "shape", "speaker": "Ann", "text": t} for t in texts])
    labels = {tuple(sorted(r["labels"])): r for r in _analyst(api, "graph_labels", userId="shape")}
    assert ("Memory",) in labels
    for entity_label in ("Person", "Place", "Org", "Language"):
        row = labels[tuple(sorted(("Entity", entity_label)))]
        assert row["nodes"] >= 1 and all(row["examples"])
    # turns without a session feed a profile and an index in the background (a day's tally)
    derived = {("Profile",), ("Expertise",), ("KnowledgeIndex",), ("DayTally",)}
    assert set(labels) <= {("Memory",), ("ChangeLog",)} | derived | {
        tuple(sorted(("Entity", v))) for v in ENTITY_LABELS.values()
    }
    assert labels[("ChangeLog",)]["nodes"] == 1  # the user's change sequence (graph/follow.py)
    captions = labels[("Memory",)]["examples"]
    assert "My sister Mary lives in Boston and works at Acme Corp." in captions
    assert any(c.endswith("…") and len(c) <= 60 for c in captions)

    relations = _analyst(api, "graph_relationship_types", userId="shape")
    types = {r["relation"] for r in relations}
    assert {"MENTIONS", "FAMILY_OF", "LIVES_IN", "WORKS_AT", "VISITED", "FRIEND_OF"} <= types
    assert types <= set(EDGE_TYPES)
    mentions = [r for r in relations if r["relation"] == "MENTIONS"]
    assert all(r["from_labels"] == ["Memory"] for r in mentions)
