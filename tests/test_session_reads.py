"""The reads of one session's (or day's) facts that ending it makes — the episode's facts
(`session_facts`), the profile's self-stated facts (`self_facts`) and the knowledge index's
relations (`coverage_rows`) — against their definitions computed from the whole graph, on real
turns (LoCoMo's first conversation, read from ../shared/data).

The statements reach relations from the entities the turns mention, each entity once, rather
than scanning the user's relations or the speaker's once per turn (docs/performance.md). That
rests on a turn that backs a relation mentioning one of its ends; this test checks the result
against the definitions that do not assume it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bench.locomo import DEFAULT_DATA, conversation_files, load
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.write.profiles import EXPERTISE_TYPES
from tests.conftest import Api, close_api, open_api
from tests.documents import REMEMBER_MANY

USER = "reader"
SESSIONS = 6  # the first six of the first conversation: real turns between two people
CRAFTED = [
    ("Ann", "I work as a nurse at the city hospital."),
    ("Ben", "Ann works as a nurse at the city hospital."),
    ("Ann", "Yes, for six years now."),
]


@pytest.fixture(scope="module")
def graph(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[tuple[Api, list[str]]]:
    """The service holding the sample, and the ids of the crafted session's turns."""
    conversation = load(conversation_files(str(DEFAULT_DATA))[0])
    kept = list(dict.fromkeys(t.session for t in conversation.turns))[:SESSIONS]
    inputs = [
        {
            "userId": USER,
            "text": t.text,
            "speaker": t.speaker,
            "sessionId": t.session,
            "occurredAt": t.occurred_at,
            "externalId": t.dia_id,
        }
        for t in conversation.turns
        if t.session in kept
    ]
    # and one session where another speaker says the first one's fact again: the fact is
    # self-stated by Ann's turn alone
    inputs += [
        {
            "userId": USER,
            "text": text,
            "speaker": speaker,
            "sessionId": "crafted",
            "occurredAt": f"2030-01-01T10:0{i}:00Z",
        }
        for i, (speaker, text) in enumerate(CRAFTED)
    ]
    api, _ = open_api(tmp_path_factory.mktemp("reads"), extractor, embedder)
    ids = [m["id"] for m in api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]]
    yield api, ids[-len(CRAFTED) :]
    close_api(api)


def _whole(
    api: Api,
) -> tuple[dict[str, list[str]], list[dict[str, Any]], set[tuple[str, str]], dict[str, str]]:
    """Each session's turn ids, every typed relation with its properties, every (turn, entity)
    mention (the speaker's also as ("speaker:" + key)), and every entity's label."""
    params = {"user_id": USER}
    run = api.runtime.executor.run
    turns: dict[str, list[str]] = {}
    for row in run("export_in_session", params):
        turns.setdefault(str(row["session_id"]), []).append(str(row["memory_id"]))
    relations = [r for r in run("export_relations", params) if r["type"] != "RELATED_TO"]
    mentions: set[tuple[str, str]] = set()
    for row in run("export_mentions", params):
        mentions.add((str(row["memory_id"]), str(row["key"])))
        if row["as_speaker"]:
            mentions.add((str(row["memory_id"]), f"speaker:{row['key']}"))
    labels = {
        str(r["props"]["key"]): str(r["props"]["label"]) for r in run("export_entities", params)
    }
    return turns, relations, mentions, labels


def test_each_sessions_reads_equal_their_definitions(graph: tuple[Api, list[str]]) -> None:
    api, crafted = graph
    turns, relations, mentions, labels = _whole(api)
    store = api.runtime.service.store
    assert len(turns) == SESSIONS + 1
    checked = {"facts": 0, "self": 0, "coverage": 0}
    for session_id, ids in turns.items():
        # the episode's facts: relations whose first evidence is one of the session's turns,
        # in the order they were first seen (then by labels and keys)
        first = sorted(
            (r for r in relations if r["props"]["evidence"][0] in ids),
            key=lambda r: (
                r["props"]["first_seen"],
                labels[r["src"]],
                r["type"],
                labels[r["dst"]],
                r["src"],
                r["dst"],
            ),
        )
        expected_facts = [
            (labels[r["src"]], r["type"], labels[r["dst"]], r["props"]["evidence"][0])
            for r in first
        ]
        facts = store.session_facts(USER, session_id)
        assert [(f.src, f.type, f.dst, f.evidence) for f in facts] == expected_facts
        checked["facts"] += len(facts)

        # the profile's self-stated facts: relations of the expertise types from a speaker of
        # the session, with the session's turns of that speaker among their evidence
        expected_self: dict[tuple[str, str, str], tuple[str, ...]] = {}
        for r in relations:
            own = sorted(
                i
                for i in r["props"]["evidence"]
                if i in ids and (i, f"speaker:{r['src']}") in mentions
            )
            if r["type"] in EXPERTISE_TYPES and own:
                expected_self[(r["src"], r["type"], r["dst"])] = tuple(own)
        got_self = {
            (f.speaker_key, f.type, f.area_key): f.evidence
            for f in store.profiles.self_facts(USER, ids, EXPERTISE_TYPES)
        }
        assert got_self == expected_self
        if session_id == "crafted":  # Ann's turn only, not Ben's restatement
            assert got_self == {("person:ann", "WORKS_AS", "topic:nurse"): (crafted[0],)}, got_self
        checked["self"] += len(got_self)

        # the knowledge index's relations: the session's turns among each relation's evidence
        # that mention one of its ends
        expected_cover: dict[tuple[str, str, str], set[str]] = {}
        for r in relations:
            backing = {
                i
                for i in r["props"]["evidence"]
                if i in ids and ((i, r["src"]) in mentions or (i, r["dst"]) in mentions)
            }
            if backing:
                expected_cover[(r["src"], r["type"], r["dst"])] = backing
        _, rows = store.profiles.coverage_rows(USER, ids)
        got_cover: dict[tuple[str, str, str], set[str]] = {}
        for row in rows:
            key = (row.src_key, row.type, row.dst_key)
            got_cover.setdefault(key, set()).update(row.evidence)
        assert got_cover == expected_cover
        checked["coverage"] += len(got_cover)
    # the sample exercises every read
    assert all(count > 0 for count in checked.values()), checked
