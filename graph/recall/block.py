"""The context block an agent pastes into its prompt, composed from prioritised sources within a
token budget: the time line and the user line (never pruned), entity cards, relevant memories,
episodes of earlier sessions, and the current conversation's turn window.

Tokens are counted with a word-and-punctuation estimate (`\\w+` runs and single symbols), close to
BPE counts for English prose and needing no tokenizer download. The budget is never exceeded;
`compose` documents the pruning order.
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
EPISODES_HEADER = "[EARLIER SESSIONS]"
WINDOW_HEADER = "[CURRENT CONVERSATION]"


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def day(timestamp: float | None) -> str:
    if timestamp is None:
        return "unknown"
    return datetime.fromtimestamp(timestamp, tz=UTC).strftime("%Y-%m-%d")


def card_line(card: EntityRecord, labels: dict[str, str], max_relations: int) -> str:
    """One card: current facts first, then history marked with when it stopped holding
    ("LIVES_IN→ Boston (until 2023-05-02)")."""
    parts = []
    ordered = sorted(card.relations, key=lambda r: not r.current)  # stable: strongest first
    for rel in ordered[:max_relations]:
        arrow = "→" if rel.direction == "out" else "←"
        role = f" ({rel.role})" if rel.role else ""
        until = "" if rel.current else f" (until {day(rel.valid_to)})"
        parts.append(f"{rel.type}{arrow} {labels.get(rel.target, rel.target)}{role}{until}")
    relations = "; ".join(parts) if parts else "no relations yet"
    return (
        f"- {card.label} ({card.type}) — {relations}; "
        f"{card.mention_count} mentions; last seen {day(card.last_seen)}"
    )


def memory_line(memory: MemoryRecord) -> str:
    speaker = f"{memory.speaker}: " if memory.speaker else ""
    return f"- [{day(memory.occurred_at)}] {speaker}{memory.text}"


@dataclass
class Window:
    """The current session as shown: first turns, the middle's summary, last turns."""

    session_id: str
    turn_count: int
    first: list[MemoryRecord] = field(default_factory=list)
    middle: list[str] = field(default_factory=list)
    last: list[MemoryRecord] = field(default_factory=list)


@dataclass
class Ranked:
    """A memory or episode in the block, with the score that decides its pruning order."""

    memory: MemoryRecord
    score: float


@dataclass
class Block:
    text: str
    tokens: int
    cards: list[EntityRecord] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)
    episode_ids: list[str] = field(default_factory=list)
    window: Window | None = None
    pruned: list[str] = field(default_factory=list)


def minimum_tokens(time_line: str, user_line: str) -> int:
    """What a block costs before any optional part: the lines that are never pruned."""
    return count_tokens(f"{time_line}\n{user_line}")


def compose(
    time_line: str,
    user_line: str,
    cards: Sequence[EntityRecord],
    memories: Sequence[Ranked],
    episodes: Sequence[Ranked],
    window: Window | None,
    labels: dict[str, str],
    budget: int | None,
    relations_shown: int,
) -> Block:
    """Assembles the block from its sources; over budget, prunes in this order and says what:
    the middle of the current session (oldest sentence first), memories and episodes (lowest score
    first), entity cards (last first), the first turns, then the last turns (oldest first). The
    time and user lines are never pruned (callers reject budgets below `minimum_tokens`). Each
    card shows its first `relations_shown` relations."""
    keep_cards = list(cards)
    keep_memories = list(memories)
    keep_episodes = list(episodes)
    first = list(window.first) if window else []
    middle = list(window.middle) if window else []
    last = list(window.last) if window else []
    pruned: list[str] = []

    def build() -> str:
        sections = [f"{time_line}\n{user_line}"]
        if keep_cards:
            lines = [card_line(c, labels, relations_shown) for c in keep_cards]
            sections.append("\n".join([CARDS_HEADER, *lines]))
        if keep_memories:
            sections.append(
                "\n".join([MEMORIES_HEADER, *(memory_line(r.memory) for r in keep_memories)])
            )
        if keep_episodes:
            sections.append(
                "\n".join([EPISODES_HEADER, *(memory_line(r.memory) for r in keep_episodes)])
            )
        if window and (first or middle or last):
            lines = [f"{WINDOW_HEADER} session {window.session_id}, {window.turn_count} turns"]
            lines += [memory_line(t) for t in first]
            if middle:
                lines.append("- … earlier in this session: " + " ".join(middle))
            lines += [memory_line(t) for t in last]
            sections.append("\n".join(lines))
        return "\n\n".join(sections)

    def drop() -> bool:
        if middle:
            middle.pop(0)
            pruned.append("window-middle")
            return True
        ranked = [("memory", r) for r in keep_memories] + [("episode", r) for r in keep_episodes]
        if ranked:
            kind, lowest = min(ranked, key=lambda pair: pair[1].score)
            (keep_memories if kind == "memory" else keep_episodes).remove(lowest)
            pruned.append(f"{kind}:{lowest.memory.id}")
            return True
        if keep_cards:
            pruned.append(f"card:{keep_cards.pop().key}")
            return True
        for turns in (first, last):
            if turns:
                pruned.append(f"turn:{turns.pop(0).id}")
                return True
        return False

    text = build()
    while budget is not None and count_tokens(text) > budget and drop():
        text = build()
    shown = None
    if window:
        shown = Window(window.session_id, window.turn_count, first, middle, last)
    return Block(
        text,
        count_tokens(text),
        keep_cards,
        [r.memory.id for r in keep_memories],
        [r.memory.id for r in keep_episodes],
        shown,
        pruned,
    )
