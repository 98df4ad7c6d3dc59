"""A message that asks about several things at once (extraction/parts.py) is compared with the
memories part by part too: on real parses, and end to end on the real engine and models."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from extraction.extractor import Extractor
from graph.recall.config import PRESETS
from tests.conftest import Api
from tests.documents import REMEMBER_MANY


def test_alternatives_become_one_message_each(extractor: Extractor) -> None:
    said = extractor.extract(
        "Which did I do first, the volleyball league or the charity run?", "Dana"
    )
    assert len(said.parts) == 2
    first, second = said.parts
    assert "volleyball league" in first and "charity" not in first
    assert "charity run" in second and "volleyball" not in second
    assert all(p.startswith("Which did I do first") for p in said.parts)


def test_only_a_question_is_read_for_parts(extractor: Extractor) -> None:
    """Parts are compared with memories, never stored: the batch path of ingest leaves them
    out and reads everything else the same."""
    text = "Which did I do first, the volleyball league or the charity run last May?"
    stored = extractor.extract_many([(text, "Dana")])[0]
    asked = extractor.extract(text, "Dana")
    assert stored.parts == () and len(asked.parts) == 2
    assert replace(asked, parts=(), asked_nouns=()) == stored


def test_each_member_of_a_longer_list_stands_alone(extractor: Extractor) -> None:
    """spaCy chains a list ("the run" under "the league", "the bake sale" under "the run"):
    every member, the first too, gets a message of its own, and a clause after the list
    stays with each."""
    said = extractor.extract(
        "Which did I do first, the volleyball league, the charity run or the bake sale?", "Dana"
    )
    assert len(said.parts) == 3
    for part, alone in zip(said.parts, ("volleyball", "charity", "bake"), strict=True):
        assert alone in part
        assert all(o not in part for o in ("volleyball", "charity", "bake") if o != alone)
    said = extractor.extract(
        "Between the cooking class and the pottery workshop, which did I start earlier?", "Dana"
    )
    assert len(said.parts) == 2
    assert all("start earlier" in p for p in said.parts)
    assert "cooking" in said.parts[0] and "pottery" not in said.parts[0]


def test_a_part_holds_only_the_sentence_it_comes_from(extractor: Extractor) -> None:
    """The other sentences of a long message are in its own embedding; repeating them in every
    part would only make each part's embedding cost more."""
    said = extractor.extract(
        "I was going through my old training notes from the spring. "
        "Which did I do first, the volleyball league or the charity run?",
        "Dana",
    )
    assert len(said.parts) == 2
    assert all(p.startswith("Which did I do first") for p in said.parts)
    assert all("training notes" not in p for p in said.parts)
    said = extractor.extract(
        "My teacher keeps asking about my progress. "
        "How long had I been taking guitar lessons when I bought the new amp?",
        "Dana",
    )
    assert "I bought the new amp" in said.parts
    assert all("teacher" not in p for p in said.parts)


def test_a_clause_of_time_is_a_part_and_so_is_the_rest(extractor: Extractor) -> None:
    said = extractor.extract(
        "How long had I been taking guitar lessons when I bought the new amp?", "Dana"
    )
    assert "I bought the new amp" in said.parts
    rest = [p for p in said.parts if p != "I bought the new amp"]
    assert rest and "guitar lessons" in rest[0] and "amp" not in rest[0]


@pytest.mark.parametrize(
    "message",
    ["Where does my sister live?", "What did I buy at the market last weekend?", "Thanks!"],
)
def test_a_message_of_one_part_has_none(extractor: Extractor, message: str) -> None:
    assert extractor.extract(message, "Dana").parts == ()


ASK = """query($user: ID!, $message: String!, $profile: String!) {
  context(userId: $user, message: $message, speaker: "Dana", maxMemories: 3, profile: $profile) {
    memories { similarity via memory { externalId } } } }"""
USER = "parts"
TURNS = [
    "I joined a recreational volleyball league with friends from work.",
    "I ran a charity 5K to raise money for the children's hospital downtown.",
    "Volleyball practice was tough today, but my serves are getting better.",
    "I bought new knee pads for volleyball, the old ones were worn out.",
    "Our volleyball team won its third match of the season!",
    "I watched a volleyball tutorial about blocking at the net.",
    "I baked sourdough bread this morning.",
    "My cat knocked a plant off the windowsill again.",
]


@pytest.fixture
def without_parts() -> Iterator[str]:
    """The shipped preset with the parts switched off, registered for this test only."""
    PRESETS["test-noparts"] = replace(PRESETS["default"], message_parts=False)
    try:
        yield "test-noparts"
    finally:
        del PRESETS["test-noparts"]


def _by_id(block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["memory"]["externalId"]: m for m in block["memories"]}


def test_each_alternative_of_a_question_finds_its_memory(api: Api, without_parts: str) -> None:
    """Volleyball talk crowds the whole question's neighbourhood; the charity run, closer to its
    own part than to the whole question, is found all the same and says so (`part`)."""
    inputs = [
        {"userId": USER, "speaker": "Dana", "text": text, "externalId": f"t{i}"}
        for i, text in enumerate(TURNS)
    ]
    api.ok(REMEMBER_MANY, inputs=inputs)
    question = "Which did I do first, the volleyball league or the charity 5K run?"
    block = api.ok(ASK, user=USER, message=question, profile="default")["context"]
    found = _by_id(block)
    assert {"t0", "t1"} <= set(found), list(found)
    assert "part" in found["t1"]["via"]
    plain = api.ok(ASK, user=USER, message=question, profile=without_parts)["context"]
    assert not any("part" in m["via"] for m in plain["memories"])
    # the part's cosine is the better one: with parts the run's similarity is higher
    plain_run = _by_id(plain).get("t1")
    assert plain_run is None or plain_run["similarity"] < found["t1"]["similarity"]
