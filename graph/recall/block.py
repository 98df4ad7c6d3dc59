"""The context block an agent pastes into its prompt, composed from prioritised sources within a
token budget: the time line and the user line (never pruned), entity cards, relevant memories,
episodes of earlier sessions, and the current conversation's turn window.

Tokens are counted with a word-and-punctuation estimate (`\\w+` runs and single symbols), close to
BPE counts for English prose and needing no tokenizer download. The budget is never exceeded;
`compose` documents the pruning order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from graph.records import (
    CO_MENTIONED,
    ENCOURAGED,
    STATED,
    SUPERSEDED,
    EntityRecord,
    MemoryRecord,
    RelationRecord,
    card_order,
    card_tier,
)

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)

CARDS_HEADER = "[ENTITY CARDS]"
MEMORIES_HEADER = "[RELEVANT MEMORIES]"
EPISODES_HEADER = "[EARLIER SESSIONS]"
WINDOW_HEADER = "[CURRENT CONVERSATION]"
# what [RELEVANT MEMORIES] says when no memory reaches the relevance floor: an agent can then say
# it does not know, or ask, instead of answering from the nearest unrelated memory
NOTHING_RELEVANT = "- nothing relevant found in memory for this message"
PROFILE_HEADER = "[PROFILE]"


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def day(timestamp: float | None) -> str:
    if timestamp is None:
        return "unknown"
    return datetime.fromtimestamp(timestamp, tz=UTC).date().isoformat()  # "0147-07-28" too


# co-mentions a card line shows at most, after the stated facts: whatever was named beside the
# entity says little, and an agent reads the line from its start
CO_MENTIONS_SHOWN = 2
# superseded values a card line shows when the message asks about the past
HISTORY_SHOWN = 2


def card_line(
    card: EntityRecord, labels: Mapping[str, str], max_relations: int, history: bool = False
) -> str:
    """One card: what was stated of the entity first (current facts, strongest first, then
    encouragement between two people), then at most `CO_MENTIONS_SHOWN` co-mentions; superseded
    values only when the message asks about the past (`history`), after the current facts and
    marked with when they stopped holding ("LIVES_IN→ Boston (until 2023-05-02)"), or when
    they are all the card holds."""
    tiers: dict[int, list[RelationRecord]] = {}
    for rel in card_order(card.key, card.relations):  # strongest first, history newest first
        tiers.setdefault(card_tier(rel.type, card.key, rel.target, rel.valid_to), []).append(rel)
    stated = [*tiers.get(STATED, []), *tiers.get(ENCOURAGED, [])]
    # a card whose facts are all history shows them: "Boston — LIVES_IN← Alice (until …)"
    past = tiers.get(SUPERSEDED, [])[:HISTORY_SHOWN] if history or not stated else []
    stated = stated[: max(max_relations - len(past), 0)]
    room = max(max_relations - len(stated) - len(past), 0)
    shown = [*stated, *past, *tiers.get(CO_MENTIONED, [])[: min(room, CO_MENTIONS_SHOWN)]]
    parts = []
    for rel in shown:
        arrow = "→" if rel.direction == "out" else "←"
        role = f" ({rel.role})" if rel.role else ""
        until = "" if rel.current else f" (until {day(rel.valid_to)})"
        parts.append(f"{rel.type}{arrow} {labels.get(rel.target, rel.target)}{role}{until}")
    relations = "; ".join(parts) if parts else "no relations yet"
    seen = f"; last seen {day(card.last_seen)}" if card.last_seen is not None else ""
    return f"- {card.label} ({card.type}) — {relations}; {card.mention_count} mentions{seen}"


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


@dataclass(frozen=True)
class BlockParts:
    """What a block is composed from, best first within each kind; `labels` names the targets of
    the cards' relations, and each card shows its first `relations_shown` relations."""

    time_line: str
    user_line: str
    cards: Sequence[EntityRecord] = ()
    memories: Sequence[Ranked] = ()
    episodes: Sequence[Ranked] = ()
    window: Window | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    relations_shown: int = 4
    # the message asks about the past ("where did I live before?"): cards show superseded values
    history: bool = False
    # [NOTE] lines (a message that gives one person's fact to another), after the user line
    notes: Sequence[str] = ()
    # no memory reached the relevance floor: [RELEVANT MEMORIES] says so
    nothing_relevant: bool = False
    # the [PROFILE] line's parts (graph/recall/header.py), most worth keeping first
    profile: Sequence[str] = ()


