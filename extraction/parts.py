"""The parts of a message that asks about several things at once, each as a message of its own.

"Which did I do first, the volleyball league or the charity run?" is answered by two memories,
one about each; "how long had I been taking guitar lessons when I bought the amp?" by one about
the lessons and one about the amp. One embedding of the whole message lies between its parts and
is close to neither memory, so retrieval also compares memories with each part (graph/recall/
retrieval.py). Two shapes are read from spaCy's parse, none from word lists of a topic:

- coordinated nouns ("A or B", "A and B", "between A and B"): one message per alternative, the
  rest of its sentence kept around it ("…, the volleyball league?", "…, the charity run?");
- a clause of time ("when I bought the amp", "since I started lessons"): the clause alone, and
  its sentence without it.

A part holds only the sentence it comes from: the message's other sentences ("I was going
through our last conversation about…") are in the whole message's embedding already, and each
part is one more embedding on the request's path, whose cost grows with its length (on
LongMemEval's long questions, parts of the whole message had put 10 ms on the median call;
recall on both dev splits was the same either way).

A part needs two content words; at most `MAX_PARTS` are kept. A message of one part has none.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Token
from spacy.vocab import Vocab

MAX_PARTS = 4
_WORD = re.compile(r"[^\W\d_]+")
_COORDINATORS = frozenset({"or", "and", "nor"})
_NOUNS = frozenset({"NOUN", "PROPN"})
_TIME_MARKERS = frozenset({"when", "since", "after", "before", "while", "until", "once"})


def parts(doc: Doc) -> tuple[str, ...]:
    """The message's parts (see the module docstring), in order, without repeats."""
    found: list[str] = []
    for token in doc:
        if token.pos_ in _NOUNS and token.dep_ != "conj" and token.conjuncts:
            found += _alternatives(doc, token)
        elif token.dep_ == "advcl" and _time_marker(token) is not None:
            found += _time_clause(doc, token)
    kept = [p for p in dict.fromkeys(found) if _content_words(doc.vocab, p) >= 2]
    return tuple(kept[:MAX_PARTS]) if len(kept) > 1 else ()


def _alternatives(doc: Doc, first: Token) -> list[str]:
    """ "…, the volleyball league or the charity run?" → the message with each alternative
    alone in the place of all of them ("the league, the run or the bake sale": three). spaCy
    chains a list (the run under the league, the bake sale under the run) or hangs it from the
    first; `conjuncts` holds every member either way."""
    members = sorted((first, *(c for c in first.conjuncts if c.pos_ in _NOUNS)), key=lambda t: t.i)
    joined = any(c.dep_ == "cc" and c.lower_ in _COORDINATORS for m in members for c in m.children)
    if len(members) < 2 or not joined:
        return []
    bounds = [m.left_edge.i for m in members] + [_own_end(members[-1])]
    start, end = bounds[0], bounds[-1]
    sentence = first.sent
    before, after = _text(doc[sentence.start : start]), _text(doc[end : sentence.end])
    choices = [_member(doc, bounds[k], bounds[k + 1]) for k in range(len(members))]
    return [_join(before, choice, after) for choice in choices if choice]


def _own_end(last: Token) -> int:
    """Where the list ends: after the last member's own words, up to a mark the parser hung
    from it ("the pottery workshop, which did I start earlier?" keeps the question outside the
    list, "the scooter I got for Christmas?" keeps its clause); the first member's subtree may
    hold the whole message, so its edge says nothing."""
    end = last.i + 1
    for child in last.rights:
        if child.is_punct:
            break
        if child.dep_ not in {"conj", "cc"}:
            end = child.right_edge.i + 1
    return end


def _member(doc: Doc, start: int, end: int) -> str:
    """One member of a list, without the commas and the "or" that lead to the next."""
    while end > start and (doc[end - 1].is_punct or doc[end - 1].lower_ in _COORDINATORS):
        end -= 1
    return _text(doc[start:end])


def _time_clause(doc: Doc, verb: Token) -> list[str]:
    """ "How long had I been taking lessons when I bought the amp?" → "I bought the amp" and
    "How long had I been taking lessons?" (a clause of time inside it stays out of both)."""
    marker = _time_marker(verb)
    skip = {marker.i} if marker is not None else set()
    inner = {
        t.i
        for child in verb.subtree
        if child is not verb and child.dep_ == "advcl" and _time_marker(child) is not None
        for t in child.subtree
    }
    clause = [t for t in verb.subtree if t.i not in inner | skip]
    outside = {t.i for t in verb.subtree}
    rest = [t for t in verb.sent if t.i not in outside]
    return [_join(_text(clause)), _join(_text(rest))]


def _time_marker(verb: Token) -> Token | None:
    return next(
        (
            c
            for c in verb.children
            if c.dep_ in {"mark", "advmod"} and c.lower_ in _TIME_MARKERS and c.i < verb.i
        ),
        None,
    )


def _text(tokens: object) -> str:
    """Tokens as the text said them (their own spacing), trimmed of commas and stray marks."""
    said = "".join(t.text_with_ws for t in tokens)  # type: ignore[attr-defined]
    return said.strip().strip(",;:").strip()


def _join(*pieces: str) -> str:
    text = " ".join(p for p in pieces if p)
    return text.replace(" ?", "?").replace(" ,", ",").replace(" .", ".")


def _content_words(vocab: Vocab, text: str) -> int:
    """Words of `text` that are not stop words (spaCy's English list, question words among
    them)."""
    return sum(1 for word in _WORD.findall(text) if not vocab[word.lower()].is_stop)
