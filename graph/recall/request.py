"""What a context call asks, checked the same way for every entry point (GraphQL, the CLI, MCP,
the benches): the errors name the field, the value and what is allowed."""

from __future__ import annotations

import math
from dataclasses import dataclass

from graph import validation
from graph.errors import InvalidInput
from graph.limits import DEFAULT_MAX_MEMORIES, MAX_MEMORIES, Limits, check_range
from graph.recall.config import DEFAULT_CONFIG, RetrievalConfig

# a memory's score is a weighted mean in [0, 1] plus at most its neighbour share: a floor above 2
# keeps nothing and is a mistake
MAX_MIN_SCORE = 2.0


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
    # the relevance floor of this call and the confidence below which its block shows no memory
    # (None: the preset's `min_score`, `min_confidence`)
    min_score: float | None = None
    min_confidence: float | None = None

    @property
    def floor(self) -> float:
        return self.config.min_score if self.min_score is None else self.min_score

    @property
    def confidence_floor(self) -> float:
        chosen = self.min_confidence
        return self.config.min_confidence if chosen is None else chosen


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
    if request.as_of is not None:
        validation.check_moment(request.as_of, "asOf")
    check_range(request.max_memories, "maxMemories", 1, MAX_MEMORIES)
    if request.token_budget is not None:
        check_range(request.token_budget, "tokenBudget", 1, limits.max_token_budget)
    if request.min_score is not None and (
        not math.isfinite(request.min_score) or not 0 <= request.min_score <= MAX_MIN_SCORE
    ):
        raise InvalidInput(
            "minScore", f"is {request.min_score}; allowed 0 to {MAX_MIN_SCORE} (0 keeps all)"
        )
    if request.min_confidence is not None and (
        not math.isfinite(request.min_confidence) or not 0 <= request.min_confidence <= 1
    ):
        raise InvalidInput(
            "minConfidence", f"is {request.min_confidence}; allowed 0 to 1 (0 keeps all)"
        )
    request.config.weights.validate()
