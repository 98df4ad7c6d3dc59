"""Profiles (graph/profile/, graph/write/profiles.py) on the real engine and models, through
GraphQL and MCP: built at endSession, an incremental update equal to a rebuild, forget and
forgetUser, settings with a bad timezone, and one key never reading another user's profile. The
rules themselves also as pure unit tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client

from api.mcp_server import build_server, stdio_caller
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.profile import coverage, rules, signals
from graph.profile_store import day_of
from graph.records import OpenThreads
from graph.validation import EARLIEST, LATEST
from tests.conftest import Api, close_api, embedded_only, open_api

KEYS = {
    "bea": "key-bea",
    "bob": "key-bob",
    "cal": "key-cal",
    "dee": "key-dee",
    "eve": "key-eve",
    "fay": "key-fay",
}
REMEMBER = "mutation($inputs: [MemoryInput!]!) { rememberMany(inputs: $inputs) { id } }"
END = "mutation($u: ID!, $s: ID!) { endSession(userId: $u, sessionId: $s) { turnCount } }"
PROFILE = """query($u: ID!, $speaker: String) { profile(userId: $u, speaker: $speaker) {
  speaker preferredName relationshipStage timezone built
  expertise { area depth reason turns sessions specific types evidence(first: 10) { id text } }
  style { verbosity providesStructuredData respondsToFollowUps }
  topicsDeclined sessionsCompleted entriesContributed lastActiveAt lastSessionId } }"""
SETTINGS = """mutation($u: ID!, $tz: String, $name: String) {
  setUserSettings(userId: $u, timezone: $tz, preferredName: $name) {
    speaker timezone preferredName } }"""
REFRESH = "mutation($u: ID!) { refreshProfile(userId: $u) { speaker sessionsCompleted } }"
SESSIONS = [
    (
        "s1",
        "2026-01-05T10:00:00Z",
        [
            ("Bea", "Call me Bea, by the way. I work as a nurse at the city hospital."),
            ("Tom", "What is your shift like?"),
            ("Bea", "I do twelve-hour shifts, three nights a week, mostly in cardiology."),
            ("Bea", "I play the violin in a band on Saturdays."),
        ],
    ),
    (
        "s2",
        "2026-01-12T10:00:00Z",
        [
            ("Tom", "How was the band?"),
            ("Bea", "I play the violin with them since 2019; we played Vivaldi in March."),
            ("Bea", "I'd rather not talk about my ex."),
        ],
    ),
    (
        "s3",
        "2026-01-20T10:00:00Z",
        [
            ("Tom", "Do you still play violin?"),
            ("Bea", "Yes, I play the violin every week, Bach partitas mostly."),
            ("Bea", "I feel so grateful for my sister Mary."),
        ],
    ),
]


# Cal never names a session: one rememberMany per day, and a later one adding to the first day
SESSIONLESS = [
    ("2026-03-02T09:00:00Z", [("Cal", "I work as a potter and I make stoneware bowls.")]),
    ("2026-03-09T18:30:00Z", [("Cal", "I make stoneware bowls on my wheel since 2018.")]),
    ("2026-03-16T08:15:00Z", [("Cal", "Last week I made 40 stoneware bowls for the market.")]),
    ("2026-03-02T17:45:00Z", [("Cal", "My sister Ida visited; I feel so happy for her.")]),
]


def _sessionless(when: str, turns: list[tuple[str, str]]) -> list[Any]:
    return [
        {"userId": "cal", "speaker": speaker, "text": text, "occurredAt": when}
        for speaker, text in turns
    ]


def _inputs(user: str, session: str, when: str, turns: list[tuple[str, str]]) -> list[Any]:
    return [
        {
            "userId": user,
            "speaker": speaker,
            "text": text,
            "sessionId": session,
            "occurredAt": when,
            "externalId": f"{session}-{n}",
        }
        for n, (speaker, text) in enumerate(turns)
    ]


def _as(api: Api, user: str, query: str, **variables: Any) -> dict[str, Any]:
    body = api.raw(query, headers={"Authorization": f"Bearer {KEYS[user]}"}, **variables)
    return dict(body)


def _ok(api: Api, user: str, query: str, **variables: Any) -> dict[str, Any]:
    body = _as(api, user, query, **variables)
    assert "errors" not in body, body["errors"]
    return dict(body["data"])


@pytest.fixture(scope="module")
def keyed(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(
        tmp_path_factory.mktemp("profiles"),
        extractor,
        embedder,
        api_keys=";".join(f"{k}={u}" for u, k in KEYS.items()),
    )
    try:
        for session, when, turns in SESSIONS:
            _ok(api, "bea", REMEMBER, inputs=_inputs("bea", session, when, turns))
            _ok(api, "bea", END, u="bea", s=session)  # the profile follows each session
        bob = [("Bob", "I work as a carpenter and I play the cello on Sundays.")]
        _ok(api, "bob", REMEMBER, inputs=_inputs("bob", "b1", "2026-02-01T09:00:00Z", bob))
        _ok(api, "bob", END, u="bob", s="b1")
        for when, turns in SESSIONLESS:
            _ok(api, "cal", REMEMBER, inputs=_sessionless(when, turns))
        api.runtime.service.drain()
        yield api
    finally:
        close_api(api)


def _stored(api: Api, user: str) -> list[dict[str, Any]]:
    return [dataclasses.asdict(p) for p in api.runtime.store.profiles.read(user, None)]


def test_end_session_builds_the_profile(keyed: Api) -> None:
    profile = _ok(keyed, "bea", PROFILE, u="bea", speaker=None)["profile"]
    assert profile["speaker"] == "Bea" and profile["built"]
    assert profile["preferredName"] == "Bea"
    assert profile["sessionsCompleted"] == 3
    assert profile["entriesContributed"] == 7
    assert profile["lastSessionId"] == "s3"
    assert profile["relationshipStage"] == "DEVELOPING"
    assert profile["topicsDeclined"] == ["my ex"]
    violin = next(i for i in profile["expertise"] if i["area"] == "violin")
    assert violin["types"] == ["PLAYS"] and violin["sessions"] == 3
    assert violin["depth"] in {"moderate", "expert"}
    assert "plays violin" in violin["reason"]
    assert all("violin" in e["text"] for e in violin["evidence"])
    assert profile["style"]["respondsToFollowUps"] is True
    tom = _ok(keyed, "bea", PROFILE, u="bea", speaker="Tom")["profile"]
    assert tom["expertise"] == [] and tom["sessionsCompleted"] == 3


def test_memories_without_a_session_build_a_profile(keyed: Api) -> None:
    """Each write without a sessionId tallies its UTC day again in the background."""
    days = [d.name for d in keyed.runtime.store.profiles.day_tallies("cal")]
    assert days == ["2026-03-02", "2026-03-09", "2026-03-16"]
    profile = _ok(keyed, "cal", PROFILE, u="cal", speaker=None)["profile"]
    assert profile["speaker"] == "Cal" and profile["built"]
    assert profile["sessionsCompleted"] == 0 and profile["lastSessionId"] is None
    assert profile["entriesContributed"] == 4  # the later write of the first day counted too
    assert profile["relationshipStage"] == "DEVELOPING"  # three days, as three sessions
    assert profile["lastActiveAt"].startswith("2026-03-16")
    bowls = next(i for i in profile["expertise"] if "bowl" in i["area"])
    assert "MADE" in bowls["types"] and bowls["sessions"] == 3
    assert bowls["depth"] in {"moderate", "expert"}
    assert profile["style"]["providesStructuredData"] is True


def _index(api: Api, user: str, domain: str | None = None) -> dict[str, Any]:
    """The stored knowledge index, less the time it was built."""
    index = _ok(api, user, INDEX, u=user, d=domain)["knowledgeIndex"]
    return {k: v for k, v in index.items() if k != "lastReindexed"}


def test_incremental_update_equals_rebuild(keyed: Api) -> None:
    """Profiles and knowledge index, for sessions and for days without a session alike: the
    index folded from the shares stored session by session and day by day equals the one folded
    after every session and day was tallied again."""
    incremental, index = _stored(keyed, "bea"), _index(keyed, "bea")
    assert index["totalEntries"] == 10 and index["themes"] == ["violin"]
    assert _ok(keyed, "bea", REFRESH, u="bea")["refreshProfile"]["sessionsCompleted"] == 3
    assert _stored(keyed, "bea") == incremental
    assert _index(keyed, "bea") == index
    sessionless, index = _stored(keyed, "cal"), _index(keyed, "cal")
    assert sessionless and sessionless[0]["expertise"]
    assert index["totalEntries"] == 4 and index["categories"]
    assert _ok(keyed, "cal", REFRESH, u="cal")["refreshProfile"]["sessionsCompleted"] == 0
    assert _stored(keyed, "cal") == sessionless
    assert _index(keyed, "cal") == index


CONTEXT = """query($u: ID!, $m: String!, $asOf: DateTime, $budget: Int) {
  context(userId: $u, message: $m, asOf: $asOf, tokenBudget: $budget) { text tokens } }"""


def test_context_opens_with_the_user_and_the_profile(keyed: Api) -> None:
    block = _ok(keyed, "bea", CONTEXT, u="bea", m="How is the band?", asOf="2026-01-30T12:00:00Z")
    lines = block["context"]["text"].splitlines()
    assert lines[0] == "[NOW] 2026-01-30 12:00 UTC (Friday)"
    assert lines[1].startswith("[USER] bea — Bea; last session s3 10 days ago")
    assert lines[1].endswith("; relationship DEVELOPING")
    assert lines[2].startswith("[PROFILE] Bea knows violin (")
    assert "style: terse" in lines[2]
    # within a tight budget the profile line gives way before the time and user lines
    floor = len(lines[0].split()) + len(lines[1].split())
    tight = _ok(keyed, "bea", CONTEXT, u="bea", m="band", asOf="2026-01-30T12:00:00Z", budget=60)
    assert tight["context"]["tokens"] <= 60 and floor < 60
    assert tight["context"]["text"].splitlines()[1] == lines[1]


@embedded_only
def test_analyst_queries_show_profiles_and_coverage(keyed: Api) -> None:
    from tests.test_browser_shape import _analyst

    profiles = {r["speaker"]: r for r in _analyst(keyed, "profiles", userId="bea")}
    assert profiles["Bea"]["person"] == "person:bea"
    assert any(e.startswith("violin [") for e in profiles["Bea"]["expertise"])
    evidence = _analyst(keyed, "profile_evidence", userId="bea", speaker="Bea")
    violin = next(r for r in evidence if r["area"] == "violin")
    assert all("violin" in e for e in violin["evidence"])
    coverage = {
        r["relation"]: r for r in _analyst(keyed, "coverage_by_relation_type", userId="bea")
    }
    assert coverage["PLAYS"]["memories"] >= 3
    assert _analyst(keyed, "people_known_by_role", userId="nobody") == []


def test_forget_removes_evidence_and_empty_items(keyed: Api) -> None:
    profile = _ok(keyed, "bea", PROFILE, u="bea", speaker=None)["profile"]
    violin = next(i for i in profile["expertise"] if i["area"] == "violin")
    ids = [e["id"] for e in violin["evidence"]]
    forget = "mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }"
    _ok(keyed, "bea", forget, u="bea", id=ids[0])
    keyed.runtime.service.drain()
    after = _ok(keyed, "bea", PROFILE, u="bea", speaker=None)["profile"]
    left = next(i for i in after["expertise"] if i["area"] == "violin")
    assert [e["id"] for e in left["evidence"]] == ids[1:]
    assert after["entriesContributed"] == profile["entriesContributed"] - 1
    for memory_id in ids[1:]:
        _ok(keyed, "bea", forget, u="bea", id=memory_id)
    keyed.runtime.service.drain()
    gone = _ok(keyed, "bea", PROFILE, u="bea", speaker=None)["profile"]
    assert "violin" not in {i["area"] for i in gone["expertise"]}
    before_rebuild = _stored(keyed, "bea")
    keyed.runtime.service.profiles.rebuild("bea")
    assert _stored(keyed, "bea") == before_rebuild


def test_forget_without_a_session_removes_evidence(keyed: Api) -> None:
    profile = _ok(keyed, "cal", PROFILE, u="cal", speaker=None)["profile"]
    bowls = next(i for i in profile["expertise"] if "bowl" in i["area"])
    ids = [e["id"] for e in bowls["evidence"]]
    march_16 = next(e["id"] for e in bowls["evidence"] if "40 stoneware" in e["text"])
    forget = "mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }"
    _ok(keyed, "cal", forget, u="cal", id=march_16)  # the only turn of 16 March
    keyed.runtime.service.drain()
    after = _ok(keyed, "cal", PROFILE, u="cal", speaker=None)["profile"]
    left = next(i for i in after["expertise"] if "bowl" in i["area"])
    assert [e["id"] for e in left["evidence"]] == [i for i in ids if i != march_16]
    assert after["entriesContributed"] == 3
    days = [d.name for d in keyed.runtime.store.profiles.day_tallies("cal")]
    assert days == ["2026-03-02", "2026-03-09"]  # a day left without turns loses its tally
    before_rebuild = _stored(keyed, "cal")
    keyed.runtime.service.profiles.rebuild("cal")
    assert _stored(keyed, "cal") == before_rebuild


def test_a_recurring_topic_relinks_an_ended_sessions_share(keyed: Api) -> None:
    """A topic said once is a candidate; when it recurs in a later session it becomes an entity
    mentioned by the earlier turn too: that ended session's index share is tallied again at the
    next update, so the folded index still equals a rebuild."""
    said = [
        ("d1", "2026-04-01T10:00:00Z", "That sunset over the lake was breathtaking."),
        ("d2", "2026-04-08T10:00:00Z", "Another sunset tonight, even better than last week."),
    ]
    for session, when, text in said:
        _ok(keyed, "dee", REMEMBER, inputs=_inputs("dee", session, when, [("Dee", text)]))
        _ok(keyed, "dee", END, u="dee", s=session)
        keyed.runtime.service.drain()
    folded = _index(keyed, "dee")
    topics = next(c for c in folded["categories"] if c["name"] == "topics")
    assert topics["entryCount"] >= 2  # the first session's turn counts the topic too
    _ok(keyed, "dee", REFRESH, u="dee")
    assert _index(keyed, "dee") == folded


# said first as the small model's place, then as a game: the place merges into the work
GUESSED = "I spent the whole evening in Stardew Valley."
TYPED = "I love the game Stardew Valley so much."
MERGE = """mutation($u: ID!, $s: [String!]!, $t: String!) {
  mergeEntities(userId: $u, sources: $s, into: $t) { key } }"""


def _keys(api: Api, user: str) -> set[str]:
    return set(api.runtime.store.list_entity_keys(user, None, None, None, 100))


def test_a_later_retype_retallies_the_earlier_sessions_and_days(keyed: Api) -> None:
    """An ended session's turn names a place (the tagger's guess); a later session's turn types
    it as a game, and the write merges the place into the work: the earlier turn now mentions
    the work. The earlier session's tallies named the place (a name in the turn, a place in the
    index share): they are tallied again at the next update, so the stored profile and index
    equal a rebuild and no longer show the place. The same for turns without a session, by
    day."""
    store = keyed.runtime.store
    said = [("2026-05-04T10:00:00Z", GUESSED), ("2026-05-11T10:00:00Z", TYPED)]
    for n, (when, text) in enumerate(said):
        session = f"e{n + 1}"
        _ok(keyed, "eve", REMEMBER, inputs=_inputs("eve", session, when, [("Eve", text)]))
        if n == 0:
            assert "place:stardew_valley" in _keys(keyed, "eve")  # the guess, at first
        _ok(keyed, "eve", END, u="eve", s=session)
        keyed.runtime.service.drain()
        day = [{"userId": "fay", "speaker": "Fay", "text": text, "occurredAt": when}]
        _ok(keyed, "fay", REMEMBER, inputs=day)
        keyed.runtime.service.drain()
    for user in ("eve", "fay"):
        keys = _keys(keyed, user)
        assert "work:stardew_valley" in keys and "place:stardew_valley" not in keys
        folded, index = _stored(keyed, user), _index(keyed, user)
        assert "Stardew Valley" not in [p["label"] for p in index["places"]]
        _ok(keyed, user, REFRESH, u=user)
        assert _stored(keyed, user) == folded
        assert _index(keyed, user) == index
    assert [d.name for d in store.profiles.day_tallies("fay")] == ["2026-05-04", "2026-05-11"]


def test_a_merge_by_hand_retallies_the_sessions_of_the_source(keyed: Api) -> None:
    """mergeEntities moves a person's mentions from an ended session's turn to another person
    (Bobby was Carl's nickname): the update it queues tallies that session again, so the stored
    index counts one person, as a rebuild does."""
    said = [
        ("h1", "2026-06-01T10:00:00Z", "My friend Bobby taught me chess last summer."),
        ("h2", "2026-06-08T10:00:00Z", "My friend Carl Jensen plays chess at the club."),
    ]
    for session, when, text in said:
        _ok(keyed, "eve", REMEMBER, inputs=_inputs("eve", session, when, [("Eve", text)]))
        _ok(keyed, "eve", END, u="eve", s=session)
    keyed.runtime.service.drain()
    assert {"person:bobby", "person:carl_jensen"} <= _keys(keyed, "eve")
    _ok(keyed, "eve", MERGE, u="eve", s=["person:bobby"], t="person:carl_jensen")
    keyed.runtime.service.drain()
    assert "person:bobby" not in _keys(keyed, "eve")
    folded, index = _stored(keyed, "eve"), _index(keyed, "eve")
    _ok(keyed, "eve", REFRESH, u="eve")
    assert _stored(keyed, "eve") == folded
    assert _index(keyed, "eve") == index


def test_settings_and_a_bad_timezone(keyed: Api) -> None:
    made = _ok(keyed, "bob", SETTINGS, u="bob", tz="Europe/Lisbon", name="Bobby")
    assert made["setUserSettings"] == {
        "speaker": "Bob",
        "timezone": "Europe/Lisbon",
        "preferredName": "Bobby",
    }
    body = _as(keyed, "bob", SETTINGS, u="bob", tz="Mars/Olympus", name="Robert")
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert body["errors"][0]["message"].startswith("timezone: is 'Mars/Olympus'")
    # nothing half-written: the name given with the bad zone was not stored either
    profile = _ok(keyed, "bob", PROFILE, u="bob", speaker=None)["profile"]
    assert (profile["timezone"], profile["preferredName"]) == ("Europe/Lisbon", "Bobby")


def test_now_is_in_the_users_zone(keyed: Api) -> None:
    _ok(keyed, "bob", SETTINGS, u="bob", tz="Europe/Lisbon", name="Bobby")
    block = _ok(keyed, "bob", CONTEXT, u="bob", m="hello", asOf="2026-07-01T12:00:00Z")
    lines = block["context"]["text"].splitlines()
    assert lines[0] == "[NOW] 2026-07-01 13:00 Europe/Lisbon (Wednesday)"
    assert lines[1].startswith("[USER] bob — Bob, called Bobby; last session b1 ")


def test_one_key_never_reads_another_users_profile(keyed: Api) -> None:
    for query, variables in [
        (PROFILE, {"u": "bea", "speaker": None}),
        (SETTINGS, {"u": "bea", "tz": "UTC", "name": None}),
        (REFRESH, {"u": "bea"}),
        (PROFILE, {"u": "cal", "speaker": None}),  # a profile of days without a session
        (REFRESH, {"u": "cal"}),
    ]:
        body = _as(keyed, "bob", query, **variables)
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    # naming Bea as the speaker in bob's own memory finds nothing of hers
    assert _ok(keyed, "bob", PROFILE, u="bob", speaker="Bea")["profile"]["built"] is False
    bob = _ok(keyed, "bob", PROFILE, u="bob", speaker=None)["profile"]
    assert {i["area"] for i in bob["expertise"]} <= {"carpenter", "cello"}


def test_mcp_get_profile_is_the_connections_user_only(keyed: Api) -> None:
    service = keyed.runtime.service
    server = build_server(lambda: service, lambda ctx: stdio_caller("bob"))

    async def scenario() -> None:
        async with Client(server) as client:
            own = await client.call_tool("get_profile", {})
            assert not own.is_error
            data = own.structured_content or {}
            assert data["profile"]["speaker"] == "Bob"
            for user in ("bea", "cal"):
                other = await client.call_tool("get_profile", {"user_id": user})
                assert other.is_error and "FORBIDDEN" in other.content[0].text  # type: ignore[union-attr]
            cals = await client.call_tool("get_profile", {"speaker": "Cal"})
            assert (cals.structured_content or {})["profile"]["built"] is False
            hers = await client.call_tool("get_profile", {"speaker": "Bea"})
            assert (hers.structured_content or {})["profile"]["built"] is False

    anyio.run(scenario)


REMEMBER_DOMAIN = (
    "mutation($inputs: [MemoryInput!]!) { rememberMany(inputs: $inputs) { id domain } }"
)
MEMORY = "query($u: ID!, $id: ID!) { memory(userId: $u, id: $id) { domain } }"
INDEX = """query($u: ID!, $d: String) { knowledgeIndex(userId: $u, domain: $d) {
  domain totalEntries lastReindexed
  categories { name entryCount uniqueTopics wellCovered weak }
  themes temporalCoverage { period count } places { label count }
  gaps { kind reason question } } }"""


def test_knowledge_index_per_domain_with_gaps(keyed: Api) -> None:
    village = [
        ("Bob", "My grandfather Jon built the mill in Bergen in 1890."),
        ("Bob", "The church in Bergen burned down in 1921 and was rebuilt in 1925."),
        ("Ann", "Who ran the mill after your grandfather?"),
    ]
    inputs = _inputs("bob", "v1", "2026-02-03T09:00:00Z", village)
    for item in inputs:
        item["domain"] = "village-history"
    written = _ok(keyed, "bob", REMEMBER_DOMAIN, inputs=inputs)["rememberMany"]
    assert {m["domain"] for m in written} == {"village-history"}  # the memory says its domain
    _ok(keyed, "bob", END, u="bob", s="v1")
    keyed.runtime.service.drain()
    read = _ok(keyed, "bob", MEMORY, u="bob", id=written[0]["id"])["memory"]
    assert read["domain"] == "village-history"
    village_index = _ok(keyed, "bob", INDEX, u="bob", d="village-history")["knowledgeIndex"]
    everything = _ok(keyed, "bob", INDEX, u="bob", d=None)["knowledgeIndex"]
    assert village_index["totalEntries"] == 3 and everything["totalEntries"] == 4
    assert village_index["lastReindexed"] is not None
    periods = {p["period"]: p["count"] for p in village_index["temporalCoverage"]}
    assert sum(periods.values()) == 3
    assert any(p.startswith("18") or p.startswith("19") for p in periods), periods
    assert "Bergen" in {p["label"] for p in village_index["places"]}, village_index
    names = {c["name"] for c in village_index["categories"]}
    assert {"work", "family", "home", "hobbies", "travel", "places", "people"} <= names
    kinds = [g["kind"] for g in village_index["gaps"]]
    assert kinds[0] == "OPEN_THREAD"
    assert village_index["gaps"][0]["question"].endswith("Who ran the mill after your grandfather?")
    assert "THIN_CATEGORY" in kinds
    assert all(g["question"].endswith("?") for g in village_index["gaps"])
    body = _as(keyed, "bob", INDEX, u="bob", d="Village History!")
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert body["errors"][0]["message"].startswith("domain: ")
    bad = _as(keyed, "bob", REMEMBER, inputs=[{**inputs[0], "externalId": "x", "domain": "A B"}])
    assert bad["errors"][0]["message"].startswith("domain: ")
    # the per-domain index folded session by session equals one folded after a rebuild
    folded, everything = _index(keyed, "bob", "village-history"), _index(keyed, "bob")
    _ok(keyed, "bob", REFRESH, u="bob")
    assert _index(keyed, "bob", "village-history") == folded
    assert _index(keyed, "bob") == everything


def test_one_key_never_reads_another_users_index(keyed: Api) -> None:
    body = _as(keyed, "bob", INDEX, u="bea", d=None)
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    own = _ok(keyed, "bob", INDEX, u="bob", d=None)["knowledgeIndex"]
    texts = " ".join(g["reason"] + g["question"] for g in own["gaps"])
    assert "violin" not in texts and "Bea" not in texts
    service = keyed.runtime.service
    server = build_server(lambda: service, lambda ctx: stdio_caller("bob"))

    async def scenario() -> None:
        async with Client(server) as client:
            gaps = await client.call_tool("get_knowledge_gaps", {})
            assert not gaps.is_error and (gaps.structured_content or {})["total_entries"] == 4
            other = await client.call_tool("get_knowledge_gaps", {"user_id": "bea"})
            assert other.is_error and "FORBIDDEN" in other.content[0].text  # type: ignore[union-attr]

    anyio.run(scenario)


def test_forget_user_removes_profiles_and_settings(keyed: Api) -> None:
    _ok(keyed, "bob", 'mutation { forgetUser(userId: "bob") }')
    store = keyed.runtime.store
    assert store.profiles.read("bob", None) == []
    assert store.profiles.settings("bob") == store.profiles.settings("nobody")
    assert store.knowledge.domains("bob") == []
    assert _ok(keyed, "bob", PROFILE, u="bob", speaker=None)["profile"] is None
    assert store.profiles.day_tallies("cal")
    _ok(keyed, "cal", 'mutation { forgetUser(userId: "cal") }')
    assert store.profiles.day_tallies("cal") == [] and store.profiles.read("cal", None) == []


# -- the rules, pure ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "sessions", "specific", "expected"),
    [
        (1, 1, 0, "surface"),
        (3, 2, 0, "moderate"),
        (2, 1, 2, "moderate"),
        (6, 3, 3, "expert"),
        (6, 2, 6, "moderate"),
    ],
)
def test_depth_rules(turns: int, sessions: int, specific: int, expected: str) -> None:
    assert rules.depth(turns, sessions, specific) == expected


@pytest.mark.parametrize(
    ("sessions", "days", "disclosures", "kinds", "expected"),
    [
        (1, 0, 0, 0, "NEW"),
        (2, 1, 0, 0, "DEVELOPING"),
        (4, 7, 3, 1, "COMFORTABLE"),
        (8, 30, 10, 2, "TRUSTED"),
        (8, 30, 10, 1, "COMFORTABLE"),
    ],
)
def test_stage_rules(
    sessions: int, days: float, disclosures: int, kinds: int, expected: str
) -> None:
    assert rules.stage(sessions, days, disclosures, kinds) == expected


def test_style_rules() -> None:
    terse = rules.style(turns=10, words=80, structured=1, asked=2, answered=2)
    assert terse.verbosity == "terse" and not terse.provides_structured_data
    assert terse.responds_to_follow_ups is None  # fewer than three questions: not known
    verbose = rules.style(turns=4, words=200, structured=2, asked=4, answered=1)
    assert verbose.verbosity == "verbose" and verbose.provides_structured_data
    assert verbose.responds_to_follow_ups is False


@pytest.mark.parametrize(
    ("text", "topics"),
    [
        ("I'd rather not talk about my divorce.", ["my divorce"]),
        ("Honestly I don't know anything about cars, sorry.", ["cars"]),
        ("Let's not discuss work today.", ["work today"]),
        ("I would love to talk about my garden.", []),
    ],
)
def test_declined_topics(text: str, topics: list[str]) -> None:
    assert list(signals.read(text, 0).declined) == topics


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Please call me Bea.", "Bea"),
        ("Hi, my name is Joanna and I'm new here.", "Joanna"),
        ("They call me at noon.", None),
        ("my name is not important", None),
    ],
)
def test_preferred_name(text: str, name: str | None) -> None:
    assert signals.read(text, 0).name == name


def test_profile_line_is_pruned_style_first() -> None:
    from graph.recall.block import BlockParts, compose

    parts = BlockParts(
        "[NOW] 2026-01-01 00:00 UTC (Thursday)",
        "[USER] u — Bea",
        profile=("Bea knows violin (expert)", "nursing (moderate)", "style: terse"),
    )
    full = compose(parts, None)
    assert full.text.endswith(
        "[PROFILE] Bea knows violin (expert); nursing (moderate); style: terse"
    )
    shorter = compose(parts, full.tokens - 1)
    assert shorter.text.endswith("[PROFILE] Bea knows violin (expert); nursing (moderate)")
    assert shorter.pruned == ["profile"]


def test_disclosures_and_specifics() -> None:
    assert signals.read("My mom was in the hospital and I was so scared.", 0).disclosures == (
        "family",
        "feelings",
    )
    assert signals.read("The weather is nice.", 0).disclosures == ()
    assert signals.read("We met in 1998.", 0).specific
    assert signals.read("I glaze with celadon slips.", 0).specific  # a domain term
    assert not signals.read("I like it a lot, it is fun.", 0).specific


def test_temporal_buckets_fit_the_span() -> None:
    from datetime import UTC, datetime

    def at(*parts: int) -> float:
        return datetime(*parts, tzinfo=UTC).timestamp()  # type: ignore[misc]

    assert coverage.temporal([at(2023, 5, 1), at(2023, 5, 9), at(2023, 7, 1)]) == (
        ("2023-05", 2),
        ("2023-07", 1),
    )
    assert coverage.temporal([at(2019, 1, 1), at(2023, 5, 1)]) == (("2019", 1), ("2023", 1))
    assert coverage.temporal([at(1750, 1, 1), at(1755, 1, 1), at(1990, 1, 1)]) == (
        ("1750s", 2),
        ("1990s", 1),
    )


def test_gaps_are_ranked_by_kind_with_questions() -> None:
    rows = coverage.Rows(
        memories=[("m1", 0.0, None)],
        entities=[
            coverage.IndexedEntity("person:x", "person", "Ann's husband", True, 4, ("s1",)),
        ],
        relations=[coverage.IndexedRelation("Ann", "VISITED", "Paris", "place", ("m1",))],
        threads=[OpenThreads("s1", 5.0, ("Ann: Did you call the vet?",))],
    )
    index = coverage.build(rows, 10.0)
    kinds = [g.kind for g in index.gaps]
    assert kinds[:3] == ["OPEN_THREAD", "UNNAMED_PERSON", "UNTIMED_FACT"]
    assert index.gaps[1].question == "What is the name of Ann's husband?"
    assert index.gaps[2].question == "When did Ann visit Paris?"
    travel = next(c for c in index.categories if c.name == "travel")
    assert (travel.entry_count, travel.weak) == (1, ("places visited",))
    assert coverage.from_json(coverage.to_json(index)) == index


def test_index_shares_fold_by_domain_and_merge_both_ends() -> None:
    """An occasion's share splits its turns by domain; a relation read from both its ends is one
    relation; folding the shares gives the rows an index is built from."""
    from graph.profile.coverage_tally import CoverageTally, fold, tally_coverage
    from graph.records import CoverageMention, CoverageRelation, MemoryRecord

    def turn(i: str, domain: str | None, event: float | None = None) -> MemoryRecord:
        return MemoryRecord(
            i, "u", "text", "Ann", None, 10.0, 10.0, None, 1, False, None, None, 10.0, 0,
            kind="turn", event_start=event, domain=domain,
        )  # fmt: skip

    mentions = [
        CoverageMention("a", "place:oslo", "place", "Oslo"),
        CoverageMention("b", "place:oslo", "place", "Oslo"),
    ]
    ends = ("person:ann", "Ann", "VISITED", "place:oslo", "Oslo", "place")
    relations = [CoverageRelation(*ends, ("a",)), CoverageRelation(*ends, ("a", "b"))]
    share = tally_coverage("s1", [turn("a", None, 5.0), turn("b", "trips")], mentions, relations)
    assert CoverageTally.from_json(share.to_json()) == share
    day = tally_coverage("2026-01-01", [turn("c", None)], [], [], day=True)
    everything = fold([share, day], None)
    assert [m[0] for m in everything.memories] == ["a", "b", "c"]
    assert everything.memories[0] == ["a", 10.0, 5.0]
    assert everything.relations == [
        coverage.IndexedRelation("Ann", "VISITED", "Oslo", "place", ("a", "b"))
    ]
    assert everything.entities[0].mentions == 2 and everything.entities[0].sessions == ("s1",)
    trips = fold([share, day], "trips")
    assert [m[0] for m in trips.memories] == ["b"] and trips.relations[0].evidence == ("b",)
    assert fold([share, day], "work").memories == []


def _said_by_definition(text: str, names: int) -> signals.Said:
    """Every signal straight from its expression over the whole text: no gate, nothing shared."""
    from extraction.lexicon import DAYS_AND_MONTHS

    said = signals._ASIDE.sub("", text).strip()
    words = signals._WORD.findall(said)
    dated = bool(signals._YEAR.search(said)) or any(w.lower() in DAYS_AND_MONTHS for w in words)
    structured = names > 0 or dated or bool(signals._NUMBER.search(said))
    terms = [
        w
        for w in words
        if w.islower() and len(w) > 4 and "'" not in w and signals._zipf(w) < signals.RARE_ZIPF
    ]
    declined = []
    for match in signals._DECLINED.finditer(said):
        topic = (match.group("topic") or match.group("unknown") or "").split()[:6]
        if topic:
            declined.append(" ".join(topic).lower())
    named = signals._NAMED.findall(said)
    return signals.Said(
        words=len(said.split()),
        specific=structured or bool(terms),
        structured=structured,
        declined=tuple(declined),
        name=named[-1] if named else None,
        disclosures=tuple(k for k, p in signals.DISCLOSURES.items() if p.search(said)),
        question="?" in said,
    )


CRAFTED_TURNS = [
    "I'd rather not talk about my divorce.",
    "LET'S NOT DISCUSS WORK TODAY [laughs] ok?",
    "Honestly I don't know anything about cars, sorry.",
    "Please call me Bea. Actually, people call me Trixie.",
    "Hi, MY NAME IS Joanna and I'm new here; at work I go by Jo-Anne.",
    "My name's Kelvin, they call me at noon.",
    "My mom was in the hospital and I was so scared.",
    "I've been DIAGNOSED with anxiety; my ſister is a doctor.",
    "[photo of a cake] We met in 1998, on a Tuesday in March.",
    "I glaze with celadon slips, twenty of them.",
    "",
    "[only an aside]",
]


def test_a_turn_read_once_says_what_each_expression_says() -> None:
    """`read` (each signal once, expressions gated by the strings they need) equals the
    expressions searched over the whole text, on real turns of both datasets and on crafted
    ones that hit the rarer signals (a refusal, a name to be called by)."""
    from tests.shared_data import real_texts

    texts = real_texts(1500) + CRAFTED_TURNS
    hits = {"declined": 0, "name": 0, "disclosures": 0, "specific": 0}
    for text in texts:
        for names in (0, 1):
            expected = _said_by_definition(text, names)
            assert signals.read(text, names) == expected, text
        hits["declined"] += bool(expected.declined)
        hits["name"] += expected.name is not None
        hits["disclosures"] += bool(expected.disclosures)
        hits["specific"] += expected.specific
    assert min(hits.values()) >= 3, hits  # every gated signal was seen to match


def test_a_question_counts_as_answered_by_the_next_speaker_who_says_something() -> None:
    """A question put by one speaker, answered by another's next turn (four words or more, no
    refusal); a refusal is asked but not answered, and a turn without a speaker breaks the pair."""
    from graph.ids import MemoryId
    from graph.profile.tally import tally_session
    from graph.records import MemoryRecord

    said = [
        ("Ann", "How was the trip to Norway?"),
        ("Bo", "It was great, we saw the falls."),
        ("Ann", "[photo of a fjord] Any plans for the summer?"),
        ("Bo", "I'd rather not talk about the summer."),
        ("Ann", "Did you see the game?"),
        (None, "Ann shared a link."),
        ("Bo", "Yes, what a match that was!"),
        ("Bo", "Did you?"),
        ("Ann", "Not yet."),
    ]
    turns = [
        MemoryRecord(MemoryId(f"m{i}"), "u", text, speaker, "s1", 1e9 + i, 1e9 + i, None, 1, False)
        for i, (speaker, text) in enumerate(said)
    ]
    tally = tally_session("s1", turns, {}, [])
    bo, ann = tally.speakers["Bo"], tally.speakers["Ann"]
    assert (bo.asked, bo.answered) == (2, 1)  # the trip answered, the summer refused
    assert (ann.asked, ann.answered) == (1, 0)  # "Not yet." says too little
    assert bo.declined == [["the summer", "m3"]]


# -- any date the API accepts (issue 58) -----------------------------------------------------------


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
def test_a_day_name_reads_back_as_its_day_for_any_year(moment: datetime) -> None:
    """`day_of` names the UTC day with a four-digit year; the fold reads the name back
    (`day_turn_ids`) and the stored days sort as strings in time."""
    stamp = moment.replace(tzinfo=UTC).timestamp()
    day = day_of(stamp)
    start = datetime.combine(date.fromisoformat(day), time(), tzinfo=UTC).timestamp()
    assert len(day) == 10 and start <= stamp < start + 86_400


def test_a_memory_of_any_accepted_date_gets_its_user_a_profile(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> None:
    """The year 147 broke the user's profile for good (the day's name did not parse back)."""
    api, _ = open_api(tmp_path_factory.mktemp("dates"), extractor, embedder)
    try:
        said = "I work as a potter and I make stoneware bowls."
        whens = ["0147-07-28T10:00:00Z", "2024-02-29T12:00:00Z", "9999-12-31T10:00:00+14:00"]
        for when in whens:
            memory = {
                "userId": "old",
                "speaker": "Ode",
                "text": f"{said} {when}",
                "occurredAt": when,
            }
            api.ok(REMEMBER, inputs=[memory])
        api.runtime.service.drain()
        days = [d.name for d in api.runtime.store.profiles.day_tallies("old")]
        assert days == ["0147-07-28", "2024-02-29", "9999-12-30"]
        profile = api.ok(PROFILE, u="old", speaker=None)["profile"]
        assert profile["built"] and profile["entriesContributed"] == 3
        assert profile["lastActiveAt"].startswith("9999-12-30")
    finally:
        close_api(api)


# the API's range: years 1-9999 and offsets from -12:00 to +14:00 (a moment near either end
# whose UTC day falls outside those years is refused by name, never stored)
MOMENTS = st.builds(
    lambda moment, minutes: moment.replace(tzinfo=timezone(timedelta(minutes=minutes))),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59)),
    st.integers(-12 * 60, 14 * 60),
)
EVERYWHERE = """query($u: ID!, $m: String!, $asOf: DateTime) {
  context(userId: $u, message: $m, asOf: $asOf) { text }
  profile(userId: $u) { built lastActiveAt }
  knowledgeIndex(userId: $u) { totalEntries temporalCoverage { period count } } }"""


@pytest.fixture(scope="module")
def dated(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(tmp_path_factory.mktemp("dated"), extractor, embedder)
    yield api
    close_api(api)


EDGES = (
    datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-12))),  # UTC year 10000
    datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=14))),  # UTC year 0
    datetime(9999, 12, 31, 23, 59, tzinfo=UTC),
    datetime(1, 1, 1, 0, 0, tzinfo=timezone(timedelta(hours=-12))),
)


def _in_utc_years(moment: datetime) -> bool:
    return EARLIEST <= moment.timestamp() <= LATEST


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@example(first=EDGES[0], second=EDGES[2], ask=EDGES[3])
@example(first=EDGES[2], second=EDGES[3], ask=EDGES[1])
@example(first=EDGES[3], second=EDGES[2], ask=EDGES[2])
@given(first=MOMENTS, second=MOMENTS, ask=MOMENTS)
def test_any_accepted_moment_works_through_writes_sessions_profiles_index_and_context(
    dated: Api, first: datetime, second: datetime, ask: datetime
) -> None:
    """Generated dates through the real engine: two turns of a session at any two moments, the
    session ended, then context (asOf any moment, before the first memory included), the profile
    and the index answer without an error of ours. A moment whose UTC day leaves the years 1 to
    9999 (9999-12-31T23:00-12:00) is refused by name; it failed everywhere it was shown."""
    user = f"d{abs(hash((first, second, ask))) % 10**9}"
    turns = [
        {"userId": user, "speaker": "Ode", "sessionId": "s", "occurredAt": when.isoformat(),
         "text": text}
        for when, text in ((first, "I moved to Lisbon with my dog Rex."),
                           (second, "I work as a potter in Lisbon."))
    ]  # fmt: skip
    body = dated.raw(REMEMBER, inputs=turns)
    if not (_in_utc_years(first) and _in_utc_years(second)):
        [error] = body["errors"]
        assert error["extensions"]["code"] == "BAD_USER_INPUT", error
        assert "occurredAt: falls outside the years 1 to 9999" in error["message"], error
        return
    assert "errors" not in body, body["errors"]
    dated.ok(END, u=user, s="s")
    dated.runtime.service.drain()
    answer = dated.raw(EVERYWHERE, u=user, m="Where do I live?", asOf=ask.isoformat())
    if not _in_utc_years(ask):
        assert {e["extensions"]["code"] for e in answer["errors"]} == {"BAD_USER_INPUT"}
        assert "asOf: falls outside the years 1 to 9999" in answer["errors"][0]["message"]
        return
    assert "errors" not in answer, answer["errors"]
    data = answer["data"]
    assert data["context"]["text"].startswith("[NOW] ")
    assert data["profile"]["built"]
    assert data["knowledgeIndex"]["totalEntries"] == 2
