"""Episode composition (graph/recall/episodes.py) and reported speech (extraction/voice.py):
pure rules on hand-written sentences; the voice also with the real spaCy model."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from extraction.extractor import Extractor
from extraction.voice import third_singular
from graph import chat
from graph.ids import MemoryId
from graph.recall import episodes
from graph.records import MemoryRecord, SessionEntity, SessionFact
from graph.write import sessions

NAMES = ["Caroline", "Melanie"]


@pytest.mark.parametrize(
    "text",
    [
        "Hi Melanie!",
        "Hey Caroline, great to see you!",
        "Thanks so much, Melanie, I really appreciate it.",
        "Wow, Caroline, that's amazing!",
        "Congrats on everything, that's so cool.",
        "Bye Caroline, take care and talk soon!",
        "I totally agree, Melanie.",
    ],
)
def test_greetings_thanks_and_praise_are_phatic(text: str) -> None:
    assert episodes.is_phatic(text, NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "I went to an LGBTQ support group yesterday and it was powerful.",
        "My kids and I went camping at the lake last weekend.",
        "Thanks to the support group, I finally applied to adoption agencies.",
    ],
)
def test_sentences_that_say_something_are_not(text: str) -> None:
    assert not episodes.is_phatic(text, NAMES)


def test_candidates_leave_out_questions_and_formulas() -> None:
    turns = [
        ("m1", "Melanie", "Wow, that's great! What did you paint? [shares a photo of a lake]"),
        ("m2", "Caroline", "Can you show me one? [shares a photo of a dog]"),
        ("m3", "Caroline", "I painted a sunrise over the lake last year. It calms me."),
    ]
    found = episodes.candidates(turns, NAMES)
    assert [c.text for c in found] == ["I painted a sunrise over the lake last year."]
    assert found[0].memory_id == "m3" and found[0].speaker == "Caroline"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Wow, Melanie, I went to the lake.", "I went to the lake."),
        ("By the way, I love New York [shares a photo of a skyline]", "I love New York"),
        ("Anyway, the dog ran off again, Caroline!", "The dog ran off again!"),
        ("So glad the parade went well.", "So glad the parade went well."),
    ],
)
def test_trim_drops_frames_and_asides(sentence: str, expected: str) -> None:
    assert episodes.trim(sentence, NAMES) == expected


def test_salience_prefers_facts_names_and_numbers() -> None:
    plain = episodes.salience("I painted something nice at home today.", NAMES, False)
    rich = episodes.salience("I painted the lake in Lisbon on 3 May with Ana.", NAMES, False)
    assert rich > plain
    assert episodes.salience("I painted something nice today.", NAMES, True) > plain


def test_select_keeps_the_budget_and_skips_near_duplicates() -> None:
    items = [
        episodes.Sentence("Caroline went to the parade.", "Caroline", "m1", 0),
        episodes.Sentence("Caroline went to the parade!", "Caroline", "m2", 1),
        episodes.Sentence("Melanie signed up for pottery.", "Melanie", "m3", 2),
    ]
    vectors = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    chosen = episodes.select(items, [1.0, 0.99, 0.6], vectors, 12, mmr_lambda=0.7)
    assert [c.memory_id for c in chosen] == ["m1", "m3"]
    assert episodes.select(items, [1.0, 0.99, 0.6], vectors, 5, mmr_lambda=0.7) == []


def test_facts_read_as_sentences_and_unnamed_people_state_nothing() -> None:
    rows = [
        SessionFact("Caroline", "ATTENDED", "LGBTQ support group", "topic", None, "m1"),
        SessionFact("Melanie", "HAS_PET", "Luna", role="cat"),
        SessionFact("Melanie", "FAMILY_OF", "Melanie's kids", role="kids"),
        SessionFact("Caroline", "PLANS", "counseling", role="pursue"),
        SessionFact("Caroline", "ATTENDED", "LGBTQ support group"),
    ]
    assert episodes.fact_sentences(rows, 10, {"m1": "I went to an LGBTQ support group."}) == [
        "Caroline attended an LGBTQ support group.",
        "Melanie has a cat named Luna.",
        "Caroline plans to pursue counseling.",
    ]
    facts = ["one two three.", "four five six.", "seven eight."]
    assert episodes.fact_budget(facts, 20, 0.35) == facts[:2]


def test_open_threads_and_hints_only_within_the_budget() -> None:
    text = episodes.compose("A and B talked.", [], ["B moved."], ["Lisbon"], ["Open: B: When?"], 8)
    assert text == "A and B talked. B moved. About: Lisbon."
    longer = episodes.compose("A and B talked.", [], [], [], ["Open: B: When do you leave?"], 20)
    assert longer.endswith("Open: B: When do you leave?")


def test_profile_hints() -> None:
    facts = [
        SessionFact("Caroline", "STUDIES", "psychology"),
        SessionFact("Ana", "WORKS_AS", "nurse"),  # not a speaker of the session
        SessionFact("Melanie", "LIKES", "pottery"),
    ]
    entities = [
        SessionEntity("topic:pottery", "pottery", "topic", 100.0, 3),
        SessionEntity("topic:adoption", "adoption", "topic", 500.0, 2),
        SessionEntity("place:lisbon", "Lisbon", "place", 100.0, 1),
    ]
    turns = [
        ("Caroline", "I'd rather not talk about my family today."),
        ("Melanie", "Let's not discuss work, it's the weekend!"),
    ]
    hints = episodes.profile_hints(facts, entities, turns, started=300.0)
    assert hints.expertise == ("Caroline (psychology)",)
    assert hints.returning == ("pottery",)
    assert hints.declined == ("Caroline (my family today)", "Melanie (work)")
    assert hints.lines()[0] == "Expertise: Caroline (psychology)."
    assert chat.is_formula("Congrats") and not chat.is_formula("Lisbon")


def test_third_person_singular() -> None:
    assert [third_singular(v) for v in ("love", "go", "try", "watch", "play", "have", "'m")] == [
        "loves",
        "goes",
        "tries",
        "watches",
        "plays",
        "has",
        "is",
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I love painting with my kids.", "Caroline loves painting with their kids."),
        ("I'm finally filming my own movie!", "Caroline is finally filming their own movie!"),
        ("Last Friday, I went to a workshop.", "Last Friday, Caroline went to a workshop."),
        ("I've been running every day.", "Caroline has been running every day."),
        ("My dog Rex loves the beach.", "Caroline's dog Rex loves the beach."),
        ("I try to go whenever I can.", "Caroline tries to go whenever they can."),
        ("We went on a hike.", "Caroline Lee: We went on a hike."),
        ("I'd love to see it, I'll call.", "Caroline would love to see it, they will call."),
    ],
)
def test_reported_speech(extractor: Extractor, sentence: str, expected: str) -> None:
    assert extractor.reported_many([(sentence, "Caroline Lee")]) == [expected]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I'm so proud of you!", "Caroline is so proud of Melanie!"),
        ("You were amazing at the show.", "Caroline Lee: Melanie was amazing at the show."),
        ("You're such a good friend to me.", "Melanie is such a good friend to Caroline."),
        ("I'd love to see your garden.", "Caroline would love to see Melanie's garden."),
        ("You know, I think it helps.", "You know, Caroline thinks it helps."),
        ("I'll let you know!", "Caroline will let Melanie know!"),
    ],
)
def test_you_is_the_other_speaker(extractor: Extractor, sentence: str, expected: str) -> None:
    """With two speakers, "you" in one's sentence is the other one; a generic "you" stays."""
    heard = {"Caroline Lee": "Melanie"}
    assert extractor.reported_many([(sentence, "Caroline Lee")], heard) == [expected]


