"""The context block an agent pastes into its prompt: text and token accounting, within a budget.

Tokens are counted with a word-and-punctuation estimate (`\\w+` runs and single symbols), close to
BPE counts for English prose and needing no tokenizer download. The budget is never exceeded:
the lowest-scoring memories are dropped first, then the last entity cards, then the headers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from graph.records import EntityRecord, MemoryRecord

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)

CARDS_HEADER = "[ENTITY CARDS]"
MEMORIES_HEADER = "[RELEVANT MEMORIES]"


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def day(timestamp: float | None) -> str:
    if timestamp is None:
        return "unknown"
    return datetime.fromtimestamp(timestamp, tz=UTC).strftime("%Y-%m-%d")


def card_line(card: EntityRecord, labels: dict[str, str], max_relations: int = 4) -> str:
    parts = []
    for rel in card.relations[:max_relations]:
        arrow = "→" if rel.direction == "out" else "←"
        role = f" ({rel.role})" if rel.role else ""
        parts.append(f"{rel.type}{arrow} {labels.get(rel.target, rel.target)}{role}")
    relations = "; ".join(parts) if parts else "no relations yet"
    return (
        f"- {card.label} ({card.type}) — {relations}; "
        f"{card.mention_count} mentions; last seen {day(card.last_seen)}"
    )


def memory_line(memory: MemoryRecord) -> str:
    speaker = f"{memory.speaker}: " if memory.speaker else ""
    return f"- [{day(memory.occurred_at)}] {speaker}{memory.text}"


@dataclass
class Block:
    text: str
    tokens: int
    cards: list[EntityRecord] = field(default_factory=list)
    memories: list[int] = field(default_factory=list)  # indexes into the ranked input


def render(
    cards: Sequence[EntityRecord],
    memories: Sequence[MemoryRecord],
    labels: dict[str, str],
    budget: int | None,
) -> Block:
    """Memories arrive ranked best first; returns what fits in `budget` tokens."""
    card_lines = [card_line(c, labels) for c in cards]
    memory_lines = [memory_line(m) for m in memories]
    keep_cards = list(range(len(cards)))
    keep_memories = list(range(len(memories)))

    def build() -> str:
        sections = []
        if keep_cards:
            sections.append("\n".join([CARDS_HEADER, *(card_lines[i] for i in keep_cards)]))
        if keep_memories:
            sections.append("\n".join([MEMORIES_HEADER, *(memory_lines[i] for i in keep_memories)]))
        return "\n\n".join(sections)

    text = build()
    while budget is not None and count_tokens(text) > budget and (keep_memories or keep_cards):
        if keep_memories:
            keep_memories.pop()
        else:
            keep_cards.pop()
        text = build()
    return Block(text, count_tokens(text), [cards[i] for i in keep_cards], keep_memories)
