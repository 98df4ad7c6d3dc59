"""On Neo4j every statement of the service finds a user's nodes through an index: Neo4j's own
planner (EXPLAIN, nothing runs) shows no label or all-nodes scan. Runs when the suite is on a Neo4j
server (`make test-neo4j`); FalkorDB's EXPLAIN needs every parameter's value, so it has no twin.

Why: the composite uniqueness indexes on (user_id, key|id) serve no read by user_id alone, so a
user's catalogue, facts, sessions and texts scanned every user's nodes until
cypher/schema/neo4j/index_*_user_id.cypher; and forget_memory matched `(a:Entity)` filtered by
`a IN entities`, which Neo4j plans as a scan of every entity. One user in a test database hides
both; a production database of many users does not.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from graph.executor import BoltExecutor
from graph.queries import Queries
from tests.conftest import TEST_GRAPH_URI

pytestmark = pytest.mark.skipif(
    TEST_GRAPH_URI is None or TEST_GRAPH_URI.startswith("falkordb://"),
    reason="reads Neo4j's query plans; RECOLLECT_TEST_GRAPH_URI names no Neo4j (make test-neo4j)",
)

# statements that read across users by design: every user id that owns a memory (the sweep of
# vector files of users that are gone)
CROSS_USER = {"list_memory_users"}
SCANS = ("NodeByLabelScan", "AllNodesScan", "UndirectedRelationshipTypeScan")


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    yield plan["operatorType"].split("@")[0], str(plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", []):
        yield from _operators(child)


@pytest.fixture(scope="module")
def neo4j_session() -> Iterator[Any]:
    import neo4j

    assert TEST_GRAPH_URI is not None
    user = os.environ.get("RECOLLECT_TEST_GRAPH_USER") or None
    password = os.environ.get("RECOLLECT_TEST_GRAPH_PASSWORD") or ""
    executor = BoltExecutor(TEST_GRAPH_URI, user, password)
    executor.apply_schema()  # the indexes the plans should use
    executor.close()
    auth = (user, password) if user else None
    with (
        neo4j.GraphDatabase.driver(
            TEST_GRAPH_URI, auth=auth, notifications_min_severity="OFF"
        ) as driver,
        driver.session() as session,
    ):
        session.run("CALL db.awaitIndexes(120)").consume()
        yield session


def test_no_statement_scans_every_users_nodes(neo4j_session: Any) -> None:
    queries = Queries("neo4j")
    scanning: dict[str, list[str]] = {}
    for name in sorted(queries.names() - CROSS_USER):
        plan = neo4j_session.run("EXPLAIN " + queries[name]).consume().plan
        found = [f"{op} {details}" for op, details in _operators(plan) if op in SCANS]
        if found:
            scanning[name] = found
    assert scanning == {}
    # and the exception is still what it says: a read across users
    plan = neo4j_session.run("EXPLAIN " + queries["list_memory_users"]).consume().plan
    assert any(op == "NodeByLabelScan" for op, _ in _operators(plan))
