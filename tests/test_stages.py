"""Each retrieval stage alone (graph/recall/stages.py), on small inline inputs, and the pipeline's
reads on a recording executor: which statements a context call sends and with what."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from extraction.model import Extraction, KnownEntity, Mention
from extraction.resolver import Resolver
from graph.ids import MemoryId
from graph.lexical import LexicalScores
from graph.limits import Limits
from graph.recall.config import PRESETS, Weights
from graph.recall.retrieval import ContextRequest, retrieve
from graph.recall.stages import (
    Evidence,
    Scored,
    Scorer,
    Seeds,
    adjacency,
    card_keys,
    cue_lifts,
    cued_evidence,
    entity_sources,
    expand,
    find_seeds,
    neighbour_bonus,
    rank,
    select,
    spread,
)
from graph.records import EntityRecord, MemoryFacts, RelationRecord
from graph.service import MemoryService
from graph.store import Store
from graph.vectors import VectorStore
from tests.fakes import FakeEmbedder, FakeExtractor, RecordingExecutor


def _facts(n: int, when: float = 100.0, kind: str = "turn", **extra: Any) -> MemoryFacts:
    return MemoryFacts(
        id=MemoryId(f"{n:016x}"),
        occurred_at=when,
        kind=kind,
        pinned=extra.get("pinned", False),
        external_id=extra.get("external_id"),
        entity_keys=tuple(extra.get("keys", ())),
        session_id=extra.get("session"),
    )


def _card(key: str, *relations: RelationRecord) -> EntityRecord:
    return EntityRecord(key, key.split(":")[0], key, (), 1, None, None, tuple(relations))


def _scored(n: int, score: float, **extra: Any) -> Scored[MemoryFacts]:
    return Scored(_facts(n, **extra), score, score, 0.0, 0.0, ())


# -- seeds --------------------------------------------------------------------------------------


def test_seeds_are_resolved_mentions_then_known_names_in_the_message() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:mary_smith", "person", "Mary Smith"),
            KnownEntity("place:boston", "place", "Boston"),
            KnownEntity("org:acme", "org", "Acme", aliases=("acme corp",)),
        ]
    )
    extraction = Extraction([Mention("person:mary", "person", "Mary")], [], frozenset({"LIVES_IN"}))
    seeds = find_seeds(extraction, resolver, "did mary move from boston to acme corp?")
    # "Mary" resolves to the only Mary; lower-case "boston" and the alias "acme corp" are n-grams
    assert seeds.keys == ["person:mary_smith", "org:acme", "place:boston"]
    assert seeds.cues == frozenset({"LIVES_IN"})
    # no subject among the mentions: the message is about every person it names
    assert seeds.people == ["person:mary_smith"]


def test_the_people_a_message_is_about_are_its_subjects() -> None:
    resolver = Resolver(
        [KnownEntity("person:tim", "person", "Tim"), KnownEntity("person:john", "person", "John")]
    )
    mentions = [Mention("person:tim", "person", "Tim"), Mention("person:john", "person", "John")]
    asked = Extraction(mentions, subjects=("person:tim",))
    assert find_seeds(asked, resolver, "what did Tim give John?").people == ["person:tim"]
    both = Extraction(mentions)
    assert find_seeds(both, resolver, "Tim and John's player?").people == [
        "person:tim",
        "person:john",
    ]
    # "what did you tell Tim?": the listener's turns answer it; no fallback to the persons named
    listener = Extraction(mentions, about_listener=True)
    assert find_seeds(listener, resolver, "what did you tell Tim and John?").people == []


# -- expansion ----------------------------------------------------------------------------------


def test_expansion_takes_cued_then_strong_then_frequent_relations_per_seed() -> None:
    cards = {
        "person:ann": _card(
            "person:ann",
            RelationRecord("LIKES", "out", "topic:tea", count=9),
            RelationRecord("WORKS_AT", "out", "org:acme", count=1),
            RelationRecord("FRIEND_OF", "out", "person:bob", count=2, strong=1),
            RelationRecord("FAMILY_OF", "in", "person:cy", count=5),
        ),
        "person:bob": _card(
            "person:bob",
            RelationRecord("FRIEND_OF", "in", "person:ann", count=2),  # a seed: skipped
            RelationRecord("LIVES_IN", "out", "place:oslo", count=1),
        ),
    }
    seeds = Seeds(["person:ann", "person:bob"], frozenset({"WORKS_AT"}))
    expanded = expand(seeds, cards, per_seed=2)
    # ann: the cued WORKS_AT first; bob (strong) is a seed and skipped; then tea (9) before cy (5)
    assert expanded == {
        "org:acme": "WORKS_AT of person:ann",
        "topic:tea": "LIKES of person:ann",
        "place:oslo": "LIVES_IN of person:bob",
    }


def test_expansion_takes_each_target_once() -> None:
    shared = RelationRecord("LIVES_IN", "out", "place:oslo", count=3)
    cards = {"person:a": _card("person:a", shared), "person:b": _card("person:b", shared)}
    expanded = expand(Seeds(["person:a", "person:b"], frozenset()), cards, per_seed=1)
    assert expanded == {"place:oslo": "LIVES_IN of person:a"}


# -- cued evidence and hubs ---------------------------------------------------------------------


def _evidence(
    rel_type: str, target: str, strong: int = 0, count: int = 1, ids: tuple[str, ...] = ()
) -> Evidence:
    return Evidence(
        key="person:mary",
        type=rel_type,
        target=target,
        src="person:mary",
        count=count,
        strong=strong,
        valid_to=None,
        memory_ids=ids,
    )


def test_cued_evidence_takes_strongest_relations_and_newest_ids_up_to_the_cap() -> None:
    rows = [
        _evidence("WORKS_AT", "org:weak", strong=0, count=9, ids=("w1",)),
        _evidence("WORKS_AT", "org:top", strong=1, count=2, ids=("a", "b")),
        _evidence("LIVES_IN", "place:x", strong=0, count=3, ids=("c", "d")),
    ]
    # strength first (org:top), then count (org:weak's 9 before place:x's 3); newest ids first
    got = cued_evidence(rows, cap=3)
    assert list(got) == ["b", "a", "w1"]
    assert got["b"] == got["a"] == "relation:WORKS_AT:org:top"
    assert got["w1"] == "relation:WORKS_AT:org:weak"
    assert list(cued_evidence(rows, cap=10)) == ["b", "a", "w1", "d", "c"]
    assert cued_evidence(rows, cap=0) == {}


def test_hub_entities_do_not_pull_their_memories() -> None:
    counts = {"person:user": 5_000, "person:mary": 12, "place:oslo": 2_000}
    keys = ["person:user", "person:mary", "place:oslo", "topic:new"]
    assert entity_sources(keys, counts, hub_mentions=2_000) == [
        "person:mary",
        "place:oslo",
        "topic:new",
    ]


# -- scoring ------------------------------------------------------------------------------------


def _scorer(**overrides: Any) -> Scorer:
    values: dict[str, Any] = {
        "weights": Weights(1.0, 0.0, 1.0, 14.0, lexical=0.5),
        "as_of": 100.0,
        "seeds": ["person:mary"],
        "expanded": {"place:oslo": "LIVES_IN of person:mary"},
        "cued": {},
        "lifts": {},
        "counts": {"person:mary": 10, "place:oslo": 1},
        "max_count": 10,
        "lexical": LexicalScores([f"{1:016x}"], {f"{1:016x}": 0}, np.array([2.0])),
        "vector_hits": frozenset({f"{1:016x}"}),
        "lexical_hits": frozenset(),
    }
    values.update(overrides)
    return Scorer(**values)


def test_scorer_blends_lexical_and_explains_why() -> None:
    memory = _facts(1, keys=("place:oslo", "person:mary"), pinned=True)
    scored = _scorer().score(memory, cosine=0.2, extra=("neighbour",))
    assert scored.similarity == pytest.approx(0.5 * 0.2 + 0.5 * 1.0)
    assert scored.frequency == pytest.approx(1.0)  # mary, the most-mentioned entity
    assert scored.score == pytest.approx((scored.similarity + scored.frequency) / 2)
    assert scored.via == (
        "entity:person:mary",
        "expanded:place:oslo (LIVES_IN of person:mary)",
        "similarity",
        "pinned",
        "neighbour",
    )


def test_cued_evidence_is_a_structural_match() -> None:
    memory = _facts(1)
    plain = _scorer().score(memory, cosine=0.4)
    cued = _scorer(cued={memory.id: "relation:LIVES_IN:place:oslo"}, lifts={memory.id: 0.5}).score(
        memory, cosine=0.4
    )
    assert cued.similarity == pytest.approx(plain.similarity + (1 - plain.similarity) / 2)
    assert "relation:LIVES_IN:place:oslo" in cued.via


def test_what_the_messages_person_said_is_lifted() -> None:
    def turn(n: int, speaker: str) -> MemoryFacts:
        keys = ("person:mary", speaker)
        return MemoryFacts(
            MemoryId(f"{n:016x}"),
            100.0,
            "turn",
            False,
            None,
            keys,
            None,
            None,
            speaker_keys=(speaker,),
        )

    said, heard = turn(3, "person:mary"), turn(2, "person:ann")
    scorer = _scorer(speaker_lift=0.4, people=["person:mary"])
    own, other = scorer.score(said, cosine=0.5), scorer.score(heard, cosine=0.5)
    plain = _scorer().score(said, cosine=0.5).similarity
    assert own.similarity == pytest.approx(plain + (1 - plain) * 0.4)
    assert other.similarity == pytest.approx(plain)
    assert "speaker:person:mary" in own.via and not any(v.startswith("speaker:") for v in other.via)
    # under a learnt ranker nothing is lifted: the trees weigh who said it, and `via` names them
    learnt = _scorer(speaker_learnt=True, people=["person:mary"])
    own, other = learnt.score(said, cosine=0.5), learnt.score(heard, cosine=0.5)
    assert own.similarity == pytest.approx(plain) == other.similarity
    assert "speaker:person:mary" in own.via and not any(v.startswith("speaker:") for v in other.via)
    assert learnt.features(own).said_by_subject == 1.0 > learnt.features(other).said_by_subject


def test_a_thing_of_the_asked_kind_is_a_feature() -> None:
    """A "where…?" asks for a place: a memory naming a place other than the message's own seeds
    gets `asked_type`, one naming only a seed place or no place does not."""
    scorer = _scorer(asked=frozenset({"place"}), seeds=["person:mary", "place:oslo"])
    rome = scorer.score(_facts(1, keys=("person:mary", "place:rome")), cosine=0.3)
    oslo = scorer.score(_facts(2, keys=("person:mary", "place:oslo")), cosine=0.3)
    none = scorer.score(_facts(3, keys=("person:mary", "topic:chess")), cosine=0.3)
    assert [scorer.features(s).asked_type for s in (rome, oslo, none)] == [1.0, 0.0, 0.0]
    unasked = _scorer().score(_facts(1, keys=("person:mary", "place:rome")), cosine=0.3)
    assert _scorer().features(unasked).asked_type == 0.0


def test_who_said_it_is_not_the_person_asked_for() -> None:
    """A memory's entity keys hold its speaker: "who…?" must not mark every turn of anyone."""
    scorer = _scorer(asked=frozenset({"person"}), seeds=["place:oslo"])

    def said_by(n: int, speaker: str, *keys: str) -> MemoryFacts:
        return replace(_facts(n, keys=(speaker, *keys)), speaker_keys=(speaker,))

    alone = scorer.score(said_by(1, "person:ann", "place:oslo"), cosine=0.3)
    naming = scorer.score(said_by(2, "person:ann", "place:oslo", "person:bob"), cosine=0.3)
    assert [scorer.features(s).asked_type for s in (alone, naming)] == [0.0, 1.0]


