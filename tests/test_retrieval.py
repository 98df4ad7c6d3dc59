"""`context` end to end through POST /graphql: seeds, expansion, cued relations, scoring parts,
the token budget and the user line, on the real engine and models."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from graph.recall.config import PRESETS
from tests.conftest import Api
from tests.conversation import USER, text_of
from tests.documents import AS_OF, CONTEXT, REMEMBER, REMEMBER_MANY, context_of, relations_of, texts


@pytest.mark.parametrize(
    ("message", "expected", "card", "relation"),
    [
        ("Where does Mary live?", [2], "person:mary", ("LIVES_IN", "out", "place:boston")),
        ("Where does Mary work?", [4], "person:mary", ("FAMILY_OF", "in", "person:alice_smith")),
        (
            "What does Alice Smith do for work?",
            [6],
            "person:alice_smith",
            ("WORKS_AT", "out", "org:acme_corp"),
        ),
        ("How is Jake doing?", [9, 31], "person:jake", ("FAMILY_OF", "in", "person:ben_carter")),
        (
            "Tell me about the Denver Chess Club",
            [11],
            "org:denver_chess_club",
            ("MEMBER_OF", "in", "person:ben_carter"),
        ),
        (
            "Where does Priya live now?",
            [16, 18],
            "person:priya",
            ("LIVES_IN", "out", "place:toronto"),
        ),
        (
            "Is Linda still gardening?",
            [20],
            "person:linda",
            ("FAMILY_OF", "in", "person:alice_smith"),
        ),
        (
            "When does Project Apollo launch?",
            [26, 8],
            "project:project_apollo",
            ("WORKS_ON", "in", "person:alice_smith"),
        ),
    ],
)
def test_context_finds_the_expected_memories(
    api: Api,
    remembered: list[dict[str, Any]],
    message: str,
    expected: list[int],
    card: str,
    relation: tuple[str, str, str],
) -> None:
    block = context_of(api, message)
    top = texts(block)
    # at most maxMemories: the relevance floor leaves out what scores below it
    assert 0 < len(top) <= 8
    assert len(texts(context_of(api, message, minScore=0.0, minConfidence=0.0))) == 8
    for i in expected:
        assert text_of(i) in top, (message, text_of(i), top)
    assert card in block["seeds"]
    assert relation in relations_of(block, card)
    assert "[ENTITY CARDS]" in block["text"] and "[RELEVANT MEMORIES]" in block["text"]


def test_relation_cue_follows_the_asked_relation(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    block = context_of(api, "Where does Alice Smith work?")
    assert "org:acme_corp" in block["expanded"]
    work = [m for m in block["memories"] if m["memory"]["text"] == text_of(6)][0]
    assert "relation:WORKS_AT:org:acme_corp" in work["via"]
    # the structural match lifts similarity halfway from the cosine to 1
    assert work["similarity"] > 0.75


def test_an_uncued_type_lifts_no_evidence(api: Api, remembered: list[dict[str, Any]]) -> None:
    """The ablation knob `uncued` (bench/ablations.py): the message's words no longer cue the
    types named, so their relations' evidence is neither brought in nor lifted as cued."""
    PRESETS["test-uncued"] = replace(PRESETS["default"], uncued=frozenset({"WORKS_AT"}))
    try:
        block = context_of(api, "Where does Alice Smith work?", profile="test-uncued")
    finally:
        del PRESETS["test-uncued"]
    vias = [v for m in block["memories"] for v in m["via"]]
    assert not [v for v in vias if v.startswith("relation:WORKS_AT")], vias


def test_context_parts_and_via(api: Api, remembered: list[dict[str, Any]]) -> None:
    block = context_of(api, "Where does Mary live?", profile="spec")
    scores = [m["score"] for m in block["memories"]]
    assert scores == sorted(scores, reverse=True)
    first = block["memories"][0]
    expected = 0.4 * first["similarity"] + 0.3 * first["recency"] + 0.3 * first["frequency"]
    assert first["score"] == pytest.approx(expected, abs=1e-6)
    mary = [m for m in block["memories"] if m["memory"]["text"] == text_of(2)][0]
    assert "entity:person:mary" in mary["via"]
    assert 0 < mary["recency"] < 1


