"""Near-duplicates at ingest: a memory that says again what its speaker said before.

People repeat themselves across sessions ("I love pottery", weeks apart). A new turn is a repeat of
an earlier one when their vectors' cosine is at least `REPEAT_COSINE` *and* the gate holds: the
same speaker, both turns (not episodes), and the same entities — a near-identical sentence about
another person or place says something new and is no repeat (the faithfulness check of the
Semantic Memory seed, without an LLM). A repeat is kept (nothing is lost) and linked to the
earlier memory (`repeat_of`), whose `repeats` count grows; context shows a group of near-identical
memories once (graph/recall/stages.collapse).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

REPEAT_COSINE = 0.95
# a longer text is embedded and parsed by its head only (extraction/embedder.py EMBEDDED_TOKENS,
# about 500 characters of English; extraction/extractor.py PARSED_CHARS): two long replies that
# open alike would pass the gate on their heads while saying different things after, so only
# texts up to this length are judged
REPEAT_MAX_CHARS = 500


@dataclass(frozen=True)
class Said:
    """What the gate compares of a memory."""

    id: str
    speaker: str | None
    kind: str
    entity_keys: frozenset[str]
    whole: bool = True  # short enough that its vector and entities cover all of it


def said_whole(text: str) -> bool:
    return len(text) <= REPEAT_MAX_CHARS


def is_repeat(new: Said, old: Said) -> bool:
    return (
        new.id != old.id
        and new.kind == "turn"
        and old.kind == "turn"
        and new.whole
        and old.whole
        and new.speaker is not None
        and new.speaker == old.speaker
        and new.entity_keys == old.entity_keys
    )


def closest_repeat(new: Said, hits: Sequence[tuple[Said, float]], threshold: float) -> str | None:
    """The most similar earlier memory `new` repeats, among (memory, cosine) hits, if any."""
    passing = [(cos, old.id) for old, cos in hits if cos >= threshold and is_repeat(new, old)]
    return max(passing)[1] if passing else None
