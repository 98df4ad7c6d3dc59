"""Who a question is about is not who said the answer (issue 56): asked about the main speaker of a
history in the third person, the turn that answers comes first even when another person said it,
not every turn the main speaker ever said. Real models, the embedded engine, through GraphQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import Api
from tests.documents import REMEMBER_MANY

pytestmark = pytest.mark.slow  # starts the engine, the service or Node

USER = "asked-about"
CONTEXT = """query($u: ID!, $m: String!, $p: String!) {
  context(userId: $u, message: $m, maxMemories: 5, profile: $p) {
    memories { memory { text speaker } } } }"""

# Sam talks a lot and about many things; Ana once says where Sam lives now
TURNS = [
    ("Sam", "I finally fixed the bike's rear brake this morning."),
    ("Ana", "Nice, was it the cable?"),
    ("Sam", "Yes, the cable was frayed, so I replaced it and adjusted the pads."),
    ("Sam", "Then I spent the afternoon reading about sourdough starters."),
    ("Ana", "Are you going to bake this weekend?"),
    ("Sam", "I hope so, my starter needs another two days of feeding."),
    ("Sam", "My sister keeps sending me photos of her garden."),
    ("Sam", "Work has been hectic with the quarterly reports due on Friday."),
    ("Ana", "So you live in Lisbon now, since the move with your partner in March?"),
    ("Sam", "I watched a documentary about octopuses last night, they are so clever."),
    ("Sam", "The neighbours' dog barked all night again."),
    ("Sam", "I should really call my grandmother more often."),
    ("Sam", "My running shoes are falling apart after two years."),
    ("Sam", "I ordered a new keyboard because two keys stopped working."),
]


@pytest.fixture(scope="module")
def history(api: Api) -> Api:
    start = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
    inputs = [
        {
            "userId": USER,
            "speaker": speaker,
            "text": text,
            "sessionId": f"s{1 + n // 5}",
            "occurredAt": (start + timedelta(days=n // 5, minutes=n)).isoformat(),
        }
        for n, (speaker, text) in enumerate(TURNS)
    ]
    api.ok(REMEMBER_MANY, inputs=inputs)
    return api


def test_the_answer_someone_else_gave_is_in_the_block(history: Api) -> None:
    """Sam's name in the question brought every turn of his closer by cosine ("Speaker: text"),
    and the answer, said by Ana, ranked tenth of fourteen: out of the block. Compared without
    the names of the people it is about (extraction/content.py), the question finds it."""
    block = history.ok(CONTEXT, u=USER, m="Where does Sam live now?", p="default")["context"]
    texts = [m["memory"]["text"] for m in block["memories"]]
    assert any("Lisbon" in t for t in texts), texts


@pytest.mark.xfail(
    reason="issue 56's strict form, left: no fixed lift is left, but the trees learn who said a "
    "turn where 96% of LoCoMo's evidence is said by the person asked about, and rank Sam's turn "
    "about his sister's garden above Ana's answer (docs/retrieval.md, 'The speaker, learnt')",
    strict=False,
)
def test_a_third_person_question_about_the_main_speaker_finds_who_answered(history: Api) -> None:
    block = history.ok(CONTEXT, u=USER, m="Where does Sam live now?", p="default")["context"]
    first = block["memories"][0]["memory"]
    assert "Lisbon" in first["text"], [m["memory"]["text"] for m in block["memories"]]
    assert first["speaker"] == "Ana"


VIA = """query($u: ID!, $m: String!, $p: String!) {
  context(userId: $u, message: $m, maxMemories: 5, profile: $p) { memories { via } } }"""


def _vias(api: Api, message: str, profile: str) -> list[list[str]]:
    block = api.ok(VIA, u=USER, m=message, p=profile)["context"]
    return [m["via"] for m in block["memories"]]


def test_via_says_when_the_search_without_names_found_a_memory(history: Api) -> None:
    """The search without the names runs only for a message that names someone, and only where
    a learnt ranker reads it (`default`, not the hand blend)."""
    assert any("content" in via for via in _vias(history, "Where does Sam live now?", "default"))
    assert not any(
        "content" in via for via in _vias(history, "Where is the cable from?", "default")
    )
    assert not any("content" in via for via in _vias(history, "Where does Sam live now?", "manual"))
