"""Topics: what a noun chunk is called when it becomes a topic entity ("my two amazing boot camps"
→ "boot camp"), which chunks are too vague or too common to be one, and which verbs are too light
or too incomplete to name an activity.

Plain functions of tokens and word lists; extraction/mentions.py applies them to a document.
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from extraction import names
from extraction.lexicon import (
    CHAT_FORMULAS,
    EVALUATIVE,
    FIRST_PERSON,
    GENERIC_NOUNS,
    INTERJECTIONS,
    ROLES,
)

# chat words and their short forms are no topic ("Congrats" recurs in every friendly talk)
CHAT_WORDS = frozenset(CHAT_FORMULAS | INTERJECTIONS | {"congrat", "prob", "probs"})


# a single-word noun chunk this common in English (wordfreq Zipf) says too little to be a topic
# on its own ("photo" 5.3, "nature" 5.0, "passion" 4.6, "courage" 4.3), even when it recurs;
# the object of a typed fact may be commoner ("university" 5.4, "gym")
COMMON_TOPIC_ZIPF = 4.2


COMMON_OBJECT_ZIPF = 5.9


MAX_TOPIC_WORDS = 4


# verbs too general to name an activity or a plan's object on their own
LIGHT_VERBS = {
    "go",
    "do",
    "be",
    "have",
    "get",
    "make",
    "play",
    "help",
    "try",
    "work",
    "take",
    "keep",
    "use",
    "feel",
    "see",
    "say",
    "look",
    "come",
    "give",
    "find",
    "think",
    "know",
    "research",
    "start",
    "continue",
    "stay",
    "learn",
    "check",
}


def topic_label(
    chunk: Span | None, head: Token, common_zipf: float = COMMON_TOPIC_ZIPF
) -> str | None:
    """A noun chunk as a topic: determiners, pronouns, numbers and judging adjectives dropped,
    the head lemmatised ("my two amazing boot camps" → "boot camp"); None when too vague."""
    tokens = list(chunk) if chunk is not None and head in chunk else [head]
    head = chunk.root if chunk is not None and head in chunk else head
    # a chunk the parser ran across a dash or a colon ("Feynman Technique - 20 minutes") is
    # two phrases: the head's is the one after the last such mark
    marks = [t.i for t in tokens if t.i < head.i and _detached_mark(t)]
    # a chunk that runs across a coordination ("the couscous and roasted vegetables", "self-care
    # and set boundaries") names two things: the head's is the one after the last conjunction
    marks += [t.i for t in tokens if t.i < head.i and t.pos_ == "CCONJ"]
    if marks:
        tokens = [t for t in tokens if t.i > max(marks)]
    kept = [
        t
        for t in tokens
        if t.i <= head.i
        and t.pos_ not in {"DET", "PRON", "NUM", "PUNCT", "PART", "CCONJ", "ADP", "ADV", "AUX"}
        and t.lower_ not in EVALUATIVE
        and t.tag_ not in {"JJS", "JJR", "PRP$"}
        and not t.like_num
        and t.lower_ not in FIRST_PERSON
        and (len(t.text) > 1 or t is head)  # "a 5K charity run": no "k"
    ]
    if head not in kept or len(head.text) < 2:
        return None  # "a grueling 10K": the unit letter is no thing
    kept = kept[-MAX_TOPIC_WORDS:]
    lemma = head.lemma_.lower() if head.pos_ != "PROPN" else head.text
    if {lemma.lower(), head.lower_} & (GENERIC_NOUNS | CHAT_WORDS):
        return None  # "Congrats!", "no prob": chat, never a topic
    words = [t.text if t.pos_ == "PROPN" or t.text.isupper() else t.lower_ for t in kept[:-1]]
    label = " ".join([*words, lemma])
    if len(label) < 3 or not any(c.isalpha() for c in label):
        return None
    if len(kept) == 1 and names.zipf(lemma.lower()) >= common_zipf:
        return None
    return label


def _detached_mark(token: Token) -> bool:
    """Punctuation that stands apart from the words around it (" - ", ": "), not a hyphen
    inside a word ("self-care")."""
    if not token.is_punct or token.is_quote or token.text in {"'", "’", "&"}:
        return False
    before = token.doc[token.i - 1] if token.i > 0 else None
    return bool(token.whitespace_) or (before is not None and bool(before.whitespace_))


# prepositions that complete a verb ("escape into", "learn about", "care for") rather than say
# where or when it happens ("hiking in the mountains", "running at dawn")
COMPLEMENT_PREPOSITIONS = {"into", "about", "of", "for", "with", "to", "on", "onto"}


def completes(child: Token) -> bool:
    """Whether a verb's child completes it: an object, a clause, a complement preposition."""
    if child.dep_ in {"dobj", "obj", "ccomp", "xcomp", "dative", "attr"}:
        return True
    if child.dep_ != "prep" or child.lower_ not in COMPLEMENT_PREPOSITIONS:
        return False
    # "hiking with my friends": company, not what completes the hiking
    company = [
        o
        for o in child.children
        if o.dep_ == "pobj" and (o.pos_ in {"PRON", "PROPN"} or o.lemma_.lower() in ROLES)
    ]
    return not (child.lower_ == "with" and company)