def test_token_budget_is_never_exceeded(api: Api, remembered: list[dict[str, Any]]) -> None:
    full = context_of(api, "Where does Mary live?")
    body = api.raw(CONTEXT, user=USER, message="Where does Mary live?", asOf=AS_OF, budget=1)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "needed for the time and user lines" in body["errors"][0]["message"]
    floor = int(body["errors"][0]["message"].split("at least ")[1].split()[0])
    for budget in (floor, floor + 20, 60, full["tokens"] - 10, full["tokens"] + 100):
        block = context_of(api, "Where does Mary live?", budget=budget)
        assert block["tokens"] <= budget
        assert block["text"].startswith("[NOW] 2026-10-16 00:00 UTC (Friday)\n[USER] alice")
        assert len(block["memories"]) <= len(full["memories"])
    # lowest-scoring memories go first: what is kept is a prefix of the full ranking
    cut = context_of(api, "Where does Mary live?", budget=full["tokens"] - 10)
    assert texts(cut) == texts(full)[: len(cut["memories"])]


def test_max_memories_and_custom_weights(api: Api, remembered: list[dict[str, Any]]) -> None:
    block = api.ok(
        """query { context(userId: "alice", message: "Mary", maxMemories: 3,
           asOf: "2026-10-16T00:00:00Z",
           weights: {similarity: 1, recency: 0, frequency: 0, neighbours: 0}) {
           memories { score similarity } } }"""
    )["context"]
    assert len(block["memories"]) == 3
    for m in block["memories"]:
        assert m["score"] == pytest.approx(m["similarity"], abs=1e-6)


def test_as_of_excludes_later_memories(api: Api, remembered: list[dict[str, Any]]) -> None:
    block = context_of(api, "Where does Mary live?", asOf="2026-10-05T00:00:00Z")
    assert block["memories"]
    assert text_of(28) not in texts(block)
    # a turn stamped a few hours after asOf (said at 12:00) is no future: clocks and time zones
    # disagree by that much; a day and more after it is
    question = "Who is coming to visit us in Seattle for Thanksgiving?"
    assert text_of(28) in texts(context_of(api, question, asOf="2026-10-15T06:00:00Z"))
    assert text_of(28) not in texts(context_of(api, question, asOf="2026-10-14T06:00:00Z"))


def test_lexical_similarity_finds_rare_words(api: Api, remembered: list[dict[str, Any]]) -> None:
    block = api.ok(
        """query { context(userId: "alice", message: "kindergarten", maxMemories: 3,
           asOf: "2026-10-16T00:00:00Z",
           weights: {similarity: 1, recency: 0, frequency: 0, lexical: 1, neighbours: 0}) {
           memories { similarity via memory { text } } } }"""
    )["context"]
    first = block["memories"][0]
    assert first["memory"]["text"] == text_of(24)
    assert "lexical" in first["via"] and first["similarity"] == pytest.approx(1.0)


def test_neighbour_share_is_added_to_the_score(api: Api, remembered: list[dict[str, Any]]) -> None:
    block = api.ok(
        """query { context(userId: "alice", message: "Is Emma excited about school?",
           asOf: "2026-10-16T00:00:00Z", profile: "spec", weights: {neighbours: 0.5}) {
           memories { score similarity recency frequency neighbour memory { text } } } }"""
    )["context"]
    texts = [m["memory"]["text"] for m in block["memories"]]
    assert text_of(24) in texts and text_of(25) in texts
    for m in block["memories"]:
        base = 0.4 * m["similarity"] + 0.3 * m["recency"] + 0.3 * m["frequency"]
        assert m["score"] == pytest.approx(base + m["neighbour"], abs=1e-6)
    assert any(m["neighbour"] > 0 for m in block["memories"])


