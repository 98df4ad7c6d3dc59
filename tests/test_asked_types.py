"""What kind of thing a question asks for (extraction/asked.py), on the real spaCy parse: the
learnt ranker's `asked_type` feature reads it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from extraction.extractor import Extractor
from extraction.keys import ENTITY_TYPES
from extraction.lexicon import ASKED_NOUNS, ASKED_WH
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
        ("Caroline, where did you camp?", "place"),  # parsed as a relative clause on the name
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
        "Where I grew up, it snowed a lot.",  # a wh-word first, of a clause before the main one
        "I read three books about Japan last month.",
    ],
)
def test_nothing_is_asked_for(extractor: Extractor, text: str) -> None:
    assert extractor.extract(text, "User").asked == frozenset()


@pytest.mark.parametrize(
    ("text", "nouns"),
    [
        ("Which bank holds Tim's mortgage?", ("mortgage",)),  # not the answer's kind
        ("I fixed my car. What make is Caroline's bike?", ("bike",)),  # the question only
        ("I need to fix my car.", ()),  # a statement names new things all the time
        ("Where did Caroline go with Melanie?", ()),  # no common noun; names are not counted
        # the answer's kind is left out: the answer names the cello, not the instrument
        ("What instrument am I learning?", ()),
        ("What kind of pet does Ana have at home?", ("home",)),
        ("How many books about Japan did I read?", ()),
        ("What is the colour of Ana's car?", ("car",)),  # "what is the X of…": X is the kind
        # a noun naming a kind of entity is said by its instance ("my greyhound", "Lisbon")
        ("What is the breed of my dog?", ()),
        ("When did Ana move to the city?", ()),
        ("What is the name of my dentist?", ("dentist",)),
        # a request names new things: no noun of it counts
        ("Can you recommend a recipe for my dinner party?", ()),
        ("What should I cook for my anniversary?", ()),
        ("Any tips for the trip to Lisbon?", ()),
    ],
)
def test_the_nouns_a_question_names(
    extractor: Extractor, text: str, nouns: tuple[str, ...]
) -> None:
    assert extractor.extract(text, "User").asked_nouns == nouns


def test_every_asked_kind_is_an_entity_type() -> None:
    """A kind the lexicon names but no entity has would never mark a memory."""
    assert set(ASKED_WH.values()) | set(ASKED_NOUNS.values()) <= set(ENTITY_TYPES)


def test_ingest_does_not_read_what_is_asked(extractor: Extractor) -> None:
    """Only a message is read for it: a stored question keeps no asked types."""
    (stored,) = extractor.extract_many([("Where did you go hiking with your dog?", "Ana")])
    assert stored.asked == frozenset() and stored.asked_nouns == ()


@pytest.mark.slow  # starts the engine and the service
def test_the_ranker_sees_which_memories_name_the_asked_kind(api: Api) -> None:
    """Through the real service: asked "where…?", the turns naming a place other than the
    question's own carry `asked_type`; the others do not."""
    user = "asked-kind"
    turns = {
        "tahoe": "Last summer I hiked the trails around Lake Tahoe with my brother.",
        "hiking": "I love hiking, it clears my head after a long week.",
        "portland": "We stayed two nights in Portland before flying home.",
        "boots": "My brother bought new boots for the trip.",
    }
    api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": user, "speaker": "Ana", "text": text, "sessionId": "s1",
             "externalId": name, "occurredAt": f"2026-05-04T18:0{n}:00+00:00"}
            for n, (name, text) in enumerate(turns.items())
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
        s.memory.external_id: found.features[s.memory.id].asked_type
        for s in found.scored
        if s.memory.id in found.features
    }
    assert asked == {"tahoe": 1.0, "hiking": 0.0, "portland": 1.0, "boots": 0.0}
