"""What one parsed text mentions: the state that extraction builds, token by token.

- Named entities (cleaned and judged by names.py), "the X project" as a project, and proper nouns
  NER missed that stand as a subject or beside a role noun ("my friend Priya").
- People by role: "my sister Ana" is Ana (female), the speaker's sister; "my husband" with no
  name is a reference to the speaker's husband; "her mom" one to the mom of whoever "her" is.
- Pronouns: he/she/him/her/his resolve to the last person of matching gender named earlier in the
  same text; failing that they become references the resolver settles with the session's people.
- Topics: the object of a fact ("a LGBTQ support group" → "LGBTQ support group"), or any other
  informative noun chunk as a *candidate* that becomes an entity once it recurs.

Keys come from extraction/keys.py, topic labels and the word lists they use from
extraction/topics.py; nothing here knows the user's catalogue.
"""

from __future__ import annotations

from dataclasses import replace

from spacy.tokens import Doc, Span, Token

from extraction import names
from extraction.genders import given_gender
from extraction.keys import clean_label, make_key, speaker_key
from extraction.kinds import QUANTITY_HEADS, in_domain
from extraction.lexicon import (
    FIRST_PERSON,
    LANGUAGE_NOUNS,
    NER_TYPES,
    PET_NOUNS,
    PLURAL_ROLES,
    PRONOUN_GENDER,
    ROLES,
    SECOND_PERSON,
    WORK_NOUNS,
)
from extraction.model import REF_PREFIX, Mention, Reference, Relation
from extraction.topics import (
    CHAT_WORDS,
    COMMON_OBJECT_ZIPF,
    COMMON_TOPIC_ZIPF,
    LIGHT_VERBS,
    completes,
    topic_label,
)

# a fact that ends an older one between the same two entities: a thing done ends the plan to do
# it (extraction/endings.py; a liking said to have changed ends the old one in facts.py)
DONE = ("VISITED", "ATTENDED", "MADE", "MOVED_TO", "READ", "WATCHED", "MEMBER_OF", "OWNS")
ENDS: dict[str, tuple[str, ...]] = {
    **{done: ("PLANS",) for done in DONE},
    "HAS_PET": ("PLANS",),
}

# a quotation of more words than this, or with a verb and its subject, is a passage quoted, not a
# title
MAX_TITLE_WORDS = 8
# how common (wordfreq Zipf) every word of a quotation is when it is everyday speech, no title:
# "good" 6.1, "morning" 5.3, "thanks" 5.5; "Gatsby" 2.9, "pose" 4.1
EVERYDAY_ZIPF = 5.0
_QUOTES = {'"': '"', "“": "”", "«": "»"}


def quotations(doc: Doc) -> list[Span]:
    """The spans between double quotation marks (straight, curly or guillemets), marks left
    out."""
    found: list[Span] = []
    opened: Token | None = None
    for token in doc:
        if opened is None and token.text in _QUOTES:
            opened = token
        elif opened is not None and token.text == _QUOTES[opened.text]:
            if token.i > opened.i + 1:
                found.append(doc[opened.i + 1 : token.i])
            opened = None
    return found


def _everyday(span: Span) -> bool:
    """A quotation of everyday words only ("Good morning", "Thanks", "See you soon"): words
    someone said, no title."""
    words = [t for t in span if t.is_alpha]
    return all(
        t.lower_ in CHAT_WORDS or names.zipf(t.lower_) >= names.COMMON_WORD_ZIPF for t in words
    )


def _said(span: Span) -> bool:
    """A quoted clause (a subject and its verb, or a line break): words someone said or sang."""
    if any("\n" in t.text or "\n" in t.whitespace_ for t in span):
        return True
    return any(t.dep_ in {"nsubj", "nsubjpass"} and t.head in span for t in span)


