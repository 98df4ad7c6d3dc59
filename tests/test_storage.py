"""The storage policy end to end (graph/write/policy.py, graph/write/screen.py, extraction/pii.py):
secrets and payment ids never reach the disk, refusals write nothing, and `stored` says how each
item was stored — on the real engine, models and Presidio."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from extraction.pii import load_detector
from graph.errors import InvalidInput
from graph.write.policy import GOVERNMENT, KEEP, PAYMENT, REDACT, REFUSE, PiiPolicy, parse_policy
from tests.conftest import Api, close_api, embedded_only, open_api
from tests.shared_data import real_texts

USER = "storage-user"
CARD = "4539 1488 0343 6467"  # passes the Luhn check
CARD_DIGITS = CARD.replace(" ", "")
PASSWORD = "Tr0ub4dor&3x"
TURN = f"My new card is {CARD} and my bank password is {PASSWORD}, don't forget."

REMEMBER = """
mutation($input: MemoryInput!) {
  remember(input: $input) { id text redactions stored earlierId }
}"""
REMEMBER_MANY = """
mutation($inputs: [MemoryInput!]!) {
  rememberMany(inputs: $inputs) { id text redactions stored earlierId }
}"""
END_SESSION = """
mutation($userId: ID!, $sessionId: ID!) {
  endSession(userId: $userId, sessionId: $sessionId) { episode { id text } }
}"""


# -- the policy (pure) ---------------------------------------------------------------------------


def test_default_policy_redacts_payment_government_and_secrets_and_keeps_the_rest() -> None:
    policy = PiiPolicy()
    assert {policy.action(t) for t in PAYMENT + GOVERNMENT} == {REDACT}
    assert policy.action("PASSWORD") == policy.action("API_KEY") == REDACT
    for kept in ("PERSON", "LOCATION", "DATE_TIME", "EMAIL_ADDRESS", "PHONE_NUMBER"):
        assert policy.action(kept) == KEEP


def test_policy_changes_apply_in_order_and_off_keeps_everything() -> None:
    policy = parse_policy("secrets=refuse, EMAIL_ADDRESS=redact, credit_card=keep")
    assert policy.action("PASSWORD") == REFUSE
    assert policy.action("EMAIL_ADDRESS") == REDACT
    assert policy.action("CREDIT_CARD") == KEEP
    assert not parse_policy("off").watched
    assert parse_policy("off,PASSWORD=redact").watched == {"PASSWORD"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [("CREDIT_CARD", "write TYPE=action"), ("SHOE_SIZE=redact", "names 'SHOE_SIZE'")],
)
def test_a_bad_policy_names_the_field_and_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message) as caught:
        parse_policy(spec, "piiPolicy")
    assert caught.value.field == "piiPolicy"


# -- the detector (real Presidio on the shipped spaCy model) ----------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (TURN, "My new card is [CREDIT_CARD] and my bank password is [PASSWORD], don't forget."),
        ("IBAN: DE89 3704 0044 0532 0130 00 please", "IBAN: [IBAN_CODE] please"),
        ("my api key is sk-proj-a8F3kd93JdkwQ0pLmZx7Yt2", "my api key is [API_KEY]"),
        ("my password is too long", "my password is too long"),
        ("my PAN card number is ABCPE1234F", "my PAN card number is [IN_PAN]"),
        ("the pan was 2019's model, a 10-inch one", "the pan was 2019's model, a 10-inch one"),
        ("Caroline moved to Boston on 12 May 2023.", "Caroline moved to Boston on 12 May 2023."),
    ],
)
def test_detector_redacts_secrets_and_payment_ids_and_keeps_names(text: str, redacted: str) -> None:
    detector = load_detector()
    findings = detector.find(text, PiiPolicy().watched)
    assert detector.redact(text, findings) == redacted


SCREENED = [
    TURN,
    "Call me at 212-555-0187 or write to bea@example.org about the 2019 trip.",
    "My SSN is 078-05-1120, my passport C03005988, and I moved in 2014.",
    "The recipe takes 2 cups of flour, 350 grams of sugar and 45 minutes at 180 degrees.",
    "My NHS number is 943 476 5919 and my account 12345678 at the bank.",
    "I went hiking with Mel last weekend; we talked about pottery for hours.",
    "ssn 123-45-6789, ITIN 912-70-1234, licence D1234567 — keep them safe",
]


@pytest.mark.slow
@pytest.mark.parametrize("text", SCREENED)
def test_the_patterns_first_shortcut_finds_what_the_full_analysis_finds(text: str) -> None:
    """Tokens and context words are read only for a text some pattern matches; the findings
    must equal those of the analysis that always reads them."""
    detector = load_detector()
    watched = PiiPolicy().watched | {"EMAIL_ADDRESS", "PHONE_NUMBER"}
    assert detector.find(text, watched) == detector.analysed(text, sorted(watched))


def _in_long_prose(texts: list[str], prose: str) -> list[str]:
    """Each text at the start, in the middle and at the end of a long turn: where the search
    windows of extraction/shapes.py have their edges."""
    middle = len(prose) // 2
    return [
        t
        for text in texts
        for t in (f"{text} {prose}", f"{prose[:middle]} {text} {prose[middle:]}", f"{prose} {text}")
    ]


@pytest.mark.slow
def test_the_shortcut_finds_what_the_full_analysis_finds_in_real_turns() -> None:
    """Real turns of the shared data (few hold personal data: the shapes skip most of them),
    and the screened texts inside a long real turn."""
    detector = load_detector()
    watched = PiiPolicy().watched | {"EMAIL_ADDRESS", "IP_ADDRESS", "CRYPTO"}
    turns = real_texts(300)
    longest = max(turns, key=len)
    texts = turns + _in_long_prose(SCREENED, longest)
    found = [detector.find(text, watched) for text in texts]
    assert found == [detector.analysed(text, sorted(watched)) for text in texts]
    assert sum(1 for f in found if f) >= 3 * 4


@pytest.mark.slow
def test_the_shortcut_is_tested_on_texts_with_findings() -> None:
    detector = load_detector()
    found = [detector.find(text, PiiPolicy().watched) for text in SCREENED]
    assert sum(1 for f in found if f) >= 4


# -- end to end ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("storage")


@pytest.fixture(scope="module")
def api(data_dir: Path, extractor: Extractor, embedder: Embedder) -> Any:
    client_api, _ = open_api(data_dir, extractor, embedder)
    yield client_api
    close_api(client_api)


def _ingest_and_close(here: Path, extractor: Extractor, embedder: Embedder, policy: str) -> str:
    """Remembers TURN in a session, ends the session (its episode), shuts down cleanly; returns
    the stored text."""
    api, _ = open_api(here, extractor, embedder, pii_policy=policy)
    try:
        turn = {"userId": USER, "text": TURN, "speaker": "Alice", "sessionId": "s-pii"}
        stored = api.ok(REMEMBER, input=turn)["remember"]
        api.ok(END_SESSION, userId=USER, sessionId="s-pii")
        api.runtime.service.caches.flush(force=True)
    finally:
        close_api(api)
    return str(stored["text"])


def _traces(here: Path) -> list[str]:
    files = [p for p in here.rglob("*") if p.is_file()]
    assert any("appendonly" in str(p) or p.suffix == ".aof" for p in files), files
    return [
        f"{secret} in {path.relative_to(here)}"
        for path in files
        for secret in (CARD, CARD_DIGITS, PASSWORD)
        if secret.encode() in path.read_bytes()
    ]


@embedded_only  # on a graph server the graph's files are the server's, not under data_dir
def test_a_card_and_a_password_never_reach_the_disk(
    data_dir: Path, extractor: Extractor, embedder: Embedder
) -> None:
    """Every file under the data directory — graph snapshot and write log, FAISS, BM25, episodes
    — after the turn, its session's episode and a clean shutdown: no trace of either. With the
    policy off, the same search finds them (so the search can see them)."""
    text = _ingest_and_close(data_dir / "on", extractor, embedder, "")
    assert text == "My new card is [CREDIT_CARD] and my bank password is [PASSWORD], don't forget."
    assert _traces(data_dir / "on") == []
    assert _ingest_and_close(data_dir / "off", extractor, embedder, "off") == TURN
    assert any(PASSWORD in t for t in _traces(data_dir / "off"))


def test_stored_answers_new_repeat_and_redacted_with_the_earlier_id(api: Api) -> None:
    first = api.ok(REMEMBER, input={"userId": USER, "text": "I keep bees on my roof."})["remember"]
    assert (first["stored"], first["earlierId"], first["redactions"]) == ("NEW", None, [])
    again = api.ok(REMEMBER, input={"userId": USER, "text": "i keep bees on my roof."})["remember"]
    assert (again["stored"], again["earlierId"], again["id"]) == (
        "REPEAT",
        first["id"],
        first["id"],
    )
    batch = api.ok(
        REMEMBER_MANY,
        inputs=[
            {"userId": USER, "text": "My SSN is 536-22-8726 if the form asks."},
            {"userId": USER, "text": "I keep bees on my roof."},
        ],
    )["rememberMany"]
    assert [m["stored"] for m in batch] == ["REDACTED", "REPEAT"]
    assert batch[0]["redactions"] == ["US_SSN"]
    assert batch[0]["text"] == "My SSN is [US_SSN] if the form asks."


def test_a_memory_may_change_the_policy_for_itself(api: Api) -> None:
    text = "Write to me at ana.lopes@example.org, card 4539 1488 0343 6467."
    kept = api.ok(REMEMBER, input={"userId": USER, "text": text, "piiPolicy": "off"})["remember"]
    assert (kept["text"], kept["stored"]) == (text, "NEW")
    mail = api.ok(
        REMEMBER,
        input={"userId": USER, "text": "Mail ana.lopes@example.org", "piiPolicy": "contact=redact"},
    )["remember"]
    assert mail["text"] == "Mail [EMAIL_ADDRESS]"


def test_refuse_is_bad_user_input_naming_field_and_type_and_writes_nothing(api: Api) -> None:
    store = api.runtime.store
    before = store.count_memories(USER)
    body = api.raw(
        REMEMBER_MANY,
        inputs=[
            {"userId": USER, "text": "A harmless turn about gardening."},
            {"userId": USER, "text": TURN, "piiPolicy": "CREDIT_CARD=refuse"},
        ],
    )
    error = body["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["message"].startswith("inputs[1].text: holds personal data of type CREDIT_CARD")
    assert CARD not in error["message"]
    assert store.count_memories(USER) == before
    bad = api.raw(REMEMBER, input={"userId": USER, "text": "hi", "piiPolicy": "CARD=maybe"})
    assert bad["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert bad["errors"][0]["message"].startswith("piiPolicy:")


def test_stored_never_points_at_another_users_memory(api: Api) -> None:
    """`earlierId` is new surface: the same text from another user is NEW for that user, and the
    earlier memory of a REPEAT is always the caller's own."""
    text = "We adopted a grey cat called Pixel."
    mine = api.ok(REMEMBER, input={"userId": USER, "text": text})["remember"]
    theirs = api.ok(REMEMBER, input={"userId": "storage-other", "text": text})["remember"]
    assert theirs["stored"] == "NEW" and theirs["earlierId"] is None
    assert theirs["id"] != mine["id"]
    again = api.ok(REMEMBER, input={"userId": "storage-other", "text": text})["remember"]
    assert again["earlierId"] == theirs["id"]


