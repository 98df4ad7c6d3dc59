"""What one turn says about the person who said it: how long it is, whether it carries structured
data (dates, numbers, names), rare domain terms, a refusal, a name to be called by, a personal
disclosure. Pure rules on the text (and the names the graph found in it), so a profile is the same
whenever it is built.

The word lists are ordinary English (months, kin terms, feelings), never a dataset's words. A
domain term is a word rare in general English: wordfreq's Zipf frequency below `RARE_ZIPF`
("counseling" 3.1 is common enough; "sfumato" 1.6 is a term). Imports nothing of graph/, only
the lexicon and extraction/shapes.py; the profile's rules (graph/profile/rules.py) read these
signals.

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
    # gives dates, numbers, proper names or domain terms (lower-case words rare in general
    # English, longer than four letters)
    specific: bool
    structured: bool  # gives a date, a number or a proper name
    declined: tuple[str, ...]  # the topics it refuses or disclaims, at most six words each
    name: str | None  # the name it asks to be called by (the last one said)
    disclosures: tuple[str, ...]  # the kinds of personal disclosure: family, health, feelings
    question: bool

    @property
    def answers(self) -> bool:
        """Whether it answers a question put to its speaker: it says something (four words or
        more) and refuses nothing."""
        return self.words >= 4 and not self.declined


def read(text: str, names: int) -> Said:
    """Every signal of one turn, read from its text without bracketed asides (`names`: the named
    entities the graph found in it, the speaker left out)."""
    said = (_ASIDE.sub("", text) if "[" in text else text).strip()
    view = TextView(said)
    words = _WORD.findall(said)
    structured = names > 0 or _dated(said, words) or bool(_NUMBER.search(said))
    return Said(
        words=len(said.split()),
        specific=structured or any(_is_term(w) for w in words),
        structured=structured,
        declined=tuple(_declined(said, view)),
        name=_named(said, view),
        disclosures=tuple(
            kind
            for kind, pattern in DISCLOSURES.items()
            if _may_hold(pattern, view) and pattern.search(said)
        ),
        question="?" in said,
    )


def _dated(said: str, words: list[str]) -> bool:
    return bool(_YEAR.search(said)) or not DAYS_AND_MONTHS.isdisjoint(map(str.lower, words))


@lru_cache(maxsize=65_536)
def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def _is_term(word: str) -> bool:
    return word.islower() and len(word) > 4 and "'" not in word and _zipf(word) < RARE_ZIPF


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


def _named(said: str, view: TextView) -> str | None:
    found = _NAMED.findall(said) if _may_hold(_NAMED, view) else []
    return found[-1] if found else None
