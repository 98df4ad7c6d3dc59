"""Reported speech: "Caroline: I went to a support group" → "Caroline went to a support group".

An episode is read later, by an agent or a person, out of the conversation it came from; in the
third person its sentences say who did what without the speaker prefix. The first first-person
reference of a sentence becomes the speaker's name (its verb agreeing: "I love" → "Caroline
loves", "I'm" → "Caroline is"), later ones they/their/them. Sentences without a first-person word
keep the "Speaker: " prefix. When the session has one other speaker (the listener), "you" is
them: "I'm proud of you" → "Caroline is proud of Melanie", "your painting" → "Melanie's
painting"; a generic "you know" stays. Rules over spaCy's tags; nothing else changes.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

_IRREGULAR = {
    "are": "is",
    "'re": "is",
    "’re": "is",
    "were": "was",
    "am": "is",
    "'m": "is",
    "’m": "is",
    "have": "has",
    "'ve": "has",
    "do": "does",
}
_PLURAL = {"am": "are", "'m": "are", "’m": "are", "was": "were", "'ve": "have", "’ve": "have"}
_OBJECT = {"me": "them", "myself": "themselves", "mine": "theirs"}
# contractions that do not agree but cannot hang on a name: "I'd love" -> "Caroline would love"
_MODAL = {"'d": "would", "’d": "would", "'ll": "will", "’ll": "will"}


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
    if first.tag_ == "VBP" or first.lower_ in {"'m", "’m", "am"}:
        return first
    return first if subject.lower_ == "you" and first.lower_ == "were" else None


def _generic(you: Token) -> bool:
    """'you know', 'you see', 'thank you', 'you never know': no one in particular."""
    head = you.head
    if head.lemma_ == "thank" or you.dep_ == "npadvmod":
        return True
    # "let you know" / "to see you" name someone; "you know, …" on its own does not
    return head.lemma_ in {"know", "see", "mean", "guess"} and head.dep_ not in {"ccomp", "xcomp"}


def _agree(verb: Token, plural: bool) -> str:
    word = _PLURAL.get(verb.lower_, verb.text) if plural else third_singular(verb.text)
    if verb.text.startswith(("'", "’")):
        word = " " + word  # "I'm" -> "Caroline is"
    return word + verb.whitespace_


def _first(name: str) -> str:
    return name.split()[0] if name.split() else name


def reported(doc: Doc, speaker: str, listener: str | None = None) -> str:
    """The sentence in the third person with `speaker`'s first name, or "Speaker: sentence";
    "you" becomes `listener`'s first name when one is given."""
    name = _first(speaker)
    other = _first(listener) if listener else None
    out = [t.text_with_ws for t in doc]
    named = False
    for token in doc:
        low = token.lower_
        if low == "i":
            out[token.i] = ("they" if named else name) + token.whitespace_
            verb = _agreeing(token) if token.dep_ in {"nsubj", "nsubjpass"} else None
            if verb is not None:
                out[verb.i] = _agree(verb, plural=named)
            elif token.i + 1 < len(doc) and doc[token.i + 1].lower_ in _MODAL:
                following = doc[token.i + 1]
                word = "had" if following.tag_ == "VBD" else _MODAL[following.lower_]
                out[following.i] = " " + word + following.whitespace_
            named = True
        elif low == "my":
            out[token.i] = ("their" if named else f"{name}'s") + token.whitespace_
            named = True
        elif low in _OBJECT and named:
            out[token.i] = _OBJECT[low] + token.whitespace_
        elif low == "me":
            out[token.i] = name + token.whitespace_
            named = True
        elif low == "you" and other and not _generic(token):
            out[token.i] = other + token.whitespace_
            verb = _agreeing(token) if token.dep_ in {"nsubj", "nsubjpass"} else None
            if verb is not None:
                out[verb.i] = _agree(verb, plural=False)
        elif low in {"your", "yours"} and other:
            out[token.i] = f"{other}'s" + token.whitespace_
    text = "".join(out).strip()
    if not named:
        return f"{speaker}: {text}"
    return text[0].upper() + text[1:]
