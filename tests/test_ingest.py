"""`remember` and `rememberMany` end to end: order, idempotency, validation that writes nothing,
and the session chain, on the real engine and models."""

from __future__ import annotations

from typing import Any

import pytest

from graph.memory_facts import UserFacts
from tests.conftest import Api
from tests.conversation import USER, turns
from tests.documents import REMEMBER, REMEMBER_MANY


def test_remember_many_returns_memories_in_order(remembered: list[dict[str, Any]]) -> None:
    assert len(remembered) == len(turns())
    assert [m["externalId"] for m in remembered] == [t["externalId"] for t in turns()]
    assert remembered[2]["speaker"] == "Alice Smith"
    assert remembered[2]["occurredAt"].startswith("2026-10-01T09:02:00")
    keys = {e["key"] for e in remembered[2]["entities"]}
    assert {"person:alice_smith", "person:mary", "place:boston"} <= keys


def test_idempotent_by_external_id_and_by_text(api: Api, remembered: list[dict[str, Any]]) -> None:
    again = api.ok(REMEMBER_MANY, inputs=turns()[:3])["rememberMany"]
    assert [m["id"] for m in again] == [m["id"] for m in remembered[:3]]
    first = api.ok(REMEMBER, input={"userId": USER, "text": "I collect vintage stamps."})
    second = api.ok(REMEMBER, input={"userId": USER, "text": "  i collect   VINTAGE stamps. "})
    assert first["remember"]["id"] == second["remember"]["id"]
    count = api.runtime.store.count_memories(USER)
    api.ok(REMEMBER, input={"userId": USER, "text": "I collect vintage stamps."})
    assert api.runtime.store.count_memories(USER) == count


BAD_INPUTS = [
    ({"userId": USER, "text": "   "}, "BAD_USER_INPUT", "text: must not be empty"),
    ({"userId": USER, "text": "x" * 20_001}, "BAD_USER_INPUT", "at most 20000"),
    ({"userId": USER, "text": "ok", "importance": 4}, "BAD_USER_INPUT", "importance: is 4"),
    ({"userId": USER, "text": "ok", "importance": -1}, "BAD_USER_INPUT", "allowed 0 to 3"),
    ({"userId": USER, "text": "ok", "occurredAt": "last tuesday"}, "BAD_USER_INPUT", "ISO 8601"),
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


@pytest.mark.parametrize("external", ["turn-1\r", " padded ", "tab\tinside\n", "ÿ\u0085\u3000"])
def test_any_external_id_is_one_memory_and_leaves_the_engine_up(api: Api, external: str) -> None:
    """Found by the fuzzer: FalkorDB's uniqueness constraint took the engine down on a value with
    leading or trailing whitespace or control characters; the graph now holds a digest unique
    (graph/batch.py external_key), so every externalId the API accepts works, once."""
    said = {"userId": USER, "text": f"I fixed the fence ({external!r}).", "externalId": external}
    first = api.ok(REMEMBER, input=said)["remember"]
    again = api.ok(REMEMBER, input=said)["remember"]
    assert first["id"] == again["id"] and first["externalId"] == external
    assert api.runtime.executor.ping()


def test_a_bad_date_written_inline_says_the_accepted_form(api: Api) -> None:
    """Inline in the document as in a variable: the client reads what is accepted, not the
    parser's words ("invalid literal for int() with base 10")."""
    body = api.raw(
        'mutation { remember(input: {userId: "u", text: "ok", occurredAt: "yesterday"}) { id } }'
    )
    error = body["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "'yesterday' is not a date-time; expected ISO 8601" in error["message"]
    assert "invalid literal" not in error["message"]


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


def _links(api: Api, ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
    """Session links as scoring reads them (the service's copy), which must equal the graph's."""
    held = api.runtime.service.caches.turn_neighbours(USER, ids)[0]
    assert held == UserFacts.load(api.runtime.store.user_facts(USER)).neighbours(ids)[0]
    return held


def test_session_turns_are_chained_in_order(api: Api, remembered: list[dict[str, Any]]) -> None:
    ids = [m["id"] for m in remembered]
    links = _links(api, [ids[3], ids[9], ids[10]])
    assert links[ids[3]] == (ids[2], ids[4])
    # turn 9 ends the first session and turn 10 opens the next: no link across sessions
    assert links[ids[9]] == (ids[8], None)
    assert links[ids[10]] == (None, ids[11])


def test_forget_closes_the_gap_in_the_session_chain(api: Api) -> None:
    made = api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": USER, "sessionId": "gap", "speaker": "Ben Carter", "text": text}
            for text in ("Did you see the eclipse?", "No, it was cloudy.", "Next time then!")
        ],
    )["rememberMany"]
    first, middle, last = (m["id"] for m in made)
    assert _links(api, [middle])[middle] == (first, last)
    api.ok('mutation($id: ID!) { forget(userId: "alice", id: $id) }', id=middle)
    links = _links(api, [first, last])
    assert links == {first: (None, last), last: (first, None)}
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
    assert _links(api, [more[0]["id"]])[more[0]["id"]] == (last, None)


def test_a_bulk_import_has_its_lexical_base_built_before_the_first_question(api: Api) -> None:
    """On the real engine: a new user's large batch has its BM25 base built in the background,
    so the first context call does not pay for it; a small one's waits for the first query."""
    from graph.lexical import WARM_AFTER

    lexical = api.runtime.service.caches.lexical
    small = [{"userId": "warm-small", "text": f"I planted {n} tulips today."} for n in range(3)]
    api.ok(REMEMBER_MANY, inputs=small)
    assert "warm-small" not in lexical.resident()
    texts = [f"Day {n}: I practised the cello for {n % 7 + 1} hours." for n in range(WARM_AFTER)]
    api.ok(REMEMBER_MANY, inputs=[{"userId": "warm-bulk", "text": t} for t in texts])
    assert "warm-bulk" in lexical.resident()  # built once the background work settled
    assert len(lexical.get("warm-bulk")) == WARM_AFTER
