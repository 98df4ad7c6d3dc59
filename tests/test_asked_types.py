"""What kind of thing a question asks for (extraction/asked.py), on the real spaCy parse: the
learnt ranker's `asked_type` feature reads it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from extraction.extractor import Extractor
from graph.recall.config import PRESETS
from graph.recall.request import ContextRequest
from graph.recall.retrieval import rank_candidates
from tests.conftest import Api
from tests.documents import REMEMBER_MANY


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Where has Caroline camped?", "place"),
        ("Which city did they visit last summer?", "place"),
        ("Who did Tim meet in Paris?", "person"),
        ("What books has Melanie read?", "work"),
        ("What kind of books does Joanna like?", "work"),
        ("What is the name of Calvin's band?", "org"),
        ("How many pets does John have?", "pet"),
        ("I went to Paris last year. Where should I go next?", "place"),
    ],
)
def test_a_question_asks_for_a_kind(extractor: Extractor, question: str, kind: str) -> None:
    assert extractor.extract(question, "User").asked == {kind}


@pytest.mark.parametrize(
    "text",
    [
        "What did Jon do after losing his job?",  # asks, but for no kind of thing
        "My friend who moved to Boston is great.",  # a relative "who" asks nothing
        "The place where we met was nice.",
        "I read three books about Japan last month.",
    ],
)
def test_nothing_is_asked_for(extractor: Extractor, text: str) -> None:
    assert extractor.extract(text, "User").asked == frozenset()


def test_ingest_does_not_read_what_is_asked(extractor: Extractor) -> None:
    """Only a message is read for it: a stored question keeps no asked types."""
    (stored,) = extractor.extract_many([("Where did you go hiking?", "Ana")])
    assert stored.asked == frozenset()


@pytest.mark.slow  # starts the engine and the service
def test_the_ranker_sees_which_memories_name_the_asked_kind(api: Api) -> None:
    """Through the real service: asked "where…?", the turns naming a place other than the
    question's own carry `asked_type`; the others do not."""
    user = "asked-kind"
    turns = [
        "Last summer I hiked the trails around Lake Tahoe with my brother.",
        "I love hiking, it clears my head after a long week.",
        "We stayed two nights in Portland before flying home.",
        "My brother bought new boots for the trip.",
    ]
    api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": user, "speaker": "Ana", "text": text, "sessionId": "s1",
             "occurredAt": f"2026-05-04T18:0{n}:00+00:00"}
            for n, text in enumerate(turns)
        ],
    )  # fmt: skip
    request = ContextRequest(
        user_id=user,
        message="Where did Ana go hiking?",
        as_of=datetime(2026, 6, 1, tzinfo=UTC).timestamp(),
        max_memories=5,
        speaker=None,
        min_score=0.0,
        min_confidence=0.0,
        config=PRESETS["manual"],
    )
    found = rank_candidates(api.runtime.service, request)
    asked = {
        s.memory.id: found.features[s.memory.id].asked_type
        for s in found.scored
        if s.memory.id in found.features
    }
    texts = {s.memory.id: s.memory for s in found.scored}
    assert len(asked) == len(turns)
    named = {i for i, value in asked.items() if value == 1.0}
    keys = {i: texts[i].entity_keys for i in asked}
    assert named == {i for i in asked if any(k.startswith("place:") for k in keys[i])}
    assert len(named) == 2  # Lake Tahoe, Portland
