"""Knowledge updates on the embedded engine with the real models: a fact that holds one value at a
time (home, employer, job, project, partner) is superseded by a newer value, keeps its evidence and
gets validTo; event order decides, not ingest order; forgetting the newer value undoes it."""

from __future__ import annotations

from typing import Any

import pytest

from graph.recall.stages import Evidence, time_lifts
from graph.recall.tense import Focus, focus
from tests.conftest import Api
from tests.documents import REMEMBER_MANY

CARD = """query($user: ID!, $key: String!) { entity(userId: $user, key: $key) {
  relations { type current validFrom validTo evidence { id } target { key } } } }"""
FORGET = "mutation($user: ID!, $id: ID!) { forget(userId: $user, id: $id) }"


def _say(api: Api, user: str, turns: list[tuple[str, str]]) -> list[str]:
    inputs = [
        {"userId": user, "speaker": "Alice", "text": text, "occurredAt": when}
        for when, text in turns
    ]
    return [m["id"] for m in api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]]


def _homes(api: Api, user: str) -> list[dict[str, Any]]:
    card = api.ok(CARD, user=user, key="person:alice")["entity"]
    assert card is not None
    return [r for r in card["relations"] if r["type"] in {"LIVES_IN", "MOVED_TO"}]


def test_a_move_supersedes_the_old_home_and_keeps_its_evidence(api: Api) -> None:
    user = "ku-move"
    boston, lisbon = _say(
        api,
        user,
        [
            ("2023-01-10T09:00:00Z", "I live in Boston with my two cats."),
            ("2023-06-01T09:00:00Z", "I moved to Lisbon last month for a new job."),
        ],
    )
    homes = _homes(api, user)
    # a move also says where one lives: MOVED_TO and LIVES_IN Lisbon, both current, come first
    assert [(h["target"]["key"], h["current"]) for h in homes] == [
        ("place:lisbon", True),
        ("place:lisbon", True),
        ("place:boston", False),
    ], "current facts come first, history after"
    old, new = homes[-1], homes[0]
    assert old["validTo"].startswith("2023-06-01") and old["validFrom"].startswith("2023-01-10")
    assert [e["id"] for e in old["evidence"]] == [boston], "a superseded fact keeps its evidence"
    assert new["validTo"] is None and new["validFrom"].startswith("2023-06-01")
    assert [e["id"] for e in new["evidence"]] == [lisbon]


def test_event_time_decides_and_forgetting_the_newer_value_undoes_it(api: Api) -> None:
    user = "ku-order"
    (lisbon,) = _say(api, user, [("2023-06-01T09:00:00Z", "I live in Lisbon now.")])
    # an older statement arrives later: it is history at once, ended by the newer one
    _say(api, user, [("2022-03-01T09:00:00Z", "I live in Denver.")])
    homes = {h["target"]["key"]: h for h in _homes(api, user)}
    assert homes["place:lisbon"]["current"] and not homes["place:denver"]["current"]
    assert homes["place:denver"]["validTo"].startswith("2023-06-01")
    api.ok(FORGET, user=user, id=lisbon)
    homes = {h["target"]["key"]: h for h in _homes(api, user)}
    assert set(homes) == {"place:denver"} and homes["place:denver"]["current"]


def test_facts_of_other_kinds_and_other_people_are_not_superseded(api: Api) -> None:
    user = "ku-many"
    _say(
        api,
        user,
        [
            ("2023-01-10T09:00:00Z", "I love pottery."),
            ("2023-02-10T09:00:00Z", "I love hiking too."),
            ("2023-03-10T09:00:00Z", "My sister Mary lives in Boston."),
            ("2023-04-10T09:00:00Z", "I live in Chicago."),
        ],
    )
    card = api.ok(CARD, user=user, key="person:alice")["entity"]
    likes = [r for r in card["relations"] if r["type"] == "LIKES"]
    assert len(likes) == 2 and all(r["current"] for r in likes)
    mary = api.ok(CARD, user=user, key="person:mary")["entity"]
    assert all(r["current"] for r in mary["relations"])
    assert [(h["target"]["key"], h["current"]) for h in _homes(api, user)] == [
        ("place:chicago", True)
    ]


