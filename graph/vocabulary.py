"""The closed vocabulary of entity labels and relationship types.

Labels and relationship types are never built from user text: the extractor may only emit the names
here, the write statement spells each of them out literally, and a test keeps the two in sync.
"""

from __future__ import annotations

import re

from extraction.model import RELATION_TYPES

# entity type (the key prefix) -> node label
ENTITY_LABELS: dict[str, str] = {
    "person": "Person",
    "place": "Place",
    "org": "Org",
    "project": "Project",
    "event": "Event",
    "topic": "Topic",
}


__all__ = ["EDGE_TYPES", "ENTITY_LABELS", "NODE_LABELS", "RELATION_TYPES", "check_identifier"]

NODE_LABELS: tuple[str, ...] = ("Memory", "Entity", "Session", *ENTITY_LABELS.values())
# MENTIONS: memory -> entity; NEXT: a session's turns in ingest order; IN_SESSION: turn -> session;
# SUMMARIZED_BY: session -> its episodic summary memory
EDGE_TYPES: tuple[str, ...] = ("MENTIONS", "NEXT", "IN_SESSION", "SUMMARIZED_BY", *RELATION_TYPES)

_IDENTIFIER = re.compile(r"^[A-Z][A-Za-z_]{0,63}$")


def check_identifier(name: str) -> str:
    """Returns `name` if it is a vocabulary label or relationship type, else raises ValueError."""
    if not _IDENTIFIER.match(name) or name not in NODE_LABELS + EDGE_TYPES:
        raise ValueError(f"{name!r} is not in the graph vocabulary")
    return name
