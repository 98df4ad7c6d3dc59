"""The service's in-process copy of memory facts (graph/memory_facts.py) against the graph it
copies: after writes in sessions, a topic that recurs (mentions added to earlier memories),
merges made by hand and during ingest, pins, forgets and more writes, the copy answers exactly
what a fresh read of the graph does: every memory's facts, its session neighbours, each entity's
newest memories. Then the pure bookkeeping of the copy on its own."""

from __future__ import annotations

from typing import Any

from graph.batch import BatchRows, MemoryRow, MentionRow, NextRow
from graph.memory_facts import UserFacts
from graph.records import MemoryFacts
from graph.service import MemoryService
from tests.conftest import Api, held_facts
from tests.documents import REMEMBER_MANY

USER = "facts-user"
MERGE = """mutation($user: ID!, $sources: [String!]!, $into: String!) {
  mergeEntities(userId: $user, sources: $sources, into: $into) { key } }"""
PIN = """mutation($user: ID!, $id: ID!, $p: Boolean!) {
  pin(userId: $user, id: $id, pinned: $p) { id } }"""
FORGET = "mutation($user: ID!, $id: ID!) { forget(userId: $user, id: $id) }"


def _say(api: Api, session: str, *turns: tuple[str, str], user: str = USER) -> list[str]:
    inputs = [
        {"userId": user, "speaker": speaker, "text": text, "sessionId": session}
        for speaker, text in turns
    ]
    return [m["id"] for m in api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]]


def _ms(value: float | None) -> float | None:
    """To the millisecond, after the 15 significant digits FalkorDB returns (rounding the exact
    value straight to milliseconds can fall on the other side of a half)."""
    return None if value is None else round(float(f"{value:.15g}"), 3)


def _plain(facts: MemoryFacts) -> tuple[Any, ...]:
    """A memory's facts with its keys as sets (the graph collects them in no set order) and its
    times to the millisecond (FalkorDB returns doubles to about 15 significant digits)."""
    return (
        _ms(facts.occurred_at),
        _ms(facts.event_start),
        _ms(facts.event_end),
        facts.kind,
        facts.pinned,
        facts.external_id,
        frozenset(facts.entity_keys),
        frozenset(facts.speaker_keys),
    )


def _state(held: UserFacts, ids: list[str], keys: set[str]) -> dict[str, Any]:
    return {
        "facts": {i: _plain(f) for i, f in held.facts(ids).items()},
        "links": held.neighbours(ids)[0],
        "newest": held.newest(sorted(keys), 1000),
        "size": len(held),
    }


def _agrees_with_graph(service: MemoryService, user: str = USER) -> dict[str, Any]:
    """Asserts the service's copy equals a fresh read of the graph; returns that read."""
    rows = service.store.user_facts(user)
    fresh = UserFacts.load(rows)
    ids: list[str] = [r.facts.id for r in rows]
    keys = {k for r in rows for k in r.facts.entity_keys}
    held = service.caches._held_facts(user)
    assert held is not None
    expected = _state(fresh, ids, keys)
    assert _state(held, ids, keys) == expected
    return expected


def test_the_copy_follows_writes_merges_pins_and_forgets(api: Api) -> None:
    service = api.runtime.service
    first = _say(
        api,
        "s1",
        ("Dana", "My cousin Jo moved to Lyon last spring."),
        ("Sam", "Does Jo still play the oboe?"),
        ("Dana", "Yes, Jo plays in an orchestra there."),
    )
    copy = held_facts(service, USER)  # held from here on: every change below is patched in
    _say(
        api,
        "s2",
        ("Dana", "I started pottery classes with Joanna Reyes."),
        ("Sam", "Pottery sounds fun. Where are the classes?"),
        ("Dana", "At the community centre in Lyon, and pottery is relaxing."),
    )
    state = _agrees_with_graph(service)
    # a session's turns are chained in order, and not across sessions
    assert state["links"][first[1]] == (first[0], first[2])
    assert state["links"][first[2]][1] is None
    api.ok(MERGE, user=USER, sources=["person:jo"], into="person:joanna_reyes")
    state = _agrees_with_graph(service)
    assert "person:jo" not in state["newest"]
    assert first[0] in state["newest"]["person:joanna_reyes"]
    api.ok(PIN, user=USER, id=first[2], p=True)
    assert service.caches.memory_facts(USER, [first[2]])[first[2]].pinned  # type: ignore[index]
    api.ok(FORGET, user=USER, id=first[1])
    state = _agrees_with_graph(service)
    assert state["links"][first[0]] == (None, first[2])  # the gap closed
    # the orchestra, said once in the first batch, recurs: that earlier memory now mentions it
    _say(api, "s1", ("Sam", "Tell Jo I said hello. Which orchestra is it?"))
    state = _agrees_with_graph(service)
    orchestra = [k for k in state["newest"] if "orchestra" in k]
    assert orchestra and first[2] in state["newest"][orchestra[0]]
    assert service.caches._held_facts(USER) is copy  # all patched in place, never read again


