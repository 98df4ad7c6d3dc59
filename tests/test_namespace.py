"""Namespaces at the executor seam (RECOLLECT_NAMESPACE): what a statement receives and what comes
back. The end-to-end check — two namespaces on one server see nothing of each other — is in
tests/test_replicas.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from api.runtime import start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.executor import Namespace


def test_the_user_id_parameter_and_imported_rows_gain_the_prefix() -> None:
    ns = Namespace("staging")
    assert ns.params({"user_id": "alice", "ids": ["a"]}) == {
        "user_id": "staging/alice",
        "ids": ["a"],
    }
    rows = ns.params({"user_id": "alice", "rows": [{"id": "m1", "user_id": "alice"}, {"id": "e1"}]})
    assert rows["rows"] == [{"id": "m1", "user_id": "staging/alice"}, {"id": "e1"}]
    assert ns.params(None) == {}


def test_a_memorys_uniqueness_key_is_scoped_as_its_user_is() -> None:
    """Two deployments on one graph may hold the same user id and externalId: the key the graph
    holds unique (graph/batch.py external_key) gains the prefix, and loses it on export."""
    ns = Namespace("staging")
    written = ns.params({"user_id": "alice", "memories": [{"external_key": "ab12"}, {"id": "m"}]})
    assert written["memories"] == [{"external_key": "staging/ab12"}, {"id": "m"}]
    imported = ns.params({"user_id": "alice", "rows": [{"user_id": "alice", "external_key": "c"}]})
    assert imported["rows"] == [{"user_id": "staging/alice", "external_key": "staging/c"}]
    exported = ns.rows([{"props": {"user_id": "staging/alice", "external_key": "staging/c"}}])
    assert exported == [{"props": {"user_id": "alice", "external_key": "c"}}]


def test_rows_lose_the_prefix_and_other_namespaces_rows_are_dropped() -> None:
    ns = Namespace("staging")
    rows = [
        {"user_id": "staging/alice"},
        {"user_id": "prod/alice"},  # another deployment's user: never seen here
        {"user_id": "bob"},  # a user outside any namespace: neither
        {"total": 3},
        {"props": {"id": "m1", "user_id": "staging/alice"}},
    ]
    assert ns.rows(rows) == [
        {"user_id": "alice"},
        {"total": 3},
        {"props": {"id": "m1", "user_id": "alice"}},
    ]


def test_no_namespace_changes_nothing() -> None:
    ns = Namespace("")
    assert ns.params({"user_id": "alice"}) == {"user_id": "alice"}
    assert ns.rows([{"user_id": "x/alice"}]) == [{"user_id": "x/alice"}]


@pytest.mark.parametrize("name", ["has space", "a/b", "x" * 41, "ünï"])
def test_a_namespace_outside_the_alphabet_is_refused_by_name(name: str) -> None:
    with pytest.raises(ValueError, match="namespace .*letters, digits"):
        Namespace(name)


def test_a_bad_namespace_stops_the_engine_it_started(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    before = _children()
    with pytest.raises(ValueError, match="namespace 'a b'"):
        start(Settings(data_dir=tmp_path, namespace="a b"), extractor, embedder)
    # no engine process is left behind, and the data directory is free again
    assert _children() == before
    runtime = start(Settings(data_dir=tmp_path), extractor, embedder)
    runtime.close()


def _children() -> set[str]:
    """Process ids of this process's children (an embedded engine is one)."""
    found = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True)
    return set(found.stdout.split())
