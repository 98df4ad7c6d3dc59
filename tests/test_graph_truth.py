"""The graph's truth on real text (the shared dev data, read at run time), with the real model and
the embedded engine: no typed fact whose subject is outside its relation's domain, none about or
by the agent, and extraction of thousands of real turns without an error."""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timedelta

from bench.locomo import DEFAULT_DATA, conversation_files, load
from extraction.extractor import Extractor
from extraction.keys import is_agent
from extraction.kinds import in_domain
from extraction.resolver import Resolver
from tests.conftest import Api
from tests.documents import REMEMBER_MANY
from tests.shared_data import LME_FILE, real_texts


def test_real_turns_extract_without_error_within_the_domains(extractor: Extractor) -> None:
    """2,000 real turns (LoCoMo's and LongMemEval's, assistant replies among them), read as a
    user and an assistant would say them, then resolved as one user's history: every typed fact
    keeps its relation's domain, and no fact has the agent at either end."""
    texts = real_texts(1000)
    speakers = ["User" if i % 2 == 0 else "Assistant" for i in range(len(texts))]
    extractions = extractor.extract_many(list(zip(texts, speakers, strict=True)))
    resolver = Resolver()
    resolver.learn_speakers(extractions)
    typed = 0
    for i, extraction in enumerate(extractions):
        for rel in extraction.relations:
            assert rel.type == "RELATED_TO" or in_domain(rel.type, rel.src), rel
        settled = resolver.resolve(extraction, f"m{i}", f"s{i // 20}").extraction
        for rel in settled.relations:
            assert not is_agent(rel.src) and not is_agent(rel.dst), rel
            if rel.type != "RELATED_TO":
                typed += 1
                assert in_domain(rel.type, rel.src), rel
                assert speakers[i] == "User", (texts[i][:80], rel)  # an agent states nothing
    assert typed > 100  # the check ran on real facts, not on an empty graph


def test_a_dev_graph_holds_no_fact_outside_its_domain(api: Api) -> None:
    """One LoCoMo dev conversation and the first sessions of a LongMemEval dev history, through
    the API: the statement operators run (cypher/facts_outside_domain.cypher) finds nothing."""
    conversation = load(conversation_files(str(DEFAULT_DATA))[0])
    inputs = [
        {
            "userId": "truth-locomo",
            "text": t.text,
            "speaker": t.speaker,
            "sessionId": t.session,
            "occurredAt": t.occurred_at,
        }
        for t in conversation.turns[:300]
    ]
    with gzip.open(LME_FILE, "rt", encoding="utf-8") as handle:
        first = json.load(handle)[0]
    sessions = zip(
        first["haystack_session_ids"],
        first["haystack_dates"],
        first["haystack_sessions"],
        strict=True,
    )
    for session, date, turns in list(sessions)[:8]:
        day, _, clock = date.split(" ")
        start = datetime.fromisoformat(f"{day.replace('/', '-')}T{clock}:00+00:00")
        for j, turn in enumerate(turns):
            inputs.append(
                {
                    "userId": "truth-lme",
                    "text": turn["content"][:4000],
                    "speaker": "User" if turn["role"] == "user" else "Assistant",
                    "sessionId": session,
                    "occurredAt": (start + timedelta(seconds=j)).isoformat(),
                }
            )
    for start in range(0, len(inputs), 100):
        api.ok(REMEMBER_MANY, inputs=inputs[start : start + 100])
    store = api.runtime.service.store
    for user in ("truth-locomo", "truth-lme"):
        assert store.facts_outside_domain(user) == []
    agents = [
        row
        for row in api.runtime.service.store.executor.run(
            "export_relations", {"user_id": "truth-lme"}
        )
        if is_agent(row["src"]) or is_agent(row["dst"])
    ]
    assert agents == []


MERGE = """mutation($u: ID!, $s: [String!]!, $into: String!) {
  mergeEntities(userId: $u, sources: $s, into: $into) { key } }"""


def test_the_domain_check_finds_a_fact_a_hand_merge_moved_onto_a_place(api: Api) -> None:
    """The check is no stub: merged by hand into a place, a person's job becomes a place's, and
    the statement reports it."""
    user = "truth-merge"
    api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": user, "speaker": "Dana", "text": "My friend Jordan works at Acme Corp."},
            {"userId": user, "speaker": "Dana", "text": "I visited Denver last summer."},
        ],
    )
    store = api.runtime.service.store
    assert store.facts_outside_domain(user) == []
    api.ok(MERGE, u=user, s=["person:jordan"], into="place:denver")
    assert ("place:denver", "WORKS_AT", "org:acme_corp") in store.facts_outside_domain(user)


ASK = """query($u: ID!, $m: String!) {
  context(userId: $u, message: $m, speaker: "User", maxMemories: 3) {
    memories { via memory { id speaker } } entityCards { key } } }"""
KEYS = "query($u: ID!) { entities(userId: $u, first: 100) { edges { node { key } } } }"


def test_a_name_only_the_agent_said_is_no_entity_yet_a_question_naming_it_finds_it(
    api: Api,
) -> None:
    """The assistant's recommendation names a hotel: the graph holds no entity of it (a name
    only an agent said waits for a person to say it), but asking about it by name finds the
    turn, and says why."""
    user = "truth-held"
    said = api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": user, "speaker": "User", "sessionId": "s1", "text": t}
            if i % 2 == 0
            else {"userId": user, "speaker": "Assistant", "sessionId": "s1", "text": t}
            for i, t in enumerate(
                [
                    "Where should I stay in Lisbon for a weekend?",
                    "You could try the Miradouro Palace Hotel in Alfama; the rooftop is lovely.",
                    "Thanks, I'll think about it.",
                    "You're welcome! Enjoy your trip.",
                ]
            )
        ],
    )["rememberMany"]
    keys = {e["node"]["key"] for e in api.ok(KEYS, u=user)["entities"]["edges"]}
    assert not any("miradouro" in k for k in keys), keys
    block = api.ok(ASK, u=user, m="What did you say about the Miradouro Palace Hotel?")["context"]
    first = block["memories"][0]
    assert first["memory"]["id"] == said[1]["id"]
    assert any(v.startswith("named:") for v in first["via"]), first["via"]


def test_a_name_an_agent_held_then_a_user_types_in_one_turn_is_written(api: Api) -> None:
    """The assistant names Kadence (held: no entity yet, the tagger guessing an org); the user
    then names Kadence and, later in the same turn, says who Kadence is. The held memory is
    claimed under the guess, which the same turn merges into the person: both memories mention
    the person. Bulk ingest of 50,000 real turns crashed on exactly this (a KeyError in the
    write's rows: the claim kept the merged-away key)."""
    user = "truth-claimed"
    said = api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": user, "speaker": speaker, "sessionId": "s1", "text": text}
            for speaker, text in [
                (
                    "Assistant",
                    "This section will focus on your personal journey as Kadence, and will "
                    "serve as a foundation for the book.",
                ),
                (
                    "User",
                    "The point of this is to list trends in Kadence's identity that I can "
                    "build on. I am Kadence, a 25-year-old musician from New York City.",
                ),
            ]
        ],
    )["rememberMany"]
    assert len(said) == 2
    keys = {e["node"]["key"] for e in api.ok(KEYS, u=user)["entities"]["edges"]}
    assert "person:kadence" in keys and "org:kadence" not in keys, keys
    mentioned = api.ok(
        'query($u: ID!) { entity(userId: $u, key: "person:kadence") '
        "{ memories(first: 10) { id } } }",
        u=user,
    )["entity"]
    assert {m["id"] for m in mentioned["memories"]} == {s["id"] for s in said}
