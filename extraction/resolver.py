"""Resolution of one text's mentions against what the user's graph already knows.

Names, in order: exact key; a known alias (a speaker's name stops here: it is authoritative); the
same slug under another type when exactly one entity has it (spaCy's small model sometimes tags a
person as ORG); for persons, an unambiguous first name ↔ full name ("Mary" → person:mary_smith when
she is the only known Mary) and an unambiguous short form of a first name ("Mel" → Melanie, when
Melanie is the only known person whose first name starts so). A name called out to ("Thanks,
Mell!") that begins like exactly one other speaker's first name is that listener; an acronym
("HP") is the one known name of two or more words with those initials.

What one text could not settle (extraction/model.py):
- a *tentative* name (seen only at sentence starts: "Glad you came") is kept only when known, and
  held on its memory until the name turns up where only a name can be;
- a *candidate* topic (a noun chunk that carries no fact) becomes an entity when it recurs in a
  second memory;
  what a memory holds (its key on the memory) is mentioned by it once the entity exists;
- a pronoun reference is the last person named in the same session whose gender fits (speakers
  are addressed as "you", never "she"), or nothing;
- a role reference ("my husband") is the owner's one named person in that role, else an unnamed
  person "Melanie's husband" that a later name ("my husband Tom") is merged into;
- "you" in a fact ("I believe in you") is the session's last other speaker, and "the project"
  the one project the session has named (none when it named several);
- a typed fact whose subject is another person who speaks is not this speaker's to state
  (extraction/attribution.py).
A relation whose end could not be settled is dropped with it, and so is a typed fact whose
settled subject is outside its relation's domain, or whose settled object's type is outside its
range (extraction/kinds.py: "he" settled on a place that "works at a school"). Everything resolved
is learned, so the rest of a batch and the next batches resolve the same way.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from nicknames import NickNamer

from extraction.attribution import attributed
from extraction.genders import given_gender
from extraction.keys import is_agent, make_key, slug, split_key
from extraction.kinds import entities_fit
from extraction.model import ANY, REF_PREFIX, Extraction, KnownEntity, Mention, Reference, Relation

_CONFUSABLE = {"person", "org", "place"}
# types the small model guesses for a name it knows nothing of; evidence overrides them
_GUESSED = {"person", "org", "place", "topic"}
# roles whose owner has many, so an unnamed "my friend" is nobody in particular
_MANY = {
    "friend",
    "best friend",
    "colleague",
    "classmate",
    "teammate",
    "neighbour",
    "roommate",
    "cousin",
    "teacher",
    "coach",
}
_PERSONAL = {"FAMILY_OF", "PARTNER_OF", "FRIEND_OF"}
# relations whose role names whom the owner has in it: "my sister", "my cat" find them again
_ROLED = _PERSONAL | {"HAS_PET"}
# in a session's people: a person spoken of whom no entity stands for ("my cousin" among many
# cousins), by the gender the role gave: a "he" after them is no one, never someone before them
BLOCKED = "?"
# types only evidence gives (a role or kind noun, a verb, the tagger's LANGUAGE): a later bare
# mention of the name, under whatever the tagger guesses, is that entity ("Biscuit loves his
# sweater", "Stardew Valley is …", "Rust has great docs"); not so a given name that is a
# language's too ("Julia"), which may be anyone's
_EVIDENCED = {"pet", "work", "language"}
RECENT_PEOPLE = 12  # people remembered per session for pronouns
# the types of a name held on memories (not of the noun-chunk topics, which hold no name)
_HELD_NAMES = ("person", "org", "place", "event", "work", "language", "project", "pet")
MIN_SHORT_FORM = 3  # "Mel" may stand for Melanie; "Al" is too short to tell
MIN_CALLED_FORM = 2  # called out to, the listener's "Jo" is Joanna: who else would it be
# an acronym is 2-6 capitals ("HP", "LOTR"): the initials of a known name of two or more words
_ACRONYM = re.compile(r"[A-Z]{2,6}")
_MINOR_WORDS = {"of", "the", "and", "a", "an", "for", "in", "on", "to", "de"}


@dataclass(frozen=True)
class RoleLink:
    """One known (owner)-[role]->(person) link, as read from the graph."""

    owner: str
    role: str
    key: str


@dataclass(frozen=True)
class Catalog:
    """What a Resolver is built from: the graph's entities, role links and held candidates, or a
    Resolver's own state exported (`Resolver.catalog`), as graph/catalog_files.py saves it."""

    entities: tuple[KnownEntity, ...]
    roles: tuple[RoleLink, ...]
    candidates: tuple[tuple[str, tuple[str, ...]], ...]
    # per entity, the slugs of its label and aliases, in order (slugifying 20,000 names again was
    # most of building a big user's resolver); empty: made when learned
    slugs: tuple[tuple[str, ...], ...] = ()


