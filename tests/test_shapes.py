"""extraction/shapes.py: what an expression's syntax says about where it can match, and the one
promise the screen relies on: `may_match` is never False where the expression matches.

The promise is checked on every expression the service screens with (Presidio's patterns as the
detector builds them, and our secrets'), over random texts made to hold many matches near window
edges, and over real turns of the shared data."""

from __future__ import annotations

import random
import re
import sys

import pytest
import regex

from extraction import secrets
from extraction.shapes import FOLD, Anchor, Shape, TextView, shape, windows
from tests.shared_data import real_texts

# -- conditions read from the syntax (pure) ------------------------------------------------------


def test_a_digit_pattern_is_anchored_on_digits_with_a_bounded_reach() -> None:
    ssn = shape(regex.compile(r"\b\d{3}-\d{2}-\d{4}\b"))
    assert ssn.anchor == Anchor(digits=True)
    assert ssn.reach == 3 + 1 + 2 + 1 + 4 + 2  # the two boundaries read a character each


def test_the_window_holds_what_a_look_behind_reads() -> None:
    """A match whose look-behind reads far from its digits is still found in its window; with a
    shorter reach it would not be (what the reach is for)."""
    cued = shape(regex.compile(r"(?<=card number: )\d{4}\b"))
    assert cued.reach == len("card number: ") + 4 + 1
    text = "x" * 500 + " my card number: 1234 " + "y" * 500
    assert cued.may_match(TextView(text))
    assert not Shape(cued.pattern, cued.anchor, 4, None).may_match(TextView(text))


def test_an_unbounded_look_ahead_leaves_no_window() -> None:
    licence = shape(regex.compile(r"\b(?=.*\d)[A-Z][A-Z0-9*]{11}\b", regex.IGNORECASE))
    assert licence.anchor == Anchor(digits=True)  # the look-ahead must still find one
    assert licence.reach is None


def test_a_choice_is_anchored_only_on_what_every_branch_holds() -> None:
    assert shape(regex.compile(r"a\d|b@")).anchor == Anchor(digits=True, chars=frozenset("@"))
    assert shape(regex.compile(r"\d|x")).anchor is None
    assert shape(regex.compile(r"(?:\d)?x")).anchor is None
    assert shape(regex.compile(r"[^a-z]")).anchor is None


def test_letters_are_no_anchor_under_any_case() -> None:
    assert shape(regex.compile(r"k")).anchor is None
    assert shape(regex.compile(r"[0-9A-F]")).anchor is None


def test_word_characters_only_need_a_run_that_long() -> None:
    fiscal = shape(regex.compile(r"[A-Z]{6}[\dLMNP-V]{2}[A-Z]", regex.IGNORECASE))
    assert fiscal.word_run == 9
    assert shape(regex.compile(r"[A-Z]{6}-\d")).word_run is None


def test_literals_are_lower_cased_and_multiplied_through_small_choices() -> None:
    github = shape(re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}"))
    assert github.literals == frozenset({"ghp_", "gho_", "ghu_", "ghs_", "ghr_"})
    cue = shape(re.compile(r"(?i)\b(?:password|pwd)\b\s*is"))
    assert cue.literals == frozenset({"password", "pwd"})
    assert shape(re.compile(r"a.b")).literals is None  # nothing three characters long


def test_an_expression_the_parser_cannot_read_has_no_condition() -> None:
    letters = shape(regex.compile(r"\p{Lu}\d"))
    assert (letters.anchor, letters.reach, letters.word_run, letters.literals) == (
        None,
        None,
        None,
        None,
    )
    # nothing narrows it: left to the caller's own search
    assert letters.may_match(TextView("a1, no capital before a digit"))


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # an atomic group or a possessive repeat commits, in a window whose start hides what
        # the look-behind refuses, to a branch that then fails: no window for them
        (regex.compile(r"(?>(?<!xx)a|a.{5})\d", regex.IGNORECASE), "xxabbbbb1"),
        (re.compile(r"(?:(?<!xx)a|a.{5}){1}+\d"), "xxabbbbb1"),
        # what only `regex` reads: a POSIX class, fuzzy matching
        (regex.compile(r"[[:digit:]]", regex.IGNORECASE), "7"),
        (regex.compile(r"(?:abc){e<=1}", regex.IGNORECASE), "xx abd yy"),
        # word characters to `re` that `regex`'s \w is not
        (re.compile(r"\w{3}"), "x \u00b2\u00b2\u00b2 y"),
    ],
)
def test_constructs_the_window_argument_does_not_cover_are_searched(
    pattern: re.Pattern[str] | regex.Pattern[str], text: str
) -> None:
    assert pattern.search(text) is not None
    assert shape(pattern).may_match(TextView(text))


