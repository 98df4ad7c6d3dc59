"""What one turn says about the person who said it: how long it is, whether it carries structured
data (dates, numbers, names), rare domain terms, a refusal, a name to be called by, a personal
disclosure. Pure rules on the text (and the names the graph found in it), so a profile is the same
whenever it is built.

The word lists are ordinary English (months, kin terms, feelings), never a dataset's words. A
domain term is a word rare in general English: wordfreq's Zipf frequency below `RARE_ZIPF`
("counseling" 3.1 is common enough; "sfumato" 1.6 is a term). Imports nothing of graph/ but the
lexicon; the profile's rules (graph/profile/rules.py) read these signals.

A tally reads every signal of a turn once (`read`): the expressions are searched only in texts
that hold one of the strings every match needs (read from their syntax by extraction/shapes.py),
and the text without its asides is made once. Counting the signals one function at a time was a
fifth of the background thread's work in a served ingest of real turns (docs/performance.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from extraction.lexicon import DAYS_AND_MONTHS
from extraction.shapes import TextView, shape

RARE_ZIPF = 2.8
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_ASIDE = re.compile(r"\s*\[[^\]]*\]")  # a shared image's caption is not what was said
_NUMBER = re.compile(
    r"\b\d+(?:[.,]\d+)?\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"twenty|thirty|forty|fifty|hundred|thousand|million|dozen)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d s?\b|\b(?:1[5-9]|20)\d0s\b")
# "I'd rather not talk about my ex", "I don't know anything about cars"
_DECLINED = re.compile(
    r"\b(?:(?:i'?d |i would )?rather not|prefer not to|(?:i )?don'?t want to|do not want to|"
    r"let'?s not|not ready to)\s+(?:talk|discuss|get into|go into|think)\s+(?:about\s+)?"
    r"(?P<topic>[^.!?,;]+)"
    r"|\bi (?:don'?t|do not) know (?:much|anything) about\s+(?P<unknown>[^.!?,;]+)",
    re.IGNORECASE,
)
# "Call me Bea", "my name is Beatrice", "I go by Bea": the name, capitalised
_NAMED = re.compile(
    r"\b(?:[Cc]all me|[Mm]y name is|[Mm]y name's|I go by|[Pp]eople call me)\s+"
    r"(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b"
)
_KIN = (
    "mom|mum|mother|dad|father|parents?|sister|brother|siblings?|husband|wife|partner|"
    "son|daughter|kids?|children|child|grandma|grandmother|grandpa|grandfather|family|"
    "aunt|uncle|cousin|fianc[eé]e?|boyfriend|girlfriend"
)
_HEALTH = (
    "doctor|therapist|therapy|diagnosis|diagnosed|surgery|illness|sick|injury|injured|"
    "anxiety|depression|health|hospital|medication|pain|cancer|allergy|allergic"
)
_FEELINGS = (
    "sad|happy|anxious|scared|lonely|depressed|overwhelmed|grateful|proud|hurt|afraid|"
    "nervous|excited|stressed|upset|angry|heartbroken|insecure|ashamed|hopeful|relieved"
)
DISCLOSURES: dict[str, re.Pattern[str]] = {
    "family": re.compile(rf"\b(?:my|our)\s+(?:\w+\s+)?(?:{_KIN})\b", re.IGNORECASE),
    "health": re.compile(rf"\b(?:my|i was|i am|i'm|i've been)\s+(?:\w+\s+)?(?:{_HEALTH})\b", re.I),
    "feelings": re.compile(
        rf"\bi(?:'m| am| was| feel| felt|'ve been| have been)\s+(?:so |really |very |a bit |"
        rf"kind of |pretty )?(?:{_FEELINGS})\b",
        re.IGNORECASE,
    ),
}


# strings one of which every match of the expression holds, ignoring case (None: no such set)
_NEEDS = {
    pattern: shape(pattern).literals for pattern in (_DECLINED, _NAMED, *DISCLOSURES.values())
}


def _may_hold(pattern: re.Pattern[str], view: TextView) -> bool:
    """False only when `pattern` matches nowhere in the view's text."""
    needed = _NEEDS.get(pattern)
    return needed is None or view.holds_any(needed)