@dataclass
class _Session:
    """What one session has said so far, latest last: the people it named (not its speakers;
    `BLOCKED` marks a person spoken of whom no entity stands for, "my cousin"), its speakers,
    the projects it named and its unnamed pets and people."""

    people: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_PEOPLE))
    talkers: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_PEOPLE))
    things: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_PEOPLE))
    # pets and people known only by role or kind ("Ana's cat", "Ana's boss"), latest last: what
    # a name given a turn later names ("Her name is Miso")
    unnamed: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_PEOPLE))


def _touch(recent: deque[str], key: str) -> None:
    """`key` becomes the latest of `recent`."""
    if key in recent:
        recent.remove(key)
    recent.append(key)


@dataclass
class Resolution:
    """One text, resolved: what to write for it and what the write must do beside it."""

    extraction: Extraction
    aliases: dict[str, set[str]] = field(default_factory=dict)
    # candidate topics promoted now: (earlier memory id, key) mentions to add
    back_mentions: list[tuple[str, str]] = field(default_factory=list)
    # candidate topic keys this memory holds until one recurs
    candidates: list[str] = field(default_factory=list)
    # (unnamed person, named person): the unnamed one is merged into the named one
    merges: list[tuple[str, str]] = field(default_factory=list)


class Resolver:
    """A user's catalogue: known entities, aliases, roles, genders, candidate topics and the
    recent people of each session. Not thread-safe: the service resolves under its write lock."""

    def __init__(
        self,
        known: Iterable[KnownEntity] = (),
        roles: Iterable[RoleLink] = (),
        candidates: Iterable[tuple[str, Sequence[str]]] = (),
        slugs: Sequence[Sequence[str]] = (),
    ) -> None:
        """`slugs`: per entity of `known`, the slugs of its label and aliases, when a saved
        catalogue carries them (`from_catalog`); else each is made when learned."""
        self.entities: dict[str, KnownEntity] = {}
        self._alias: dict[str, str] = {}  # "<type>:<alias slug>" -> key
        self._by_slug: dict[str, set[str]] = defaultdict(set)
        self._first_names: dict[str, set[str]] = defaultdict(set)
        self._names: dict[str, set[str]] = defaultdict(set)  # slug of label or alias -> keys
        # "lotr" -> keys of such names, made on first use (`initials`): only an acronym reads it,
        # and making it was a quarter of building a big user's resolver from a saved catalogue
        self._initials: dict[str, set[str]] | None = None
        self._order: dict[str, int] = {}  # key -> when first learned
        self.roles: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.candidates: dict[str, list[str]] = {}  # candidate topic key -> memory ids
        self.speakers: set[str] = set()
        # drop typed facts about another speaker (extraction/attribution.py); off only to measure
        self.attribution = True
        self._sessions: dict[str, _Session] = {}
        # the highest mention count (the scale of Frequency), kept as entities are learned so a
        # context call need not scan the catalogue; None: to be counted again (the top fell)
        self._most: int | None = 0
        self._said_here: set[str] = set()
        self._slugs: dict[str, tuple[str, ...]] = {}  # key → the slugs of its label and aliases
        listed = list(known)
        named: Sequence[Sequence[str] | None] = slugs or [None] * len(listed)
        for entity, names in zip(listed, named, strict=True):
            self.learn(entity, names)
        for link in roles:
            self._learn_role(link.owner, link.role, link.key)
        known_keys = self.entities  # 85,840 held names on the perf history's big user
        self.candidates = {k: list(m) for k, m in candidates if k not in known_keys}

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> Resolver:
        """The resolver a catalogue was taken of, its names' slugs taken from it when it has
        them (slugifying every name again was most of building a big user's resolver)."""
        return cls(catalog.entities, catalog.roles, catalog.candidates, catalog.slugs)

    def catalog(self) -> Catalog:
        """The entities, role links and candidates this resolver holds now, in the order they
        were learned: a Resolver built from it resolves as one read from the graph at this
        state would (the sessions' recent people and the batch's speakers are not kept)."""
        return Catalog(
            tuple(self.entities.values()),
            tuple(RoleLink(o, r, k) for (o, r), keys in self.roles.items() for k in keys),
            tuple((k, tuple(m)) for k, m in self.candidates.items()),
            tuple(self._slugs[key] for key in self.entities),
        )

    # -- learning -------------------------------------------------------------------------------

    def learn(self, entity: KnownEntity, slugs: Sequence[str] | None = None) -> None:
        """Knows `entity` from now on; `slugs`, the slugs of its label and aliases when known
        (a saved catalogue's), else made here."""
        names = (entity.label, *entity.aliases)
        made = tuple(slugs) if slugs is not None else tuple(slug(n) for n in names)
        if len(made) != len(names):
            raise ValueError(f"{len(made)} slugs for the {len(names)} names of {entity.key}")
        self._slugs[entity.key] = made
        before = self.entities.get(entity.key)
        self.entities[entity.key] = entity
        if self._most is not None:
            if entity.mention_count >= self._most:
                self._most = entity.mention_count
            elif before is not None and before.mention_count == self._most:
                self._most = None
        self._order.setdefault(entity.key, len(self._order))
        for name_slug in made:  # one per name (checked above)
            if name_slug:
                self._names[name_slug].add(entity.key)
        if self._initials is not None:
            _index_initials(self._initials, entity)
        entity_type, value = split_key(entity.key)
        self._by_slug[value].add(entity.key)
        for alias_slug in made[1:]:
            if alias_slug:  # a slug is its own slug: the key needs no slugifying again
                self._alias.setdefault(f"{entity_type}:{alias_slug}", entity.key)
        if entity_type == "person" and not entity.unnamed:
            self._first_names[value.split("_", 1)[0]].add(entity.key)

    def learn_alias(self, key: str, alias_key: str, labels: Iterable[str]) -> None:
        """`alias_key` (a merged entity's key) and its `labels` now stand for `key`."""
        known = self.entities.get(key)
        if known is None:
            return
        gone = self.entities.pop(alias_key, None)
        self._slugs.pop(alias_key, None)
        if gone is not None:
            if gone.mention_count == self._most:
                self._most = None
            self._by_slug[split_key(alias_key)[1]].discard(alias_key)
            for names in (*self._names.values(), *(self._initials or {}).values()):
                names.discard(alias_key)
            for first in self._first_names.values():
                first.discard(alias_key)
        self._alias[alias_key] = key
        for links in self.roles.values():
            if alias_key in links:
                links[links.index(alias_key)] = key
        for session in self._sessions.values():
            for i, person in enumerate(session.people):
                if person == alias_key:
                    session.people[i] = key
        taken = (known.label, *known.aliases)
        added = tuple(dict.fromkeys(n for n in labels if n not in taken))
        self.learn(replace(known, aliases=(*known.aliases, *added)))

    def _learn_role(self, owner: str, role: str, key: str) -> None:
        links = self.roles[(owner, role)]
        if key not in links:
            links.append(key)

    def learn_speakers(self, extractions: Iterable[Extraction]) -> None:
        """Speakers of a batch are known before it resolves, so "Hi Ben" early in a batch meets
        the speaker "Ben Carter" who only talks later."""
        for extraction in extractions:
            for mention in extraction.mentions:
                if mention.as_speaker:
                    target = self._resolve(mention.key, exact=True)
                    if target not in self.entities:
                        self.learn(KnownEntity(mention.key, mention.type, mention.label))
                    self.speakers.add(target)

    def knows_session(self, session_id: str) -> bool:
        return session_id in self._sessions

    def seed_session(self, session_id: str, people: Iterable[str], speakers: Iterable[str]) -> None:
        """The session's people and speakers, oldest first, read from the graph when the cache
        is cold."""
        talkers = [self._resolve(s, exact=True) for s in speakers]
        self.speakers.update(talkers)
        session = self._sessions[session_id] = _Session()
        session.people.extend(self._resolve(p, exact=True) for p in people)
        session.talkers.extend(talkers)

    # -- names ----------------------------------------------------------------------------------

    @property
    def most_mentions(self) -> int:
        """The mention count of the user's most-mentioned entity (0 when none)."""
        if self._most is None:
            self._most = max((e.mention_count for e in self.entities.values()), default=0)
        return self._most

    def initials(self) -> dict[str, set[str]]:
        """The acronyms the names of known entities may go by ("lotr", "lr" for Lord of the
        Rings) → their keys; made from the catalogue on first use, then kept as names are
        learned."""
        if self._initials is None:
            made: dict[str, set[str]] = {}
            for entity in self.entities.values():
                _index_initials(made, entity)
            self._initials = made
        return self._initials

    def held_memories(self, name_slug: str) -> list[str]:
        """The memories holding a name of `name_slug` that no entity stands for yet (said only by
        an agent, or only at sentence starts), oldest first: a message naming it finds them,
        though the graph does not know the name."""
        found: list[str] = []
        for entity_type in _HELD_NAMES:
            found += self.candidates.get(f"{entity_type}:{name_slug}", ())
        return found

    def named(self, name_slug: str) -> list[str]:
        """Keys whose label or an alias slugs to `name_slug`, in the order they were learned."""
        return sorted(self._names.get(name_slug, ()), key=self._order.__getitem__)

    def resolve_key(self, key: str) -> str | None:
        """The known key a (message) key stands for, or None."""
        found = self._resolve(key)
        return found if found in self.entities else None

    def _resolve(self, key: str, exact: bool = False) -> str:
        if key in self.entities:
            return key
        if key in self._alias:
            # an alias of an alias (a guess merged into a name later merged again): the end
            return self._merged(key) or key
        if exact:
            return key
        entity_type, value = split_key(key)
        same_slug = self._by_slug.get(value, set())
        if entity_type in _GUESSED and _given(value):
            # a given name that is also a language's ("Julia"): a guess is never the language
            same_slug = {k for k in same_slug if split_key(k)[0] != "language"}
        if len(same_slug) == 1:
            (other,) = same_slug
            other_type = split_key(other)[0]
            # names are names: any mention spelled like the one known person is that person, and
            # a pet named alone later ("Biscuit loves his sweater", tagged an org) is the pet
            if other_type == "person" or (entity_type in _CONFUSABLE and other_type in _CONFUSABLE):
                return other
            if other_type in _EVIDENCED and entity_type in _GUESSED:
                return other
            if entity_type in _EVIDENCED and self._guessed_name(other):
                return other  # the guess, for the evidence to correct (see _name)
        if entity_type == "person":
            return self._person(key, value)
        if entity_type in _CONFUSABLE and "_" not in value:
            # a short form of a known person's name is that person, whatever the tagger said
            # ("Liz" tagged an org beside Elizabeth)
            person = make_key("person", value)
            found = self._person(person, value) if person is not None else key
            if found != person and found in self.entities:
                return found
        return key

    def _guessed_name(self, key: str) -> bool:
        """A name typed by the tagger's guess: a person, org or place, or a topic spelt as a
        name ("Minecraft"; a common noun topic such as "biscuit" is none)."""
        entity_type = split_key(key)[0]
        if entity_type in _CONFUSABLE:
            return True
        return entity_type == "topic" and self.entities[key].label[:1].isupper()

    def _person(self, key: str, value: str) -> str:
        first = value.split("_", 1)[0]
        candidates = self._first_names.get(first, set())
        if "_" in value:
            bare = make_key("person", first)
            return bare if bare is not None and candidates == {bare} else key
        full = [k for k in candidates if k != key]
        if len(full) == 1:
            return full[0]
        if candidates:
            return key
        longer = {
            k
            for name, keys in self._first_names.items()
            if len(name) > len(value) and name.startswith(value)
            for k in keys
        }
        if len(value) >= MIN_SHORT_FORM and longer:
            # "Mel" → Melanie, "Caro" → Caroline; "Dan" beside Daniel and Danielle: nobody
            return longer.pop() if len(longer) == 1 else key
        known = {k for name in _nickname_forms(value) for k in self._first_names.get(name, ())}
        known -= self._said_here  # "Bobby and Robert love chess": two people
        return known.pop() if len(known) == 1 else key  # "Liz" → Elizabeth, "Bob" → Robert

    # -- one text -------------------------------------------------------------------------------

    def resolve(
        self,
        extraction: Extraction,
        memory_id: str = "",
        session_id: str | None = None,
        stated: bool = False,
    ) -> Resolution:
        """The extraction with keys resolved (references settled or dropped), plus what the
        write must do beside it (aliases, promoted candidates, merges). A typed fact about
        another speaker is dropped (extraction/attribution.py) unless the text is `stated` (a
        memory with a `factType`: the client asserts it)."""
        out = Resolution(extraction)
        session = self._sessions.setdefault(session_id or "", _Session())
        speaker = next((m.key for m in extraction.mentions if m.as_speaker), None)
        if speaker is not None:
            speaker = self._resolve(speaker, exact=True)
        mapping = self._settle(extraction, memory_id, session_id, session, speaker, out)
        # an earlier memory claimed under a key merged away while this text was settled ("Kadence"
        # held as an org, then "I am Kadence, a 25-year-old musician") mentions the merged-into
        # entity, as this text's own mention does: the write has no row of the old key
        out.back_mentions = list(
            dict.fromkeys(
                (earlier, merged)
                for earlier, key in out.back_mentions
                if (merged := self._merged(key)) is not None
            )
        )
        mentions = self._resolved_mentions(extraction, mapping, out)
        judged = speaker if self.attribution and not stated else None
        relations = self._resolved_relations(extraction, mapping, out, judged)
        if speaker is not None:
            _touch(session.talkers, speaker)
        for key in mentions:
            if key.startswith("project:") and key not in session.things:
                session.things.append(key)
            elif key.startswith("person:") and key not in self.speakers and key != speaker:
                _touch(session.people, key)
        endings = self._resolved_endings(extraction, mapping, judged)
        out.extraction = Extraction(
            list(mentions.values()),
            relations,
            extraction.cues,
            extraction.dates,
            endings=endings,
        )
        return out

    def _resolved_endings(
        self, extraction: Extraction, mapping: dict[str, str | None], speaker: str | None
    ) -> list[Relation]:
        """The facts the text ends, between resolved keys ("*" stays: any), that `speaker` may
        end: their own and those of people who do not speak (extraction/attribution.py)."""
        endings: dict[tuple[str, str, str], Relation] = {}
        for ended in extraction.endings:
            src = mapping.get(ended.src)
            dst = ended.dst if ended.dst == ANY else mapping.get(ended.dst)
            if src is None or dst is None or src == dst:
                continue
            settled = replace(ended, src=src, dst=dst)
            if attributed(settled, speaker, self.speakers):
                endings.setdefault((src, ended.type, dst), settled)
        return list(endings.values())

    def _settle(
        self,
        extraction: Extraction,
        memory_id: str,
        session_id: str | None,
        session: _Session,
        speaker: str | None,
        out: Resolution,
    ) -> dict[str, str | None]:
        """Each mention's key in the catalogue: names first, then pronouns (which look back at
        the names), then roles, things and the addressee; None drops a mention."""
        mapping: dict[str, str | None] = {}
        mentions = extraction.mentions
        # keys this text names itself: a nickname is not one of them ("Bobby and Robert")
        self._said_here = {m.key for m in mentions}
        heard = is_agent(speaker)  # an agent's turn: its new names wait for a person to say them
        for mention in mentions:
            if mention.reference is None:
                given = self._naming(mention, session, out) if not heard else None
                mapping[mention.key] = (
                    given
                    or self._listener(mention, session, speaker)
                    or self._name(mention, memory_id, out, heard)
                )
        for mention in mentions:
            if mention.reference is not None and mention.reference.kind == "pronoun":
                mapping[mention.key] = self._pronoun(mention.reference, session.people, speaker)
        for mention in mentions:
            ref = mention.reference
            if ref is not None and ref.kind == "role":
                mapping[mention.key] = self._role(ref, mapping, session, mention.type)
            elif ref is not None and ref.kind == "thing":
                named = set(session.things)
                # "the project" only when the session has named exactly one
                mapping[mention.key] = named.pop() if session_id and len(named) == 1 else None
            elif ref is not None and ref.kind == "addressee":
                others = [
                    t for t in reversed(session.talkers) if t != speaker and t in self.entities
                ]
                mapping[mention.key] = others[0] if session_id and others else None
        # a guess merged into a typed entity while this text was settled ("the Underground
        # Railroad" as a place, then as a title) is gone: its mentions follow the merge
        return {k: self._merged(v) for k, v in mapping.items()}

    def _merged(self, key: str | None) -> str | None:
        """`key`, or the entity it was merged into (followed to the end of the chain)."""
        seen: set[str] = set()
        while key is not None and key not in self.entities and key in self._alias:
            if key in seen:
                return None
            seen.add(key)
            key = self._alias[key]
        return key

    def _resolved_mentions(
        self, extraction: Extraction, mapping: dict[str, str | None], out: Resolution
    ) -> dict[str, Mention]:
        """The mentions under their resolved keys (one per entity); a new name of a known entity
        becomes its alias, a gender said by a role noun its gender."""
        mentions: dict[str, Mention] = {}
        for mention in extraction.mentions:
            target = mapping.get(mention.key)
            if target is None:
                continue
            known = self.entities[target]
            new_name = mention.label not in (known.label, *known.aliases)
            if mention.reference is None and new_name and not known.unnamed:
                out.aliases.setdefault(target, set()).add(mention.label)
                self.learn(replace(known, aliases=(*known.aliases, mention.label)))
            if mention.gender and not self.entities[target].gender:
                self.learn(replace(self.entities[target], gender=mention.gender))
            before = mentions.get(target)
            mentions[target] = Mention(
                target,
                known.type,
                known.label,
                mention.as_speaker or (before is not None and before.as_speaker),
            )
        return mentions

    def _resolved_relations(
        self,
        extraction: Extraction,
        mapping: dict[str, str | None],
        out: Resolution,
        speaker: str | None,
    ) -> list[Relation]:
        """The relations between resolved keys that `speaker` may state (None: any); a personal
        role to a named person is learnt."""
        relations: dict[tuple[str, str, str], Relation] = {}
        for rel in extraction.relations:
            src, dst = mapping.get(rel.src), mapping.get(rel.dst)
            if src is None or dst is None or src == dst:
                continue
            if rel.type != "RELATED_TO" and not entities_fit(rel.type, src, dst):
                continue  # "he" settled on a place that "works at a school"
            if not attributed(replace(rel, src=src, dst=dst), speaker, self.speakers):
                continue
            relations.setdefault((src, rel.type, dst), replace(rel, src=src, dst=dst))
            # a role resolved in this batch may not be a known entity yet
            dst_entity = self.entities.get(dst)
            dst_is_named = dst_entity is not None and not dst_entity.unnamed
            if rel.role and rel.type in _ROLED and dst_is_named:
                self._named_role(src, rel.role, dst, out)
        return list(relations.values())

    def _name(
        self, mention: Mention, memory_id: str, out: Resolution, heard: bool = False
    ) -> str | None:
        """A named mention's key; None for a tentative name nobody knows, a candidate topic that
        has not recurred yet, or a name only an agent has said (`heard`): an assistant's
        recipes, lists and stories name hundreds of things the user never spoke of, typed by a
        small model's guess ("Zara" a person, "Boise" an org: 22 of the 37 type errors in the
        LongMemEval dev sample were such names). A known entity an agent names is mentioned; a
        new one is held on the memory until someone who is no agent says it."""
        if mention.as_speaker:
            target = self._resolve(mention.key, exact=True)
        else:
            target = self._resolve(mention.key)
        if heard and not mention.as_speaker:
            if target in self.entities:
                return target
            self._hold(target, memory_id, out)
            return None
        if _typed_by_evidence(mention) and split_key(target)[0] != mention.type:
            typed = self._retype(mention, target, out)
            self._claim_held(typed, memory_id, out)
            return typed
        if target in self.entities:
            return target
        if _ACRONYM.fullmatch(mention.label):
            spelled = [k for k in self.initials().get(mention.label.lower(), ()) if k != target]
            if len(spelled) == 1:
                return spelled[0]  # "HP" → Harry Potter, "LOTR" → Lord of the Rings
        earlier = [m for m in self.candidates.get(target, []) if m != memory_id]
        if mention.tentative or (mention.candidate and not earlier):
            # held on the memory until confirmed: a name seen where a name must be, a topic again
            self._hold(target, memory_id, out)
            return None
        if earlier:
            del self.candidates[target]
            out.back_mentions.extend((m, target) for m in earlier)
        self.learn(KnownEntity(target, mention.type, mention.label))
        if _typed_by_evidence(mention):
            self._claim_held(target, memory_id, out)
        return target

    def _hold(self, target: str, memory_id: str, out: Resolution) -> None:
        """`target` waits on the memory (no entity yet): the next memory that settles it mentions
        it and claims this one (`back_mentions`)."""
        held = self.candidates.setdefault(target, [])
        if memory_id and memory_id not in held:
            held.append(memory_id)
        out.candidates.append(target)

    def _claim_held(self, key: str, memory_id: str, out: Resolution) -> None:
        """A name held at sentence starts under the tagger's guess ("Biscuit loves his new
        sweater": a tentative person) that evidence now types ("my dog Biscuit"): the memories
        holding it mention the typed entity, as a guess known already is merged into it."""
        value = split_key(key)[1]
        for guess in sorted(_CONFUSABLE - {split_key(key)[0]}):
            held = self.candidates.pop(f"{guess}:{value}", [])
            out.back_mentions.extend((m, key) for m in held if m != memory_id)

    def _retype(self, mention: Mention, target: str, out: Resolution) -> str:
        """A name typed by evidence ("my dog Biscuit": a pet; "my sister Liz": a person) that is
        known under the tagger's guess (an org, a place): the guess is merged into the typed
        entity in the same write, so earlier memories' mentions are corrected with it."""
        key = mention.key
        if key not in self.entities:
            self.learn(KnownEntity(key, mention.type, mention.label))
        old = self.entities.get(target)
        if old is None or old.gender is not None or old.unnamed or target in self.speakers:
            return key  # a person a role noun or a turn vouched for stays who they are
        if old.type == "person" and mention.type == "language" and _given(split_key(key)[1]):
            return key  # "learning Julia" says nothing of the friend Julia
        if split_key(target)[0] in _GUESSED:
            out.merges.append((target, key))
            self.learn_alias(key, target, [old.label, *old.aliases])
        return key

    def _listener(self, mention: Mention, session: _Session, speaker: str | None) -> str | None:
        """A one-word name called out to ("Thanks, Mell!", "Hey Jo") that no entity has, when it
        begins like the first name of exactly one other speaker — of this session first, else of
        the user's conversations: the listener, called by a short form."""
        if not mention.addressed or mention.type != "person" or speaker is None:
            return None
        value = split_key(mention.key)[1]
        known = self._resolve(mention.key) in self.entities
        if known or "_" in value or len(value) < MIN_CALLED_FORM:
            return None
        prefix = value[:MIN_SHORT_FORM]
        for pool in (session.talkers, self.speakers):
            listeners = {
                t
                for t in pool
                if t != speaker
                and t in self.entities
                and len(value) < len(first := split_key(t)[1].split("_", 1)[0])
                and first.startswith(prefix)
            }
            if len(listeners) == 1:
                return listeners.pop()
            if listeners:
                return None
        return None

    def _pronoun(self, ref: Reference, recent: deque[str], speaker: str | None) -> str | None:
        """The last person of the session the pronoun agrees with: by the gender a role noun or
        the given name says (extraction/genders.py), never a plural group; None when the last
        such is a person no entity stands for ("my cousin … he")."""
        for key in reversed(recent):
            if key.startswith(BLOCKED):
                if ref.gender is None or key[1:] in ("", ref.gender):
                    return None
                continue
            if key == speaker or key in self.speakers or key not in self.entities:
                continue
            known = self.entities[key]
            if known.plural:
                continue
            gender = known.gender or (None if known.unnamed else given_gender(known.label))
            if ref.gender is None or gender in (None, ref.gender):
                return key
        return None

    def _naming(self, mention: Mention, session: _Session, out: Resolution) -> str | None:
        """A name given to what an earlier turn spoke of ("Her name is Miso" after "I adopted a
        cat"): the session's latest unnamed pet or person by role whose gender agrees ("he",
        "she"), or unnamed pet ("it"), takes the name, under its own type; the unnamed entity is
        merged into the named one, so its memories and relations are the name's. None when
        nothing waits for a name."""
        if mention.naming is None:
            return None
        for unnamed in reversed(session.unnamed):
            known = self.entities.get(unnamed)
            if known is None or not known.unnamed or known.plural:
                continue
            if mention.naming == "thing" and known.type != "pet":
                continue  # "it's called Headspace" names no boss: only a pet is an "it"
            if mention.naming != "thing" and mention.naming != (known.gender or mention.naming):
                continue
            key = make_key(known.type, mention.label)
            if key is None:
                return None
            if key not in self.entities:
                self.learn(KnownEntity(key, known.type, mention.label, gender=known.gender))
            out.merges.append((unnamed, key))
            self.learn_alias(key, unnamed, [known.label])
            session.unnamed.remove(unnamed)
            if known.type == "person":
                _touch(session.people, key)
            return key
        return None

    def _role(
        self,
        ref: Reference,
        mapping: dict[str, str | None],
        session: _Session,
        kind: str = "person",
    ) -> str | None:
        """A person by role ("my husband") or a pet by kind ("my cat"): the owner's one named
        such, else their unnamed one (made now: "Melanie's husband", "Ana's cat")."""
        recent = session.people
        # the owner's settled key may have been merged away by a later name of this text
        owner = self._merged(mapping.get(ref.owner or "")) if ref.owner else None
        if owner is None and ref.owner and not ref.owner.startswith(REF_PREFIX):
            owner = self.resolve_key(ref.owner)
        if owner is None or owner not in self.entities or ref.role is None or is_agent(owner):
            return None  # an agent has no kin: "my kids" in its turns is a story's or a poem's
        links = [k for k in self.roles.get((owner, ref.role), []) if k in self.entities]
        named = [k for k in links if not self.entities[k].unnamed]
        if ref.role in _MANY:
            # "my friend" is the one friend this session named, singular; that the user named one
            # friend ever says nothing of who this one is (4 of 5 wrong FRIEND_OF facts in the
            # LongMemEval dev sample were "my friends" settled on an Emily of another session)
            in_session = [k for k in reversed(recent) if k in named]
            if in_session and not ref.plural:
                return in_session[0]
            if not ref.plural:
                _touch(recent, f"{BLOCKED}{ref.gender or ''}")  # "my cousin … he": not Tom
            return None
        if len(named) == 1:
            return named[0]
        if named and ref.plural:
            return None
        if named:
            in_session = [k for k in reversed(recent) if k in named]
            return in_session[0] if in_session else None
        if links:
            _touch(session.unnamed, links[0])
            return links[0]
        owner_entity = self.entities[owner]
        # "melanie" and "husband" → person:melanie_husband ("Melanie's husband"); a pet by its
        # kind → pet:melanie_cat ("Melanie's cat")
        key = make_key(kind, f"{split_key(owner)[1]}_{slug(ref.role)}")
        if key is None:
            return None
        label = f"{owner_entity.label}'s {ref.role}"
        if key not in self.entities:
            self.learn(
                KnownEntity(key, kind, label, gender=ref.gender, unnamed=True, plural=ref.plural)
            )
        self._learn_role(owner, ref.role, key)
        _touch(session.unnamed, key)
        return key

    def _named_role(self, owner: str, role: str, person: str, out: Resolution) -> None:
        """ "my husband Tom": Tom is the owner's husband; an unnamed husband merges into him."""
        links = self.roles[(owner, role)]
        unnamed = [k for k in links if k in self.entities and self.entities[k].unnamed]
        self._learn_role(owner, role, person)
        if role in _MANY or not unnamed:
            return
        named = [k for k in links if k in self.entities and not self.entities[k].unnamed]
        if len(named) != 1 or self.entities[unnamed[0]].plural:
            return  # several named: the unnamed one could be any of them
        source = unnamed[0]
        out.merges.append((source, person))
        links.remove(source)
        self.learn_alias(person, source, [self.entities[source].label])