def test_the_user_line_names_the_speaker_with_most_turns_as_writes_change_it(api: Api) -> None:
    """The main speaker is counted by the graph once, then followed by writes and forgets."""
    user = "speakers"

    def name() -> str:
        """The user line up to its first clause: writes without a session build a profile in
        the background, whose stage may follow ("; relationship NEW")."""
        text = api.ok(CONTEXT, user=user, message="hello")["context"]["text"]
        return str(text.splitlines()[1]).split(";")[0]

    def say(speaker: str, text: str) -> str:
        made = api.ok(REMEMBER, input={"userId": user, "speaker": speaker, "text": text})
        return str(made["remember"]["id"])

    say("Bea", "I planted tomatoes.")
    say("Bea", "The tomatoes are red now.")
    say("Cal", "I fixed the fence.")
    assert name() == "[USER] speakers — Bea"  # counted by the graph, now cached
    cal = [say("Cal", "The gate squeaks."), say("Cal", "I oiled the gate.")]
    assert name() == "[USER] speakers — Cal"  # the cache followed the writes
    api.ok('mutation($id: ID!) { forget(userId: "speakers", id: $id) }', id=cal[0])
    assert name() == "[USER] speakers — Bea"  # 2 to 2 after the forget: ties go by name
    api.ok('mutation { forgetUser(userId: "speakers") }')
    assert name() == "[USER] speakers"


def test_context_reads_of_a_hub_entity_are_bounded(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    """Cards keep their strongest relations plus every cued one; cued evidence keeps the newest
    ids of each relation — against the real engine, compared with the unbounded reads."""
    store = api.runtime.store
    catalog = store.catalog(USER)
    full = store.entities(USER, [e.key for e in catalog])
    hub = max(full.values(), key=lambda card: len(card.relations))
    assert len(hub.relations) > 3, "the conversation has no entity with enough relations"
    cued = hub.relations[-1].type  # a type among its weakest relations
    bounded = store.entities(USER, [hub.key], max_relations=2, cued=[cued])[hub.key]
    expected = [r for i, r in enumerate(hub.relations) if i < 2 or r.type == cued]
    assert list(bounded.relations) == expected
    assert len(bounded.relations) < len(hub.relations)

    # a relation restated three times: its evidence list grows, and only the newest id is read
    said = [
        api.ok(REMEMBER, input={"userId": "restated", "speaker": "Ann", "text": text})
        for text in (
            "My sister Mary lives in Boston.",
            "My sister Mary still lives in Boston.",
            "My sister Mary lives in Boston, near the river.",
        )
    ]

    def lives_in(evidence: int) -> list[tuple[str, ...]]:
        card = store.entities("restated", ["person:mary"], evidence=evidence)["person:mary"]
        return [r.evidence for r in card.relations if r.type == "LIVES_IN"]

    assert lives_in(1_000) == [tuple(s["remember"]["id"] for s in said)]
    assert lives_in(1) == [(said[-1]["remember"]["id"],)]


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ('{ context(userId: "alice", message: "") { text } }', "message: must not be empty"),
        ('{ context(userId: "alice", message: "hi", maxMemories: 0) { text } }', "maxMemories"),
        ('{ context(userId: "alice", message: "hi", tokenBudget: 0) { text } }', "tokenBudget"),
        ('{ context(userId: "alice", message: "hi", profile: "magic") { text } }', "profile"),
        (
            '{ context(userId: "alice", message: "hi", weights: {similarity: -1}) { text } }',
            "weights",
        ),
    ],
)
def test_bad_context_arguments(api: Api, query: str, fragment: str) -> None:
    body = api.raw(query)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert fragment in body["errors"][0]["message"]