def test_speaker_session_and_external_id_are_screened_like_text(api: Api) -> None:
    """The identifiers stored beside the text pass the same policy: redacted in place (the
    types listed), refused by their own field's name, nothing written."""
    store = api.runtime.store
    item = {
        "userId": USER,
        "text": "The parcel arrives on Tuesday.",
        "speaker": "Alice",
        "sessionId": f"order-{CARD}",
        "externalId": "ssn-536-22-8726",
    }
    made = api.ok(REMEMBER, input=item)["remember"]
    assert made["stored"] == "REDACTED"
    assert made["redactions"] == ["CREDIT_CARD", "US_SSN"]
    record = store.memories(USER, [made["id"]])[made["id"]]
    assert (record.session_id, record.external_id) == ("order-[CREDIT_CARD]", "ssn-[US_SSN]")
    before = store.count_memories(USER)
    body = api.raw(
        REMEMBER_MANY,
        inputs=[
            {"userId": USER, "text": "A harmless turn about gardening, again."},
            {**item, "text": "Another turn.", "piiPolicy": "US_SSN=refuse"},
        ],
    )
    message = body["errors"][0]["message"]
    assert message.startswith("inputs[1].externalId: holds personal data of type US_SSN"), message
    assert "536-22-8726" not in message
    assert store.count_memories(USER) == before
    speaker = {"userId": USER, "text": "Hello there.", "speaker": "Ana ana.lopes@example.org"}
    named = api.ok(REMEMBER, input={**speaker, "piiPolicy": "contact=redact"})["remember"]
    assert store.memories(USER, [named["id"]])[named["id"]].speaker == "Ana [EMAIL_ADDRESS]"
