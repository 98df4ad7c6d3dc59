"""One definition of what a client sends about a memory, shared by GraphQL's `MemoryInput`
(api/types.py, through strawberry's pydantic integration) and MCP's `remember` tools
(api/mcp_server.py). The ranges the descriptions state come from the checks themselves
(graph/validation.py, graph/limits.py), written "from N to M" or "at most N", and a test calls
every tool at each stated bound and one past it.

Types only are checked here; the values are checked below the API (graph/validation.py), so a bad
value gets the same BAD_USER_INPUT with the same message on every entry point.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import dateutil.parser
from pydantic import BaseModel, Field
from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.types.scalar import ScalarDefinition

from graph.validation import (
    CATEGORIES,
    DEFAULT_IMPORTANCE,
    FACT_TYPES,
    MAX_IMPORTANCE,
    MIN_IMPORTANCE,
    NewMemory,
)

# what a DateTime argument accepts, said in every refusal of one
DATE_TIME_FORM = "ISO 8601, like 2024-05-01T09:30:00+02:00 (a time without an offset is UTC)"


def _date_time(value: object) -> datetime:
    """A DateTime argument, inline or a variable: the error says what was wrong and the form
    that is accepted, not the parser's words (`invalid literal for int() with base 10`)."""
    if not isinstance(value, str):
        raise StrawberryInputCoercionError(
            f"DateTime: {value!r} is not a string; expected {DATE_TIME_FORM}"
        )
    try:
        parsed: datetime = dateutil.parser.isoparse(value)
    except (ValueError, OverflowError):
        raise StrawberryInputCoercionError(
            f"DateTime: {value!r} is not a date-time; expected {DATE_TIME_FORM}"
        ) from None
    return parsed


DATE_TIME = ScalarDefinition(
    name="DateTime",
    description="Date with time (isoformat)",
    specified_by_url=None,
    serialize=datetime.isoformat,
    parse_value=_date_time,
    parse_literal=None,
    origin=datetime,
)


def span(low: int, high: int) -> str:
    """A range as descriptions state it (the range test reads this form)."""
    return f"from {low} to {high}"


def ts(value: datetime | None) -> float | None:
    """A client's date and time as epoch seconds (UTC when it names no zone)."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


TEXT = "What was said or learned, as plain text."
SPEAKER = "Who said it, e.g. the user's name; first-person words in the text are this person."
SESSION = "The conversation it belongs to: turns of one session are chained and summarised."
OCCURRED = "When it was said (ISO 8601); default now. Relative dates in the text count from it."
EXTERNAL = "Your id for it: remembering the same id again returns the stored memory."
IMPORTANCE = (
    f"How much it matters, {span(MIN_IMPORTANCE, MAX_IMPORTANCE)} "
    f"({MIN_IMPORTANCE} trivia, {MAX_IMPORTANCE} vital); default {DEFAULT_IMPORTANCE}. "
    f"Facts stated by an importance-{MAX_IMPORTANCE} or pinned memory count as strong."
)
PINNED = (
    f"Its facts count as strong, as with importance {MAX_IMPORTANCE}: context expands to the "
    "entities they link first."
)
CATEGORY = f"What it is about: one of {', '.join(CATEGORIES)}."
DOMAIN = (
    "What part of the user's life or work it belongs to (e.g. village-history): lowercase "
    "letters, digits and dashes; the knowledge index is kept per domain. None by default."
)
FACT_TYPE = f"A stated fact rather than a turn of conversation: one of {', '.join(FACT_TYPES)}."
PII_POLICY = (
    "Changes to the storage policy for personal data and secrets, for this memory only: "
    "comma-separated TYPE=keep|redact|refuse, TYPE a type (CREDIT_CARD, EMAIL_ADDRESS, "
    "PASSWORD, ...) or a group (payment, government, secrets, contact, names, all); 'off' "
    "keeps everything. Default: the service's (payment and government ids and secrets redacted)."
)


class MemoryFields(BaseModel):
    """One text to remember: a turn of a conversation or a stated fact."""

    text: Annotated[str, Field(description=TEXT)]
    speaker: Annotated[str | None, Field(description=SPEAKER)] = None
    session_id: Annotated[str | None, Field(description=SESSION)] = None
    occurred_at: Annotated[datetime | None, Field(description=OCCURRED)] = None
    external_id: Annotated[str | None, Field(description=EXTERNAL)] = None
    importance: Annotated[int | None, Field(description=IMPORTANCE)] = None
    pinned: Annotated[bool | None, Field(description=PINNED)] = None
    category: Annotated[str | None, Field(description=CATEGORY)] = None
    fact_type: Annotated[str | None, Field(description=FACT_TYPE)] = None
    pii_policy: Annotated[str | None, Field(description=PII_POLICY)] = None
    domain: Annotated[str | None, Field(description=DOMAIN)] = None

    def to_new(self, user_id: str) -> NewMemory:
        return NewMemory(
            user_id=user_id,
            text=self.text,
            speaker=self.speaker,
            session_id=self.session_id,
            occurred_at=ts(self.occurred_at),
            external_id=self.external_id,
            importance=self.importance,
            pinned=self.pinned,
            category=self.category,
            fact_type=self.fact_type,
            pii_policy=self.pii_policy,
            domain=self.domain,
        )


class UserMemoryFields(MemoryFields):
    """A memory and whose it is: GraphQL names the user in each input."""

    user_id: Annotated[str, Field(description="Whose memory this is.")]