def _say(api: Api, user: str, turns: list[tuple[str, str]]) -> None:
    """(speaker, text) turns of one session, remembered in order as t0, t1, …"""
    inputs = [
        {"userId": user, "speaker": s, "text": t, "sessionId": "s1", "externalId": f"t{i}"}
        for i, (s, t) in enumerate(turns)
    ]
    api.ok(REMEMBER_MANY, inputs=inputs)


def _lifted_by_speaker(block: dict[str, Any]) -> bool:
    return any(v.startswith("speaker:") for m in block["memories"] for v in m["via"])


def test_what_the_asked_about_person_said_comes_first(api: Api) -> None:
    """Two speakers say nearly the same thing; a question about one of them ranks that one's own
    words first (the graph records who said each memory), whichever of the two is asked."""
    user = "speaker-lift"
    turns = [
        ("Ann", "Work has been hectic, so I go running by the river to de-stress."),
        ("Bea", "Funny, running by the river is how I de-stress after work too."),
        ("Ann", "We should meet there some morning."),
        ("Bea", "Yes! Saturday works for me."),
    ]
    _say(api, user, turns)
    for name, own in (("Ann", "t0"), ("Bea", "t1")):
        block = api.ok(CONTEXT, user=user, message=f"What does {name} do to de-stress?")["context"]
        first = block["memories"][0]
        assert first["memory"]["externalId"] == own, (name, block["memories"][:2])
        assert f"speaker:person:{name.lower()}" in first["via"]
        # without the graph the lift is off: no memory says why by its speaker
        plain = api.ok(
            CONTEXT, user=user, message=f"What does {name} do to de-stress?", profile="nograph"
        )["context"]
        assert not _lifted_by_speaker(plain)


def test_a_question_in_the_first_person_lifts_what_the_asker_said(api: Api) -> None:
    """An agent says who is asking: "I" in the question is that speaker, and their own turns
    come before the assistant's reply about the same thing (`default`'s trees weigh who said a
    turn, `manual` lifts it); "what did you tell me" is about the listener's words, and no turn
    is the asker's for it."""
    user = "asker-lift"
    turns = [
        ("User", "I picked up a snake plant and a fern at the garden centre last weekend."),
        ("Assistant", "A snake plant and a fern from the garden centre are great picks, enjoy!"),
        ("User", "Thanks. How often should they be watered?"),
        ("Assistant", "Water the snake plant every two weeks and keep the fern's soil moist."),
    ]
    _say(api, user, turns)
    ask = """query($user: ID!, $message: String!, $speaker: String, $profile: String) {
      context(userId: $user, message: $message, speaker: $speaker, maxMemories: 4,
              profile: $profile) { memories { via memory { externalId } } } }"""
    question = "Which plants did I get at the garden centre?"
    block = api.ok(ask, user=user, message=question, speaker="User")["context"]
    first = block["memories"][0]
    assert first["memory"]["externalId"] == "t0", block["memories"][:2]
    assert "speaker:person:user" in first["via"]
    told = api.ok(
        ask, user=user, message="What did you tell me about watering them?", speaker="User"
    )["context"]
    assert not _lifted_by_speaker(told)
    # without the graph nothing is lifted by its speaker
    plain = api.ok(ask, user=user, message=question, profile="nograph", speaker="User")
    assert not _lifted_by_speaker(plain["context"])


