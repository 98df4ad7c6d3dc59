"""Namespaces at the executor seam (RECOLLECT_NAMESPACE): what a statement receives and what comes
back. The end-to-end check — two namespaces on one server see nothing of each other — is in
tests/test_replicas.py."""

from __future__ import annotations

import pytest

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
