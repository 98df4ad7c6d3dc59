"""Which entity spans are names: chat is full of capitalised words that are not.

The small model tags "Hey Mel" as a person, "Woohoo" as an org and "Glad" (in "Glad you came")
as a person. A span is cleaned and judged here, before it becomes a mention:

- leading greetings, interjections and punctuation go ("ya, Melanie" → "Melanie", "Morning
  Jess" → "Jess", "Sadly Biscuit" → "Biscuit"), and so does a verb with its preposition that
  opens the sentence ("Going to Lisbon!!" → "Lisbon");
- a name has a capital letter; a lone interjection, day or month abbreviation is none;
- a one-word name seen only at the start of sentences is *tentative*: the resolver keeps it only
  if the user's catalogue knows it already (any capitalised word can start a sentence);
- a one-word span whose lower-case form is a very common English word (wordfreq), or that the
  tagger reads as a common noun, and that NER did not call a person is not a name ("Love",
  "Support", "Chess");
- a person's name called out to ("Hey Jo!", "Thanks, Mell!") is marked, so the resolver can make
  it the listener;
- a name of two or more words ending in a company designator ("Zentrivo Labs", "Acme Inc") is an
  organisation, whatever the tagger guessed.
"""

from __future__ import annotations

from functools import lru_cache

from spacy.tokens import Doc, Span, Token

from extraction.lexicon import (
    DAY_GREETINGS,
    DAYS_AND_MONTHS,
    INTERJECTIONS,
    ORG_DESIGNATORS,
    PROGRAMMING_LANGUAGES,
)

# Zipf frequency (wordfreq) from which a lower-case word is too common to be a one-word org or
# place name: "love" 6.0, "support" 5.5 — while most names of places and orgs are rarer
COMMON_WORD_ZIPF = 5.5
# Zipf frequency from which a name the tagger calls an org is one it has surely seen as one
# ("google" 4.9, "microsoft" 4.4, "netflix" 4.2), while an unfamiliar town it guesses an org is
# rare ("kelowna" 2.7, "nanaimo" 2.5): the verb's range overrides only the guess
# (extraction/relating.py)
WELL_KNOWN_ZIPF = 4.0


@lru_cache(maxsize=65_536)
def zipf(word: str) -> float:
    """How common a word is in English (wordfreq's Zipf scale: 3 = once per million words)."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def _noise(token: Token) -> bool:
    return (
        token.is_punct
        or token.is_space
        or token.lower_ in INTERJECTIONS
        or token.pos_ == "INTJ"
        or token.lower_ in {"the", "a", "an", "my", "our", "your"}
    )


def _leading_chat(span: Span, start: int) -> int:
    """How many tokens from `start` are chat before the name: a day-part greeting before a
    person's name ("Morning Jess", "Good evening Sam"), an adverb of the clause ("Sadly
    Biscuit got sick"), or a verb and its preposition opening the sentence ("Going to
    Lisbon!!": the capital is the sentence's, not a title's)."""
    doc, end = span.doc, span.end
    first = doc[start]
    if span.label_ == "PERSON" and start + 1 < end:
        if first.lower_ in DAY_GREETINGS:
            return 1
        if first.lower_ == "good" and doc[start + 1].lower_ in DAY_GREETINGS and start + 2 < end:
            return 2
    if first.pos_ == "ADV" and start + 1 < end and not span.start <= first.head.i < end:
        return 1  # "Sadly Biscuit got sick": the adverb modifies the verb, not the name
    if (
        span.label_ != "WORK_OF_ART"
        and start + 2 < end
        and first.pos_ in {"VERB", "AUX"}
        and sentence_initial(first)
        and doc[start + 1].pos_ == "ADP"
        and doc[start + 1].is_lower
    ):
        return 2
    return 0


