"""Resolution of fresh mentions against a user's known entities.

Order: exact key; a known alias (a speaker's name stops here: it is authoritative); the same
slug under another type when exactly one entity has it
(spaCy's small model sometimes tags a person as ORG); for persons, an unambiguous first name ↔ full
name ("Mary" → person:mary_smith when she is the only known Mary, and "Mary Smith" → person:mary
when that is the only Mary). Every resolved mention adds what it learned to the catalogue, so the
rest of a batch resolves the same way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from extraction.keys import slug, split_key
from extraction.model import Extraction, KnownEntity, Mention, Relation

_CONFUSABLE = {"person", "org", "place"}


class Resolver:
    def __init__(self, known: Iterable[KnownEntity] = ()) -> None:
        self.entities: dict[str, KnownEntity] = {}
        self._alias: dict[str, str] = {}  # "<type>:<alias slug>" -> key
        self._by_slug: dict[str, set[str]] = defaultdict(set)
        self._first_names: dict[str, set[str]] = defaultdict(set)
        self._names: dict[str, set[str]] = defaultdict(set)  # slug of label or alias -> keys
        self._order: dict[str, int] = {}  # key -> when first learned
        for entity in known:
            self.learn(entity)

    def learn(self, entity: KnownEntity) -> None:
        self.entities[entity.key] = entity
        self._order.setdefault(entity.key, len(self._order))
        for name in (entity.label, *entity.aliases):
            name_slug = slug(name)
            if name_slug:
                self._names[name_slug].add(entity.key)
        entity_type, value = split_key(entity.key)
        self._by_slug[value].add(entity.key)
        for alias in entity.aliases:
            alias_slug = slug(alias)
            if alias_slug:
                self._alias.setdefault(f"{entity_type}:{alias_slug}", entity.key)
        if entity_type == "person":
            self._first_names[value.split("_", 1)[0]].add(entity.key)

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
            return self._alias[key]
        if exact:
            return key
        entity_type, value = split_key(key)
        same_slug = self._by_slug.get(value, set())
        if len(same_slug) == 1:
            (other,) = same_slug
            other_type = split_key(other)[0]
            # names are names: any mention spelled like the one known person is that person
            if other_type == "person" or (entity_type in _CONFUSABLE and other_type in _CONFUSABLE):
                return other
        if entity_type == "person":
            first = value.split("_", 1)[0]
            candidates = self._first_names.get(first, set())
            if "_" not in value:
                full = [k for k in candidates if k != key]
                if len(full) == 1:
                    return full[0]
            else:
                bare = f"person:{first}"
                if candidates == {bare}:
                    return bare
        return key

    def learn_speakers(self, extractions: Iterable[Extraction]) -> None:
        """Speakers of a batch are known before it resolves, so "Hi Ben" early in a batch meets
        the speaker "Ben Carter" who only talks later."""
        for extraction in extractions:
            for mention in extraction.mentions:
                if (
                    mention.as_speaker
                    and self._resolve(mention.key, exact=True) not in self.entities
                ):
                    self.learn(KnownEntity(mention.key, mention.type, mention.label))

    def resolve(self, extraction: Extraction) -> tuple[Extraction, dict[str, set[str]]]:
        """The extraction with keys resolved, plus the aliases learned per resolved key."""
        mapping: dict[str, str] = {}
        aliases: dict[str, set[str]] = defaultdict(set)
        mentions: dict[str, Mention] = {}
        for mention in extraction.mentions:
            # a speaker's own name is authoritative: only exact keys and aliases apply
            target = self._resolve(mention.key, exact=mention.as_speaker)
            mapping[mention.key] = target
            known = self.entities.get(target)
            if known is None:
                known = KnownEntity(target, mention.type, mention.label)
                self.learn(known)
            elif mention.label != known.label and mention.label not in known.aliases:
                aliases[target].add(mention.label)
                self.learn(
                    KnownEntity(
                        known.key,
                        known.type,
                        known.label,
                        (*known.aliases, mention.label),
                        known.mention_count,
                    )
                )
            merged = Mention(target, known.type, known.label, mention.as_speaker)
            if target in mentions:
                merged = Mention(
                    target,
                    known.type,
                    known.label,
                    mention.as_speaker or mentions[target].as_speaker,
                )
            mentions[target] = merged
        relations: dict[tuple[str, str, str], Relation] = {}
        for rel in extraction.relations:
            src, dst = mapping.get(rel.src, rel.src), mapping.get(rel.dst, rel.dst)
            if src != dst:
                relations.setdefault((src, rel.type, dst), Relation(src, rel.type, dst, rel.role))
        resolved = Extraction(list(mentions.values()), list(relations.values()), extraction.cues)
        return resolved, dict(aliases)
