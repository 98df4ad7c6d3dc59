"""Shared fixtures: the real models are loaded once per session; each integration module gets a
real embedded engine on its own temporary data directory, reached through the ASGI app.

With `RECOLLECT_TEST_GRAPH_URI` (a bolt:// Neo4j or a falkordb:// server, with
`RECOLLECT_TEST_GRAPH_USER` / `RECOLLECT_TEST_GRAPH_PASSWORD`) every service the tests open runs
against that server instead, in a namespace of its own derived from its data directory (the same
across a restart, another for every module), so a shared database is fine and nothing is wiped.
Tests of the embedded engine itself (killing it, its Bolt port, its process) are skipped then.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from api.app import create_app
from api.runtime import Runtime, start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.memory_facts import UserFacts
from graph.service import MemoryService

MODEL_FIXTURES = {"extractor", "embedder"}
TEST_GRAPH_URI = os.environ.get("RECOLLECT_TEST_GRAPH_URI") or None
# for modules that test the embedded engine the service starts (its process, its Bolt port)
embedded_only = pytest.mark.skipif(
    TEST_GRAPH_URI is not None, reason="tests the embedded engine; RECOLLECT_TEST_GRAPH_URI is set"
)


def graph_settings(data_dir: Path) -> dict[str, Any]:
    """Settings that point a service at RECOLLECT_TEST_GRAPH_URI, if set, in the namespace of
    `data_dir`; nothing otherwise."""
    if TEST_GRAPH_URI is None:
        return {}
    return {
        "graph_uri": TEST_GRAPH_URI,
        "graph_user": os.environ.get("RECOLLECT_TEST_GRAPH_USER") or None,
        "graph_password": os.environ.get("RECOLLECT_TEST_GRAPH_PASSWORD") or None,
        "namespace": "t" + hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:12],
    }


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The GraphQL fuzzer's summary (tests/test_fuzz.py) at the end of the run, in CI's log."""
    # pytest imports test modules by their base name (tests/ is no package)
    fuzz = sys.modules.get("test_fuzz") or sys.modules.get("tests.test_fuzz")
    if fuzz is None or not fuzz.OUTCOMES:
        return
    terminalreporter.write_sep("-", "GraphQL fuzzing")
    for line in fuzz.summary():
        terminalreporter.write_line(line)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that load the real models are `slow` (so are modules that start the engine or the
    service without them, by their own `pytestmark`): `pytest -m "not slow"` runs the unit tests
    in seconds; `make test` runs everything."""
    for item in items:
        if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def extractor() -> Extractor:
    return Extractor.load()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """Traced, as a served runtime's is: messages take the path they take in production."""
    model = Embedder()
    model.trace()
    return model


class Api:
    """A GraphQL client over the ASGI app."""

    def __init__(self, client: TestClient, runtime: Runtime) -> None:
        self.client = client
        self.runtime = runtime

    def raw(self, query: str, headers: dict[str, str] | None = None, **variables: Any) -> Any:
        response = self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers or {}
        )
        assert response.status_code == 200, response.text
        # background work (idle sessions ending, access statistics) finishes before the next step,
        # so every test sees a settled graph
        self.runtime.service.drain()
        return response.json()

    def ok(self, query: str, **variables: Any) -> Any:
        body = self.raw(query, **variables)
        assert "errors" not in body, body["errors"]
        return body["data"]

    def error_code(self, query: str, **variables: Any) -> str:
        body = self.raw(query, **variables)
        assert body.get("errors"), f"expected an error, got {body}"
        return str(body["errors"][0]["extensions"]["code"])


def open_api(
    data_dir: Path, extractor: Extractor, embedder: Embedder, **settings: Any
) -> tuple[Api, TestClient]:
    config = Settings(data_dir=data_dir, **{**graph_settings(data_dir), **settings})
    runtime = start(config, extractor=extractor, embedder=embedder)
    client = TestClient(create_app(config, runtime=runtime))
    client.__enter__()
    return Api(client, runtime), client


def close_api(api: Api) -> None:
    api.client.__exit__(None, None, None)
    api.runtime.close()


@pytest.fixture(scope="module")
def api(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    client_api, _ = open_api(tmp_path_factory.mktemp("data"), extractor, embedder)
    try:
        yield client_api
    finally:
        close_api(client_api)


@pytest.fixture(scope="module")
def remembered(api: Api) -> list[dict[str, Any]]:
    """The hand-written conversation (tests/conversation.py), remembered once per module."""
    from tests.conversation import turns
    from tests.documents import REMEMBER_MANY

    data = api.ok(REMEMBER_MANY, inputs=turns())
    return list(data["rememberMany"])


def held_facts(service: MemoryService, user_id: str) -> UserFacts:
    """The user's copy once the service holds it: it is read on the background thread after the
    first use, once the caches stand at the graph's change mark."""
    service.caches.follow(user_id)
    if service.caches._held_facts(user_id) is None:
        service.drain()
    held = service.caches._held_facts(user_id)
    assert held is not None
    return held