def test_groups_nested_too_deep_to_read_get_no_condition() -> None:
    deep = shape(re.compile("(" * 400 + r"\d" + ")" * 400))
    assert (deep.anchor, deep.reach, deep.word_run, deep.literals) == (None, None, None, None)


def test_windows_merge_overlaps_and_stay_inside_the_text() -> None:
    assert windows([2, 5, 30], 3, 32) == [(0, 9), (27, 32)]
    assert windows([], 3, 10) == []


def test_the_fold_table_holds_every_character_matched_with_an_ascii_letter() -> None:
    """The only non-ASCII characters `re` or `regex` match with an ASCII letter, ignoring case,
    are the four FOLD maps: a literal condition compares lower-cased text after FOLD."""
    every = "".join(chr(c) for c in range(0x80, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    matched = set()
    for letter in "abcdefghijklmnopqrstuvwxyz":
        matched |= {m.group() for m in re.finditer(letter, every, re.IGNORECASE)}
        matched |= {m.group() for m in regex.finditer(letter, every, regex.IGNORECASE)}
    assert matched == {chr(c) for c in FOLD}
    assert all(m.translate(FOLD).isascii() for m in matched)


# -- the promise: never False where the expression matches ---------------------------------------


def _screen_shapes() -> list[Shape]:
    from extraction.pii import _recognizers, _shapes

    found = [s for r in _recognizers() for s in (_shapes(r) or [])]
    return found + [
        shape(p)
        for p in (secrets._PASSWORD_CUE, secrets._PIN_CUE, secrets._KEY_CUE, secrets._KEY_SHAPES)
    ]


SHAPES = _screen_shapes()

PIECES = [
    "4539 1488 0343 6467",
    "DE89 3704 0044 0532 0130 00",
    "078-05-1120",
    "912-70-1234",
    "C03005988",
    "D1234567",
    "943 476 5919",
    "AB 12 34 56 C",
    "ABCPE1234F",
    "S1234567D",
    "RSSMRA85T10A562S",
    "12345678Z",
    "192.168.0.1",
    "2001:db8::1",
    "::1",
    "bea@example.org",
    "1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
    "0x32Be343B94f860124dC4fEe278FDCBD38C102D88",
    "password is Tr0ub4dor&3x",
    "pin: 4321",
    "api key = a8F3kd93JdkwQ0pLmZx7",
    "ghp_" + "a1" * 18,
    "sk-proj-a8F3kd93JdkwQ0pLmZx7Yt2",
    "AKIA" + "A1B2C3D4E5F6G7H8",
    "123456789",
    "2023",
    "1.",
]
FILLER = [
    "the",
    "trip",
    "in",
    "May",
    "and",
    "we",
    "talked",
    "for",
    "hours",
    "about",
    "pottery",
    ",",
    ".",
    "-",
    ":",
    "/",
    "(",
    ")",
    "\n",
    "card",
    "ssn",
    "no.",
    "x",
    "A",
    "Q7",
    "12",
    "345",
    "6789",
    "internationalization",
    "passport",
    "token",
    "key",
]


def _random_text(rng: random.Random) -> str:
    """Prose-like filler with a few ids and digits, often at the very start or end, where a
    window's edge is."""
    words = [rng.choice(FILLER) for _ in range(rng.randint(0, 120))]
    for _ in range(rng.randint(0, 3)):
        words.insert(rng.choice([0, len(words), rng.randint(0, len(words))]), rng.choice(PIECES))
    glue = rng.choice([" ", "", "  ", "\t"])
    return glue.join(words)


def test_may_match_is_never_false_where_the_expression_matches() -> None:
    rng = random.Random(7)
    texts = [_random_text(rng) for _ in range(1500)]
    matched = missed = 0
    for text in texts:
        view = TextView(text)
        for s in SHAPES:
            if s.pattern.search(text) is not None:
                matched += 1
                if not s.may_match(view):
                    missed += 1
    assert missed == 0
    assert matched > 3000  # the texts exercise the shapes, not only their skips


def test_most_prose_is_skipped() -> None:
    """The shapes earn their keep: most (expression, text) pairs without a match are skipped."""
    rng = random.Random(3)
    texts = [" ".join(rng.choice(FILLER[:12]) for _ in range(150)) for _ in range(50)]
    skipped = sum(1 for t in texts for s in SHAPES if not s.may_match(TextView(t)))
    assert skipped > 0.8 * len(texts) * len(SHAPES)


@pytest.mark.slow
def test_no_real_turn_is_missed() -> None:
    texts = real_texts(2000)
    matched = 0
    for text in texts:
        view = TextView(text)
        for s in SHAPES:
            if s.pattern.search(text) is not None:
                matched += 1
                assert s.may_match(view), (s.pattern.pattern, text)
    assert len(texts) == 4000 and matched > 50