def clean(span: Span) -> Span | None:
    """The span without leading chat noise and trailing punctuation, or None if no name is left."""
    doc = span.doc
    start, end = span.start, span.end
    while start < end and _noise(doc[start]):
        start += 1
    while start < end and (skip := _leading_chat(span, start)):
        start += skip
    while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
        end -= 1
    if start >= end:
        return None
    cleaned = doc[start:end]
    if not any(t.text[:1].isupper() for t in cleaned):
        return None  # "the kids & work" is not a name
    words = [t.lower_ for t in cleaned if t.lower_ not in {"last", "next", "this", "every"}]
    if all(w in DAYS_AND_MONTHS for w in words) or (len(words) == 1 and words[0] in INTERJECTIONS):
        return None  # "Fri", "Last Fri", "Woohoo"
    return cleaned


def sentence_initial(token: Token) -> bool:
    """The first word of its sentence (quotes, brackets and punctuation before it don't count)."""
    for before in token.sent:
        if before.i == token.i:
            return True
        if not (before.is_punct or before.is_space or before.is_quote or before.is_bracket):
            return False
    return False


def is_tentative(span: Span, doc: Doc) -> bool:
    """A one-word name that this text only shows at sentence starts."""
    if len(span) != 1:
        return False
    word = span[0].text
    return all(sentence_initial(t) for t in doc if t.text == word)


def addressed(span: Span, before: Span) -> bool:
    """A name called out to ("Hey Jo!", "Thanks, Mell!", "Sounds great, Jo!", "Jo, look"):
    `before` is the span as NER found it (with any greeting that `clean` cut), `span` the name;
    it stands alone between a greeting, a comma or the sentence start and a punctuation mark."""
    doc = span.doc
    after = doc[span.end] if span.end < len(doc) else None
    if after is not None and not (after.is_punct and after.text in {",", "!", ".", "?", "…"}):
        return False
    if before.start < span.start or sentence_initial(span[0]):
        return True
    previous = doc[span.start - 1]
    return previous.text == "," or previous.lower_ in INTERJECTIONS or previous.pos_ == "INTJ"


def too_common(span: Span, label: str) -> bool:
    """A one-word non-person name that is a very common English word, or that the tagger reads
    as a common noun ("Chess has been …" tagged ORG)."""
    if len(span) != 1 or label == "PERSON":
        return False
    return span[0].pos_ == "NOUN" or zipf(span[0].lower_) >= COMMON_WORD_ZIPF


def split(span: Span) -> list[Span]:
    """A tagged span that coordinates names ("Overwatch and Valorant", "Tom, Ana and Li") as
    its parts: the parser makes a later part a conjunct of an earlier one inside the span. The
    conjunctions and commas between them are dropped; a span with no such part is returned
    whole."""
    inside = range(span.start, span.end)
    if not any(t.dep_ == "conj" and t.head.i in inside for t in span):
        return [span]
    doc = span.doc
    parts: list[Span] = []
    start = span.start
    for token in span:
        if token.pos_ == "CCONJ" or token.text in {",", "&", "/"}:
            if token.i > start:
                parts.append(doc[start : token.i])
            start = token.i + 1
    if start < span.end:
        parts.append(doc[start : span.end])
    return [p for p in (clean(part) for part in parts) if p is not None]


def designated(label: str) -> bool:
    """A name of two or more words whose last word is a company designator ("Zentrivo Labs")."""
    words = label.lower().replace(".", "").split()
    return len(words) >= 2 and words[-1] in ORG_DESIGNATORS


def well_known(label: str) -> bool:
    """A name common enough in English that the tagger's type for it is knowledge, not a guess."""
    return zipf(label.lower()) >= WELL_KNOWN_ZIPF


def may_be_language(token: Token) -> bool:
    """Whether a word may name a language: the tagger's LANGUAGE or NORP ("Korean", "French":
    a nationality word is its people's language when one studies it), or a programming language
    of the documented list. Evidence beside it must still say it is one here (a study verb, the
    noun "language"): "rust" and "Julia" are other things too."""
    return token.ent_type_ in {"LANGUAGE", "NORP"} or token.lower_ in PROGRAMMING_LANGUAGES
