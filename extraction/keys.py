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
    "agent",  # the assistant a user talks to: it speaks in the memories, no person of them
)

# the names chat APIs give the agent's own turns (OpenAI's and Anthropic's message roles, and the
# usual labels of a bot): such a speaker is the agent, typed `agent`, not a person of the user's
# graph; what it says states no fact of anyone (extraction/attribution.py)
AGENT_VOICES = frozenset({"assistant", "system", "ai", "bot", "agent", "tool", "model"})

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


def is_agent_voice(speaker: str) -> bool:
    """A speaker named as the agent's turns are ("assistant", "Assistant", "AI"); "Ai", written
    as a given name is, is a person."""
    said = speaker.strip()
    return said.casefold() in AGENT_VOICES and said != "Ai"


def speaker_key(speaker: str) -> str | None:
    """The entity a speaker is: `agent:assistant` for an agent's voice, else a person."""
    return make_key("agent" if is_agent_voice(speaker) else "person", speaker)


def is_agent(key: str | None) -> bool:
    return key is not None and key.startswith("agent:")


def split_key(key: str) -> tuple[str, str]:
    entity_type, _, value = key.partition(":")
    return entity_type, value
