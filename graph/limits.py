"""Input limits, stated once: the settings default to them, and every entry point (GraphQL, the
CLI, MCP) checks against the values the service was built with, below the API."""

from __future__ import annotations

from dataclasses import dataclass

from graph.errors import InvalidInput

# fixed, not settings: memories per context call, and entities or memories per page
MAX_MEMORIES = 100
MAX_PAGE = 100
DEFAULT_MAX_MEMORIES = 8
DEFAULT_PAGE = 20


@dataclass(frozen=True)
class Limits:
    max_text_chars: int = 20_000
    max_batch: int = 1_000
    max_token_budget: int = 32_000


def check_range(value: int, field: str, low: int, high: int) -> int:
    """`value` if low ≤ value ≤ high, else InvalidInput naming the field, value and range."""
    if not low <= value <= high:
        raise InvalidInput(field, f"is {value}; allowed {low} to {high}")
    return value
