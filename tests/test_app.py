"""The ASGI app itself: /healthz and GraphiQL."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from api.starting import Starting
from tests.conftest import TEST_GRAPH_URI, Api, graph_settings
from tests.documents import REMEMBER


def test_healthz(api: Api) -> None:
    response = api.client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    kind = "embedded-falkordb"
    if TEST_GRAPH_URI is not None:  # the suite runs against a server
        kind = "falkordb" if TEST_GRAPH_URI.startswith("falkordb://") else "bolt"
    assert body["engine"] == {"kind": kind, "ok": True, "restarts": 0}
    assert body["models"]["embedding"].startswith("sentence-transformers/all-MiniLM-L6-v2@")
    assert body["ready"] is True


def test_healthz_answers_while_the_service_starts_and_requests_wait(tmp_path: Path) -> None:
    """`recollect serve`'s way: the engine and the models come up beside the server (seconds),
    /healthz says so at once, and a request sent meanwhile waits and is answered."""
    settings = Settings(data_dir=tmp_path, **graph_settings(tmp_path))
    starting = Starting(settings)
    try:
        with TestClient(create_app(settings, starting=starting)) as client:
            early = client.get("/healthz")
            assert early.status_code == 503
            assert early.json() == {
                "status": "starting",
                "ready": False,
                "loading": ["engine", "models"],
            }
            answer = client.post(
                "/graphql",
                json={"query": REMEMBER, "variables": {"input": {"userId": "u", "text": "Hi"}}},
            )
            assert answer.status_code == 200 and "errors" not in answer.json()
            late = client.get("/healthz")
            assert late.status_code == 200 and late.json()["ready"] is True
    finally:
        starting.close()


def test_graphiql_is_served(api: Api) -> None:
    response = api.client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()
