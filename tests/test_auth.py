"""API keys and user scope through the GraphQL API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.auth import KeyRing
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import Api, close_api, open_api

REMEMBER = "mutation($u: ID!, $t: String!) { remember(input: {userId: $u, text: $t}) { id } }"
MEMORY = "query($u: ID!, $id: ID!) { memory(userId: $u, id: $id) { id text } }"
CONTEXT = """query($u: ID!) { context(userId: $u, message: "Where does Mary live?") {
  text memories { memory { id userId } } } }"""


@pytest.fixture(scope="module")
def secured(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(
        tmp_path_factory.mktemp("auth"),
        extractor,
        embedder,
        api_keys="key-a=alice;key-b=bob;key-admin=*",
    )
    yield api
    close_api(api)


def _post(api: Api, query: str, key: str | None, **variables: str) -> dict:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return api.raw(query, headers=headers, **variables)


def test_keyring_parsing() -> None:
    ring = KeyRing("k1=alice|bob; k2=*")
    assert ring.enabled
    assert ring.authenticate("Bearer k1").users == frozenset({"alice", "bob"})
    assert ring.authenticate("Bearer k2").all_users
    assert not KeyRing(None).enabled
    with pytest.raises(ValueError, match="key=user1"):
        KeyRing("broken")


def test_missing_and_unknown_keys_are_unauthenticated(secured: Api) -> None:
    for key in (None, "nope"):
        body = _post(secured, REMEMBER, key, u="alice", t="My sister Mary lives in Boston.")
        assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert secured.runtime.store.count_memories("alice") == 0


def test_one_users_key_cannot_read_or_write_another_user(secured: Api) -> None:
    made = _post(secured, REMEMBER, "key-a", u="alice", t="My sister Mary lives in Boston.")
    memory_id = made["data"]["remember"]["id"]
    _post(secured, REMEMBER, "key-b", u="bob", t="My sister Mary lives in Denver.")
    for query, extra in ((MEMORY, {"id": memory_id}), (CONTEXT, {}), (REMEMBER, {"t": "x y z"})):
        body = _post(secured, query, "key-b", u="alice", **extra)
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert body["data"] is None or all(v is None for v in body["data"].values())
    own = _post(secured, CONTEXT, "key-b", u="bob")["data"]["context"]
    assert own["memories"] and all(m["memory"]["userId"] == "bob" for m in own["memories"])
    assert "Boston" not in own["text"]
    assert (
        _post(secured, MEMORY, "key-admin", u="alice", id=memory_id)["data"]["memory"]["id"]
        == memory_id
    )
    body = _post(secured, 'mutation { forgetUser(userId: "alice") }', "key-b")
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert secured.runtime.store.count_memories("alice") == 1