class DocState:
    """Mentions and relations of one text as they are found; `token_key` maps token indexes to the
    entity each token stands for."""

    def __init__(self, doc: Doc, speaker: str | None) -> None:
        self.doc = doc
        self.mentions: dict[str, Mention] = {}
        self.relations: dict[tuple[str, str, str], Relation] = {}
        # what the text says stopped holding (extraction/endings.py): (src, type, dst or "*")
        self.endings: dict[tuple[str, str, str], Relation] = {}
        self.token_key: dict[int, str] = {}
        self.gender: dict[str, str] = {}
        self.people: list[tuple[int, str]] = []  # (token index, key) of persons, in text order
        self.used: set[int] = set()  # tokens whose noun chunk became a fact's topic
        self.speaker_key: str | None = None
        # tokens of quoted passages ("…LA to Monaco… I see you" quoted from a song): words the
        # speaker repeats, not states; their verbs give no fact, their "I" is not the speaker
        self.quoted: set[int] = set()
        self._chunks: dict[int, Span] = {}
        for chunk in doc.noun_chunks:
            for token in chunk:
                self._chunks[token.i] = chunk
        if speaker and speaker.strip():
            key = speaker_key(speaker)
            if key:
                self.speaker_key = key
                kind = key.partition(":")[0]
                self.mentions[key] = Mention(key, kind, clean_label(speaker), as_speaker=True)

    # -- building blocks ------------------------------------------------------------------------

    def add(
        self,
        entity_type: str,
        text: str,
        tokens: list[Token] | Span,
        *,
        tentative: bool = False,
        candidate: bool = False,
        addressed: bool = False,
        typed: bool = False,
    ) -> str | None:
        key = make_key(entity_type, text)
        if key is None:
            return None
        known = self.mentions.get(key)
        if known is None:
            self.mentions[key] = Mention(
                key,
                entity_type,
                clean_label(text),
                tentative=tentative,
                candidate=candidate,
                addressed=addressed,
                typed=typed,
            )
        elif (
            (known.tentative and not tentative)
            or (known.candidate and not candidate)
            or (typed and not known.typed)
        ):
            self.mentions[key] = Mention(
                key,
                known.type,
                known.label,
                known.as_speaker,
                tentative=known.tentative and tentative,
                candidate=known.candidate and candidate,
                addressed=known.addressed and addressed,
                typed=known.typed or typed,
            )
        for token in tokens:
            self.token_key.setdefault(token.i, key)
        if entity_type == "person" and len(tokens):
            self.people.append((list(tokens)[0].i, key))
        return key

    def relate(
        self,
        src: str | None,
        rel: str,
        dst: str | None,
        role: str | None = None,
        attested: bool = False,
    ) -> None:
        if src and dst and src != dst and in_domain(rel, src):
            known = self.relations.get((src, rel, dst))
            if known is None or (attested and not known.attested):
                self.relations[(src, rel, dst)] = Relation(src, rel, dst, role, attested)
            for ended in ENDS.get(rel, ()):  # "I finally visited Rome": the plan is done
                self.end(src, ended, dst)

    def end(self, src: str | None, rel: str, dst: str | None) -> None:
        """`src`'s fact `rel` about `dst` ("*": about anyone) stops holding as of this text."""
        if src and dst and src != dst and in_domain(rel, src):
            self.endings.setdefault((src, rel, dst), Relation(src, rel, dst))

    def mark_naming(self, key: str, gender: str) -> None:
        """The name `key` was given to what the pronoun of `gender` stands for, which this text
        does not say: the resolver binds it (extraction/naming.py)."""
        mention = self.mentions.get(key)
        if mention is not None:
            self.mentions[key] = replace(mention, naming=gender)

    def reference(
        self, key: str, label: str, reference: Reference, entity_type: str = "person"
    ) -> str:
        if key not in self.mentions:
            self.mentions[key] = Mention(key, entity_type, label, reference=reference)
        return key

    def addressee(self) -> str | None:
        """ "you": the person the speaker talks to, settled by the resolver (the session's
        other speaker); None when there is no speaker."""
        if self.speaker_key is None:
            return None
        return self.reference(f"{REF_PREFIX}addressee", "you", Reference("addressee"))

    # -- named entities -------------------------------------------------------------------------

    def add_entities(self) -> None:
        for ent in self.doc.ents:
            entity_type = NER_TYPES.get(ent.label_)
            if entity_type is None:
                continue
            cleaned = names.clean(ent) if entity_type != "topic" else ent
            for span in names.split(cleaned) if cleaned is not None else ():
                self._entity(entity_type, span, ent)
        for token in self.doc:
            self._project(token)
            self._unlabelled_person(token)
            self._titled(token)
            self._language_named(token)
        for span in quotations(self.doc):
            if len(span) > MAX_TITLE_WORDS or _said(span):
                self.quoted.update(t.i for t in span)
            elif span[0].text[:1].isupper() and not _everyday(span):
                self._quoted_title(span)

    def _quoted_title(self, span: Span) -> None:
        """ "I've read "The Great Gatsby"", "the "Pose of the Week" idea": a short capitalised
        quotation is one name, a title, not the pieces the tagger saw in it ("Gatsby")."""
        inside = {self.token_key[t.i] for t in span if t.i in self.token_key}
        speaking = [m for k in inside if (m := self.mentions.get(k)) is not None and m.as_speaker]
        if speaking or any(k.startswith("person:") for k in inside):
            return  # a quoted name of someone ("Hey "Mel""): a person, not a title
        for key in inside:
            self.mentions.pop(key, None)
        for t in span:
            self.token_key.pop(t.i, None)
        self.add("work", span.text, span)

    def _entity(self, entity_type: str, span: Span, ent: Span) -> None:
        """One cleaned name span of the tagger's entity `ent`, under the tagger's type."""
        if entity_type not in {"topic", "language"} and names.too_common(span, ent.label_):
            return
        if entity_type == "person" and span[0].pos_ == "VERB":
            return  # "Learning German has been tough": an activity, no one's name
        if all(t.lower_ in CHAT_WORDS or t.is_punct for t in span):
            return  # "Congrats!" tagged a product: chat, never a name or a topic
        words = span.text.split()
        if entity_type in {"org", "topic"} and words and words[0].lower() == "project":
            entity_type = "project"
        if entity_type in {"person", "place"} and names.designated(span.text):
            entity_type = "org"  # "Zentrivo Labs" (a facility, says the tagger)
        # the tagger's LANGUAGE is said of few words, and a capital starts no language's name
        tentative = entity_type not in {"topic", "language"} and names.is_tentative(span, self.doc)
        called = entity_type == "person" and names.addressed(span, ent)
        self.add(entity_type, span.text, span, tentative=tentative, addressed=called)

    def _titled(self, token: Token) -> None:
        """ "the game Stardew Valley", "the book 'Dune'", "a film called Coco": a name beside a
        noun for a kind of creative work is a title, whatever the tagger guessed."""
        if token.pos_ != "NOUN" or token.lemma_.lower() not in WORK_NOUNS:
            return
        named = [
            c
            for c in token.children
            if c.dep_ == "appos" and (c.pos_ == "PROPN" or c.i in self.token_key)
        ]
        if token.dep_ == "compound" and token.head.pos_ == "PROPN":
            named.append(token.head)
        for acl in (c for c in token.children if c.dep_ == "acl"):
            if acl.lemma_.lower() in {"call", "name", "title"}:
                named += [c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}]
        if token.dep_ == "nsubjpass" and token.head.lemma_.lower() in {"call", "name", "title"}:
            named += [c for c in token.head.children if c.dep_ in {"oprd", "attr"}]
        if named:
            key = self.retype(named[0], "work", typed=True)
            if key is not None and key.startswith("work:"):
                self.token_key[token.i] = key  # "watched a movie called Coco": Coco
        for example in _examples(token):
            self.retype(example, "work", typed=True)

    def _language_named(self, token: Token) -> None:
        """ "the Rust language", "Rust is my favourite language", "a language called Kotlin":
        a name beside a noun for a language is one, if it may be (names.may_be_language)."""
        if token.pos_ != "NOUN" or token.lemma_.lower() not in LANGUAGE_NOUNS:
            return
        named = [c for c in token.children if c.dep_ in {"compound", "appos", "amod"}]
        for acl in (c for c in token.children if c.dep_ == "acl"):
            if acl.lemma_.lower() in {"call", "name"}:
                named += [c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}]
        if token.dep_ == "attr" and token.head.lemma_ == "be":
            named += [c for c in token.head.children if c.dep_ == "nsubj"]
        for name in named:
            if name.text[:1].isupper() and names.may_be_language(name):
                self.retype(name, "language", typed=True)

    def _project(self, token: Token) -> None:
        """ "the Orion project": proper-noun compounds of the noun "project" name a project."""
        if token.lemma_.lower() != "project" or token.pos_ != "NOUN":
            return
        names_before = [c for c in token.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"]
        if not names_before:
            return
        for i in range(names_before[0].i, token.i + 1):
            self.token_key.pop(i, None)
        span = self.doc[names_before[0].i : names_before[-1].i + 1]
        for key in [k for k, m in self.mentions.items() if m.label == span.text]:
            if not self.mentions[key].as_speaker:
                del self.mentions[key]
        self.add("project", span.text, [*span, token])

    def _unlabelled_person(self, token: Token) -> None:
        """The small model misses many first names: a proper noun that NER left untyped (or
        typed as a nationality) is a person when it is the subject of a verb or stands beside a
        role noun ("my friend Priya")."""
        if token.pos_ != "PROPN" or (token.i in self.token_key and token.ent_type_ != "NORP"):
            return
        beside_role = token.dep_ == "appos" and token.head.lemma_.lower() in ROLES
        subject = token.dep_ in {"nsubj", "nsubjpass"} and token.head.pos_ in {"VERB", "AUX"}
        if not (beside_role or subject) or any(c.pos_ == "VERB" for c in token.lefts):
            return  # "Learning German has been tough": a verb's object, no one's name
        left = token.i
        for child in token.lefts:
            if child.dep_ == "compound" and child.pos_ == "PROPN":
                left = min(left, child.i)
        span = names.clean(self.doc[left : token.i + 1])
        if span is None:
            return
        if token.ent_type_ == "NORP":
            for key in [k for i, k in self.token_key.items() if span.start <= i < span.end]:
                self.mentions.pop(key, None)
            for i in range(span.start, span.end):
                self.token_key.pop(i, None)
        self.add("person", span.text, span, tentative=names.is_tentative(span, self.doc))

    # -- people: pronouns and roles, left to right ----------------------------------------------

    def add_people(self) -> None:
        for token in self.doc:
            lower = token.lower_
            if lower in PRONOUN_GENDER and token.pos_ == "PRON":
                self.token_key[token.i] = self._pronoun(token, PRONOUN_GENDER[lower])
            elif token.pos_ in {"NOUN", "PROPN"} and token.lemma_.lower() in ROLES:
                role_key = self._role(token)
                if role_key:
                    self.token_key.setdefault(token.i, role_key)
            elif token.pos_ == "NOUN" and token.lemma_.lower() in PET_NOUNS:
                if not (token.dep_ == "compound" and token.head.lemma_.lower() in PET_NOUNS):
                    self._own_pet(token)  # "guinea pig": the pig, not the guinea
            elif token.lower_ == "project" and token.i not in self.token_key:
                self._the_project(token)

    def _the_project(self, token: Token) -> None:
        """ "the project" with no name of its own: the project named before it in this text,
        else a reference the resolver settles with the session's one recent project."""
        children = list(token.children)
        if not any(c.dep_ == "det" and c.lower_ in {"the", "this", "that"} for c in children):
            return
        if any(c.dep_ in {"compound", "poss", "amod"} for c in children):
            return  # "the Orion project", "my project", "a new project" say which or none
        named = [k for k in self.mentions if k.startswith("project:")]
        if len(named) == 1:
            self.token_key[token.i] = named[0]
            return
        reference = Reference("thing", role="project")
        key = self.reference(f"{REF_PREFIX}project", "project", reference, "project")
        self.token_key[token.i] = key

    def _pronoun(self, token: Token, gender: str) -> str:
        for _, key in reversed([p for p in self.people if p[0] < token.i]):
            if key == self.speaker_key or self.mentions[key].tentative:
                continue
            if self.gender_of(key) in (None, gender):
                return key
        return self.reference(
            f"{REF_PREFIX}{gender}", token.lower_, Reference("pronoun", gender=gender)
        )

    def gender_of(self, key: str) -> str | None:
        """A person's gender as far as this text knows: said by a role noun ("my sister Ana"),
        else borne by the given name ("Linda"), else unknown."""
        mention = self.mentions.get(key)
        if key in self.gender or mention is None or mention.reference is not None:
            return self.gender.get(key)
        return given_gender(mention.label)

    def _role(self, token: Token) -> str | None:
        """A role noun: the named relative ("my sister Ana", "Ana, my sister", "Ana is my
        sister"), else a reference to the owner's unnamed relative ("my husband")."""
        relation, role, gender = ROLES[token.lemma_.lower()]
        owner = None
        for child in token.children:
            if child.dep_ == "poss":
                owner = self.key_of(child)
        named = [c for c in token.children if c.dep_ == "appos" and c.i in self.token_key]
        if token.dep_ == "appos" and token.head.i in self.token_key:
            named.append(token.head)
        after = token.nbor() if token.i + 1 < len(token.doc) else None
        if not named and after is not None and after.pos_ == "PROPN" and after.i in self.token_key:
            named.append(after)  # "my boyfriend Dev thinks …", however the parser hung them
        if token.dep_ == "attr":
            named += [c for c in token.head.children if c.dep_ == "nsubj" and c.i in self.token_key]
        people = [p for n in named if (p := self._as_person(n)) is not None]
        if role == "family":
            people = []  # "you're like family, Caroline" names no relative
        for person in people:
            if gender:
                self.gender.setdefault(person, gender)
            self.relate(owner, relation, person, role)
        if people:
            return people[0]
        if owner is None or owner.startswith("topic:"):
            return None
        plural = role in PLURAL_ROLES or token.tag_ in {"NNS", "NNPS"}
        reference = Reference("role", gender=gender, owner=owner, role=role, plural=plural)
        key = self.reference(f"{REF_PREFIX}role:{owner}:{role}", role, reference)
        if role != "family":  # a whole family is no relative: the mention stays, no edge
            self.relate(owner, relation, key, role)
        self.people.append((token.i, key))
        if gender:
            self.gender[key] = gender
        return key

    def retype(self, token: Token, entity_type: str, typed: bool = False) -> str | None:
        """The name `token` stands for, under another type (the verb's range or a kind noun
        said so; `typed`: strong enough to correct earlier mentions): the old mention goes
        unless it is the speaker or typed by a role noun."""
        old = self.token_key.get(token.i)
        mention = self.mentions.get(old) if old else None
        if mention is not None and (mention.as_speaker or old in self.gender or mention.typed):
            return old
        span = self._chunks.get(token.i)
        tokens = [t for t in span if t.pos_ == "PROPN"] if span is not None else [token]
        label = mention.label if mention else " ".join(t.text for t in tokens or [token])
        if old is not None:
            self.mentions.pop(old, None)
            self.people = [p for p in self.people if p[1] != old]
        key = self.add(entity_type, label, tokens or [token], typed=typed)
        if old is not None and key is not None:
            for i, other in list(self.token_key.items()):
                if other == old:
                    self.token_key[i] = key
            self.rekey_relations(old, key)
        return key

    def rekey_relations(self, old: str, key: str) -> None:
        """Relations found before a retype ("I love playing Minecraft": the liking is read
        before the playing types the title) follow the name to its new key."""
        for found, rel in list(self.relations.items()):
            if old in (rel.src, rel.dst):
                del self.relations[found]
                src = key if rel.src == old else rel.src
                dst = key if rel.dst == old else rel.dst
                self.relate(src, rel.type, dst, rel.role)

    def _as_person(self, token: Token) -> str | None:
        """A name beside a role noun ("my sister Liz", "Liz, my sister") is a person, whatever
        the tagger guessed (an org, a place): the role says so."""
        key = self.token_key[token.i]
        if key.startswith("person:"):
            return key
        if key.split(":", 1)[0] not in {"org", "place", "topic"}:
            return None
        return self.retype(token, "person")

    def _own_pet(self, token: Token) -> None:
        """ "my dog Max", "our cats": the owner HAS_PET the pet (by name when named). The parser
        may hang "my" on the name with "dog" as its compound: the owner is found there too."""
        holders = [token]
        if token.dep_ == "compound" and token.head.pos_ == "PROPN":
            holders.append(token.head)
        owners = [self.key_of(c) for h in holders for c in h.children if c.dep_ == "poss"]
        owner = next((o for o in owners if o), None)
        if owner is None:
            return
        key = self.pet(token)
        if key is not None and not key.startswith("pet:"):
            key = self.pet_reference(owner, token)  # "my cat": the owner's cat, not "cat"
        if key:
            self.token_key[token.i] = key
            self.relate(owner, "HAS_PET", key, token.lemma_.lower())

    def pet_reference(self, owner: str, token: Token) -> str:
        """The owner's animal known only by its kind ("my cat", "I adopted a puppy"): a
        reference the resolver settles as the one such pet the owner has named, else an unnamed
        pet ("Ana's cat") that a name given later ("her name is Miso") is merged into. The kind
        noun is never the pet's name."""
        kind = token.lemma_.lower()
        plural = token.tag_ in {"NNS", "NNPS"}
        reference = Reference("role", owner=owner, role=kind, plural=plural)
        key = self.reference(f"{REF_PREFIX}role:{owner}:{kind}", kind, reference, "pet")
        self.rekey(token, key)
        return key

    def rekey(self, token: Token, key: str) -> None:
        """`token` stands for `key` now; the mention it stood for goes when no other token
        stands for it (the topic "cat" of "my cat", the pronoun "her" of "her name is Miso")."""
        old = self.token_key.get(token.i)
        self.token_key[token.i] = key
        if old is None or old == key or old in self.token_key.values():
            return
        mention = self.mentions.get(old)
        if mention is not None and not mention.as_speaker:
            del self.mentions[old]
            self.people = [p for p in self.people if p[1] != old]

    # -- what a token stands for ----------------------------------------------------------------

    def key_of(self, token: Token) -> str | None:
        """The entity a subject-like token stands for: first person, a name, a resolved pronoun
        or role, an appositive's name; None for "you", "it" and anything else."""
        lower = token.lower_
        if lower in FIRST_PERSON:
            # "…said Liza. "We pleaded to help our brother."": a quoted "we" is whoever is quoted
            return None if token.i in self.quoted else self.speaker_key
        if lower in SECOND_PERSON:
            return None
        if token.i in self.token_key:
            return self.token_key[token.i]
        for child in token.children:
            if child.dep_ == "appos" and child.i in self.token_key:
                return self.token_key[child.i]
        return None

    def object_key(self, token: Token, people: bool = False) -> str | None:
        """The entity an object token stands for: a name, a person (only when `people`), a pet,
        an activity (a gerund), or the token's noun chunk as a topic."""
        key = self.key_of(token)
        if key is not None:
            mention = self.mentions.get(key)
            is_person = key.startswith("person:") or (
                mention is not None and mention.type == "person"
            )
            return key if people or not is_person else None
        if token.pos_ == "PRON" or token.like_num:
            return None
        if token.tag_ == "VBG" or (token.pos_ == "VERB" and token.dep_ in {"pcomp", "xcomp"}):
            return self.activity(token)
        if token.pos_ not in {"NOUN", "PROPN", "ADJ"}:
            return None
        if token.lemma_.lower() in ROLES:
            return None  # "the kids": people, never a topic
        if token.lemma_.lower() in PET_NOUNS:
            return self.pet(token)
        return self.topic(token)

    def activity(self, token: Token) -> str | None:
        """A gerund as an activity: "surfing", "working out"; none when the gerund is cut from
        what completes it ("watching the birds", "escaping into a story", "watching my dogs
        play"): alone it would misname the activity."""
        words = [token.lower_] + [c.lower_ for c in token.children if c.dep_ == "prt"]
        if token.lemma_.lower() in LIGHT_VERBS:
            return None  # "planning to help", "enjoy doing": no activity named
        if any(completes(c) for c in token.children):
            return None
        return self.add("topic", " ".join(words), [token])

    def pet(self, token: Token) -> str | None:
        """ "my dog Max", "a cat named Luna" → the pet by name; "our dog" → the topic dog."""
        named = [c for c in token.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
        if token.dep_ in {"compound", "appos"} and token.head.pos_ == "PROPN":
            named.append(token.head)  # "my dog Max loves …", "Oscar, my guinea pig"
        for acl in (c for c in token.children if c.dep_ == "acl" and c.lemma_ == "name"):
            named += [c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}]
        if named:
            name = named[0]
            old = self.token_key.pop(name.i, None)
            if old and old in self.mentions and not self.mentions[old].as_speaker:
                del self.mentions[old]
                self.people = [p for p in self.people if p[1] != old]
            return self.add("pet", name.text, [name, token])
        return self.add("topic", token.lemma_.lower(), [token])

    def topic(self, token: Token, candidate: bool = False) -> str | None:
        counted = [
            o
            for p in token.children
            if p.dep_ == "prep" and p.lower_ == "of"
            for o in p.children
            if o.dep_ == "pobj" and o.pos_ == "NOUN"
        ]
        if token.lemma_.lower() in QUANTITY_HEADS and counted:
            token = counted[0]  # "a stack of books": books; "stack" names no thing
        limit = COMMON_TOPIC_ZIPF if candidate else COMMON_OBJECT_ZIPF
        label = topic_label(self._chunks.get(token.i), token, limit)
        if label is None:
            return None
        span = self._chunks.get(token.i)
        tokens = list(span) if span is not None else [token]
        if not candidate:
            self.used.update(t.i for t in tokens)
        return self.add("topic", label, tokens, candidate=candidate)

    # -- candidate topics -----------------------------------------------------------------------

    def add_candidate_topics(self) -> None:
        """Noun chunks that carry no fact: candidates, entities only once they recur."""
        for chunk in self.doc.noun_chunks:
            if any(t.i in self.token_key or t.i in self.used for t in chunk):
                continue
            root = chunk.root
            if root.pos_ in {"PRON", "PROPN"} or root.lemma_.lower() in ROLES:
                continue
            self.topic(root, candidate=True)


def _examples(kind: Token) -> list[Token]:
    """Names given as examples of a kind of work: "fantasy books like LOTR", "games such as
    Overwatch and Valorant". A proper noun is an example of the kind it follows, so a title,
    whatever the tagger guessed (an org, a person); a common noun ("books like this") is no
    name."""
    found: list[Token] = []
    for prep in kind.children:
        if prep.dep_ != "prep":
            continue
        such = prep.lower_ == "as" and prep.i > 0 and prep.doc[prep.i - 1].lower_ == "such"
        if prep.lower_ != "like" and not such:
            continue
        for obj in (c for c in prep.children if c.dep_ == "pobj"):
            found += [t for t in (obj, *obj.conjuncts) if t.pos_ == "PROPN"]
    return found