def test_a_relation_linking_two_message_entities_lifts_more() -> None:
    rows = [
        _evidence("LIVES_IN", "place:oslo", ids=("a", "b")),
        _evidence("VISITED", "place:rome", ids=("b", "c", "x")),
    ]
    cued = {"a": "", "b": "", "c": ""}  # x was cut by the cap
    lifts = cue_lifts(rows, cued, ["person:mary", "place:oslo"], paired=0.5, single=0.1)
    assert lifts == {"a": 0.5, "b": 0.5, "c": 0.1}


# -- neighbours, ranking, selection -------------------------------------------------------------


def test_neighbour_bonus_is_a_share_of_the_best_scored_neighbour() -> None:
    a, b, c = (f"{n:016x}" for n in (1, 2, 3))
    adjacent = adjacency({b: (a, c), a: (None, b)})
    assert adjacent == {a: {b}, b: {a, c}, c: {b}}
    scored = {a: _scored(1, 0.9), b: _scored(2, 0.2), c: _scored(3, 0.5)}
    out = neighbour_bonus(scored, adjacent, share=0.5)
    assert out[b].score == pytest.approx(0.2 + 0.45) and out[b].neighbour == pytest.approx(0.45)
    assert out[a].score == pytest.approx(0.9 + 0.1)  # its only neighbour is b (0.2)
    assert out[c].neighbour == pytest.approx(0.1)
    assert neighbour_bonus(scored, {}, share=0.5) == scored


