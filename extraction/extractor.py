"""spaCy extraction: one text (with its speaker) → typed mentions and typed relations.

Per parsed text, in order (extraction/mentions.py holds the state):
1. named entities, judged by names.py, and projects and people NER missed;
2. people by role and pronouns, left to right ("my sister Ana … she"), pets by kind ("my cat");
3. names given in the next breath ("her name is Miso") and types from how a name is used
   ("walked Charlie"): extraction/naming.py;
4. typed facts from clauses (extraction/facts.py);
5. candidate topics from the noun chunks no fact used;
6. `RELATED_TO` between named entities of one sentence that no typed fact links;
7. the relation types the text's words cue, for retrieval.

The speaker of a text is a person mention, and first-person words resolve to it. Relation types
come from the closed list of extraction/model.py. Texts are processed in batches through
`nlp.pipe`. Resolution against a user's known entities and the session's people is the job of
extraction/resolver.py, applied to this module's output.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import replace

from spacy.language import Language
from spacy.tokens import Doc, Token

from extraction.asked import asked_nouns, asked_types
from extraction.chunks import joined, text_parts
from extraction.facts import extract_facts
from extraction.keys import is_agent_voice
from extraction.lexicon import FIRST_PERSON, NAMED_TYPES, RELATION_CUES, ROLES, SECOND_PERSON
from extraction.mentions import DocState
from extraction.model import Extraction
from extraction.naming import name_things, type_by_use
from extraction.parts import parts
from extraction.pipeline import load_pipeline
from extraction.voice import reported
from extraction.when import date_phrases

# characters of a message, and of an agent's reply, that extraction parses (see parsed_head); None
# parses every text whole. 600 cuts 87% of LongMemEval's assistant replies and none of LoCoMo's
# turns, and left LongMemEval dev recall unchanged while spaCy got 1.4x faster on real text
# (docs/performance.md); a person's text to store is parsed whole (extraction/chunks.py)
PARSED_CHARS: int | None = 600
# pipes whose annotations the third person (extraction/voice.py: tags, dependencies, lemmas) never
# reads: the named entities, a quarter of the small model's parse, with a model of its own (its
# own tok2vec), so the other pipes write what they write with it
UNREPORTED = ("ner",)


class Extractor:
    """Turns texts into mentions and relations; holds the spaCy pipeline (thread-safe for pipe)."""

    def __init__(
        self, nlp: Language, batch_size: int = 64, max_chars: int | None = PARSED_CHARS
    ) -> None:
        self.nlp = nlp
        self.batch_size = batch_size
        self.max_chars = max_chars

    @classmethod
    def load(cls, warm: bool = True) -> Extractor:
        """The pipeline, loaded; `warm`: and what its first use would load (`warm`), which a
        one-shot command leaves to its one message (that pays only for what it uses)."""
        extractor = cls(load_pipeline())
        if warm:
            extractor.warm()
        return extractor

    def warm(self) -> None:
        """Runs once what loads on first use (wordfreq's tables, dateparser), so the first
        message a user sends does not pay for it: 0.75 s on the first context call that named a
        person, before."""
        from extraction import concreteness
        from extraction.when import event_interval

        concreteness.load()
        said = self.extract("Alice met Bob in Boston last Saturday to play chess.", "Carol")
        event_interval(said.dates, 0.0)

    @property
    def name(self) -> str:
        meta = self.nlp.meta
        return f"{meta.get('lang', 'xx')}_{meta.get('name', 'unknown')}-{meta.get('version', '?')}"

    def extract_many(self, items: Sequence[tuple[str, str | None]]) -> list[Extraction]:
        """One Extraction per (text, speaker), in order: texts to store, so they get no parts
        (see `extract`). A person's text is parsed whole, a long one part by part
        (extraction/chunks.py); of an agent's reply only the head (`max_chars`, cut at a
        sentence end): the names an agent says wait for a person to say them and it states no
        fact (extraction/resolver.py), so the rest of a long reply would cost the parse and add
        nothing the graph keeps."""
        texts = [self.parsed(text, speaker) for text, speaker in items]
        docs = iter(
            self.nlp.pipe((p for parts in texts for p in parts), batch_size=self.batch_size)
        )
        return [
            joined([extract(next(docs), speaker) for _ in parts])
            for parts, (_, speaker) in zip(texts, items, strict=True)
        ]

    def parsed(self, text: str, speaker: str | None) -> list[str]:
        """What of a text to store is parsed, as docs: see `extract_many`."""
        if self.max_chars is None:
            return [text]
        if speaker is not None and is_agent_voice(speaker):
            return [parsed_head(text, self.max_chars)]
        return text_parts(text)

    def extract(self, text: str, speaker: str | None = None) -> Extraction:
        """One message as `context` reads it: with its parts (extraction/parts.py) and the kinds
        of thing it asks for and the nouns it asks about (extraction/asked.py), which only a
        question is read for, so ingest does not compute them."""
        doc = self.nlp(parsed_head(text, self.max_chars))
        said = extract(doc, speaker)
        return replace(said, parts=parts(doc), asked=asked_types(doc), asked_nouns=asked_nouns(doc))

    def reported_many(
        self, items: Sequence[tuple[str, str]], listeners: Mapping[str, str] | None = None
    ) -> list[str]:
        """Each (sentence, speaker) in the third person, for episodes; `listeners` maps a
        speaker to the one they talk to, who "you" is."""
        heard = listeners or {}
        docs = self.nlp.pipe(
            (text for text, _ in items), batch_size=self.batch_size, disable=UNREPORTED
        )
        return [
            reported(doc, speaker, heard.get(speaker))
            for doc, (_, speaker) in zip(docs, items, strict=True)
        ]


def parsed_head(text: str, max_chars: int | None) -> str:
    """The part of `text` extraction parses: all of it up to `max_chars`, else the head cut
    after the last sentence end (or line break) in it, or at a space when the head has none in its
    second half. spaCy's cost grows with the text while the facts a person states about
    themselves sit near the start of what they say."""
    if max_chars is None or len(text) <= max_chars:
        return text
    head = text[:max_chars]
    end = max(head.rfind(mark) for mark in (". ", "! ", "? ", "\n"))
    if end < max_chars // 2:
        end = head.rfind(" ")
    return head[: end + 1] if end > 0 else head


def extract(doc: Doc, speaker: str | None) -> Extraction:
    state = DocState(doc, speaker)
    state.add_entities()
    state.add_people()
    name_things(state)
    type_by_use(state)
    extract_facts(state)
    state.add_candidate_topics()
    _co_occurrence(state)
    cues: set[str] = set()
    for token in doc:
        lemma = token.lemma_.lower()
        cues.update(RELATION_CUES.get(lemma, ()))
        if lemma in ROLES:
            cues.add(ROLES[lemma][0])
    mentions = [
        replace(m, gender=state.gender[m.key]) if m.key in state.gender else m
        for m in state.mentions.values()
    ]
    subjects, about_listener = _subjects(state)
    return Extraction(
        mentions,
        list(state.relations.values()),
        frozenset(cues),
        tuple(date_phrases(doc)),
        subjects,
        about_listener,
        endings=list(state.endings.values()),
    )


def _subjects(state: DocState) -> tuple[tuple[str, ...], bool]:
    """Named persons that are a clause's subject, with its conjuncts ("Tim and John went"), or
    that own it ("Melanie's family went"); and whether the text asks what its listener did
    ("I remember you told me to…", "what did you suggest?": "you" is the subject of a verb in
    the past, and no "I" is): then the speaker is not who it is about (retrieval lifts no one
    for the speaker's sake; what the listener said answers it). A request ("can you suggest…")
    is about the speaker's needs and is not."""
    found: list[str] = []
    listener_did = speaker_did = False
    for token in state.doc:
        if token.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        if token.lower_ in SECOND_PERSON and _past(token.head):
            listener_did = True
        if token.lower_ in FIRST_PERSON and _past(token.head):
            speaker_did = True
        for part in (token, *token.conjuncts):
            keys = [state.token_key.get(part.i)]
            keys += [state.token_key.get(c.i) for c in part.children if c.dep_ == "poss"]
            person = next((k for k in keys if k and k.startswith("person:")), None)
            if person and person not in found:
                found.append(person)
    # "did you know I moved?", "where did I go after you recommended it?": the speaker's own
    # past is asked about too, and the message is about them
    return tuple(found), listener_did and not speaker_did


def _past(verb: Token) -> bool:
    """ "you told", "you have told", "did you tell": a verb in the past or perfect."""
    return verb.tag_ in {"VBD", "VBN"} or any(
        c.dep_ == "aux" and c.tag_ == "VBD" for c in verb.children
    )


def _co_occurrence(state: DocState, limit: int = 6) -> None:
    """RELATED_TO between named entities of one sentence that no typed relation links already."""
    linked = {frozenset((r.src, r.dst)) for r in state.relations.values()}
    added = 0
    for sent in state.doc.sents:
        keys: list[str] = []
        for token in sent:
            key = state.token_key.get(token.i)
            if key and key.split(":", 1)[0] in NAMED_TYPES and key not in keys:
                keys.append(key)
        speaking = [t for t in sent if t.i not in state.quoted]
        if state.speaker_key and any(t.lower_ in FIRST_PERSON for t in speaking) and keys:
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
