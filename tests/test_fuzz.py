"""GraphQL fuzzing with hypothesis-graphql against the schema: whatever valid (and invalid) document
arrives, the service answers without a 500, every error carries a known code, and it keeps serving
normally afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from graphql import StringValueNode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema

from api.schema import schema
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import Api, close_api, open_api

CODES = {"BAD_USER_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"}
SDL = schema.as_str()
DATETIMES = st.datetimes().map(lambda d: StringValueNode(value=d.isoformat()))


@pytest.fixture(scope="module")
def fuzzed(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(tmp_path_factory.mktemp("fuzz"), extractor, embedder)
    api.ok(
        "mutation { rememberMany(inputs: ["
        '{userId: "f", text: "My sister Mary lives in Boston.", speaker: "Ann"},'
        '{userId: "f", text: "I work at Acme Corp.", speaker: "Ann"}]) { id } }'
    )
    yield api
    close_api(api)


def _check(api: Api, document: object) -> None:
    response = api.client.post("/graphql", json={"query": document})
    assert response.status_code in (200, 400), response.text
    body = response.json()
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        assert code in CODES, (document, error)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=from_schema(SDL, custom_scalars={"DateTime": DATETIMES}))
def test_fuzzed_valid_documents(fuzzed: Api, document: object) -> None:
    _check(fuzzed, document)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=from_schema(SDL, mode=Mode.NEGATIVE, custom_scalars={"DateTime": DATETIMES}))
def test_fuzzed_invalid_documents(fuzzed: Api, document: object) -> None:
    _check(fuzzed, document)


def test_service_answers_normally_after_fuzzing(fuzzed: Api) -> None:
    assert fuzzed.client.get("/healthz").status_code == 200
    block = fuzzed.ok('{ context(userId: "f", message: "Where does Mary live?") { text } }')
    assert "Mary" in block["context"]["text"]
