"""The explorer's surfaces behind API keys (RECOLLECT_API_KEYS="key-a=alice;key-b=bob;key-all=*"):
`users`, `neighbourhood`, `overview`, the evidence of a view's relations and the page's own data
calls (`entities` search by name or alias, the card and its memories). Alice and Bob both know a
"Mary": one key never sees anything of the other user through any of them, and a request
without a key sees nothing at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import Api, close_api, open_api
from tests.documents import REMEMBER_MANY

KEYS = "key-a=alice;key-b=bob;key-all=*"
VIEW = """query($u: ID!, $k: [String!]!) { neighbourhood(userId: $u, keys: $k, depth: 2) {
  nodes { key label } edges { type source target evidence(first: 10) { text userId } } } }"""
OVERVIEW = """query($u: ID!) { overview(userId: $u, limit: 100) {
  nodes { key label } edges { type source target evidence { text userId } } } }"""
# what the explorer page asks (api/web/explore.js): search, card with its relations, timeline
SEARCH = """query($u: ID!, $s: String) { entities(userId: $u, search: $s, first: 50) {
  edges { node { key label aliases mentionCount } } } }"""
CARD = """query($u: ID!, $key: String!) { entity(userId: $u, key: $key) {
  key aliases memories(first: 100) { text userId } } }"""
BOB_MARK = "zqbobmark"


def _as(api: Api, api_key: str | None, query: str, **variables: Any) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return dict(api.raw(query, headers=headers, **variables))


@pytest.fixture(scope="module")
def keyed(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(tmp_path_factory.mktemp("explore"), extractor, embedder, api_keys=KEYS)
    alice = [
        "My sister Mary lives in Boston.",
        "Mary works at Acme Corp.",
        "My friend Bobby lives in Austin.",
        "Robert Smith works at Initech.",
    ]
    bob = [f"My friend Mary lives in Denver {BOB_MARK}.", f"Mary plays the violin {BOB_MARK}."]
    for user, key, texts in (("alice", "key-a", alice), ("bob", "key-b", bob)):
        inputs = [{"userId": user, "speaker": user.title(), "text": t} for t in texts]
        assert "errors" not in _as(api, key, REMEMBER_MANY, inputs=inputs)
    merged = _as(
        api,
        "key-a",
        'mutation { mergeEntities(userId: "alice", sources: ["person:bobby"], '
        'into: "person:robert_smith") { key } }',
    )
    assert "errors" not in merged, merged
    yield api
    close_api(api)


def _code(body: dict[str, Any]) -> str:
    assert body.get("errors"), body
    return str(body["errors"][0]["extensions"]["code"])


def test_users_lists_only_what_the_key_grants(keyed: Api) -> None:
    assert _as(keyed, "key-a", "{ users }")["data"]["users"] == ["alice"]
    assert _as(keyed, "key-b", "{ users }")["data"]["users"] == ["bob"]
    assert _as(keyed, "key-all", "{ users }")["data"]["users"] == ["alice", "bob"]
    assert _code(_as(keyed, None, "{ users }")) == "UNAUTHENTICATED"
    assert _code(_as(keyed, "key-nope", "{ users }")) == "UNAUTHENTICATED"


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        (VIEW, {"u": "bob", "k": ["person:mary"]}),
        (OVERVIEW, {"u": "bob"}),
        (SEARCH, {"u": "bob", "s": "mary"}),
        (CARD, {"u": "bob", "key": "person:mary"}),
    ],
)
def test_a_key_cannot_read_another_user(keyed: Api, query: str, variables: dict[str, Any]) -> None:
    assert _code(_as(keyed, "key-a", query, **variables)) == "FORBIDDEN"
    assert _code(_as(keyed, None, query, **variables)) == "UNAUTHENTICATED"
    assert "errors" not in _as(keyed, "key-b", query, **variables)


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        (VIEW, {"u": "alice", "k": ["person:mary"]}),
        (OVERVIEW, {"u": "alice"}),
        (SEARCH, {"u": "alice", "s": "mary"}),
        (CARD, {"u": "alice", "key": "person:mary"}),
    ],
)
def test_the_same_entity_key_shows_only_the_own_user(
    keyed: Api, query: str, variables: dict[str, Any]
) -> None:
    """Both users have person:mary; everything Alice's key reads of it is Alice's."""
    body = _as(keyed, "key-a", query, **variables)
    assert "errors" not in body, body
    text = json.dumps(body)
    assert BOB_MARK not in text and "Denver" not in text and "violin" not in text
    assert '"userId": "bob"' not in text
    assert "Mary" in text


def test_a_view_of_alice_holds_her_graph(keyed: Api) -> None:
    view = _as(keyed, "key-all", VIEW, u="alice", k=["person:mary"])["data"]["neighbourhood"]
    keys = {n["key"] for n in view["nodes"]}
    assert {"person:mary", "place:boston", "org:acme_corp"} <= keys
    assert "place:denver" not in keys
    evidence = [m for e in view["edges"] for m in e["evidence"]]
    assert evidence and {m["userId"] for m in evidence} == {"alice"}


def test_search_finds_an_entity_by_its_alias_for_its_own_user_only(keyed: Api) -> None:
    found = _as(keyed, "key-a", SEARCH, u="alice", s="bobby")["data"]["entities"]["edges"]
    assert [(e["node"]["key"], e["node"]["aliases"]) for e in found] == [
        ("person:robert_smith", ["Bobby"])
    ]
    assert _as(keyed, "key-b", SEARCH, u="bob", s="bobby")["data"]["entities"]["edges"] == []


def test_pages_load_without_a_key_and_hold_no_data(keyed: Api) -> None:
    """The pages are code, not data: they load without a key, and nothing of a user is in them."""
    for path in ("/explore", "/static/explore.js"):
        response = keyed.client.get(path)
        assert response.status_code == 200, path
        assert [m for m in ("Boston", "Acme", "Initech", BOB_MARK) if m in response.text] == []
    graphiql = keyed.client.get("/graphql", headers={"Accept": "text/html"})
    assert graphiql.status_code == 200 and "Boston" not in graphiql.text
