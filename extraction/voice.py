"""Reported speech: "Caroline: I went to a support group" → "Caroline went to a support group".

An episode is read later, by an agent or a person, out of the conversation it came from; in the
third person its sentences say who did what without the speaker prefix. The first first-person
reference of a sentence becomes the speaker's name (its verb agreeing: "I love" → "Caroline
loves", "I'm" → "Caroline is"), later ones they/their/them. Sentences without a first-person word
keep the "Speaker: " prefix. Rules over spaCy's tags; nothing else changes.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

_IRREGULAR = {"am": "is", "'m": "is", "’m": "is", "have": "has", "'ve": "has", "do": "does"}
_PLURAL = {"am": "are", "'m": "are", "’m": "are", "was": "were", "'ve": "have", "’ve": "have"}
_OBJECT = {"me": "them", "myself": "themselves", "mine": "theirs"}


def third_singular(verb: str) -> str:
    """English present tense, third person singular: go → goes, try → tries, love → loves."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _agreeing(subject: Token) -> Token | None:
    """The present-tense verb or auxiliary that agrees with `subject`, if any."""
    head = subject.head
    auxes = [c for c in head.children if c.dep_ in {"aux", "auxpass"} and c.i > subject.i]
    first = auxes[0] if auxes else head
    return first if first.tag_ == "VBP" or first.lower_ in {"'m", "’m", "am"} else None


def _agree(verb: Token, plural: bool) -> str:
    word = _PLURAL.get(verb.lower_, verb.text) if plural else third_singular(verb.text)
    if verb.text.startswith(("'", "’")):
        word = " " + word  # "I'm" -> "Caroline is"
    return word + verb.whitespace_


def reported(doc: Doc, speaker: str) -> str:
    """The sentence in the third person with `speaker`'s first name, or "Speaker: sentence"."""
    name = speaker.split()[0] if speaker.split() else speaker
    out = [t.text_with_ws for t in doc]
    named = False
    for token in doc:
        low = token.lower_
        if low == "i":
            out[token.i] = ("they" if named else name) + token.whitespace_
            verb = _agreeing(token) if token.dep_ in {"nsubj", "nsubjpass"} else None
            if verb is not None:
                out[verb.i] = _agree(verb, plural=named)
            named = True
        elif low == "my":
            out[token.i] = ("their" if named else f"{name}'s") + token.whitespace_
            named = True
        elif low in _OBJECT and named:
            out[token.i] = _OBJECT[low] + token.whitespace_
    text = "".join(out).strip()
    if not named:
        return f"{speaker}: {text}"
    return text[0].upper() + text[1:]