ASK = """query($user: ID!, $message: String!) {
  context(userId: $user, message: $message, speaker: "Alice", maxMemories: 5,
          asOf: "2024-01-01T00:00:00Z") {
    text memories { memory { id } via }
    entityCards { key relations { type current target { key } } } } }"""


def test_context_prefers_the_current_value_now_and_the_old_one_for_the_past(api: Api) -> None:
    user = "ku-ask"
    boston, lisbon = _say(
        api,
        user,
        [
            ("2023-01-10T09:00:00Z", "I live in Boston, close to the river."),
            ("2023-06-01T09:00:00Z", "I moved to Lisbon in May."),
        ],
    )
    _say(api, user, [("2023-07-01T09:00:00Z", "The weather has been lovely all week.")])

    def ranked(message: str) -> list[str]:
        block = api.ok(ASK, user=user, message=message)["context"]
        return [m["memory"]["id"] for m in block["memories"]]

    now = ranked("Where do I live now?")
    assert now.index(lisbon) < now.index(boston) if boston in now else lisbon in now
    assert ranked("Where did I live before I moved?")[0] == boston
    assert ranked("Where did I live before Lisbon?")[0] == boston
    # the card shows the current home; history only when the message asks about the past, and
    # then marked as such
    block = api.ok(ASK, user=user, message="Where do I live these days?")["context"]
    assert "LIVES_IN→ Lisbon" in block["text"] and "LIVES_IN→ Boston" not in block["text"]
    block = api.ok(ASK, user=user, message="Where did I live before Lisbon?")["context"]
    assert "LIVES_IN→ Boston (until 2023-06-01)" in block["text"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Where do I live now?", Focus.PRESENT),
        ("What is my current job?", Focus.PRESENT),
        ("Am I still with Tom?", Focus.PRESENT),
        ("Where does Mary work?", Focus.PRESENT),
        ("Where did I live before Lisbon?", Focus.PAST),
        ("Where did Mary work?", Focus.PAST),
        ("What job did I have at first?", Focus.PAST),
        ("I used to work at Acme, right?", Focus.PAST),
        ("Tell me about Lisbon.", None),
    ],
)
def test_the_time_a_question_asks_about(message: str, expected: Focus | None) -> None:
    assert focus(message) is expected


def test_time_lifts_prefer_the_value_of_the_time_asked_about() -> None:
    def row(rel_type: str, valid_to: float | None, *ids: str) -> Evidence:
        return Evidence("p:a", rel_type, "x", "p:a", 1, 0, valid_to, ids)

    rows = [
        row("LIVES_IN", 5.0, "old"),
        row("MOVED_TO", None, "new", "both"),
        row("LIVES_IN", 9.0, "both"),
        row("LIKES", None, "hobby"),
    ]
    lifts = {"old": 0.1, "new": 0.1, "hobby": 0.1}
    assert time_lifts(rows, lifts, None, 0.5, 0.3) == lifts
    assert time_lifts(rows, lifts, Focus.PRESENT, 0.5, 0.3) == {**lifts, "old": -0.5}
    assert time_lifts(rows, lifts, Focus.PAST, 0.5, 0.3) == {**lifts, "old": 0.3, "new": -0.5}


MERGE = """mutation($user: ID!, $sources: [String!]!, $into: String!) {
  mergeEntities(userId: $user, sources: $sources, into: $into) { key } }"""


def test_a_merge_brings_a_newer_value_and_supersedes_the_old_one(api: Api) -> None:
    """Two names of one person, corrected by hand: the merged facts are one value at a time."""
    user = "ku-merge"
    inputs = [
        {"userId": user, "speaker": who, "text": text, "occurredAt": when}
        for when, who, text in [
            ("2023-01-10T09:00:00Z", "Alice", "I live in Boston."),
            ("2023-06-01T09:00:00Z", "Jo", "I live in Lisbon now."),
        ]
    ]
    api.ok(REMEMBER_MANY, inputs=inputs)
    assert all(h["current"] for h in _homes(api, user))
    api.ok(MERGE, user=user, sources=["person:jo"], into="person:alice")
    homes = {h["target"]["key"]: h for h in _homes(api, user)}
    assert homes["place:lisbon"]["current"] and not homes["place:boston"]["current"]
    assert homes["place:boston"]["validTo"].startswith("2023-06-01")


