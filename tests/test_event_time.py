"""Event time: date phrases resolved against when they were said (extraction/when.py, dateparser),
stored on the memory, and a question that names a time finds the memories of that time — on the
embedded engine with the real models."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from extraction.extractor import Extractor
from extraction.when import event_interval, resolve
from tests.conftest import Api
from tests.documents import REMEMBER_MANY

SAID = datetime(2023, 5, 20, 14, 0, tzinfo=UTC).timestamp()  # a Saturday


def _days(found: tuple[float, float] | None) -> tuple[str, str] | None:
    if found is None:
        return None
    start, end = (datetime.fromtimestamp(v, tz=UTC).strftime("%Y-%m-%d") for v in found)
    return start, end


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("last Saturday", ("2023-05-13", "2023-05-14")),
        ("yesterday", ("2023-05-19", "2023-05-20")),
        ("two days ago", ("2023-05-18", "2023-05-19")),
        ("last week", ("2023-05-08", "2023-05-15")),
        ("in May 2023", ("2023-05-01", "2023-06-01")),
        ("March", ("2023-03-01", "2023-04-01")),
        ("last year", ("2022-01-01", "2023-01-01")),
        ("2019", ("2019-01-01", "2020-01-01")),
        ("the 1730s", ("1730-01-01", "1740-01-01")),
        ("8 May 2023", ("2023-05-08", "2023-05-09")),
        # a window back from the day said, through it; "last month" alone is the calendar month
        ("in the last month", ("2023-04-20", "2023-05-21")),
        ("the past two weeks", ("2023-05-06", "2023-05-21")),
        ("over the last 3 days", ("2023-05-17", "2023-05-21")),
        ("the past few months", ("2023-02-20", "2023-05-21")),
        ("past week", ("2023-05-13", "2023-05-21")),
        ("last month", ("2023-04-01", "2023-05-01")),
        # what dateparser lacks: weekends, seasons (northern, meteorological), vague counts back,
        # the part of a period before the day said
        # a count back is that day give or take its unit's slack (dateparser: the calendar
        # period, all of April for "a month ago")
        ("a month ago", ("2023-04-13", "2023-04-28")),
        ("two weeks ago", ("2023-05-03", "2023-05-10")),
        ("last weekend", ("2023-05-13", "2023-05-15")),
        ("this weekend", ("2023-05-20", "2023-05-22")),
        ("this spring", ("2023-03-01", "2023-06-01")),
        ("last summer", ("2022-06-01", "2022-09-01")),
        ("this winter", ("2022-12-01", "2023-03-01")),  # in May: the one just past
        ("winter 2022", ("2022-12-01", "2023-03-01")),
        ("a few days ago", ("2023-05-15", "2023-05-19")),
        ("a couple of weeks ago", ("2023-04-29", "2023-05-14")),
        ("earlier this month", ("2023-05-01", "2023-05-21")),
        ("this past weekend", ("2023-05-13", "2023-05-15")),
        ("next weekend", ("2023-05-27", "2023-05-29")),
        ("couple days ago", ("2023-05-17", "2023-05-20")),
        ("later this year", ("2023-05-20", "2024-01-01")),
        ("a few days before", None),  # before what? not the day said
        ("the last day", None),  # the final one of something, not a window
        ("three years", None),  # a duration names no time
        ("30 years old", None),
        ("every week", None),
    ],
)
def test_date_phrases_resolve_against_when_they_were_said(
    phrase: str, expected: tuple[str, str] | None
) -> None:
    assert _days(resolve(phrase, SAID)) == expected


MEMORY = """query($user: ID!, $id: ID!) { memory(userId: $user, id: $id) {
  eventStart eventEnd occurredAt } }"""
ASK = """query($user: ID!, $message: String!, $asOf: DateTime) {
  context(userId: $user, message: $message, speaker: "Alice", maxMemories: 3, asOf: $asOf) {
    memories { via memory { id } } } }"""


def test_a_question_that_names_a_time_finds_what_happened_then(api: Api) -> None:
    user = "et-weekend"
    turns = [
        ("2023-05-20T14:00:00Z", "We went camping at the lake last Saturday, it was lovely."),
        ("2023-05-20T14:05:00Z", "The kids want to go camping again in the summer."),
        ("2023-06-03T10:00:00Z", "We went hiking in the hills today, the kids loved it."),
        ("2023-06-10T10:00:00Z", "I painted the garden fence this morning."),
        ("2023-04-02T10:00:00Z", "We went to the lake for a picnic."),
    ]
    inputs = [
        {"userId": user, "speaker": "Alice", "text": text, "occurredAt": when}
        for when, text in turns
    ]
    ids = [m["id"] for m in api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]]
    camping = api.ok(MEMORY, user=user, id=ids[0])["memory"]
    assert camping["eventStart"].startswith("2023-05-13")
    assert camping["eventEnd"].startswith("2023-05-14")
    assert api.ok(MEMORY, user=user, id=ids[3])["memory"]["eventStart"] is None

    block = api.ok(ASK, user=user, message="What did we do on May 13?", asOf="2023-07-01T00:00:00Z")
    found = block["context"]["memories"]
    assert found[0]["memory"]["id"] == ids[0] and "time" in found[0]["via"]
    # "today" said on 3 June is 3 June: a question about that day finds the hike
    block = api.ok(
        ASK, user=user, message="What did we do on 3 June 2023?", asOf="2023-07-01T00:00:00Z"
    )
    assert block["context"]["memories"][0]["memory"]["id"] == ids[2]
    # the time candidates' read: memories whose event falls in the window, and memories said in
    # it that name no time (the fence, said on 10 June) — not those said then of another time
    service = api.runtime.service
    june = (_ts("2023-06-01T00:00:00Z"), _ts("2023-06-15T00:00:00Z"))
    assert service.store.memories_in_time(user, *june, 10) == [ids[3], ids[2]]
    may = (_ts("2023-05-13T00:00:00Z"), _ts("2023-05-15T00:00:00Z"))
    assert service.store.memories_in_time(user, *may, 10) == [ids[0]]
    assert service.store.memories_in_time(user, *june, 1) == [ids[3]]


def test_a_date_followed_by_of_names_no_time(extractor: Extractor) -> None:
    """spaCy's span of "the last week of my vacation" leaves "of my vacation" out; the rest would
    name the week before the text was said."""
    assert extractor.extract("I spent the last week of my vacation in Rome.", "Dana").dates == ()
    assert extractor.extract("I moved in the last month.", "Dana").dates == ("the last month",)


def test_a_memory_speaks_of_the_narrowest_time_it_names() -> None:
    """ "A 1950s armchair … last Saturday": the decade describes the chair, the day is when."""
    assert _days(event_interval(["the 1950s", "last Saturday"], SAID)) == (
        "2023-05-13",
        "2023-05-14",
    )
    assert _days(event_interval(["May 2023", "in 2023"], SAID)) == ("2023-05-01", "2023-06-01")
    assert event_interval(["three years"], SAID) is None
    # the day said is a day like any other: the chandelier came today, the chair is of the 1950s
    assert _days(event_interval(["the 1950s", "today"], SAID)) == ("2023-05-20", "2023-05-21")


@pytest.mark.parametrize(
    ("phrase", "said"),
    [
        ("this spring", "9999-06-01"),
        ("later this year", "9999-06-01"),
        ("a year ago", "0001-03-01"),
        ("last winter", "0001-03-01"),
        ("a few months ago", "0001-03-01"),
    ],
)
def test_a_time_outside_the_calendar_names_none(phrase: str, said: str) -> None:
    """An odd timestamp must not fail the batch it came in: the phrase names no time."""
    when = datetime.fromisoformat(said).replace(tzinfo=UTC).timestamp()
    assert resolve(phrase, when) is None


def test_a_date_after_a_boundary_word_names_no_time(extractor: Extractor) -> None:
    """ "The airlines I flew with before today" asks about everything before today, not today."""
    asked = "What is the order of airlines I flew with from earliest to latest before today?"
    assert extractor.extract(asked, "Dana").dates == ()
    assert extractor.extract("I flew to Rome today.", "Dana").dates == ("today",)
    for said in ("I can't travel until May.", "I had finished it prior to March."):
        assert extractor.extract(said, "Dana").dates == (), said


def _ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()