def _typed_by_evidence(mention: Mention) -> bool:
    """A name whose type evidence said: a role noun ("my dog Biscuit": a pet; "my sister Ana": a
    person with the gender the role gives), a kind noun or a verb ("the game Stardew Valley",
    "I'm reading Dune": titles)."""
    if mention.reference is not None or mention.as_speaker:
        return False
    if mention.typed or mention.type == "pet":
        return True
    return mention.type == "person" and mention.gender is not None


@lru_cache(maxsize=1)
def _nicknames() -> NickNamer:
    return NickNamer()


@lru_cache(maxsize=4096)
def _nickname_forms(first: str) -> frozenset[str]:
    """The given names a one-word name is a nickname of ("liz" → elizabeth, lisa, lizzie), from
    the `nicknames` package's hand-curated English table; a full name is not taken for a known
    nickname ("Robert" is no known Bobby: they may be two people)."""
    return frozenset(slug(f) for f in _nicknames().canonicals_of(first)) - {first}


@lru_cache(maxsize=4096)
def _given(name_slug: str) -> bool:
    """A given name in the `nicknames` package's table ("julia", "ada"; not "rust", "swift")."""
    return bool(_nicknames().nicknames_of(name_slug) or _nicknames().canonicals_of(name_slug))


def _index_initials(index: dict[str, set[str]], entity: KnownEntity) -> None:
    """Adds the acronyms of a named entity's label and aliases to `index` (`Resolver.initials`)."""
    if entity.unnamed:
        return
    for name in (entity.label, *entity.aliases):
        for initials in _initials(name):
            index.setdefault(initials, set()).add(entity.key)


def _initials(name: str) -> set[str]:
    """The acronyms a name of two or more words may go by: "Lord of the Rings" → lotr, lr."""
    words = re.findall(r"[^\W\d_]+", name.lower())
    if words and words[0] == "the":
        words = words[1:]
    if len(words) < 2:
        return set()
    every = "".join(w[0] for w in words)
    major = "".join(w[0] for w in words if w not in _MINOR_WORDS)
    return {a for a in (every, major) if len(a) >= 2}