def test_a_call_without_a_speaker_is_asked_by_the_main_speaker_never_the_agent(api: Api) -> None:
    """User and Assistant alternate, two turns each: the tie would go to "Assistant" by name, but
    an agent's own voice is never the user. So the `[USER]` line names User, and a call that
    names no speaker is asked by User: "I" is User, whose turn comes first."""
    user = "default-asker"
    turns = [
        ("Assistant", "Welcome back! Did you get to the garden centre last weekend?"),
        ("User", "I picked up a snake plant and a fern at the garden centre last weekend."),
        ("Assistant", "A snake plant and a fern from the garden centre are great picks, enjoy!"),
        ("User", "Thanks, I will."),
    ]
    _say(api, user, turns)
    ask = """query($user: ID!, $message: String!) { context(userId: $user, message: $message,
      maxMemories: 4) { text memories { via memory { externalId } } } }"""
    block = api.ok(ask, user=user, message="Which plants did I get at the garden centre?")
    context = block["context"]
    assert context["text"].splitlines()[1].startswith(f"[USER] {user} — User;")
    first = context["memories"][0]
    assert first["memory"]["externalId"] == "t1", context["memories"][:2]
    assert "speaker:person:user" in first["via"]
    # a contraction is the first person too
    contracted = api.ok(ask, user=user, message="I'm curious which plants came from the centre?")
    assert any("speaker:person:user" in m["via"] for m in contracted["context"]["memories"]), (
        contracted
    )
    # with the default asker off (a preset of the bench), nothing knows who "I" is
    PRESETS["test-no-asker"] = replace(PRESETS["default"], default_asker=False)
    try:
        ask_as = ask.replace("maxMemories: 4)", 'maxMemories: 4, profile: "test-no-asker")')
        plain = api.ok(ask_as, user=user, message="Which plants did I get at the garden centre?")
        assert not _lifted_by_speaker(plain["context"])
    finally:
        del PRESETS["test-no-asker"]


def test_a_hubs_card_reads_its_relations_only_when_the_message_asks_for_them(api: Api) -> None:
    """An entity mentioned more often than the hub cut-off (the user) relates to thousands of
    others; a context card of it reads none of them unless the message names it and cues a
    type — then those of the cued type are there. Other entities' cards are read as before."""
    from dataclasses import replace

    from graph.recall.config import DEFAULT_CONFIG
    from graph.recall.retrieval import ContextRequest, retrieve

    user = "hub-cards"
    _say(
        api,
        user,
        [
            ("Dana", "I work at Acme Corp as a nurse."),
            ("Dana", "My friend Priya works at Globex."),
            ("Dana", "I play tennis with Priya on Sundays."),
        ],
    )
    service = api.runtime.service
    dana = service.store.entities(user, ["person:dana"], 20)["person:dana"]
    assert {r.type for r in dana.relations} >= {"WORKS_AT", "FRIEND_OF"}
    bare = service.store.entities(user, ["person:dana"], 20, bare=["person:dana"])["person:dana"]
    assert bare.relations == () and bare.mention_count == dana.mention_count

    hub = replace(DEFAULT_CONFIG, hub_mentions=2)  # Dana, in all three turns, is a hub here

    def card(message: str, config: Any) -> Any:
        result = retrieve(service, ContextRequest(user, message, config=config))
        return next(c for c in result.cards if c.key == "person:dana"), result

    plain, result = card("What about Dana?", hub)
    assert plain.relations == () and result.expanded == []
    cued, _ = card("Where does Dana work?", hub)
    assert "WORKS_AT" in {r.type for r in cued.relations}
    normal, result = card("What about Dana?", DEFAULT_CONFIG)
    assert normal.relations and result.expanded


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Where does Mary live?", 2),
        ("What does Alice Smith do for work?", 6),
        ("Tell me about the Denver Chess Club", 11),
    ],
)
def test_the_learnt_ranker_corrects_the_blend(
    api: Api, remembered: list[dict[str, Any]], message: str, expected: int
) -> None:
    """The shipped preset (graph/recall/ranker.py, the shipped model file) ranks the `manual`
    blend's candidates with the trees' correction: what answers stays near the top, and the
    scores are the trees', not the blend's."""
    open_floor = {"minScore": 0.0, "minConfidence": 0.0}
    learnt = context_of(api, message, **open_floor)
    blend = context_of(api, message, profile="manual", **open_floor)
    assert text_of(expected) in texts(learnt)[:3], texts(learnt)
    assert [m["score"] for m in learnt["memories"]] != [m["score"] for m in blend["memories"]]
