"""Entity cards end to end: `entity`, `entities` paging and filters, batched loading."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api
from tests.conversation import text_of


def test_mary_card_shows_the_family_role(api: Api, remembered: list[dict[str, Any]]) -> None:
    card = api.ok(
        '{ entity(userId: "alice", key: "person:mary") { label type mentionCount '
        "relations { type direction role target { key } } memories(first: 3) { text } } }"
    )["entity"]
    assert card["label"] == "Mary" and card["type"] == "person"
    assert card["mentionCount"] >= 4
    assert {
        "type": "FAMILY_OF",
        "direction": "in",
        "role": "sister",
        "target": {"key": "person:alice_smith"},
    } in card["relations"]
    assert [m["text"] for m in card["memories"]][0] == text_of(28)


def test_entities_pagination_and_filters(api: Api, remembered: list[dict[str, Any]]) -> None:
    query = """query($after: String) { entities(userId: "alice", type: "person", first: 3,
               after: $after) { totalCount edges { cursor node { key type } }
               pageInfo { hasNextPage endCursor } } }"""
    seen: list[str] = []
    after = None
    while True:
        page = api.ok(query, after=after)["entities"]
        seen += [e["node"]["key"] for e in page["edges"]]
        assert all(e["node"]["type"] == "person" for e in page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == page["totalCount"]
    assert {"person:mary", "person:jake", "person:alice_smith", "person:ben_carter"} <= set(seen)
    found = api.ok('{ entities(userId: "alice", search: "chess") { edges { node { key } } } }')
    assert [e["node"]["key"] for e in found["entities"]["edges"]] == ["org:denver_chess_club"]


def test_entity_cards_are_batched(api: Api, remembered: list[dict[str, Any]]) -> None:
    executor = api.runtime.executor
    calls: list[str] = []
    original = executor.run

    def counting(name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        calls.append(name)
        return original(name, params)

    executor.run = counting  # type: ignore[method-assign]
    try:
        data = api.ok(
            '{ entities(userId: "alice", first: 20) { edges { node { key '
            "relations { target { key relations { type } } } } } } }"
        )
    finally:
        executor.run = original  # type: ignore[method-assign]
    assert len(data["entities"]["edges"]) == 20
    # the page, then one batch for all relation targets: not one query per card
    assert calls.count("entity_cards") == 2


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ('{ entities(userId: "alice", type: "planet") { totalCount } }', "type"),
        ('{ entities(userId: "alice", after: "%%%") { totalCount } }', "after"),
        ('{ entities(userId: "alice", first: 0) { totalCount } }', "first: is 0"),
    ],
)
def test_bad_entities_arguments(api: Api, query: str, fragment: str) -> None:
    body = api.raw(query)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert fragment in body["errors"][0]["message"]
