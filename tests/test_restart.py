"""Stop and start on the same data directory: same memories, same answers; vectors repaired."""

from __future__ import annotations

from pathlib import Path

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import close_api, open_api
from tests.conversation import USER, turns
from tests.documents import AS_OF, CONTEXT, REMEMBER_MANY

pytestmark = pytest.mark.slow  # starts the engine, the service or Node


def _answer(api_obj: object, message: str) -> tuple[list[str], list[str], str]:
    block = api_obj.ok(CONTEXT, user=USER, message=message, asOf=AS_OF)["context"]  # type: ignore[attr-defined]
    return (
        [m["memory"]["id"] for m in block["memories"]],
        [c["key"] for c in block["entityCards"]],
        block["text"],
    )


def test_restart_keeps_everything_and_reconciles_vectors(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    api, _ = open_api(tmp_path, extractor, embedder)
    try:
        made = api.ok(REMEMBER_MANY, inputs=turns())["rememberMany"]
        before = _answer(api, "Where does Mary live?")
        catalog = sorted(e.key for e in api.runtime.store.catalog(USER))
    finally:
        close_api(api)

    api, _ = open_api(tmp_path, extractor, embedder)
    try:
        assert api.runtime.reconcile["added"] == 0
        assert _answer(api, "Where does Mary live?") == before
        assert sorted(e.key for e in api.runtime.store.catalog(USER)) == catalog
        again = api.ok(REMEMBER_MANY, inputs=turns())["rememberMany"]
        assert [m["id"] for m in again] == [m["id"] for m in made]
        vectors_dir = api.runtime.vectors.directory
    finally:
        close_api(api)

    # a crash between the graph write and the vector save: the index file is lost or stale
    for path in vectors_dir.glob("*.faiss"):
        path.unlink()
    api, _ = open_api(tmp_path, extractor, embedder)
    try:
        # every memory: the turns and the episodes of the two sessions ended by idleness
        total = api.runtime.store.count_memories(USER)
        assert total == len(made) + 2
        # nothing happens at start: the user's index is reconciled on the user's first call
        assert api.runtime.reconcile["added"] == 0
        assert _answer(api, "Where does Mary live?") == before
        assert api.runtime.reconcile["added"] == total
        assert api.runtime.vectors.count(USER) == total
    finally:
        close_api(api)
