"""Deletion and pinning end to end: `forget`, `forgetUser`, `pin`, and ids that name nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api
from tests.conversation import USER
from tests.documents import REMEMBER, REMEMBER_MANY


def test_pin_marks_memory_and_strengthens_itsrelations_of(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    memory_id = remembered[9]["id"]  # "My brother Jake lives in Denver ..."
    pinned = api.ok(
        'mutation($id: ID!) { pin(userId: "alice", id: $id, pinned: true) { id pinned } }',
        id=memory_id,
    )["pin"]
    assert pinned == {"id": memory_id, "pinned": True}
    jake = api.runtime.store.entities(USER, ["person:jake"])["person:jake"]
    lives = [r for r in jake.relations if r.type == "LIVES_IN"]
    assert lives and lives[0].strong == 1
    api.ok(
        'mutation($id: ID!) { pin(userId: "alice", id: $id, pinned: false) { id } }', id=memory_id
    )
    jake = api.runtime.store.entities(USER, ["person:jake"])["person:jake"]
    assert [r for r in jake.relations if r.type == "LIVES_IN"][0].strong == 0


def test_forget_removes_memory_vector_and_orphans(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    runtime = api.runtime
    made = api.ok(
        REMEMBER,
        input={
            "userId": USER,
            "speaker": "Alice Smith",
            "text": "My cousin Rafael works at Initech in Lisbon.",
        },
    )["remember"]
    memory_id = made["id"]
    keys = {e.key for e in runtime.store.catalog(USER)}
    assert {"person:rafael", "org:initech", "place:lisbon"} <= keys
    assert memory_id in runtime.vectors.ids(USER)
    assert api.ok('mutation($id: ID!) { forget(userId: "alice", id: $id) }', id=memory_id) == {
        "forget": True
    }
    assert api.ok('query($id: ID!) { memory(userId: "alice", id: $id) { id } }', id=memory_id) == {
        "memory": None
    }
    keys = {e.key for e in runtime.store.catalog(USER)}
    assert not {"person:rafael", "org:initech", "place:lisbon"} & keys
    assert memory_id not in runtime.vectors.ids(USER)
    alice = runtime.store.entities(USER, ["person:alice_smith"])["person:alice_smith"]
    assert all(r.target != "person:rafael" for r in alice.relations)
    assert "person:alice_smith" in keys  # still backed by other memories


def test_forget_user_leaves_nothing(api: Api, remembered: list[dict[str, Any]]) -> None:
    runtime = api.runtime
    other = [
        {"userId": "zed", "text": t, "speaker": "Zed"}
        for t in ("I live in Oslo.", "My sister Ida works at Equinor.", "I love skiing.")
    ]
    api.ok(REMEMBER_MANY, inputs=other)
    before_alice = runtime.store.count_memories(USER)
    assert runtime.vectors.count("zed") == 3
    api.ok('{ context(userId: "zed", message: "Where is Equinor?") { tokens } }')
    runtime.service.caches.save_files("zed")  # the BM25 index on disk too
    lexical = runtime.vectors.directory.parent / "lexical"
    assert list(lexical.glob(f"{runtime.vectors.stem_of('zed')}*"))
    assert api.ok('mutation { forgetUser(userId: "zed") }') == {"forgetUser": 3}
    assert runtime.store.count_memories("zed") == 0
    assert runtime.store.catalog("zed") == []
    assert runtime.vectors.count("zed") == 0
    stem = runtime.vectors.stem_of("zed")
    assert not list(runtime.vectors.directory.glob(f"{stem}*"))
    assert not list(lexical.glob(f"{stem}*"))
    assert runtime.store.count_memories(USER) == before_alice
    assert api.ok('mutation { forgetUser(userId: "zed") }') == {"forgetUser": 0}


@pytest.mark.parametrize(
    "query",
    [
        'mutation { forget(userId: "alice", id: "0123456789abcdef") }',
        'mutation { forget(userId: "alice", id: "not-an-id") }',
        'mutation { pin(userId: "alice", id: "0123456789abcdef", pinned: true) { id } }',
    ],
)
def test_unknown_memory_is_not_found(api: Api, query: str) -> None:
    assert api.error_code(query) == "NOT_FOUND"


def test_other_users_memory_is_not_found(api: Api, remembered: list[dict[str, Any]]) -> None:
    memory_id = remembered[0]["id"]
    assert api.ok(
        'query($id: ID!) { memory(userId: "mallory", id: $id) { id } }', id=memory_id
    ) == {"memory": None}
    assert (
        api.error_code('mutation($id: ID!) { forget(userId: "mallory", id: $id) }', id=memory_id)
        == "NOT_FOUND"
    )
    block = api.ok(
        '{ context(userId: "mallory", message: "Where does Mary live?") '
        "{ memories { memory { id } } entityCards { key } } }"
    )["context"]
    assert block == {"memories": [], "entityCards": []}
