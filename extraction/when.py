"""Event time: the dates a text speaks of, resolved against the moment it was said.

"We went camping last Saturday", said on 20 May 2023, happened on 13 May 2023. spaCy finds the
DATE spans; dateparser resolves each against the memory's `occurredAt` (or a question's `asOf`)
and says how precise it is (a day, a week, a month, a year), which makes the span an interval:
"in May 2023" is [1 May, 1 June). A window that ends where the text is said ("in the last month",
"over the past two weeks", "the last 3 days") is that many days, weeks, months or years back from
that day, through it: dateparser reads "the last month" as the calendar month before, which is
what "last month" alone means but not what "in the last month" asks. Durations ("three years",
"every week") and ages ("30 years old") name no time and are skipped, as is anything dateparser
cannot resolve ("a while ago").

What dateparser lacks is read here, each by the calendar: a decade ("the 1730s"); weekends ("last
weekend" is the Saturday and Sunday of the week before the one said in, "this weekend" those of
the week said in, "the weekend" the one before until Thursday and the coming one from Friday);
seasons, as the northern hemisphere's meteorological ones ("this spring" is March to May of the
year said, "last summer" the latest June to August that ended before, "winter 2022" December 2022
to February 2023); vague counts back ("a few days ago" is two to five days back, "a couple of
weeks ago" one to three weeks, "the other day" the week before); a count back as a day with
the slack its unit allows ("a month ago" is within a week of that day, where dateparser gives the
whole calendar month); and the part of a period up to or after the day said ("earlier this
month", "later this year").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from dateutil.relativedelta import relativedelta

if TYPE_CHECKING:  # annotations only: reading dates needs no spaCy loaded
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


_WEEKEND = re.compile(
    r"^(?:(?:on|over|during|at|for)\s+)?(?:(?:this|the)\s+(?=past\s))?"
    r"(?:(?P<which>this|last|past|previous|next|the)\s+)?weekend$",
    re.IGNORECASE,
)
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_SEASON = re.compile(
    r"^(?:(?:in|during|over|for|by|through)\s+)?"
    r"(?:(?P<which>this|last|past|previous|next|the|early|late|mid)[\s-]+)?"
    r"(?P<season>spring|summer|fall|autumn|winter)(?:\s+(?:of\s+)?(?P<year>1[5-9]\d\d|20\d\d))?$",
    re.IGNORECASE,
)
# vague counts back: the least and most units they can mean
_VAGUE = {"a few": (2, 5), "few": (2, 5), "several": (2, 6), "a couple of": (1, 3),
          "a couple": (1, 3), "couple of": (1, 3), "couple": (1, 3)}  # fmt: skip
_VAGUE_AGO = re.compile(
    r"^(?:(?:about|around|roughly|some|like)\s+)?(?P<count>"
    + "|".join(sorted(_VAGUE, key=len, reverse=True))
    + r")\s+(?P<unit>day|week|month|year)s?\s+(?:ago|back)$",
    re.IGNORECASE,
)
_AGO = re.compile(
    r"^(?:(?:about|around|roughly|some|like|exactly|just|only)\s+)?(?P<count>\d{1,3}|"
    + "|".join(sorted(_COUNTS, key=len, reverse=True))
    + r")\s+(?P<unit>day|week|month|year)s?\s+(?:ago|back)$",
    re.IGNORECASE,
)
# how far either side of "N units ago" the time may lie: a week is said in days, a month in weeks
_SLACK = {"day": timedelta(0), "week": timedelta(days=3), "month": timedelta(days=7),
          "year": timedelta(days=61)}  # fmt: skip
_OTHER_DAY = re.compile(r"^the other day$", re.IGNORECASE)
_PART_OF = re.compile(
    r"^(?P<side>earlier|later)\s+(?:this|in the)\s+(?P<unit>week|month|year)$", re.IGNORECASE
)
# a date right after one of these is a boundary ("before today", "until May"), not the time meant
BOUNDARY_WORDS = frozenset({"before", "after", "until", "till", "prior"})


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
    """The interval a date phrase names, said at `base` (epoch seconds); None if it names none,
    or if it lies outside the calendar Python can count in ("a year ago" said in year 1, "this
    spring" asked in 9999): an odd timestamp must not fail the batch it came in."""
    try:
        return _resolve(phrase, base)
    except (ValueError, OverflowError):
        return None


def _resolve(phrase: str, base: float) -> Interval | None:
    text = phrase.strip()
    if not text or _DURATION.match(text) or _NO_TIME.search(text):
        return None
    decade = _DECADE.search(text)
    if decade:
        year = int(decade.group(1) + decade.group(2) + "0")
        return _years(year, 10)
    for read in (_rolling, _vague_ago, _ago, _weekend, _season, _part_of):
        found_here = read(text, base)
        if found_here is not None:
            return found_here
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


def _said_day(base: float) -> datetime:
    return datetime.fromtimestamp(base, tz=UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _weekend(text: str, base: float) -> Interval | None:
    """Saturday and Sunday: "this weekend" of the week said in (Monday to Sunday), "last
    weekend" of the week before, "next weekend" of the week after; "the weekend" is the one
    before until Thursday and the coming one from Friday."""
    found = _WEEKEND.match(text)
    if found is None:
        return None
    said = _said_day(base)
    saturday = said + timedelta(days=5 - said.weekday())
    which = (found["which"] or "the").lower()
    if which in {"last", "past", "previous"} or (which == "the" and said.weekday() < 4):
        saturday -= timedelta(days=7)
    elif which == "next":
        saturday += timedelta(days=7)
    return _stamp(saturday), _stamp(saturday + timedelta(days=2))


def _season(text: str, base: float) -> Interval | None:
    """A meteorological season of the northern hemisphere (three months from March, June,
    September, December): of the year given; "this" one holds the day said, else it is the
    nearer of the two around it ("this winter" in April is the one just past); "last" is the
    latest that ended by then, "next" the first that begins after; a bare season the latest
    that began by then."""
    found = _SEASON.match(text)
    if found is None:
        return None
    first_month = _SEASONS[found["season"].lower()]

    def span(year: int) -> tuple[datetime, datetime]:
        start = datetime(year, first_month, 1, tzinfo=UTC)
        return start, start + relativedelta(months=3)

    if found["year"]:
        start, end = span(int(found["year"]))
        return _stamp(start), _stamp(end)
    said = _said_day(base)
    spans = [span(year) for year in range(said.year - 2, said.year + 2)]
    which = (found["which"] or "").lower()
    if which == "this":  # the one that holds the day, else the nearer of the two around it
        chosen = min(spans, key=lambda s: max(s[0] - said, said - s[1], timedelta(0)))
    elif which in {"last", "past", "previous"}:
        chosen = [s for s in spans if s[1] <= said][-1]
    elif which == "next":
        chosen = next(s for s in spans if s[0] > said)
    else:
        chosen = [s for s in spans if s[0] <= said][-1]
    return _stamp(chosen[0]), _stamp(chosen[1])


def _ago(text: str, base: float) -> Interval | None:
    """ "two weeks ago", "a month ago": the day that many units back, give or take what such a
    count means (days are exact; a week ago is within three days of it, a month ago within a
    week, a year ago within two months). dateparser answers with the whole calendar period
    ("a month ago" said on 18 April is all of March), which lifts a month of memories."""
    found = _AGO.match(text)
    if found is None:
        return None
    count = found["count"].lower()
    number = _COUNTS.get(count) or int(count)
    unit = found["unit"].lower()
    day = _said_day(base) - relativedelta(**{f"{unit}s": number})
    slack = _SLACK[unit]
    return _stamp(day - slack), _stamp(day + slack + timedelta(days=1))


def _vague_ago(text: str, base: float) -> Interval | None:
    """Vague counts back: "a few days ago" (two to five days back), "a couple of weeks ago"
    (one to three weeks), "the other day" (the week before the day said)."""
    said = _said_day(base)
    if _OTHER_DAY.match(text):
        return _stamp(said - timedelta(days=7)), _stamp(said)
    found = _VAGUE_AGO.match(text)
    if found is None:
        return None
    least, most = _VAGUE[found["count"].lower()]
    unit = f"{found['unit'].lower()}s"
    start = said - relativedelta(**{unit: most})
    end = said - relativedelta(**{unit: least}) + timedelta(days=1)
    return _stamp(start), _stamp(end)


def _part_of(text: str, base: float) -> Interval | None:
    """The part of a period on one side of the day said: "earlier this month" from the
    period's start through the day said, "later this year" from the day said to its end."""
    found = _PART_OF.match(text)
    if found is None:
        return None
    said = _said_day(base)
    start, end = _period(said, found["unit"].lower())
    if found["side"].lower() == "earlier":
        return _stamp(start), _stamp(said + timedelta(days=1))
    return _stamp(said), _stamp(end)


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
    a time the text does not mean; nor one right after a boundary word ("the airlines I flew
    with before today", "until May"): what is asked lies on one side of it, not in it."""
    return [
        ent.text
        for ent in doc.ents
        if ent.label_ == "DATE"
        and not (ent.end < len(doc) and doc[ent.end].lower_ == "of")
        and not _after_boundary(doc, ent.start)
    ]


def _after_boundary(doc: Doc, start: int) -> bool:
    """Whether the token before `start` is "before", "after", "until", "till" or "prior (to)"."""
    before = start - 1
    if before >= 0 and doc[before].lower_ == "to":
        before -= 1
    return before >= 0 and doc[before].lower_ in BOUNDARY_WORDS


def event_interval(phrases: Iterable[str], base: float) -> Interval | None:
    """The narrowest interval the phrases name: "I found a 1950s armchair at the flea market last
    Saturday" speaks of last Saturday, and the decade describes the chair. Ties keep the first.

    "Today" counts like any other day: "a 1950s armchair … got a chandelier today" happened
    today. A memory keeps one time, so "I went to Japan last summer and still think about it
    today" is today (an exception for the day said was tried: it lost that armchair question
    on LongMemEval dev and was taken back)."""
    found = [i for i in (resolve(p, base) for p in phrases) if i is not None]
    return min(found, key=lambda i: i[1] - i[0]) if found else None