def test_rank_breaks_ties_toward_the_newer_memory() -> None:
    older, newer, best = _scored(1, 0.5, when=1.0), _scored(2, 0.5, when=2.0), _scored(3, 0.7)
    assert [s.memory.id for s in rank([older, newer, best])] == [
        best.memory.id,
        newer.memory.id,
        older.memory.id,
    ]


def test_selection_leaves_out_the_window_and_the_current_sessions_episode() -> None:
    ordered = [
        _scored(1, 0.9, kind="episode", external_id="episode:s2"),  # the current session's
        _scored(2, 0.8),  # already on screen in the window
        _scored(3, 0.7, kind="episode", external_id="episode:s1"),
        _scored(4, 0.6),
        _scored(5, 0.5),
        _scored(6, 0.4, kind="episode", external_id="episode:s0"),
    ]
    top, episodes = select(ordered, {f"{2:016x}"}, "episode:s2", max_memories=1, max_episodes=5)
    assert [s.memory.id for s in top] == [f"{4:016x}"]
    assert [s.memory.id for s in episodes] == [f"{3:016x}", f"{6:016x}"]
    _, without_session = select(ordered, set(), None, 5, 1)
    assert [s.memory.external_id for s in without_session] == ["episode:s2"]


def test_cards_are_seeds_then_expanded_up_to_the_cap() -> None:
    seeds = Seeds(["person:a", "person:b"], frozenset())
    assert card_keys(seeds, {"place:x": "", "org:y": ""}, 3) == ["person:a", "person:b", "place:x"]


