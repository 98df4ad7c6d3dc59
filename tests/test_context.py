from __future__ import annotations

from graph.ids import MemoryId
from graph.recall.block import (
    CARDS_HEADER,
    EPISODES_HEADER,
    MEMORIES_HEADER,
    WINDOW_HEADER,
    BlockParts,
    Ranked,
    Window,
    compose,
    count_tokens,
    minimum_tokens,
)
from graph.records import EntityRecord, MemoryRecord, RelationRecord

TIME = "[NOW] 2026-10-16 00:00 UTC (Friday)"
USER = "[USER] alice — Alice; last session s08 8 days ago"


def _memory(i: int, text: str, kind: str = "turn") -> MemoryRecord:
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
        kind=kind,
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
CARD2 = EntityRecord("place:boston", "place", "Boston", (), 1, None, None)
LABELS = {"person:alice": "Alice", "person:mary": "Mary"}


def _parts() -> BlockParts:
    memories = [
        Ranked(_memory(i, f"memory number {i} " + "word " * 8), 1.0 - i / 10) for i in range(4)
    ]
    episodes = [Ranked(_memory(10, "Session s08: we talked about Boston. " * 2, "episode"), 0.65)]
    window = Window(
        "s15",
        9,
        first=[_memory(20, "Hi Ben, how are you?"), _memory(21, "Good, thanks!")],
        middle=["Alice: oldest middle sentence.", "Ben: newer middle sentence."],
        last=[_memory(22, "Shall we meet?"), _memory(23, "Yes, Sunday."), _memory(24, "Great.")],
    )
    return BlockParts(
        TIME,
        USER,
        cards=[CARD, CARD2],
        memories=memories,
        episodes=episodes,
        window=window,
        labels=LABELS,
    )


def test_count_tokens_counts_words_and_symbols() -> None:
    assert count_tokens("Hello, world!") == 4


def test_compose_has_every_section_in_order() -> None:
    block = compose(_parts(), budget=None)
    text = block.text
    assert text.startswith(f"{TIME}\n{USER}")
    positions = [
        text.index(h) for h in (CARDS_HEADER, MEMORIES_HEADER, EPISODES_HEADER, WINDOW_HEADER)
    ]
    assert positions == sorted(positions)
    assert "FAMILY_OF← Alice (sister)" in text
    assert "- … earlier in this session: Alice: oldest middle sentence." in text
    assert block.tokens == count_tokens(text) and block.pruned == []


def test_budget_prunes_in_the_documented_order_and_is_never_exceeded() -> None:
    full = compose(_parts(), budget=None)
    floor = minimum_tokens(TIME, USER)
    previous: list[str] = []
    for budget in range(full.tokens, floor - 1, -3):
        block = compose(_parts(), budget=budget)
        assert block.tokens <= budget
        assert block.text.startswith(f"{TIME}\n{USER}")
        # a smaller budget prunes what a larger one did, and then more
        assert block.pruned[: len(previous)] == previous
        previous = block.pruned
    kinds = [p.split(":")[0] for p in previous]
    order = ["window-middle", "memory", "episode", "card", "turn"]
    assert kinds[:2] == ["window-middle", "window-middle"]
    first_card = kinds.index("card")
    assert set(kinds[2:first_card]) == {"memory", "episode"}
    assert set(kinds[first_card : first_card + 2]) == {"card"}
    assert set(kinds[first_card + 2 :]) <= {"turn"}
    # memories and episodes go lowest score first: 0.65 (episode), 0.7 (memory 3), 0.8, 0.9, 1.0
    assert previous[2:4] == [f"episode:{10:016x}", f"memory:{3:016x}"]
    assert previous[4:7] == [f"memory:{i:016x}" for i in (2, 1, 0)]
    assert set(order) >= set(kinds)


def test_minimum_budget_keeps_only_the_time_and_user_lines() -> None:
    floor = minimum_tokens(TIME, USER)
    block = compose(_parts(), budget=floor)
    assert block.text == f"{TIME}\n{USER}"
    assert block.tokens == floor
