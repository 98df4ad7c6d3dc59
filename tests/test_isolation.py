"""Property test: two users, two keys, random sequences of remember / context / entity /
entities / memory / forget. One key never sees anything of the other user, in any field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import Api, close_api, open_api

KEYS = {"alice": "key-alice", "bob": "key-bob"}
NAMES = ["Mary", "Tom", "Priya", "Jake", "Linda"]
PLACES = ["Boston", "Denver", "Lisbon", "Kyoto", "Toronto"]
VERBS = ["lives in", "visited", "moved to", "works in"]


@pytest.fixture(scope="module")
def two_users(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(
        tmp_path_factory.mktemp("iso"),
        extractor,
        embedder,
        api_keys=";".join(f"{k}={u}" for u, k in KEYS.items()),
    )
    yield api
    close_api(api)


def _marker(user: str, n: int) -> str:
    return f"zq{user}{n}x"


text = st.builds(
    lambda who, verb, where: f"My friend {who} {verb} {where}.",
    st.sampled_from(NAMES),
    st.sampled_from(VERBS),
    st.sampled_from(PLACES),
)
operation = st.one_of(
    st.tuples(st.just("remember"), st.sampled_from(list(KEYS)), text),
    st.tuples(st.just("context"), st.sampled_from(list(KEYS)), text),
    st.tuples(st.just("entity"), st.sampled_from(list(KEYS)), st.sampled_from(NAMES)),
    st.tuples(st.just("entities"), st.sampled_from(list(KEYS)), st.just("")),
    st.tuples(st.just("memory"), st.sampled_from(list(KEYS)), st.just("")),
    st.tuples(st.just("forget"), st.sampled_from(list(KEYS)), st.just("")),
)


def _call(api: Api, key: str, query: str, **variables: Any) -> dict[str, Any]:
    return api.raw(query, headers={"Authorization": f"Bearer {key}"}, **variables)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(operation, min_size=3, max_size=8))
def test_one_key_never_sees_the_other_user(two_users: Api, ops: list[tuple[str, str, str]]) -> None:
    api = two_users
    counter = {"n": 0}
    mine: dict[str, list[str]] = {"alice": [], "bob": []}
    for op, user, arg in ops:
        other = "bob" if user == "alice" else "alice"
        key = KEYS[user]
        counter["n"] += 1
        if op == "remember":
            body = _call(
                api,
                key,
                "mutation($u: ID!, $s: String!, $t: String!) { remember(input: {userId: $u, "
                "text: $t, speaker: $s}) { id userId text } }",
                u=user,
                s=user,
                t=f"{arg} {_marker(user, counter['n'])}",
            )
            mine[user].append(body["data"]["remember"]["id"])
        elif op == "context":
            body = _call(
                api,
                key,
                "query($u: ID!, $m: String!) { context(userId: $u, message: $m)"
                " { text entityCards { key relations { target { key } } } memories { via "
                "memory { id userId text entities { key } } } } }",
                u=user,
                m=arg,
            )
        elif op == "entity":
            body = _call(
                api,
                key,
                "query($u: ID!, $k: String!) { entity(userId: $u, key: $k) { key"
                " relations { target { key } } memories(first: 50) { id userId text } } }",
                u=user,
                k=f"person:{arg.lower()}",
            )
        elif op == "entities":
            body = _call(
                api,
                key,
                "query($u: ID!) { entities(userId: $u, first: 100) { edges { "
                "node { key memories { id text userId } } } } }",
                u=user,
            )
        elif op == "memory":
            target = (mine[other] or ["0123456789abcdef"])[-1]
            body = _call(
                api,
                key,
                "query($u: ID!, $id: ID!) { memory(userId: $u, id: $id) { id text } }",
                u=user,
                id=target,
            )
            assert body["data"] == {"memory": None}, "a memory id of another user was readable"
        else:  # forget: another user's memory cannot be forgotten through one's own user id
            target = (mine[other] or ["0123456789abcdef"])[-1]
            body = _call(
                api,
                key,
                "mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }",
                u=user,
                id=target,
            )
            assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
        text_seen = json.dumps(body)
        assert f"zq{other}" not in text_seen, f"{op} for {user} leaked {other}'s data"
        assert f'"userId": "{other}"' not in text_seen
        # and asking for the other user's id with one's own key is refused
        refused = _call(api, key, "query($u: ID!) { entities(userId: $u) { totalCount } }", u=other)
        assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"


MERGE = """mutation($u: ID!, $s: [String!]!, $t: String!) {
  mergeEntities(userId: $u, sources: $s, into: $t) { key aliases } }"""


def test_merge_entities_stays_within_the_key_user(two_users: Api) -> None:
    """A key cannot merge another user's entities, and its own merge cannot reach them."""
    for user in KEYS:
        _call(
            two_users,
            KEYS[user],
            'mutation($u: ID!) { remember(input: {userId: $u, speaker: "Ann", '
            'text: "My friend Bobby and my friend Robert love chess."}) { id } }',
            u=user,
        )
    denied = _call(two_users, KEYS["alice"], MERGE, u="bob", s=["person:bobby"], t="person:robert")
    assert denied["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    done = _call(two_users, KEYS["alice"], MERGE, u="alice", s=["person:bobby"], t="person:robert")
    assert done["data"]["mergeEntities"]["aliases"] == ["Bobby"]
    bob = _call(
        two_users,
        KEYS["bob"],
        '{ entity(userId: "bob", key: "person:bobby") { key aliases } }',
    )
    assert bob["data"]["entity"] == {"key": "person:bobby", "aliases": []}