# -- the pipeline's reads -----------------------------------------------------------------------


def test_a_context_call_reads_what_the_stages_ask_for(tmp_path: Path) -> None:
    """A hub seed (the user) is resolved and carded but its memories are not read; the cued
    relation's evidence is read; the statements a call sends are the documented ones."""
    ids = {name: f"{n:016x}" for n, name in enumerate(["ann1", "bob1", "bob2"], start=1)}
    catalog = [
        {"key": "person:ann", "type": "person", "label": "Ann", "aliases": [], "mention_count": 9},
        {"key": "person:bob", "type": "person", "label": "Bob", "aliases": [], "mention_count": 2},
        {"key": "org:acme", "type": "org", "label": "Acme", "aliases": [], "mention_count": 1},
    ]
    relations = [
        {
            "key": "person:bob",
            "type": "WORKS_AT",
            "direction": "out",
            "target": "org:acme",
            "count": 1,
            "strong": 0,
            "role": None,
            "first_seen": 1.0,
            "last_seen": 1.0,
            "evidence": [ids["bob2"]],
        },
    ]

    def cards(params: dict[str, Any]) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for entity in (e for e in catalog if e["key"] in params["keys"]):
            head = {
                "key": entity["key"],
                "entity_type": entity["type"],
                "label": entity["label"],
                "aliases": entity["aliases"],
                "mention_count": entity["mention_count"],
                "entity_first_seen": 1.0,
                "entity_last_seen": 1.0,
            }
            own = [{**head, **r} for r in relations if r["key"] == entity["key"]]
            rows += own or [{**head, "type": None}]
        return rows

    # the user's memories as the graph holds them: Ann's, Bob's, and the cued relation's evidence
    # (reachable only as evidence: it mentions no entity here)
    mentioned = {"ann1": ["person:ann"], "bob1": ["person:bob"], "bob2": []}
    facts = [
        {
            "id": ids[name],
            "occurred_at": 1.0,
            "kind": "turn",
            "pinned": False,
            "external_id": None,
            "entity_keys": keys,
            "speaker_keys": [],
            "before": None,
        }
        for name, keys in mentioned.items()
    ]

    by_id = {row["id"]: row for row in facts}
    released = threading.Event()  # the background read of the facts waits for the first call
    executor = RecordingExecutor(
        {
            "entity_catalog": lambda _: catalog,
            "entity_cards": cards,
            "entity_memories": lambda p: [
                {"key": k, "ids": [ids["bob1"]]} for k in p["keys"] if k == "person:bob"
            ],
            "memory_facts": lambda p: [by_id[i] for i in p["ids"] if i in by_id],
            "user_facts": lambda _: facts if released.wait(10) else [],
            "user_relations": lambda _: [
                {"source": r["key"], "target": r["target"], **r} for r in relations
            ],
            "get_memories": lambda p: [
                {
                    "id": i,
                    "user_id": "u",
                    "text": "Bob works at Acme.",
                    "speaker": "Ann",
                    "occurred_at": 1.0,
                    "created_at": 1.0,
                    "importance": 1,
                    "pinned": False,
                }
                for i in p["ids"]
            ],
            "list_memory_texts": lambda _: [],
        }
    )
    embedder = FakeEmbedder()
    message = "Where does Bob work, Ann?"
    extractor = FakeExtractor(
        {message: Extraction([Mention("person:bob", "person", "Bob")], [], frozenset({"WORKS_AT"}))}
    )
    service = MemoryService(
        Store(executor),
        VectorStore(tmp_path, embedder.dimensions, embedder.model_id),
        extractor,
        embedder,
        Limits(),
        flush_seconds=60,
    )
    try:
        config = PRESETS["default"]
        hub = type(config)(config.weights, hub_mentions=5)  # Ann (9 mentions) is a hub here
        request = ContextRequest("u", message, as_of=10.0, config=hub)
        first = retrieve(service, request)
        released.set()
        service.drain()
        first_reads = executor.names("MainThread")
        first_cards = executor.params("entity_cards")
        loaded = executor.names("recollect-bg")
        executor.calls.clear()
        executor.threads.clear()
        second = retrieve(service, request)
        service.drain()
    finally:
        service.close()
    # Bob's memory and the cued evidence are candidates; the hub's memories are not
    for result in (first, second):
        assert {s.memory.id for s in result.memories} == {ids["bob1"], ids["bob2"]}
    assert first_cards[0]["types"] == ["WORKS_AT"]
    # the seeds' cards carry the cued relations' evidence: no statement of its own
    assert first_cards[0]["evidence"] >= 20
    # one statement per read (on Bolt, one round trip each)
    assert first_reads == [
        # the user's first call in this process: the caches are brought up to the graph's change
        # sequence (graph/follow.py): where it stands, its log, the index checked against the ids
        "change_mark",
        "change_log",
        "list_memory_vectors",
        "speaker_turns",
        # the header: the user's settings with the stored profile's head (graph/recall/header.py)
        "profile_header",
        # the ids of the two newest sessions (none here), held until the change mark moves
        "recent_sessions",
        "entity_catalog",
        "role_catalog",
        "topic_candidates",
        "entity_cards",
        "entity_memories",
        "list_memory_texts",
        "memory_facts",
        "neighbour_facts",
        "get_memories",
        "entity_cards",
    ]
    # meanwhile the relations and the memory facts are read for the process to hold
    # (graph/relation_facts.py, graph/memory_facts.py), each checked against the change mark
    # around the read; the access statistics are written
    assert loaded == [
        *("change_mark", "user_relations", "change_mark"),
        *("change_mark", "user_facts", "change_mark"),
        "touch_memories",
    ]
    # held from then on: candidates, entities' memories and neighbours cost no statement, and the
    # cards are read bare (their relations are held)
    assert executor.names("MainThread") == [
        "change_mark",
        "profile_header",
        "entity_cards",
        "get_memories",
        "entity_cards",
    ]
    bare = executor.params("entity_cards")
    assert all(set(p["bare"]) == set(p["keys"]) for p in bare)


def test_spread_takes_other_sessions_before_a_third_turn_of_one() -> None:
    # s1 holds the three best; s2 and s3 a little below: a spread of 0.2 takes one of each first
    ordered = [
        _scored(1, 0.90, session="s1"),
        _scored(2, 0.89, session="s1"),
        _scored(3, 0.88, session="s1"),
        _scored(4, 0.80, session="s2"),
        _scored(5, 0.70, session="s3"),
    ]
    ids = [int(s.memory.id, 16) for s in spread(ordered, 3, 0.2)]
    assert ids == [1, 4, 2]  # 0.89 × 0.8 = 0.71 still beats s3's 0.70
    assert [int(s.memory.id, 16) for s in spread(ordered, 3, 0.0)] == [1, 2, 3]
    # a far better second turn of one session still comes before a weak other session
    strong = [_scored(1, 0.9, session="a"), _scored(2, 0.9, session="a"), _scored(3, 0.3)]
    assert [int(s.memory.id, 16) for s in spread(strong, 2, 0.2)] == [1, 2]
