"""GraphQL documents and small helpers shared by the end-to-end test modules."""

from __future__ import annotations

from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import Api
from tests.conversation import USER

REMEMBER_MANY = """
mutation($inputs: [MemoryInput!]!) {
  rememberMany(inputs: $inputs) { id externalId text speaker occurredAt entities { key } }
}"""
REMEMBER = """
mutation($input: MemoryInput!) {
  remember(input: $input) { id text externalId importance pinned }
}"""
CONTEXT = """
query($user: ID!, $message: String!, $budget: Int, $max: Int, $asOf: DateTime,
      $profile: String! = "default", $minScore: Float, $minConfidence: Float) {
  context(userId: $user, message: $message, tokenBudget: $budget, maxMemories: $max,
          asOf: $asOf, profile: $profile, minScore: $minScore, minConfidence: $minConfidence) {
    text tokens seeds expanded
    entityCards { key type label mentionCount relations { type direction role count
                  target { key label } } }
    memories { score floorScore similarity recency frequency via memory { id text externalId } }
  }
}"""
AS_OF = "2026-10-16T00:00:00Z"


def context_of(api: Api, message: str, **extra: Any) -> dict[str, Any]:
    extra.setdefault("asOf", AS_OF)
    return dict(api.ok(CONTEXT, user=USER, message=message, **extra)["context"])


def texts(block: dict[str, Any]) -> list[str]:
    return [m["memory"]["text"] for m in block["memories"]]


def relations_of(block: dict[str, Any], key: str) -> set[tuple[str, str, str]]:
    card = next(c for c in block["entityCards"] if c["key"] == key)
    return {(r["type"], r["direction"], r["target"]["key"]) for r in card["relations"]}


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def metric_samples(text: str) -> Samples:
    """A /metrics page as {(sample name, sorted labels): value}."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
