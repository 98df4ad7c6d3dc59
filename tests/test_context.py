from __future__ import annotations

from graph.context import CARDS_HEADER, MEMORIES_HEADER, count_tokens, render
from graph.ids import MemoryId
from graph.records import EntityRecord, MemoryRecord, RelationRecord


def _memory(i: int, text: str) -> MemoryRecord:
    return MemoryRecord(
        id=MemoryId(f"{i:016x}"),
        user_id="u",
        text=text,
        speaker="Alice",
        session_id=None,
        occurred_at=1_700_000_000.0,
        created_at=1_700_000_000.0,
        external_id=None,
        importance=1,
        pinned=False,
    )


CARD = EntityRecord(
    key="person:mary",
    type="person",
    label="Mary",
    aliases=(),
    mention_count=3,
    first_seen=1_700_000_000.0,
    last_seen=1_700_000_000.0,
    relations=(RelationRecord("FAMILY_OF", "in", "person:alice", 2, role="sister"),),
)
LABELS = {"person:alice": "Alice", "person:mary": "Mary"}


def test_count_tokens_counts_words_and_symbols() -> None:
    assert count_tokens("Hello, world!") == 4


def test_render_has_both_sections() -> None:
    block = render([CARD], [_memory(1, "My sister Mary lives in Boston.")], LABELS, None)
    assert block.text.startswith(CARDS_HEADER)
    assert MEMORIES_HEADER in block.text
    assert "FAMILY_OF← Alice (sister)" in block.text
    assert block.tokens == count_tokens(block.text)


def test_budget_drops_lowest_ranked_memories_first() -> None:
    memories = [_memory(i, f"memory number {i} " + "word " * 10) for i in range(5)]
    full = render([CARD], memories, LABELS, None)
    budget = full.tokens - 5
    block = render([CARD], memories, LABELS, budget)
    assert block.tokens <= budget
    assert block.memories == [0, 1, 2, 3]
    assert block.cards == [CARD]


def test_budget_drops_cards_after_memories_and_is_never_exceeded() -> None:
    memories = [_memory(i, "word " * 20) for i in range(3)]
    for budget in range(0, 120, 7):
        block = render([CARD], memories, LABELS, budget)
        assert block.tokens <= budget
    tiny = render([CARD], memories, LABELS, 3)
    assert tiny.text == "" and tiny.memories == [] and tiny.cards == []