AS_OF_BLOCK = """query($user: ID!, $message: String!, $asOf: DateTime) {
  context(userId: $user, message: $message, speaker: "Alice", asOf: $asOf) {
    text entityCards { key relations { type current target { key } } } } }"""
END = "mutation($u: ID!, $s: ID!) { endSession(userId: $u, sessionId: $s) { sessionId } }"


def test_as_of_applies_to_the_cards_the_user_line_and_the_profile(api: Api) -> None:
    """Asked as of a moment before the move, the block knows nothing said after it: the card's
    home is the old one and current then, the new home is on no card, the user line names the
    last session before that moment, and the profile line folds only the sessions ended by
    then."""
    user = "ku-as-of"
    sessions = [
        ("s-winter", "2023-01-10T09:00:00Z", "I live in Boston, close to the river."),
        ("s-winter", "2023-01-10T09:05:00Z", "I work as a nurse at the city hospital."),
        ("s-summer", "2023-06-01T09:00:00Z", "I moved to Lisbon in May."),
        ("s-summer", "2023-06-01T09:05:00Z", "I've been learning Portuguese every day."),
    ]
    inputs = [
        {"userId": user, "speaker": "Alice", "text": text, "occurredAt": when, "sessionId": s}
        for s, when, text in sessions
    ]
    api.ok(REMEMBER_MANY, inputs=inputs)
    for session in ("s-winter", "s-summer"):
        api.ok(END, u=user, s=session)

    def block(as_of: str | None) -> dict[str, Any]:
        return dict(
            api.ok(AS_OF_BLOCK, user=user, message="Where do I live?", asOf=as_of)["context"]
        )

    now = block(None)
    then = block("2023-03-01T00:00:00Z")
    alice_now = next(c for c in now["entityCards"] if c["key"] == "person:alice")
    alice_then = next(c for c in then["entityCards"] if c["key"] == "person:alice")
    homes_now = {(r["target"]["key"], r["current"]) for r in alice_now["relations"]}
    homes_then = {(r["target"]["key"], r["current"]) for r in alice_then["relations"]}
    assert ("place:lisbon", True) in homes_now and ("place:boston", False) in homes_now
    assert ("place:boston", True) in homes_then
    assert not any(key == "place:lisbon" for key, _ in homes_then)
    assert "last session s-summer" in now["text"]
    assert "last session s-winter" in then["text"]
    assert "Lisbon" not in then["text"] and "Portuguese" not in then["text"]
    profile_now = next(line for line in now["text"].splitlines() if line.startswith("[PROFILE]"))
    profile_then = next(line for line in then["text"].splitlines() if line.startswith("[PROFILE]"))
    assert "Portuguese" in profile_now and "nurse" in profile_then
    assert "2023-06-01" not in then["text"]  # nor when Alice was last seen after it


def test_an_ending_makes_history_and_forgetting_it_undoes_it(api: Api) -> None:
    """ "I quit the book club" ends MEMBER_OF (kept, with its evidence, as history); stated again
    after, it holds again; forgetting the memory that ended it undoes the ending."""
    user = "ku-ending"
    joined, quit = _say(
        api,
        user,
        [
            ("2023-01-10T09:00:00Z", "I joined a book club in January."),
            ("2023-03-01T09:00:00Z", "I quit the book club, it took too much time."),
        ],
    )

    def club() -> dict[str, Any]:
        card = api.ok(CARD, user=user, key="person:alice")["entity"]
        return next(r for r in card["relations"] if r["type"] == "MEMBER_OF")

    ended = club()
    assert ended["current"] is False and ended["validTo"].startswith("2023-03-01")
    assert [e["id"] for e in ended["evidence"]] == [joined]
    api.ok(FORGET, user=user, id=quit)
    assert club()["current"] is True