def test_a_user_ingested_through_the_service_is_held_from_its_first_write(api: Api) -> None:
    """No read of the graph: a new user's copy starts empty and its writes fill it, batch after
    batch, without the caches being reloaded in between."""
    service, user = api.runtime.service, "facts-new-user"
    reloads = service.caches.reconciled.reloads
    _say(api, "n1", ("Dana", "I bought a kayak in May."), user=user)
    copy = service.caches._held_facts(user)
    assert copy is not None and len(copy) == 1
    _say(api, "n1", ("Dana", "The kayak is green."), ("Sam", "Nice kayak!"), user=user)
    assert service.caches._held_facts(user) is copy and len(copy) == 3
    # the first call's look at the empty user
    assert service.caches.reconciled.reloads == reloads + 1
    _agrees_with_graph(service, user)


def _memory(memory_id: str, occurred_at: float) -> MemoryRow:
    return MemoryRow(
        id=memory_id,
        text="",
        caption="",
        speaker=None,
        session_id=None,
        occurred_at=occurred_at,
        event_start=None,
        event_end=None,
        created_at=occurred_at,
        external_id=None,
        content_hash="",
        importance=1,
        pinned=False,
        category=None,
        fact_type=None,
        kind="turn",
        vector_id=0,
        embedding="",
        embedding_model="",
        topic_candidates=None,
        repeat_of=None,
    )


def _rows(
    memories: list[MemoryRow], mentions: list[MentionRow], links: tuple[NextRow, ...] = ()
) -> BatchRows:
    return BatchRows(
        memories=tuple(memories),
        entities=(),
        mentions=tuple(mentions),
        relations=(),
        next=links,
        sessions=(),
        in_session=(),
        repeated=(),
        single_valued_sources=(),
    )


def test_the_newest_memories_of_an_entity_come_newest_first_ties_by_write_order() -> None:
    held = UserFacts()
    memories = [
        _memory("a", 5.0),
        _memory("b", 1.0),  # said earlier, written later
        _memory("c", 5.0),  # same time as a, written after it
    ]
    mentions = [MentionRow(m.id, "topic:oboe", False) for m in memories]
    held.wrote(_rows(memories, mentions))
    assert held.newest(["topic:oboe"], 2) == {"topic:oboe": ["c", "a"]}
    assert held.newest(["topic:oboe", "topic:none"], 5) == {"topic:oboe": ["c", "a", "b"]}


def test_a_merge_keeps_one_mention_and_the_speaker_of_a_new_one() -> None:
    held = UserFacts()
    held.wrote(
        _rows(
            [_memory("a", 1.0), _memory("b", 2.0)],
            [
                MentionRow("a", "person:jo", True),
                MentionRow("b", "person:jo", False),
                MentionRow("b", "person:joanna", False),
            ],
            (NextRow("a", "b"),),
        )
    )
    held.merged("person:jo", "person:joanna")
    facts = held.facts(["a", "b"])
    assert facts["a"].entity_keys == ("person:joanna",)  # type: ignore[index]
    assert facts["a"].speaker_keys == ("person:joanna",)  # type: ignore[index]
    assert facts["b"].entity_keys == ("person:joanna",)  # type: ignore[index]
    assert held.newest(["person:joanna", "person:jo"], 5) == {"person:joanna": ["b", "a"]}
    held.forgot("a")
    assert held.neighbours(["b"])[0] == {"b": (None, None)}
    assert held.newest(["person:joanna"], 5) == {"person:joanna": ["b"]}
