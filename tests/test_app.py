"""The ASGI app itself: /healthz and GraphiQL."""

from __future__ import annotations

from tests.conftest import TEST_GRAPH_URI, Api


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


def test_graphiql_is_served(api: Api) -> None:
    response = api.client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()
