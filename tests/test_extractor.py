"""Extraction on hand-written sentences with the real spaCy model: keys, types and relations."""

from __future__ import annotations

import pytest

from extraction.extractor import RELATION_CUES, Extractor
from extraction.model import Relation
from graph.vocabulary import ENTITY_LABELS
from graph.vocabulary import RELATION_TYPES as GRAPH_RELATION_TYPES

SPEAKER = "Alice Smith"
ME = "person:alice_smith"

CASES: list[tuple[str, set[str], set[tuple[str, str, str, str | None]]]] = [
    (
        "My sister Mary lives in Boston.",
        {ME, "person:mary", "place:boston"},
        {
            (ME, "FAMILY_OF", "person:mary", "sister"),
            ("person:mary", "LIVES_IN", "place:boston", None),
        },
    ),
    (
        "I work at Acme Corp as an engineer.",
        {ME, "org:acme_corp", "topic:engineer"},
        {(ME, "WORKS_AT", "org:acme_corp", None)},
    ),
    (
        "My friend Tom visited Paris last summer.",
        {ME, "person:tom", "place:paris"},
        {(ME, "FRIEND_OF", "person:tom", "friend"), ("person:tom", "VISITED", "place:paris", None)},
    ),
    (
        "Mary, my sister, works for Google.",
        {ME, "person:mary", "org:google"},
        {
            (ME, "FAMILY_OF", "person:mary", "sister"),
            ("person:mary", "WORKS_AT", "org:google", None),
        },
    ),
    (
        "I joined the Boston Chess Club last year.",
        {ME, "org:boston_chess_club"},
        {(ME, "MEMBER_OF", "org:boston_chess_club", None)},
    ),
    (
        "John Doe moved to Seattle in 2020.",
        {ME, "person:john_doe", "place:seattle"},
        {("person:john_doe", "LIVES_IN", "place:seattle", None)},
    ),
    (
        "I love pottery and hiking.",
        {ME, "topic:pottery", "topic:hiking"},
        {(ME, "LIKES", "topic:pottery", None), (ME, "LIKES", "topic:hiking", None)},
    ),
    (
        "I'm working on Project Apollo.",
        {ME, "project:project_apollo"},
        {(ME, "WORKS_ON", "project:project_apollo", None)},
    ),
    (
        "Tom is my best friend.",
        {ME, "person:tom"},
        {(ME, "FRIEND_OF", "person:tom", "friend")},
    ),
]


@pytest.mark.parametrize(("text", "keys", "relations"), CASES, ids=[c[0] for c in CASES])
def test_sentence(
    extractor: Extractor,
    text: str,
    keys: set[str],
    relations: set[tuple[str, str, str, str | None]],
) -> None:
    result = extractor.extract(text, SPEAKER)
    assert set(result.keys()) == keys
    typed = {(r.src, r.type, r.dst, r.role) for r in result.relations if r.type != "RELATED_TO"}
    assert typed == relations


def test_speaker_is_a_person_mention(extractor: Extractor) -> None:
    result = extractor.extract("Sounds good to me!", "Ben")
    assert [(m.key, m.type, m.label, m.as_speaker) for m in result.mentions] == [
        ("person:ben", "person", "Ben", True)
    ]


def test_first_person_without_speaker_links_nothing(extractor: Extractor) -> None:
    result = extractor.extract("I work at Acme Corp.")
    assert result.keys() == ["org:acme_corp"]
    assert result.relations == []


def test_co_occurrence_falls_back_to_related_to(extractor: Extractor) -> None:
    result = extractor.extract("Sarah and Tom met in Chicago.", None)
    assert {"person:sarah", "person:tom", "place:chicago"} <= set(result.keys())
    assert Relation("person:sarah", "RELATED_TO", "person:tom") in result.relations
    assert all(r.type == "RELATED_TO" for r in result.relations)


def test_batches_keep_order(extractor: Extractor) -> None:
    results = extractor.extract_many([("I live in Denver.", "Ben"), ("I live in Oslo.", "Ann")])
    assert [r.relations[0] for r in results] == [
        Relation("person:ben", "LIVES_IN", "place:denver"),
        Relation("person:ann", "LIVES_IN", "place:oslo"),
    ]


def test_extractor_vocabulary_is_the_graph_vocabulary() -> None:
    import inspect
    import re

    from extraction import extractor as module
    from extraction.keys import ENTITY_TYPES
    from extraction.model import RELATION_TYPES

    assert GRAPH_RELATION_TYPES is RELATION_TYPES
    emitted = set(re.findall(r'(?:link|relate)\([^)]*?"([A-Z_]+)"', inspect.getsource(module)))
    emitted |= set(re.findall(r'rel = "([A-Z_]+)" if', inspect.getsource(module)))
    emitted |= set(
        re.findall(
            r'"([A-Z_]+)" if lemma in FAMILY_ROLES else "([A-Z_]+)"', inspect.getsource(module)
        )[0]
    )
    assert {
        "WORKS_AT",
        "LIVES_IN",
        "FAMILY_OF",
        "FRIEND_OF",
        "MEMBER_OF",
        "WORKS_ON",
        "LIKES",
        "VISITED",
        "RELATED_TO",
    } <= emitted
    assert emitted <= set(RELATION_TYPES)
    assert {t for types in RELATION_CUES.values() for t in types} <= set(RELATION_TYPES)
    assert set(module.NER_TYPES.values()) | {"project"} <= set(ENTITY_TYPES) == set(ENTITY_LABELS)
