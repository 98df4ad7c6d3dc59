"""Entity keys: `<type>:<slug>` with python-slugify (lowercase, no punctuation, `_` for spaces).

Possessives ("Mary's") and leading determiners or possessive pronouns ("the", "my") are stripped
first, so "my sister's Boston trip" and "Boston trip" meet at the same key.
"""

from __future__ import annotations

import re

from slugify import slugify

ENTITY_TYPES = (
    "person",
    "place",
    "org",
    "project",
    "event",
    "topic",
    "pet",
    "work",
    "language",
)

_LEADING = re.compile(
    r"^(?:(?:the|a|an|my|our|your|his|her|their|its|this|that|these|those|some)\s+)+",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)(?=\s|$)")


def clean_label(text: str) -> str:
    """Display form of a mention: trimmed, spaces collapsed, determiners and possessives off."""
    text = " ".join(text.split())
    text = _LEADING.sub("", text)
    text = _POSSESSIVE.sub("", text)
    return text.strip(" \t\n.,;:!?\"'()[]{}-–—*#_~")


def slug(text: str) -> str:
    return str(slugify(clean_label(text), separator="_", lowercase=True))


def make_key(entity_type: str, text: str) -> str | None:
    """`person:john_doe`; None when nothing sluggable is left (e.g. only punctuation)."""
    if entity_type not in ENTITY_TYPES:
        raise ValueError(f"unknown entity type {entity_type!r}; expected one of {ENTITY_TYPES}")
    value = slug(text)
    return f"{entity_type}:{value}" if value else None


def split_key(key: str) -> tuple[str, str]:
    entity_type, _, value = key.partition(":")
    return entity_type, value
