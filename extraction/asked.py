"""The kind of thing a question asks for: "where…?" a place, "what books…?" a work, "how many
pets…?" a pet, "who…?" a person.

A multi-hop question rarely shares words with the turns that answer it ("Where has Caroline
camped?" against "We spent a week by the lake at Yosemite"), but those turns often name a thing of
the asked-for kind, which the other candidates mostly do not: in LoCoMo dev, 35% of the evidence
turns of such questions name one, against 9% of the other candidates (by spaCy's own types). The
learnt ranker reads this as one feature (graph/recall/features.py `asked_type`).

Read from the parse, only in sentences that ask (a "?" at the end, or a wh-word first in the
main clause): the wh-word itself ("where", "who"), or the noun a "what"/"which"/"how many"
qualifies, through "kind of", "type of" and "name of" ("what kind of books", "what is the name of
her band?"). The nouns and their types are a closed list in extraction/lexicon.py; a relative
"who" ("my friend who moved") asks nothing, and the feature never counts who said a memory.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span, Token

from extraction.lexicon import ASKED_NOUNS, ASKED_WH

# nouns that pass the question on to what follows their "of": "what kind of books"
_KINDS = frozenset({"kind", "kinds", "type", "types", "sort", "sorts"})
_KIND_OF = _KINDS | {"name", "names"}
_QUALIFIERS = frozenset({"what", "which"})
_COPULAR = frozenset({"nsubj", "attr"})


def asked_types(doc: Doc) -> frozenset[str]:
    """The entity types the questions of `doc` ask for; empty for a text that asks nothing."""
    asked: set[str] = set()
    for sentence in doc.sents:
        if not _asks(sentence):
            continue
        for token in sentence:
            kind = _asked_by(token)
            if kind is not None:
                asked.add(kind)
    return frozenset(asked)


def asked_nouns(doc: Doc) -> tuple[str, ...]:
    """The common nouns of the questions of `doc` that ask for a fact, lower case, each once:
    the things a question asks about by name ("what is the name of my dentist?": name,
    dentist). A thing no memory ever names is a question the memory cannot answer
    (graph/recall/confidence.py `unmentioned`). Left out: a statement's nouns and a request's
    ("can you recommend a recipe…?", "what should I cook…?", "any tips for…?"), which name new
    things all the time; the kind of the answer ("what instrument…?", "what is the breed of
    my dog?", "how many books…?"): the memory that answers names the cello, not the
    instrument; and any noun that names a kind of entity ("my dog", "the city")."""
    nouns: list[str] = []
    for sentence in doc.sents:
        if not _asks(sentence) or _requests(sentence):
            continue
        kinds = {k.i for t in sentence for k in _answer_kinds(t)}
        nouns += [
            t.lower_
            for t in sentence
            if t.pos_ == "NOUN" and t.i not in kinds and not _names_a_kind(t)
        ]
    return tuple(dict.fromkeys(nouns))


def _names_a_kind(noun: Token) -> bool:
    """Whether a noun names a kind of entity (ASKED_NOUNS: "dog", "city", "band"), which a
    memory names by its instance ("my greyhound", "Lisbon") as often as by the kind."""
    return _lexicon_type(noun) is not None


def _requests(sentence: Span) -> bool:
    """Whether a question asks for advice or a service, not a fact: its main verb takes a
    modal ("can you…", "what should I…", "would it be…"), or it has no verb ("any tips for
    the trip?")."""
    root = sentence.root
    if root.pos_ not in ("VERB", "AUX"):
        return True
    return any(c.tag_ == "MD" for c in root.children)


def _answer_kinds(token: Token) -> list[Token]:
    """The nouns a "what"/"which"/"how many" qualifies, or that a copular "what" stands for
    ("what is the breed of…"), through "kind of": the answer's kind."""
    qualified = _qualified(token)
    if not qualified:
        return []
    noun = qualified[0]
    found = [noun]
    while noun.lower_ in _KINDS:
        objects = [c for p in noun.children if p.dep_ == "prep" for c in p.children]
        if not objects:
            break
        noun = objects[0]
        found.append(noun)
    return found


def _asks(sentence: Span) -> bool:
    """Whether a sentence is a question: it ends with "?" or its main clause opens with a
    wh-word."""
    words = [t for t in sentence if not t.is_punct and not t.is_space]
    if not words:
        return False
    if sentence.text.rstrip().endswith("?"):
        return True
    # no "?": a wh-word first that belongs to the main clause ("where did you go"), not to a
    # clause before it ("where I grew up, it snowed")
    first = words[0]
    return first.tag_ in ("WDT", "WP", "WP$", "WRB") and first.head.dep_ == "ROOT"


def _asked_by(token: Token) -> str | None:
    """The type `token` asks for, if it is a question's wh-word or the noun one qualifies."""
    lower = token.lower_
    if lower in ASKED_WH:
        return None if _relative(token) else ASKED_WH[lower]
    return next((kind for n in _qualified(token) if (kind := _noun_type(n)) is not None), None)


def _qualified(token: Token) -> list[Token]:
    """The nouns a question's "what"/"which"/"how many" stands for: the noun it qualifies
    ("which city", "how many pets"), or a copular "what"'s other side ("what is the name of her
    band?", "what was the city they…"); none for any other token."""
    lower = token.lower_
    if lower in _QUALIFIERS and token.dep_ == "det":
        return [token.head]
    if lower == "what" and token.dep_ in _COPULAR and token.head.lemma_ == "be":
        return [c for c in token.head.children if c.dep_ in _COPULAR and c.i != token.i]
    if lower == "many" and any(c.lower_ == "how" for c in token.children):
        return [token.head]
    return []


def _relative(wh: Token) -> bool:
    """Whether a wh-word opens a relative clause ("my friend who moved") rather than a question.
    spaCy also parses a question after a name as a relative clause on it ("Caroline, where did
    you camp?"); a question's clause puts its auxiliary before its subject, a relative's does
    not."""
    clause = wh.head
    if clause.dep_ != "relcl":
        return False
    subjects = [c.i for c in clause.children if c.dep_ in ("nsubj", "nsubjpass")]
    auxiliaries = [c.i for c in clause.children if c.dep_ in ("aux", "auxpass")]
    return not (subjects and auxiliaries and min(auxiliaries) < min(subjects))


def _noun_type(noun: Token) -> str | None:
    """The type a qualified noun names, looking through "kind of …"."""
    lemma = noun.lemma_.lower()
    if lemma in _KIND_OF or noun.lower_ in _KIND_OF:
        objects = (c for p in noun.children if p.dep_ == "prep" for c in p.children)
        return next((kind for o in objects if (kind := _noun_type(o)) is not None), None)
    return _lexicon_type(noun)


def _lexicon_type(noun: Token) -> str | None:
    """The entity type the lexicon gives a noun, by its lemma or as written."""
    return ASKED_NOUNS.get(noun.lemma_.lower()) or ASKED_NOUNS.get(noun.lower_)
