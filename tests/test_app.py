"""The ASGI app itself: /healthz and GraphiQL."""

from __future__ import annotations

from tests.conftest import Api


def test_healthz(api: Api) -> None:
    response = api.client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["engine"] == {"kind": "embedded-falkordb", "ok": True, "restarts": 0}
    assert body["models"]["embedding"].startswith("sentence-transformers/all-MiniLM-L6-v2@")


def test_graphiql_is_served(api: Api) -> None:
    response = api.client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()