@dataclass(frozen=True)
class Said:
    """What one turn says about its speaker, each signal read once (`read`)."""

    words: int
    specific: bool
    structured: bool
    declined: tuple[str, ...]
    name: str | None
    disclosures: tuple[str, ...]
    question: bool

    @property
    def answers(self) -> bool:
        """As `answers`: it says something and refuses nothing."""
        return self.words >= 4 and not self.declined


def read(text: str, names: int) -> Said:
    """Every signal of one turn (`names`: the named entities the graph found in it, the speaker
    left out), equal to asking the functions below one by one."""
    said = spoken(text)
    view = TextView(said)
    words = _WORD.findall(said)
    structured = names > 0 or _dated(said, words) or _numbered(said)
    return Said(
        words=len(said.split()),
        specific=structured or any(_is_term(w) for w in words),
        structured=structured,
        declined=tuple(_declined(said, view)),
        name=_named(said, view),
        disclosures=tuple(_disclosed(said, view)),
        question="?" in said,
    )


def spoken(text: str) -> str:
    """The text without bracketed asides."""
    return (_ASIDE.sub("", text) if "[" in text else text).strip()


def word_count(text: str) -> int:
    return len(spoken(text).split())


def has_date(text: str) -> bool:
    said = spoken(text)
    return _dated(said, _WORD.findall(said))


def _dated(said: str, words: list[str]) -> bool:
    return bool(_YEAR.search(said)) or not DAYS_AND_MONTHS.isdisjoint(map(str.lower, words))


def has_number(text: str) -> bool:
    return _numbered(spoken(text))


def _numbered(said: str) -> bool:
    return bool(_NUMBER.search(said))


@lru_cache(maxsize=65_536)
def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def domain_terms(text: str) -> list[str]:
    """Lower-case words (not names) rare in general English, longer than four letters."""
    return [w for w in _WORD.findall(spoken(text)) if _is_term(w)]


def _is_term(word: str) -> bool:
    return word.islower() and len(word) > 4 and "'" not in word and _zipf(word) < RARE_ZIPF


def is_specific(text: str, names: int) -> bool:
    """A turn that gives dates, numbers, proper names (`names`: the named entities the graph
    found in it, the speaker left out) or domain terms."""
    return names > 0 or has_date(text) or has_number(text) or bool(domain_terms(text))


def is_structured(text: str, names: int) -> bool:
    """A turn that gives structured data: a date, a number or a proper name."""
    return names > 0 or has_date(text) or has_number(text)


def declined(text: str) -> list[str]:
    """The topics a turn refuses or disclaims, at most six words each."""
    said = spoken(text)
    return _declined(said, TextView(said))


def _declined(said: str, view: TextView) -> list[str]:
    if not _may_hold(_DECLINED, view):
        return []
    out = []
    for match in _DECLINED.finditer(said):
        topic = match.group("topic") or match.group("unknown") or ""
        words = topic.split()[:6]
        if words:
            out.append(" ".join(words).lower())
    return out


def preferred_name(text: str) -> str | None:
    """The name a turn asks to be called by, if any (the last one said)."""
    said = spoken(text)
    return _named(said, TextView(said))


def _named(said: str, view: TextView) -> str | None:
    found = _NAMED.findall(said) if _may_hold(_NAMED, view) else []
    return found[-1] if found else None


def disclosures(text: str) -> list[str]:
    """The kinds of personal disclosure in a turn: family, health, feelings."""
    said = spoken(text)
    return _disclosed(said, TextView(said))


def _disclosed(said: str, view: TextView) -> list[str]:
    return [
        kind
        for kind, pattern in DISCLOSURES.items()
        if _may_hold(pattern, view) and pattern.search(said)
    ]


def is_question(text: str) -> bool:
    return "?" in spoken(text)


def answers(text: str) -> bool:
    """Whether a turn answers a question put to its speaker: it says something (four words or
    more) and refuses nothing."""
    return word_count(text) >= 4 and not declined(text)
