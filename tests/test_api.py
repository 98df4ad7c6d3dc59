"""End to end through POST /graphql: a real embedded engine, the real spaCy pipeline and MiniLM."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api
from tests.conversation import USER, text_of, turns

REMEMBER_MANY = """
mutation($inputs: [MemoryInput!]!) {
  rememberMany(inputs: $inputs) { id externalId text speaker occurredAt entities { key } }
}"""
REMEMBER = """
mutation($input: MemoryInput!) {
  remember(input: $input) { id text externalId importance pinned }
}"""
CONTEXT = """
query($user: ID!, $message: String!, $budget: Int, $max: Int, $asOf: DateTime,
      $profile: String! = "default") {
  context(userId: $user, message: $message, tokenBudget: $budget, maxMemories: $max,
          asOf: $asOf, profile: $profile) {
    text tokens seeds expanded
    entityCards { key type label mentionCount relations { type direction role count
                  target { key label } } }
    memories { score similarity recency frequency via memory { id text externalId } }
  }
}"""
AS_OF = "2026-10-16T00:00:00Z"


@pytest.fixture(scope="module")
def remembered(api: Api) -> list[dict[str, Any]]:
    data = api.ok(REMEMBER_MANY, inputs=turns())
    return list(data["rememberMany"])


def _context(api: Api, message: str, **extra: Any) -> dict[str, Any]:
    extra.setdefault("asOf", AS_OF)
    return dict(api.ok(CONTEXT, user=USER, message=message, **extra)["context"])


def _texts(block: dict[str, Any]) -> list[str]:
    return [m["memory"]["text"] for m in block["memories"]]


def _relations(block: dict[str, Any], key: str) -> set[tuple[str, str, str]]:
    card = next(c for c in block["entityCards"] if c["key"] == key)
    return {(r["type"], r["direction"], r["target"]["key"]) for r in card["relations"]}


def test_remember_many_returns_memories_in_order(remembered: list[dict[str, Any]]) -> None:
    assert len(remembered) == len(turns())
    assert [m["externalId"] for m in remembered] == [t["externalId"] for t in turns()]
    assert remembered[2]["speaker"] == "Alice Smith"
    assert remembered[2]["occurredAt"].startswith("2026-10-01T09:02:00")
    keys = {e["key"] for e in remembered[2]["entities"]}
    assert {"person:alice_smith", "person:mary", "place:boston"} <= keys


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
    block = _context(api, message)
    top = _texts(block)
    assert len(top) == 8
    for i in expected:
        assert text_of(i) in top, (message, text_of(i), top)
    assert card in block["seeds"]
    assert relation in _relations(block, card)
    assert "[ENTITY CARDS]" in block["text"] and "[RELEVANT MEMORIES]" in block["text"]


def test_relation_cue_follows_the_asked_relation(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    block = _context(api, "Where does Alice Smith work?")
    assert "org:acme_corp" in block["expanded"]
    work = [m for m in block["memories"] if m["memory"]["text"] == text_of(6)][0]
    assert "relation:WORKS_AT:org:acme_corp" in work["via"]
    # the structural match lifts similarity halfway from the cosine to 1
    assert work["similarity"] > 0.75


def test_context_parts_and_via(api: Api, remembered: list[dict[str, Any]]) -> None:
    block = _context(api, "Where does Mary live?", profile="spec")
    scores = [m["score"] for m in block["memories"]]
    assert scores == sorted(scores, reverse=True)
    first = block["memories"][0]
    expected = 0.4 * first["similarity"] + 0.3 * first["recency"] + 0.3 * first["frequency"]
    assert first["score"] == pytest.approx(expected, abs=1e-6)
    mary = [m for m in block["memories"] if m["memory"]["text"] == text_of(2)][0]
    assert "entity:person:mary" in mary["via"]
    assert 0 < mary["recency"] < 1


def test_mary_card_shows_the_family_role(api: Api, remembered: list[dict[str, Any]]) -> None:
    card = api.ok(
        '{ entity(userId: "alice", key: "person:mary") { label type mentionCount '
        "relations { type direction role target { key } } memories(first: 3) { text } } }"
    )["entity"]
    assert card["label"] == "Mary" and card["type"] == "person"
    assert card["mentionCount"] >= 4
    assert {
        "type": "FAMILY_OF",
        "direction": "in",
        "role": "sister",
        "target": {"key": "person:alice_smith"},
    } in card["relations"]
    assert [m["text"] for m in card["memories"]][0] == text_of(28)


def test_token_budget_is_never_exceeded(api: Api, remembered: list[dict[str, Any]]) -> None:
    full = _context(api, "Where does Mary live?")
    body = api.raw(CONTEXT, user=USER, message="Where does Mary live?", asOf=AS_OF, budget=1)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "needed for the time and user lines" in body["errors"][0]["message"]
    floor = int(body["errors"][0]["message"].split("at least ")[1].split()[0])
    for budget in (floor, floor + 20, 60, full["tokens"] - 10, full["tokens"] + 100):
        block = _context(api, "Where does Mary live?", budget=budget)
        assert block["tokens"] <= budget
        assert block["text"].startswith("[NOW] 2026-10-16 00:00 UTC (Friday)\n[USER] alice")
        assert len(block["memories"]) <= len(full["memories"])
    # lowest-scoring memories go first: what is kept is a prefix of the full ranking
    cut = _context(api, "Where does Mary live?", budget=full["tokens"] - 10)
    assert _texts(cut) == _texts(full)[: len(cut["memories"])]


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
    block = _context(api, "Where does Mary live?", asOf="2026-10-05T00:00:00Z")
    assert block["memories"]
    assert text_of(28) not in _texts(block)


def test_idempotent_by_external_id_and_by_text(api: Api, remembered: list[dict[str, Any]]) -> None:
    again = api.ok(REMEMBER_MANY, inputs=turns()[:3])["rememberMany"]
    assert [m["id"] for m in again] == [m["id"] for m in remembered[:3]]
    first = api.ok(REMEMBER, input={"userId": USER, "text": "I collect vintage stamps."})
    second = api.ok(REMEMBER, input={"userId": USER, "text": "  i collect   VINTAGE stamps. "})
    assert first["remember"]["id"] == second["remember"]["id"]
    count = api.runtime.store.count_memories(USER)
    api.ok(REMEMBER, input={"userId": USER, "text": "I collect vintage stamps."})
    assert api.runtime.store.count_memories(USER) == count


def test_entities_pagination_and_filters(api: Api, remembered: list[dict[str, Any]]) -> None:
    query = """query($after: String) { entities(userId: "alice", type: "person", first: 3,
               after: $after) { totalCount edges { cursor node { key type } }
               pageInfo { hasNextPage endCursor } } }"""
    seen: list[str] = []
    after = None
    while True:
        page = api.ok(query, after=after)["entities"]
        seen += [e["node"]["key"] for e in page["edges"]]
        assert all(e["node"]["type"] == "person" for e in page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == page["totalCount"]
    assert {"person:mary", "person:jake", "person:alice_smith", "person:ben_carter"} <= set(seen)
    found = api.ok('{ entities(userId: "alice", search: "chess") { edges { node { key } } } }')
    assert [e["node"]["key"] for e in found["entities"]["edges"]] == ["org:denver_chess_club"]


def test_entity_cards_are_batched(api: Api, remembered: list[dict[str, Any]]) -> None:
    executor = api.runtime.executor
    calls: list[str] = []
    original = executor.run

    def counting(name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        calls.append(name)
        return original(name, params)

    executor.run = counting  # type: ignore[method-assign]
    try:
        data = api.ok(
            '{ entities(userId: "alice", first: 20) { edges { node { key '
            "relations { target { key relations { type } } } } } } }"
        )
    finally:
        executor.run = original  # type: ignore[method-assign]
    assert len(data["entities"]["edges"]) == 20
    # the page, then one batch for all relation targets: not one query per card
    assert calls.count("get_entities") == 2
    assert calls.count("entity_relations") == 2


def test_pin_marks_memory_and_strengthens_its_relations(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    memory_id = remembered[9]["id"]  # "My brother Jake lives in Denver ..."
    pinned = api.ok(
        'mutation($id: ID!) { pin(userId: "alice", id: $id, pinned: true) { id pinned } }',
        id=memory_id,
    )["pin"]
    assert pinned == {"id": memory_id, "pinned": True}
    jake = api.runtime.store.entities(USER, ["person:jake"])["person:jake"]
    lives = [r for r in jake.relations if r.type == "LIVES_IN"]
    assert lives and lives[0].strong == 1
    api.ok(
        'mutation($id: ID!) { pin(userId: "alice", id: $id, pinned: false) { id } }', id=memory_id
    )
    jake = api.runtime.store.entities(USER, ["person:jake"])["person:jake"]
    assert [r for r in jake.relations if r.type == "LIVES_IN"][0].strong == 0


def test_forget_removes_memory_vector_and_orphans(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    runtime = api.runtime
    made = api.ok(
        REMEMBER,
        input={
            "userId": USER,
            "speaker": "Alice Smith",
            "text": "My cousin Rafael works at Initech in Lisbon.",
        },
    )["remember"]
    memory_id = made["id"]
    keys = {e.key for e in runtime.store.catalog(USER)}
    assert {"person:rafael", "org:initech", "place:lisbon"} <= keys
    assert memory_id in runtime.vectors.ids(USER)
    assert api.ok('mutation($id: ID!) { forget(userId: "alice", id: $id) }', id=memory_id) == {
        "forget": True
    }
    assert api.ok('query($id: ID!) { memory(userId: "alice", id: $id) { id } }', id=memory_id) == {
        "memory": None
    }
    keys = {e.key for e in runtime.store.catalog(USER)}
    assert not {"person:rafael", "org:initech", "place:lisbon"} & keys
    assert memory_id not in runtime.vectors.ids(USER)
    alice = runtime.store.entities(USER, ["person:alice_smith"])["person:alice_smith"]
    assert all(r.target != "person:rafael" for r in alice.relations)
    assert "person:alice_smith" in keys  # still backed by other memories


def test_forget_user_leaves_nothing(api: Api, remembered: list[dict[str, Any]]) -> None:
    runtime = api.runtime
    other = [
        {"userId": "zed", "text": t, "speaker": "Zed"}
        for t in ("I live in Oslo.", "My sister Ida works at Equinor.", "I love skiing.")
    ]
    api.ok(REMEMBER_MANY, inputs=other)
    before_alice = runtime.store.count_memories(USER)
    assert runtime.vectors.count("zed") == 3
    assert api.ok('mutation { forgetUser(userId: "zed") }') == {"forgetUser": 3}
    assert runtime.store.count_memories("zed") == 0
    assert runtime.store.catalog("zed") == []
    assert runtime.vectors.count("zed") == 0
    stem = runtime.vectors.stem_of("zed")
    assert not list(runtime.vectors.directory.glob(f"{stem}*"))
    assert runtime.store.count_memories(USER) == before_alice
    assert api.ok('mutation { forgetUser(userId: "zed") }') == {"forgetUser": 0}


BAD_INPUTS = [
    ({"userId": USER, "text": "   "}, "BAD_USER_INPUT", "text: must not be empty"),
    ({"userId": USER, "text": "x" * 20_001}, "BAD_USER_INPUT", "at most 20000"),
    ({"userId": USER, "text": "ok", "importance": 4}, "BAD_USER_INPUT", "importance: is 4"),
    ({"userId": USER, "text": "ok", "importance": -1}, "BAD_USER_INPUT", "allowed 0 to 3"),
    ({"userId": USER, "text": "ok", "occurredAt": "last tuesday"}, "BAD_USER_INPUT", "DateTime"),
    ({"userId": USER, "text": "ok", "category": "GOSSIP"}, "BAD_USER_INPUT", "category"),
    ({"userId": "", "text": "ok"}, "BAD_USER_INPUT", "userId: must not be empty"),
]


@pytest.mark.parametrize(("payload", "code", "message"), BAD_INPUTS)
def test_bad_input_is_rejected_and_writes_nothing(
    api: Api, remembered: list[dict[str, Any]], payload: dict[str, Any], code: str, message: str
) -> None:
    store = api.runtime.store
    before = store.count_memories(USER)
    body = api.raw(REMEMBER, input=payload)
    assert body["errors"][0]["extensions"]["code"] == code
    assert message in body["errors"][0]["message"]
    assert store.count_memories(USER) == before


def test_one_bad_input_rejects_the_whole_batch(api: Api, remembered: list[dict[str, Any]]) -> None:
    store = api.runtime.store
    before = store.count_memories(USER)
    body = api.raw(
        REMEMBER_MANY,
        inputs=[
            {"userId": USER, "text": "A perfectly good new memory about sailing."},
            {"userId": USER, "text": "", "externalId": "bad"},
        ],
    )
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "inputs[1].text" in body["errors"][0]["message"]
    assert store.count_memories(USER) == before


@pytest.mark.parametrize(
    "query",
    [
        'mutation { forget(userId: "alice", id: "0123456789abcdef") }',
        'mutation { forget(userId: "alice", id: "not-an-id") }',
        'mutation { pin(userId: "alice", id: "0123456789abcdef", pinned: true) { id } }',
    ],
)
def test_unknown_memory_is_not_found(api: Api, query: str) -> None:
    assert api.error_code(query) == "NOT_FOUND"


def test_other_users_memory_is_not_found(api: Api, remembered: list[dict[str, Any]]) -> None:
    memory_id = remembered[0]["id"]
    assert api.ok(
        'query($id: ID!) { memory(userId: "mallory", id: $id) { id } }', id=memory_id
    ) == {"memory": None}
    assert (
        api.error_code('mutation($id: ID!) { forget(userId: "mallory", id: $id) }', id=memory_id)
        == "NOT_FOUND"
    )
    block = api.ok(
        '{ context(userId: "mallory", message: "Where does Mary live?") '
        "{ memories { memory { id } } entityCards { key } } }"
    )["context"]
    assert block == {"memories": [], "entityCards": []}


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
        ('{ entities(userId: "alice", type: "planet") { totalCount } }', "type"),
        ('{ entities(userId: "alice", after: "%%%") { totalCount } }', "after"),
    ],
)
def test_bad_read_arguments(api: Api, query: str, fragment: str) -> None:
    body = api.raw(query)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert fragment in body["errors"][0]["message"]


def test_healthz(api: Api) -> None:
    response = api.client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["engine"] == {"kind": "embedded-falkordb", "ok": True, "restarts": 0}
    assert body["models"]["embedding"].startswith("sentence-transformers/all-MiniLM-L6-v2@")


def test_graphiql_is_served(api: Api) -> None:
    response = api.client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()


def test_session_turns_are_chained_in_order(api: Api, remembered: list[dict[str, Any]]) -> None:
    store = api.runtime.store
    ids = [m["id"] for m in remembered]
    links = store.neighbours(USER, [ids[3], ids[9], ids[10]])
    assert links[ids[3]] == (ids[2], ids[4])
    # turn 9 ends the first session and turn 10 opens the next: no link across sessions
    assert links[ids[9]] == (ids[8], None)
    assert links[ids[10]] == (None, ids[11])


def test_forget_closes_the_gap_in_the_session_chain(api: Api) -> None:
    store = api.runtime.store
    made = api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": USER, "sessionId": "gap", "speaker": "Ben Carter", "text": text}
            for text in ("Did you see the eclipse?", "No, it was cloudy.", "Next time then!")
        ],
    )["rememberMany"]
    first, middle, last = (m["id"] for m in made)
    assert store.neighbours(USER, [middle])[middle] == (first, last)
    api.ok('mutation($id: ID!) { forget(userId: "alice", id: $id) }', id=middle)
    assert store.neighbours(USER, [first, last]) == {first: (None, last), last: (first, None)}
    # a later batch in the same session continues the chain from its last turn
    more = api.ok(
        REMEMBER_MANY,
        inputs=[
            {
                "userId": USER,
                "sessionId": "gap",
                "speaker": "Alice Smith",
                "text": "Deal, the next one is in March.",
            }
        ],
    )["rememberMany"]
    assert store.neighbours(USER, [more[0]["id"]])[more[0]["id"]] == (last, None)


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
        text = api.ok(CONTEXT, user=user, message="hello")["context"]["text"]
        return str(text.splitlines()[1])

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
            "Mary lives in Boston.",
            "Mary still lives in Boston.",
            "Mary lives in Boston, near the river.",
        )
    ]
    everything = store.relation_evidence("restated", ["person:mary"], ["LIVES_IN"], limit=1_000)
    newest = store.relation_evidence("restated", ["person:mary"], ["LIVES_IN"], limit=1)
    assert [row["evidence"] for row in everything] == [[s["remember"]["id"] for s in said]]
    assert [row["evidence"] for row in newest] == [[said[-1]["remember"]["id"]]]
