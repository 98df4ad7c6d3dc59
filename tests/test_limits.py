"""Limits and hostile input through the API: clear errors, nothing written, text kept verbatim."""

from __future__ import annotations

from typing import Any

import pytest
import strawberry.schema.schema as strawberry_schema
from graphql import validate

from api.schema import MAX_TOKENS
from tests.conftest import Api

REMEMBER = """mutation($input: MemoryInput!) {
  remember(input: $input) { id text speaker externalId entities { key label } } }"""
USER = "hostile"

HOSTILE = [
    "Robert'); MATCH (n) DETACH DELETE n; //",
    'She said "}) RETURN 1 UNION MATCH (m) RETURN m //',
    "My friend `Tom` lives in {Paris} $user_id \\' \\\\",
    "Zoë went to Kraków with 山田太郎 🙂 — naïve café",
    "x" * 5_000 + " lives in Boston.",
    "CALL db.labels() YIELD label SET n:Admin REMOVE n:Memory",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_stored_verbatim(api: Api, text: str) -> None:
    before = {e.key for e in api.runtime.store.catalog("alice")}
    made = api.ok(
        REMEMBER,
        input={"userId": USER, "text": text, "speaker": text[:50], "externalId": text[:100]},
    )["remember"]
    assert made["text"] == text and made["speaker"] == text[:50]
    assert made["externalId"] == text[:100]
    again = api.ok(
        'query($id: ID!) { memory(userId: "hostile", id: $id) { text } }', id=made["id"]
    )["memory"]
    assert again == {"text": text}
    # nothing outside this user's scope changed, and the schema is intact
    assert {e.key for e in api.runtime.store.catalog("alice")} == before
    block = api.ok(
        'query($m: String!) { context(userId: "hostile", message: $m) { text } }', m=text[:200]
    )["context"]
    assert isinstance(block["text"], str)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"text": "a\x00b"}, "text"),
        ({"text": "ok", "speaker": "A\x00"}, "speaker"),
        ({"text": "ok", "externalId": "\x00"}, "externalId"),
    ],
)
def test_nul_characters_are_refused_by_name(api: Api, payload: dict[str, Any], field: str) -> None:
    store = api.runtime.store
    before = store.count_memories(USER)
    body = api.raw(REMEMBER, input={"userId": USER, **payload})
    error = body["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["message"].startswith(f"{field}: contains a NUL character")
    assert store.count_memories(USER) == before


def test_nul_in_read_arguments(api: Api) -> None:
    for query in (
        '{ context(userId: "hostile", message: "a\\u0000b") { text } }',
        '{ entity(userId: "hostile", key: "person:\\u0000") { key } }',
        '{ entities(userId: "hostile", search: "\\u0000") { totalCount } }',
        '{ memory(userId: "a\\u0000", id: "0123456789abcdef") { id } }',
    ):
        assert api.error_code(query) == "BAD_USER_INPUT", query


def test_query_depth_is_limited(api: Api) -> None:
    nested = "key " + "relations { target { " * 6 + "key" + " } }" * 6
    body = api.raw('{ entity(userId: "alice", key: "person:mary") { ' + nested + " } }")
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "exceeds maximum operation depth" in body["errors"][0]["message"]


def test_a_limit_holds_when_the_document_comes_again(api: Api) -> None:
    """Validation is cached per document (api/schema.py): the cached answer is the refusal."""
    nested = "key " + "relations { target { " * 6 + "key" + " } }" * 6
    query = '{ entity(userId: "alice", key: "person:mary") { ' + nested + " } }"
    for _ in range(2):
        body = api.raw(query)
        assert "data" not in body or body["data"] is None
        assert "exceeds maximum operation depth" in body["errors"][0]["message"]


def test_tokens_are_limited(api: Api) -> None:
    fields = " ".join("__typename" for _ in range(MAX_TOKENS))
    for _ in range(2):  # a refused document is not cached as parsed
        body = api.raw("{ " + fields + " }")
        assert "data" not in body or body["data"] is None
        assert f"more than {MAX_TOKENS} tokens" in body["errors"][0]["message"]


def test_a_document_is_validated_once(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client sends the same document with new variables; validating it took 5-6 ms a request."""
    validated: list[object] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        validated.append(args[1])
        return validate(*args, **kwargs)

    monkeypatch.setattr(strawberry_schema, "validate", counting)
    query = 'query($m: String!) { context(userId: "cached", message: $m) { tokens } }'
    for message in ("Where does Mary live?", "What does Mary do?", "Who is Mary?"):
        assert api.ok(query, m=message)["context"]["tokens"] >= 0
    assert len(validated) == 1
    api.ok('query($m: String!) { context(userId: "cached", message: $m) { text } }', m="Mary?")
    assert len(validated) == 2  # another document is validated


def test_aliases_are_limited(api: Api) -> None:
    aliases = " ".join(
        f'a{i}: memory(userId: "alice", id: "0123456789abcdef") {{ id }}' for i in range(40)
    )
    body = api.raw("{ " + aliases + " }")
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "aliases" in body["errors"][0]["message"].lower()


def test_batch_size_is_limited(api: Api) -> None:
    inputs = [{"userId": USER, "text": f"memory {i}"} for i in range(1_001)]
    body = api.raw("mutation($i: [MemoryInput!]!) { rememberMany(inputs: $i) { id } }", i=inputs)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "holds 1001 memories; at most 1000 allowed" in body["errors"][0]["message"]


def test_request_body_size_is_limited(api: Api) -> None:
    limit = api.runtime.settings.max_body_bytes
    response = api.client.post(
        "/graphql",
        content=b"{" + b" " * (limit + 1) + b"}",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert f"at most {limit} bytes" in error["message"]
    # the service answers normally afterwards
    assert api.client.get("/healthz").status_code == 200