class _Draft:
    """The block while it is pruned: what is still in, and what went, in order."""

    def __init__(self, parts: BlockParts) -> None:
        self.parts = parts
        self.cards = list(parts.cards)
        self.memories = list(parts.memories)
        self.episodes = list(parts.episodes)
        window = parts.window
        self.first = list(window.first) if window else []
        self.middle = list(window.middle) if window else []
        self.last = list(window.last) if window else []
        self.notes = list(parts.notes)
        self.nothing = parts.nothing_relevant
        self.profile = list(parts.profile)
        self.pruned: list[str] = []

    def text(self) -> str:
        parts = self.parts
        profile = [f"{PROFILE_HEADER} " + "; ".join(self.profile)] if self.profile else []
        sections = ["\n".join([parts.time_line, parts.user_line, *profile, *self.notes])]
        if self.cards:
            lines = [
                card_line(c, parts.labels, parts.relations_shown, parts.history) for c in self.cards
            ]
            sections.append("\n".join([CARDS_HEADER, *lines]))
        if self.memories:
            lines = [memory_line(r.memory) for r in self.memories]
            sections.append("\n".join([MEMORIES_HEADER, *lines]))
        elif self.nothing:
            sections.append(f"{MEMORIES_HEADER}\n{NOTHING_RELEVANT}")
        if self.episodes:
            lines = [memory_line(r.memory) for r in self.episodes]
            sections.append("\n".join([EPISODES_HEADER, *lines]))
        window = parts.window
        if window and (self.first or self.middle or self.last):
            lines = [f"{WINDOW_HEADER} session {window.session_id}, {window.turn_count} turns"]
            lines += [memory_line(t) for t in self.first]
            if self.middle:
                lines.append("- … earlier in this session: " + " ".join(self.middle))
            lines += [memory_line(t) for t in self.last]
            sections.append("\n".join(lines))
        return "\n\n".join(sections)

    def drop(self) -> bool:
        """Prunes the next thing in the documented order; False when nothing optional is left."""
        if self.middle:
            self.middle.pop(0)
            self.pruned.append("window-middle")
            return True
        ranked = [("memory", r) for r in self.memories] + [("episode", r) for r in self.episodes]
        if ranked:
            kind, lowest = min(ranked, key=lambda pair: pair[1].score)
            (self.memories if kind == "memory" else self.episodes).remove(lowest)
            self.pruned.append(f"{kind}:{lowest.memory.id}")
            return True
        if self.profile:
            self.profile.pop()
            self.pruned.append("profile")
            return True
        if self.cards:
            self.pruned.append(f"card:{self.cards.pop().key}")
            return True
        for turns in (self.first, self.last):
            if turns:
                self.pruned.append(f"turn:{turns.pop(0).id}")
                return True
        if self.nothing:
            self.nothing = False
            self.pruned.append("nothing-relevant")
            return True
        if self.notes:
            self.notes.pop()
            self.pruned.append("note")
            return True
        return False

    def block(self, text: str) -> Block:
        window = self.parts.window
        shown = None
        if window:
            shown = Window(window.session_id, window.turn_count, self.first, self.middle, self.last)
        return Block(
            text=text,
            tokens=count_tokens(text),
            cards=self.cards,
            memory_ids=[r.memory.id for r in self.memories],
            episode_ids=[r.memory.id for r in self.episodes],
            window=shown,
            pruned=self.pruned,
        )


def compose(parts: BlockParts, budget: int | None) -> Block:
    """Assembles the block from its parts; over `budget`, prunes in this order and says what:
    the middle of the current session (oldest sentence first), memories and episodes (lowest
    score first), the [PROFILE] line's parts (style first, then expertise, last first), entity
    cards (last first), the first turns, the last turns (oldest first), the "nothing relevant"
    line, then the notes (last first). The time and user lines are never pruned (callers reject
    budgets below `minimum_tokens`)."""
    draft = _Draft(parts)
    text = draft.text()
    while budget is not None and count_tokens(text) > budget and draft.drop():
        text = draft.text()
    return draft.block(text)
