"""What a context call asks, checked the same way for every entry point (GraphQL, the CLI, MCP,
the benches): the errors name the field, the value and what is allowed."""

from __future__ import annotations

from dataclasses import dataclass

from graph import validation
from graph.errors import InvalidInput
from graph.limits import DEFAULT_MAX_MEMORIES, MAX_MEMORIES, Limits, check_range
from graph.recall.config import DEFAULT_CONFIG, RetrievalConfig


@dataclass(frozen=True)
class ContextRequest:
    """What the caller asks; how to search is `config`, a named preset (graph/recall/config.py)."""

    user_id: str
    message: str
    as_of: float | None = None
    max_memories: int = DEFAULT_MAX_MEMORIES
    token_budget: int | None = None
    speaker: str | None = None
    session_id: str | None = None
    config: RetrievalConfig = DEFAULT_CONFIG


def check_request(request: ContextRequest, limits: Limits) -> None:
    """Every argument check of a context call, for every entry point; errors name the field."""
    validation.check_user_id(request.user_id)
    if not request.message.strip():
        raise InvalidInput("message", "must not be empty")
    validation.check_no_nul(request.message, "message")
    validation.check_no_nul(request.speaker, "speaker")
    validation.check_no_nul(request.session_id, "sessionId")
    if len(request.message) > limits.max_text_chars:
        raise InvalidInput(
            "message",
            f"is {len(request.message)} characters; at most {limits.max_text_chars} allowed",
        )
    check_range(request.max_memories, "maxMemories", 1, MAX_MEMORIES)
    if request.token_budget is not None:
        check_range(request.token_budget, "tokenBudget", 1, limits.max_token_budget)
    request.config.weights.validate()
