"""What a new memory is, and the checks every entry point applies before anything is written.

Every check names the field, the value's problem and what is allowed. A batch is validated whole,
so one bad input rejects the batch and nothing of it is written.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

from graph.errors import InvalidInput, NotFound
from graph.ids import is_memory_id
from graph.limits import check_range

CATEGORIES = ("PERSON", "PLACE", "EVENT", "PREFERENCE", "BIOGRAPHY")
FACT_TYPES = ("fact", "preference", "relationship", "friction", "habit")
MAX_ID_CHARS = 256
MAX_SPEAKER_CHARS = 200
# how much a memory matters: 0 trivia, 1 the default, 3 vital (its relations count as strong)
MIN_IMPORTANCE = 0
MAX_IMPORTANCE = 3
DEFAULT_IMPORTANCE = 1
# a memory's domain ("village-history"): the knowledge index is kept per (user, domain)
DOMAIN = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")


@dataclass(frozen=True)
class NewMemory:
    user_id: str
    text: str
    speaker: str | None = None
    session_id: str | None = None
    occurred_at: float | None = None  # epoch seconds; None = now
    external_id: str | None = None
    importance: int | None = None
    pinned: bool | None = None
    category: str | None = None
    fact_type: str | None = None
    kind: str = "turn"  # "episode": a session summary written by the service, not by clients
    # the storage policy for this memory, over the service's (graph/write/policy.py syntax)
    pii_policy: str | None = None
    # the types the storage policy redacted from `text` (graph/write/screen.py sets it)
    redactions: tuple[str, ...] = ()
    domain: str | None = None  # keeps one user's domains apart in the knowledge index


def normalized_text(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def content_hash(memory: NewMemory) -> str:
    """Idempotency key when no externalId is given: normalised text and speaker."""
    speaker = normalized_text(memory.speaker or "")
    payload = f"{speaker}\x1f{normalized_text(memory.text)}"
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def check_no_nul(value: str | None, field: str) -> None:
    """The embedded engine's protocol cannot carry NUL characters; refuse them by name."""
    if value is not None and "\x00" in value:
        raise InvalidInput(field, "contains a NUL character (\\0), which cannot be stored")


def check_user_id(user_id: str, field: str = "userId") -> str:
    if not user_id or not user_id.strip():
        raise InvalidInput(field, "must not be empty")
    check_no_nul(user_id, field)
    if len(user_id) > MAX_ID_CHARS:
        raise InvalidInput(field, f"is {len(user_id)} characters; at most {MAX_ID_CHARS} allowed")
    return user_id


def _optional_text(value: str | None, field: str, limit: int) -> str | None:
    if value is None:
        return None
    if not value.strip():
        raise InvalidInput(field, "must not be blank when given")
    if len(value) > limit:
        raise InvalidInput(field, f"is {len(value)} characters; at most {limit} allowed")
    return value


def validate(memory: NewMemory, max_text_chars: int, prefix: str = "") -> NewMemory:
    check_user_id(memory.user_id, f"{prefix}userId")
    if not memory.text or not memory.text.strip():
        raise InvalidInput(f"{prefix}text", "must not be empty")
    for name, value in (
        ("text", memory.text),
        ("speaker", memory.speaker),
        ("sessionId", memory.session_id),
        ("externalId", memory.external_id),
        ("category", memory.category),
        ("factType", memory.fact_type),
        ("piiPolicy", memory.pii_policy),
        ("domain", memory.domain),
    ):
        check_no_nul(value, f"{prefix}{name}")
    if len(memory.text) > max_text_chars:
        raise InvalidInput(
            f"{prefix}text",
            f"is {len(memory.text)} characters; at most {max_text_chars} allowed",
        )
    _optional_text(memory.speaker, f"{prefix}speaker", MAX_SPEAKER_CHARS)
    _optional_text(memory.session_id, f"{prefix}sessionId", MAX_ID_CHARS)
    _optional_text(memory.external_id, f"{prefix}externalId", MAX_ID_CHARS)
    if memory.importance is not None:
        check_range(memory.importance, f"{prefix}importance", MIN_IMPORTANCE, MAX_IMPORTANCE)
    if memory.category is not None and memory.category not in CATEGORIES:
        raise InvalidInput(
            f"{prefix}category", f"is {memory.category!r}; allowed {', '.join(CATEGORIES)}"
        )
    if memory.fact_type is not None and memory.fact_type not in FACT_TYPES:
        raise InvalidInput(
            f"{prefix}factType", f"is {memory.fact_type!r}; allowed {', '.join(FACT_TYPES)}"
        )
    if memory.domain is not None and not DOMAIN.fullmatch(memory.domain):
        raise InvalidInput(
            f"{prefix}domain",
            f"is {memory.domain!r}; allowed 1 to 64 lowercase letters, digits and dashes "
            "(e.g. village-history)",
        )
    if memory.occurred_at is not None:
        check_moment(memory.occurred_at, f"{prefix}occurredAt")
    return memory


# the moments every part of the service can name: a day, a year bucket, a time shown back are
# all in UTC, and Python's dates hold the years 1 to 9999 only
EARLIEST = datetime(1, 1, 1, tzinfo=UTC).timestamp()
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC).timestamp()


def check_moment(stamp: float, field: str) -> float:
    """A time the API accepted (any offset from -12:00 to +14:00) must also be a UTC moment of
    the years 1 to 9999: 9999-12-31T23:00-12:00 is in the year 10000 in UTC and failed
    everywhere it was shown (found by the property tests of tests/test_profiles.py)."""
    if not math.isfinite(stamp):
        raise InvalidInput(field, "must be a valid date and time")
    if not EARLIEST <= stamp <= LATEST:
        raise InvalidInput(
            field, "falls outside the years 1 to 9999 once in UTC; give a time within them"
        )
    return stamp


def validate_batch(memories: list[NewMemory], max_text_chars: int, max_batch: int) -> None:
    if not memories:
        raise InvalidInput("inputs", "must hold at least one memory")
    if len(memories) > max_batch:
        raise InvalidInput("inputs", f"holds {len(memories)} memories; at most {max_batch} allowed")
    for i, memory in enumerate(memories):
        validate(memory, max_text_chars, prefix=f"inputs[{i}]." if len(memories) > 1 else "")


def check_entity_key(key: str, field: str) -> str:
    """An entity key looks like `person:john_doe`; anything else names no entity."""
    check_no_nul(key, field)
    if not key.strip() or ":" not in key:
        raise InvalidInput(field, f"holds {key!r}; an entity key looks like 'person:john_doe'")
    return key


def check_memory_id(user_id: str, memory_id: str) -> None:
    """A malformed memory id cannot name a memory: NOT_FOUND, like an unknown one."""
    check_user_id(user_id)
    if not is_memory_id(memory_id):
        raise NotFound(f"no memory {memory_id!r} for this user")