def _turn(i: int, speaker: str, when: str) -> MemoryRecord:
    stamp = datetime.fromisoformat(when).timestamp()
    return MemoryRecord(MemoryId(f"m{i}"), "u", "hi", speaker, "s1", stamp, stamp, None, 1, False)


def test_the_header_says_who_talked_and_when_to_the_minute() -> None:
    one_day = [_turn(0, "Ann", "2023-05-08T13:56:00+00:00"), _turn(1, "Bo", "2023-05-08T14:30Z")]
    assert sessions._header("s1", one_day) == (
        "Ann and Bo talked at 1:56 pm UTC on 8 May 2023 (s1, 2 turns)."
    )
    days = [_turn(0, "Ann", "2023-05-08T00:05:00+00:00"), _turn(1, "Ann", "2023-05-09T09:00Z")]
    assert sessions._header("s2", days) == (
        "Ann talked from 12:05 am UTC on 8 May 2023 to 9 May 2023 (s2, 2 turns)."
    )


def test_reported_speech_skips_only_pipes_it_never_reads(extractor: Extractor) -> None:
    """The third person is parsed without the named entities (UNREPORTED): on 600 real
    sentences of both datasets, with a listener, it says what the full pipeline's parse says."""
    from extraction.extractor import UNREPORTED
    from extraction.voice import reported
    from tests.shared_data import real_texts

    sentences = [s for t in real_texts(1000) for s in t.split(". ") if " I " in f" {s} "][:600]
    assert len(sentences) == 600 and UNREPORTED
    heard = {"Caroline Lee": "Melanie"}
    full = [reported(doc, "Caroline Lee", "Melanie") for doc in extractor.nlp.pipe(sentences)]
    items = [(s, "Caroline Lee") for s in sentences]
    assert extractor.reported_many(items, heard) == full
    assert sum(a != f"Caroline Lee: {s}" for a, s in zip(full, sentences, strict=True)) > 300
