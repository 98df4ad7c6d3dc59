"""Confidence, the relevance floor and wrong-person notes through POST /graphql on the real engine
and models (issue 40): a question about something never said gets the "nothing relevant" block;
a question that gives one person's event to another gets the note and the conflict as data; one
key never sees the other user's conflicts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.recall.block import NOTHING_RELEVANT
from graph.recall.confidence import Signals
from graph.recall.config import PRESETS
from graph.recall.request import ContextRequest
from tests.conftest import Api, close_api, open_api
from tests.documents import REMEMBER_MANY

KEYS = {"mel": "key-mel", "bob": "key-bob", "ana": "key-ana", "sam": "key-sam"}
AS_OF = datetime(2026, 10, 16, tzinfo=UTC).timestamp()  # the GraphQL calls' asOf
CONTEXT = """
query($user: ID!, $message: String!, $minScore: Float, $minConfidence: Float) {
  context(userId: $user, message: $message, asOf: "2026-10-16T00:00:00Z", minScore: $minScore,
          minConfidence: $minConfidence) {
    text confidence
    conflicts { asked found relation target evidence note }
    memories { score floorScore memory { id text } }
  }
}"""
TURNS = [
    ("Melanie", "I ran a charity race for mental health last Saturday, it was tough."),
    ("Melanie", "I attended the charity race with my kids."),
    ("Melanie", "I'm going to the charity race again next year."),
    ("Caroline", "Wow Mel, that's amazing! How did it feel?"),
    ("Melanie", "The charity race made me realise that self-care really matters."),
    ("Caroline", "I went to an LGBTQ support group yesterday and it was powerful."),
    ("Caroline", "I'm thinking about adopting a child on my own."),
]


@pytest.fixture(scope="module")
def keyed(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(
        tmp_path_factory.mktemp("confidence"),
        extractor,
        embedder,
        api_keys=";".join(f"{k}={u}" for u, k in KEYS.items()),
    )
    _remember(api, "mel", TURNS, "s1", first_day=1)
    yield api
    close_api(api)


def _auth(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[user]}"}


def _remember(
    api: Api, user: str, turns: list[tuple[str, str]], session: str, first_day: int
) -> None:
    """`turns` (speaker, text) into one session of `user`'s, through their key, a day apart
    from 2026-10-`first_day` on."""
    inputs = [
        {
            "userId": user,
            "text": text,
            "speaker": speaker,
            "sessionId": session,
            "occurredAt": f"2026-10-{first_day + i:02d}T10:00:00Z",
        }
        for i, (speaker, text) in enumerate(turns)
    ]
    body = api.raw(REMEMBER_MANY, headers=_auth(user), inputs=inputs)
    assert "errors" not in body, body


def _context(api: Api, key: str, user: str, message: str, **extra: Any) -> dict[str, Any]:
    body = api.raw(CONTEXT, headers=_auth(key), user=user, message=message, **extra)
    assert "errors" not in body, body
    return dict(body["data"]["context"])


def test_a_question_about_something_never_said_gets_the_nothing_relevant_block(
    keyed: Api,
) -> None:
    block = _context(keyed, "mel", "mel", "How much does a ticket to Mars cost?")
    assert block["memories"] == []
    assert f"[RELEVANT MEMORIES]\n{NOTHING_RELEVANT}" in block["text"]
    assert 0.0 <= block["confidence"] < 0.3
    # with both floors at 0 the caller gets the nearest memories back, as before the floor
    everything = _context(
        keyed, "mel", "mel", "How much does a ticket to Mars cost?", minScore=0, minConfidence=0
    )
    assert everything["memories"] and NOTHING_RELEVANT not in everything["text"]


@pytest.mark.parametrize(
    "question", ["What is Melanie's blood type?", "Which bank holds Melanie's mortgage?"]
)
def test_a_question_naming_a_thing_no_memory_mentions_gets_the_nothing_relevant_block(
    keyed: Api, question: str
) -> None:
    """It names Melanie, whom the memory knows well, and a thing no memory mentions."""
    block = _context(keyed, "mel", "mel", question)
    assert block["memories"] == []
    assert f"[RELEVANT MEMORIES]\n{NOTHING_RELEVANT}" in block["text"]
    # a question about a thing the memory holds is answered
    held = _context(keyed, "mel", "mel", "Which kids did Melanie take to the race?")
    assert held["memories"] and held["confidence"] > 0.5 > block["confidence"]
    assert "kids" in " ".join(m["memory"]["text"] for m in held["memories"])


def test_a_question_giving_one_persons_event_to_another_gets_the_note(keyed: Api) -> None:
    block = _context(keyed, "mel", "mel", "What did Caroline realise after her charity race?")
    found = {(c["asked"], c["found"], c["target"]) for c in block["conflicts"]}
    assert found == {("person:caroline", "person:melanie", "topic:charity_race")}
    attended = next(c for c in block["conflicts"] if c["relation"] == "ATTENDED")
    assert len(attended["evidence"]) == 2
    note = "[NOTE] the memory has the charity race as Melanie's, not Caroline's"
    assert attended["note"].startswith(note)
    assert note in block["text"]
    # asked about the person who did it: no note, a higher confidence, the answer shown
    right = _context(keyed, "mel", "mel", "What did Melanie realise after her charity race?")
    assert right["conflicts"] == [] and "[NOTE]" not in right["text"]
    assert right["confidence"] > block["confidence"]
    assert "self-care" in " ".join(m["memory"]["text"] for m in right["memories"])


def test_min_score_leaves_out_the_memories_below_it(keyed: Api) -> None:
    """The floor compares `floorScore` (the blend's), which the block shows beside the learnt
    trees' `score`: a client can see which memories a floor would leave out."""
    message = "What did Melanie realise after her charity race?"
    every = _context(keyed, "mel", "mel", message, minScore=0, minConfidence=0)
    floors = sorted(m["floorScore"] for m in every["memories"])
    cut = floors[len(floors) // 2]
    kept = _context(keyed, "mel", "mel", message, minScore=cut, minConfidence=0)
    assert kept["memories"] and all(m["floorScore"] >= cut for m in kept["memories"])
    assert len(kept["memories"]) < len(every["memories"])


def test_conflicts_and_confidence_stay_within_the_keys_user(keyed: Api) -> None:
    message = "What did Caroline realise after her charity race?"
    # bob's key asking about mel is refused; bob's own block knows nothing of mel's graph
    body = keyed.raw(CONTEXT, headers=_auth("bob"), user="mel", message=message)
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    own = _context(keyed, "bob", "bob", message)
    assert own["conflicts"] == [] and own["memories"] == []
    assert NOTHING_RELEVANT in own["text"] and "Melanie" not in own["text"]


@pytest.mark.parametrize(
    ("variables", "field"),
    [({"minScore": -1.0}, "minScore"), ({"minConfidence": 1.5}, "minConfidence")],
)
def test_bad_floors_name_the_field(keyed: Api, variables: dict[str, float], field: str) -> None:
    body = keyed.raw(CONTEXT, headers=_auth("mel"), user="mel", message="hi", **variables)
    error = body["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert field in error["message"]


def _signals(api: Api, user: str, message: str) -> Signals:
    """The confidence's signals of a context call, in process (GraphQL returns the product)."""
    request = ContextRequest(user_id=user, message=message, as_of=AS_OF)
    result = api.runtime.service.context(request)
    assert result.signals is not None
    return result.signals


def test_a_noun_no_memory_holds_reaches_the_confidence_as_unmentioned(keyed: Api) -> None:
    assert _signals(keyed, "mel", "What is Melanie's blood type?").unmentioned == 1.0
    assert _signals(keyed, "mel", "Which kids did Melanie take to the race?").unmentioned == 0.0
    # a request names new things: its nouns never count
    assert _signals(keyed, "mel", "Can you recommend a dentist for Melanie?").unmentioned == 0.0


def test_another_users_words_never_count_as_mentioned(keyed: Api) -> None:
    """Whether a thing was ever mentioned is read from the asking user's memories alone: ana
    giving blood does not make Melanie's blood mentioned in mel's memory."""
    question = "When did Melanie last give blood?"
    before = _signals(keyed, "mel", question)
    assert before.unmentioned == 1.0
    inputs = [
        {
            "userId": "ana",
            "text": "I gave blood at the clinic today.",
            "speaker": "Ana",
            "occurredAt": "2026-10-10T10:00:00Z",  # before the calls' asOf
        }
    ]
    assert "errors" not in keyed.raw(REMEMBER_MANY, headers=_auth("ana"), inputs=inputs)
    assert _signals(keyed, "ana", "When did I give blood?").unmentioned == 0.0
    assert _signals(keyed, "mel", question) == before


# a user telling an assistant about their week: the questions below ask about it in other words
CHAT = [
    ("user", "I'm allergic to peanuts, so I always check the labels."),
    ("assistant", "Good to know, I will keep that in mind for any recipes."),
    ("user", "I booked the vet for Friday because my dog Biscuit is limping."),
    ("user", "My brother Tom turns forty next month and I'm planning his party."),
    ("user", "I work night shifts as a nurse at St. Mary's hospital."),
]


@pytest.fixture(scope="module")
def chat(keyed: Api) -> Api:
    _remember(keyed, "sam", CHAT, "c1", first_day=10)
    return keyed


def test_a_question_in_other_words_keeps_its_block(chat: Api) -> None:
    """ "appointment" is a noun no memory holds, as "blood" is; the memory holds the vet's visit in
    other words. The confidence reads how close the best memory comes to the message, and an
    everyday question said in other words is not told that nothing relevant was found."""
    block = _context(chat, "sam", "sam", "When is the vet appointment?")
    assert _signals(chat, "sam", "When is the vet appointment?").unmentioned == 1.0
    assert NOTHING_RELEVANT not in block["text"]
    assert "vet for Friday" in block["memories"][0]["memory"]["text"]
    never = _context(chat, "sam", "sam", "What is my blood type?")
    assert never["memories"] == [] and never["confidence"] < block["confidence"]


def test_the_confidence_reads_the_cosine_without_the_names(keyed: Api) -> None:
    """A name brings every turn of its person closer: the `content` signal is the best
    candidate's cosine to the message without the names, below the cosine with them; a message
    that names nobody has the same for both."""
    named = _signals(keyed, "mel", "What is Melanie's blood type?")
    assert 0.0 < named.content < named.dense
    nobody = _signals(keyed, "mel", "How much does a ticket to Mars cost?")
    assert nobody.content == nobody.dense


@pytest.mark.parametrize("profile", ["manual", "nograph"])
def test_the_hand_blends_read_the_cosine_without_the_names_too(keyed: Api, profile: str) -> None:
    """The hand blends do not search by the message without its names (their candidates stay
    theirs), but their confidence reads it as `default`'s does: Melanie's turns coming closer by
    her name do not make her dentist, whom no memory mentions, answerable."""
    message = "What is the name of Melanie's dentist?"
    request = ContextRequest(user_id="mel", message=message, as_of=AS_OF, config=PRESETS[profile])
    result = keyed.runtime.service.context(request)
    assert result.signals is not None
    assert 0.0 < result.signals.content < result.signals.dense
    assert result.memories == [] and result.confidence < PRESETS[profile].min_confidence
