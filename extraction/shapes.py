"""Where in a text a regular expression can match at all, read from the expression's syntax, so
the screen (extraction/pii.py) searches long texts only where a match could be.

Most of Presidio's patterns (cards, SSNs, passports, licences, IBANs, IPs) cannot match without a
digit, and each spans a bounded number of characters: a match, and every character its
look-arounds and word boundaries read, lies within that many characters of the digit it holds. So
a text without a digit is skipped, and one with a few digits is searched in windows around them.
A long LongMemEval turn has its few digits in a list number or a year; searching all of it with
forty patterns cost 5 ms a turn. Patterns made only of word characters (an Italian fiscal code)
need a run of that many word characters, which prose rarely has.

What this reads is a necessary condition only. A window may find a match the whole text has not
(its edges look like the text's start and end); the caller then searches the whole text, as
before. It never misses one: the window holds every character the match's path reads, so the
engine's search there succeeds on that path or on an earlier one. That argument needs the engine
free to backtrack: an atomic group or a possessive repeat may commit, in a window, to a branch
the whole text's look-behind would refuse, so an expression with one gets no window. Where no
condition narrows the search, `may_match` answers True without searching: the caller's own
search (Presidio's, with its timeout) is the only one.

The syntax is read with the standard library's parser (`re._parser`, private but stable since
3.11 and `sre_parse` before). An expression it cannot read, or a construct not handled here,
gets no condition and is searched whole. Syntax only the `regex` module knows that the standard
parser would read as something else (a POSIX class `[[:digit:]]`, fuzzy matching `{e<=1}`) leaves
a `regex` expression without a condition too: its warnings are errors here, and a brace that
opens no repeat is refused.

Imports the standard library and `regex` only.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

# the standard library's own parser of expressions (untyped, private): read, never changed
sre: Any = importlib.import_module("re._constants")
sre_parse: Any = importlib.import_module("re._parser")

_DIGIT = regex.compile(r"\d")
# a word character to `re` (`str.isalnum` or "_") or to `regex` (Unicode's \w): runs of either
_WORDS = regex.compile(r"[\w\p{L}\p{N}]+")
_BRACE = ord("{")
# flags the parser understands with the same meaning in `re` and `regex`; any other (VERSION1,
# FULLCASE, …) leaves an expression without a condition
_SHARED_FLAGS = {
    regex.IGNORECASE: re.IGNORECASE,
    regex.MULTILINE: re.MULTILINE,
    regex.DOTALL: re.DOTALL,
}
_KNOWN_FLAGS = regex.IGNORECASE | regex.MULTILINE | regex.DOTALL | regex.VERSION0 | regex.UNICODE
# characters prose is full of: an anchor on them narrows nothing
_COMMON = frozenset(" \t\r\n.,;:'\"-()/")
_MAXREPEAT = int(sre.MAXREPEAT)
# a shorter literal is in most texts: not worth looking for
MIN_LITERAL = 3
# a literal condition of more strings than this is not worth its checks
MAX_STRINGS = 64
_ASCII_WORD = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
# the only non-ASCII characters `re` or `regex` matches with an ASCII letter when ignoring case
# (tests/test_shapes.py checks every code point): folded so that a literal is found lower-cased
FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


@dataclass(frozen=True)
class Anchor:
    """Every match's path reads one of these characters, in the match or in a look-around that
    must hold: any decimal digit (`digits`) or one of `chars`."""

    digits: bool = False
    chars: frozenset[str] = frozenset()

    def __or__(self, other: Anchor) -> Anchor:
        return Anchor(self.digits or other.digits, self.chars | other.chars)

    def cost(self) -> float:
        """How often prose holds it, roughly: digits are in a turn of two, '@' in few."""
        return float(self.digits) + sum(5.0 if c in _COMMON else 0.2 for c in self.chars)


@dataclass
class TextView:
    """What the conditions read of one text, each found once however many patterns ask."""

    text: str
    _positions: dict[Anchor, list[int]] = field(default_factory=dict)
    _longest_word: int | None = None
    _folded: str | None = None

    def holds_any(self, literals: frozenset[str]) -> bool:
        """Whether the text, lower-cased, holds one of the (lower-case ASCII) literals."""
        if self._folded is None:
            self._folded = self.text.translate(FOLD).lower()
        return any(literal in self._folded for literal in literals)

    def positions(self, anchor: Anchor) -> list[int]:
        found = self._positions.get(anchor)
        if found is None:
            spots: set[int] = set()
            if anchor.digits:
                spots.update(m.start() for m in _DIGIT.finditer(self.text))
            for char in anchor.chars:
                at = self.text.find(char)
                while at >= 0:
                    spots.add(at)
                    at = self.text.find(char, at + 1)
            found = self._positions[anchor] = sorted(spots)
        return found

    def longest_word(self) -> int:
        if self._longest_word is None:
            self._longest_word = max((len(w) for w in _WORDS.findall(self.text)), default=0)
        return self._longest_word


@dataclass(frozen=True)
class Shape:
    """One compiled expression and what its matches need."""

    pattern: re.Pattern[str] | regex.Pattern[str]
    anchor: Anchor | None
    # the most characters one match's path reads, look-arounds included; None: no bound
    reach: int | None
    # every match is a run of at least this many word characters; None: not known
    word_run: int | None
    # every match holds one of these, ignoring case; None: not known
    literals: frozenset[str] | None = None

    def may_match(self, view: TextView) -> bool:
        """False only when the expression matches nowhere in the text; True, unsearched, when
        nothing narrows the search to windows (the caller searches then)."""
        if self.word_run is not None and view.longest_word() < self.word_run:
            return False
        if self.literals is not None and not view.holds_any(self.literals):
            return False
        if self.anchor is None:
            return True
        spots = view.positions(self.anchor)
        if not spots:
            return False
        if self.reach is None:
            return True
        return any(
            self.pattern.search(view.text[start:stop]) is not None
            for start, stop in windows(spots, self.reach, len(view.text))
        )


def windows(spots: Sequence[int], reach: int, length: int) -> list[tuple[int, int]]:
    """The spans within `reach` characters of a spot, overlapping ones merged, in order."""
    merged: list[tuple[int, int]] = []
    for spot in spots:
        start, stop = max(0, spot - reach), min(length, spot + reach + 1)
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], stop))
        else:
            merged.append((start, stop))
    return merged


def shape(pattern: re.Pattern[str] | regex.Pattern[str]) -> Shape:
    """A compiled expression (by `re`, or by `regex` as Presidio compiles) and the conditions
    read from its syntax; none when the syntax cannot be read."""
    parsed = _parse(pattern)
    if parsed is None:
        return Shape(pattern, None, None, None)
    try:
        low = parsed.getwidth()[0]
        literals = _literals(parsed)
        return Shape(
            pattern,
            _anchor(parsed),
            _reach(parsed),
            low if low > 1 and _only_word(parsed) else None,
            literals if literals and min(map(len, literals)) >= MIN_LITERAL else None,
        )
    except RecursionError:  # groups nested hundreds deep: no condition
        return Shape(pattern, None, None, None)


def _parse(pattern: re.Pattern[str] | regex.Pattern[str]) -> Any:
    flags = pattern.flags
    if isinstance(pattern, re.Pattern):
        shared = flags
    elif flags & ~_KNOWN_FLAGS:
        return None
    else:
        shared = 0
        for ours, theirs in _SHARED_FLAGS.items():
            if flags & ours:
                shared |= theirs
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "possible nested set": a POSIX class to `regex`
            parsed = sre_parse.parse(pattern.pattern, shared)
        # a brace outside a set that opens no repeat is literal to `re`, fuzzy matching (or an
        # escaped brace) to `regex`: not read
        if isinstance(pattern, regex.Pattern) and _holds_literal(parsed, _BRACE):
            return None
        return parsed
    except (re.error, RecursionError, OverflowError, ValueError, Warning):
        return None


def _holds_literal(nodes: Any, code: int) -> bool:
    """Whether the character is a literal node anywhere outside a set."""
    for op, av in nodes:
        if op is sre.LITERAL and av == code:
            return True
        if op is sre.BRANCH and any(_holds_literal(alt, code) for alt in av[1]):
            return True
        if op is sre.SUBPATTERN and _holds_literal(av[-1], code):
            return True
        if op is sre.ATOMIC_GROUP and _holds_literal(av, code):
            return True
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and _holds_literal(
            av[2], code
        ):
            return True
        if op in (sre.ASSERT, sre.ASSERT_NOT) and _holds_literal(av[1], code):
            return True
        if op is sre.GROUPREF_EXISTS and any(
            b is not None and _holds_literal(b, code) for b in av[1:]
        ):
            return True
    return False


# -- anchors: a character every match holds ------------------------------------------------------


def _anchor(nodes: Any) -> Anchor | None:
    """The cheapest anchor of any node in a sequence (a match holds every node's)."""
    found = [a for node in nodes for a in [_node_anchor(*node)] if a is not None]
    return min(found, key=Anchor.cost) if found else None


def _node_anchor(op: Any, av: Any) -> Anchor | None:
    if op is sre.LITERAL:
        return _char_anchor(chr(av))
    if op is sre.IN:
        return _class_anchor(av)
    if op is sre.BRANCH:
        return _union([_anchor(alt) for alt in av[1]])
    if op is sre.SUBPATTERN:
        return _anchor(av[-1])
    if op is sre.ATOMIC_GROUP:
        return _anchor(av)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _, item = av
        return _anchor(item) if low >= 1 else None
    if op is sre.ASSERT:  # a look-around that must hold reads the character too
        return _anchor(av[1])
    if op is sre.GROUPREF_EXISTS:
        _, yes, no = av
        return _union([_anchor(yes), _anchor(no) if no is not None else None])
    return None


def _char_anchor(char: str) -> Anchor | None:
    """A digit, or an ASCII character no case-insensitive match can swap for another."""
    if char.isdecimal():
        return Anchor(digits=True)
    if char.isascii() and not char.isalpha():
        return Anchor(chars=frozenset(char))
    return None


def _class_anchor(items: list[tuple[Any, Any]]) -> Anchor | None:
    anchors: list[Anchor | None] = []
    for op, av in items:
        if op is sre.LITERAL:
            anchors.append(_char_anchor(chr(av)))
        elif op is sre.RANGE:
            low, high = av
            if high - low > 16:
                return None
            anchors.append(_union([_char_anchor(chr(c)) for c in range(low, high + 1)]))
        elif op is sre.CATEGORY and av is sre.CATEGORY_DIGIT:
            anchors.append(Anchor(digits=True))
        else:  # NEGATE, other categories
            return None
    return _union(anchors)


def _union(anchors: Sequence[Anchor | None]) -> Anchor | None:
    out = Anchor()
    for anchor in anchors:
        if anchor is None:
            return None
        out |= anchor
    return out if anchors else None


# -- literals: a string every match holds -------------------------------------------------------


def _literals(nodes: Any) -> frozenset[str] | None:
    """Strings of which every match holds one, lower-cased: the most selective of a sequence's
    candidates, which are its stretches of literal text (a small class or a choice of literals
    in one multiplies the strings: `gh[pousr]_`) and what its other nodes hold."""
    candidates: list[frozenset[str]] = []
    current: frozenset[str] | None = None
    for op, av in [*nodes, (None, None)]:
        exact = _exact(op, av)
        if exact is not None:
            joined = frozenset(a + b for a in current for b in exact) if current else exact
            if len(joined) <= MAX_STRINGS:
                current = joined
                continue
            if current:
                candidates.append(current)
            current = exact
            continue
        if current:
            candidates.append(current)
            current = None
        inner = _node_literals(op, av)
        if inner:
            candidates.append(inner)
    return max(candidates, key=_selectivity) if candidates else None


def _exact(op: Any, av: Any) -> frozenset[str] | None:
    """The strings a node matches, lower-cased, when it is a literal or a small choice of them."""
    if op is sre.LITERAL:
        return frozenset({chr(av).lower()}) if chr(av).isascii() else None
    if op is sre.IN:
        chars = [chr(v) for o, v in av if o is sre.LITERAL]
        if len(chars) < len(av) or len(chars) > MAX_STRINGS or not all(map(str.isascii, chars)):
            return None
        return frozenset(c.lower() for c in chars)
    if op is sre.SUBPATTERN:
        return _exact_sequence(av[-1])
    if op is sre.BRANCH:
        found: set[str] = set()
        for alt in av[1]:
            strings = _exact_sequence(alt)
            if strings is None:
                return None
            found |= strings
        return frozenset(found) if len(found) <= MAX_STRINGS else None
    return None


def _exact_sequence(nodes: Any) -> frozenset[str] | None:
    out = frozenset({""})
    for op, av in nodes:
        exact = _exact(op, av)
        if exact is None:
            return None
        out = frozenset(a + b for a in out for b in exact)
        if len(out) > MAX_STRINGS:
            return None
    return out


def _node_literals(op: Any, av: Any) -> frozenset[str] | None:
    if op is sre.BRANCH:
        found: set[str] = set()
        for alt in av[1]:
            inner = _literals(alt)
            if not inner:
                return None
            found |= inner
        return frozenset(found)
    if op is sre.SUBPATTERN:
        return _literals(av[-1])
    if op is sre.ATOMIC_GROUP:
        return _literals(av)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return _literals(av[2]) if av[0] >= 1 else None
    return None


def _selectivity(literals: frozenset[str]) -> tuple[int, int]:
    """The longer its shortest string, and the fewer its strings, the fewer texts hold one."""
    return min(map(len, literals)), -len(literals)


# -- reach: how many characters one match's path reads -------------------------------------------


def _reach(nodes: Any) -> int | None:
    total = 0
    for op, av in nodes:
        part = _node_reach(op, av)
        if part is None:
            return None
        total += part
    return total


def _node_reach(op: Any, av: Any) -> int | None:
    if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.AT):
        return 1  # a position assertion reads the character beside it
    if op is sre.BRANCH:
        return _most([_reach(alt) for alt in av[1]])
    if op is sre.SUBPATTERN:
        return _reach(av[-1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return _reach(av[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        _, high, item = av
        inner = _reach(item)
        return None if inner is None or high >= _MAXREPEAT else high * inner
    if op is sre.GROUPREF_EXISTS:
        _, yes, no = av
        return _most([_reach(yes), _reach(no) if no is not None else 0])
    # a back-reference; an atomic group or a possessive repeat, which may commit in a window to
    # what the whole text refuses (see the module docstring); anything not read here
    return None


def _most(parts: Sequence[int | None]) -> int | None:
    known = [p for p in parts if p is not None]
    return max(known) if known and len(known) == len(parts) else None


# -- word runs: matches made of word characters only ---------------------------------------------


def _only_word(nodes: Any) -> bool:
    return all(_node_only_word(op, av) for op, av in nodes)


def _node_only_word(op: Any, av: Any) -> bool:
    if op is sre.LITERAL:
        return chr(av) in _ASCII_WORD
    if op is sre.IN:
        return all(_item_only_word(i_op, i_av) for i_op, i_av in av)
    if op is sre.BRANCH:
        return all(_only_word(alt) for alt in av[1])
    if op is sre.SUBPATTERN:
        return _only_word(av[-1])
    if op is sre.ATOMIC_GROUP:
        return _only_word(av)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return _only_word(av[2])
    # what reads without taking: the match's characters are what the rest takes
    return op in (sre.ASSERT, sre.ASSERT_NOT, sre.AT)


def _item_only_word(op: Any, av: Any) -> bool:
    """Under IGNORECASE an ASCII letter also matches a few non-ASCII letters (the Kelvin sign,
    the long s): all of them word characters too."""
    if op is sre.LITERAL:
        return chr(av) in _ASCII_WORD
    if op is sre.RANGE:
        low, high = (chr(c) for c in av)
        return any(
            first <= low and high <= last for first, last in (("0", "9"), ("A", "Z"), ("a", "z"))
        )
    return op is sre.CATEGORY and av in (sre.CATEGORY_DIGIT, sre.CATEGORY_WORD)
