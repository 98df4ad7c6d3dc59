"""Event time: the dates a text speaks of, resolved against the moment it was said.

"We went camping last Saturday", said on 20 May 2023, happened on 13 May 2023. spaCy finds the
DATE spans; dateparser resolves each against the memory's `occurredAt` (or a question's `asOf`)
and says how precise it is (a day, a week, a month, a year), which makes the span an interval:
"in May 2023" is [1 May, 1 June). A window that ends where the text is said ("in the last month",
"over the past two weeks", "the last 3 days") is that many days, weeks, months or years back from
that day, through it: dateparser reads "the last month" as the calendar month before, which is
what "last month" alone means but not what "in the last month" asks. Durations ("three years",
"every week") and ages ("30 years old") name no time and are skipped, as is anything dateparser
cannot resolve ("this spring"). A decade ("the 1730s") is the one form dateparser lacks and is
read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from dateutil.relativedelta import relativedelta
from spacy.tokens import Doc

Interval = tuple[float, float]  # [start, end) in epoch seconds, UTC

_DURATION = re.compile(
    r"^(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|several|many|\d+)"
    r"(?:\s+(?:more|whole|full|long))?\s+(?:days?|weeks?|months?|years?|decades?)$",
    re.IGNORECASE,
)
_NO_TIME = re.compile(r"\b(?:old|every|each|daily|weekly|monthly|yearly|annual|per)\b", re.I)
_DECADE = re.compile(r"\b(1\d|20)(\d)0s\b")
_YEAR_ONLY = re.compile(r"^(?:in\s+)?(1[5-9]\d\d|20\d\d)$")
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "couple of": 2,
    "a couple of": 2, "few": 3, "a few": 3, "several": 3,
}  # fmt: skip
_ROLLING = re.compile(
    r"^(?:(?:in|over|during|within|for|from)\s+)?(?P<the>the\s+)?(?P<word>last|past|previous)\s+"
    r"(?:(?P<count>\d{1,3}|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + r")\s+)?"
    r"(?P<unit>day|week|month|year)s?$",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _parser_class() -> Any:
    from dateparser.date import DateDataParser  # imported once, on first use (about 0.1 s)

    return DateDataParser


def _period(start: datetime, period: str) -> tuple[datetime, datetime]:
    """The calendar period of `period` precision that holds `start`."""
    day = start.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "year":
        first = day.replace(month=1, day=1)
        return first, first.replace(year=first.year + 1)
    if period == "month":
        first = day.replace(day=1)
        after = (first + timedelta(days=32)).replace(day=1)
        return first, after
    if period == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=7)
    return day, day + timedelta(days=1)


def resolve(phrase: str, base: float) -> Interval | None:
    """The interval a date phrase names, said at `base` (epoch seconds); None if it names none."""
    text = phrase.strip()
    if not text or _DURATION.match(text) or _NO_TIME.search(text):
        return None
    decade = _DECADE.search(text)
    if decade:
        year = int(decade.group(1) + decade.group(2) + "0")
        return _years(year, 10)
    rolling = _rolling(text, base)
    if rolling is not None:
        return rolling
    year_only = _YEAR_ONLY.match(text)
    if year_only:  # dateparser reads a bare year as today's day in that year
        year = int(year_only.group(1))
        return _years(year, 1)
    said = datetime.fromtimestamp(base, tz=UTC).replace(tzinfo=None)
    parser = _parser_class()(
        languages=["en"],
        settings={
            "RELATIVE_BASE": said,
            "PREFER_DATES_FROM": "past",
            "RETURN_TIME_AS_PERIOD": True,
        },
    )
    try:
        found = parser.get_date_data(text)
    except (ValueError, OverflowError):
        return None
    if found is None or found.date_obj is None or found.period == "time":
        return None
    period = found.period if found.period in {"year", "month", "week"} else "day"
    start, end = _period(found.date_obj.replace(tzinfo=UTC), period)
    return _stamp(start), _stamp(end)


def _rolling(text: str, base: float) -> Interval | None:
    """A window back from the day said, through it: "the past two weeks", "in the last month".

    A count ("last 3 days", "past few weeks") or "past" always means a window; "the last" does
    without a count ("in the last month"), except "the last day" (the final one of something);
    "last month" alone is the calendar month and is left to dateparser, as is "the previous
    month" ("previous" never makes a window here).
    """
    found = _ROLLING.match(text)
    if found is None:
        return None
    word, count = found["word"].lower(), found["count"]
    unit = found["unit"].lower()
    if count is None and word != "past" and not (found["the"] and word == "last" and unit != "day"):
        return None
    number = 1 if count is None else _COUNTS.get(count.lower()) or int(count)
    said = datetime.fromtimestamp(base, tz=UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    back = relativedelta(**{f"{unit}s": number})
    return _stamp(said - back), _stamp(said + timedelta(days=1))


def _stamp(moment: datetime) -> float:
    return moment.timestamp()


def _years(first: int, count: int) -> Interval:
    return (
        _stamp(datetime(first, 1, 1, tzinfo=UTC)),
        _stamp(datetime(first + count, 1, 1, tzinfo=UTC)),
    )


def date_phrases(doc: Doc) -> list[str]:
    """The DATE spans spaCy finds, in order; not one followed by "of" ("the last week of my
    vacation", "the first day of school"): spaCy leaves the "of …" out, and the rest would name
    a time the text does not mean."""
    return [
        ent.text
        for ent in doc.ents
        if ent.label_ == "DATE" and not (ent.end < len(doc) and doc[ent.end].lower_ == "of")
    ]


def first_interval(phrases: Iterable[str], base: float) -> Interval | None:
    """The interval of the first phrase that names one."""
    for phrase in phrases:
        interval = resolve(phrase, base)
        if interval is not None:
            return interval
    return None
