"""The exported SDL is the contract clients rely on: it must not drift from the code."""

from __future__ import annotations

from pathlib import Path

from api.schema import schema

SDL = Path(__file__).resolve().parents[1] / "api" / "schema.graphql"


def test_exported_sdl_matches_code() -> None:
    assert SDL.read_text(encoding="utf-8") == schema.as_str() + "\n", (
        "api/schema.graphql is stale: run `recollect schema --output api/schema.graphql`"
    )


def test_contract_names_exist() -> None:
    text = schema.as_str()
    for fragment in [
        "context(userId: ID!, message: String!, asOf: DateTime = null, maxMemories: Int = 8, "
        "tokenBudget: Int = null, weights: ScoreWeightsInput = null",
        "entity(userId: ID!, key: String!): EntityCard",
        "entities(userId: ID!, type: String = null, search: String = null, first: Int = 20, "
        "after: String = null): EntityConnection!",
        "memory(userId: ID!, id: ID!): Memory",
        "remember(input: MemoryInput!): Memory!",
        "rememberMany(inputs: [MemoryInput!]!): [Memory!]!",
        "forget(userId: ID!, id: ID!): Boolean!",
        "forgetUser(userId: ID!): Int!",
        "pin(userId: ID!, id: ID!, pinned: Boolean!): Memory!",
        "memories(first: Int = 10): [Memory!]!",
    ]:
        assert fragment in text, fragment
    for type_name, fields in {
        "ContextBlock": [
            "text: String!",
            "tokens: Int!",
            "entityCards: [EntityCard!]!",
            "memories: [ScoredMemory!]!",
        ],
        "ScoredMemory": [
            "memory: Memory!",
            "score: Float!",
            "similarity: Float!",
            "recency: Float!",
            "frequency: Float!",
            "via: [String!]!",
        ],
        "Relation": [
            "type: String!",
            "direction: String!",
            "target: EntityCard!",
            "count: Int!",
            "lastSeen: DateTime",
        ],
        "Memory": [
            "id: ID!",
            "userId: ID!",
            "text: String!",
            "createdAt: DateTime!",
            "importance: Int!",
            "pinned: Boolean!",
            "entities: [EntityCard!]!",
        ],
        "EntityCard": [
            "key: String!",
            "type: String!",
            "label: String!",
            "aliases: [String!]!",
            "mentionCount: Int!",
            "relations: [Relation!]!",
        ],
    }.items():
        block = text.split(f"type {type_name} {{", 1)[1].split("}", 1)[0]
        for field in fields:
            assert field in block, f"{type_name}.{field}"
