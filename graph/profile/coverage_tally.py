"""One ended session's (or one sessionless UTC day's) contribution to the knowledge indexes: its
turns (id, time, event time), the entities they mention and the typed relations they back, split
by domain ('' for turns without one). It is stored beside the profile tally (`coverage_tally` on
the session, `coverage` on the (:DayTally)), and an index is a fold over them
(graph/profile/coverage.py builds it from the folded rows).

So an update reads one small JSON per session and day instead of the user's whole history, and an
incremental index equals a rebuild (every session and day tallied again) by construction — as
long as no later write changed an earlier session's entities or relations, which
`refreshProfile` then corrects, as for the profiles (graph/profile/tally.py). Like the profiles,
the index counts ended sessions and sessionless days: the turns of a session still open join it
when the session ends.

Pure: the store's rows are handed in (graph/write/profiles.py reads them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from graph.profile.coverage import IndexedEntity, IndexedRelation, Rows
from graph.records import CoverageMention, CoverageRelation, MemoryRecord, OpenThreads

COVERAGE_VERSION = 1


@dataclass
class Part:
    """One domain's share of an occasion."""

    memories: list[list[Any]] = field(default_factory=list)  # [id, occurred_at, event_start]
    entities: dict[str, list[Any]] = field(default_factory=dict)  # key -> [type, label,
    # unnamed, mentions]
    relations: list[list[Any]] = field(default_factory=list)  # [src key, src, type, dst key,
    # dst, dst type, evidence]


@dataclass
class CoverageTally:
    occasion: str  # the session id, or the UTC day
    day: bool = False
    domains: dict[str, Part] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"v": COVERAGE_VERSION, **asdict(self)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> CoverageTally | None:
        """None for a tally of another version (the occasion is tallied again)."""
        raw = json.loads(text)
        if raw.get("v") != COVERAGE_VERSION:
            return None
        parts = {name: Part(**part) for name, part in raw["domains"].items()}
        return cls(raw["occasion"], bool(raw["day"]), parts)


def tally_coverage(
    occasion: str,
    turns: Sequence[MemoryRecord],
    mentions: Iterable[CoverageMention],
    relations: Iterable[CoverageRelation],
    *,
    day: bool = False,
) -> CoverageTally:
    """`mentions`: each entity a turn mentions (not as its speaker); `relations`: each typed
    relation with the turns among its evidence (graph/profile_store.py `coverage_rows`)."""
    tally = CoverageTally(occasion, day)
    domain_of: dict[str, str] = {}
    for turn in turns:
        domain_of[str(turn.id)] = turn.domain or ""
        part = tally.domains.setdefault(turn.domain or "", Part())
        part.memories.append([str(turn.id), turn.occurred_at, turn.event_start])
    for mention in mentions:
        name = domain_of.get(mention.memory_id)
        if name is None:
            continue
        entities = tally.domains[name].entities
        entry = entities.setdefault(mention.key, [mention.type, mention.label, mention.unnamed, 0])
        entry[3] += 1
    for ends, evidence in _merged(relations).items():
        by_domain: dict[str, list[str]] = {}
        for memory_id in sorted(evidence):
            if memory_id in domain_of:
                by_domain.setdefault(domain_of[memory_id], []).append(memory_id)
        for name, ids in by_domain.items():
            tally.domains[name].relations.append([*ends, ids])
    return tally


def _merged(relations: Iterable[CoverageRelation]) -> dict[tuple[Any, ...], set[str]]:
    """A relation reached from both its ends comes as two rows: one, with their evidence."""
    merged: dict[tuple[Any, ...], set[str]] = {}
    for relation in relations:
        merged.setdefault(relation.ends, set()).update(relation.evidence)
    return dict(sorted(merged.items(), key=lambda item: tuple(map(str, item[0]))))


def fold(
    tallies: Iterable[CoverageTally],
    domain: str | None,
    threads: Sequence[OpenThreads] = (),
) -> Rows:
    """The rows an index is built from: every occasion's share of `domain` (all with None)
    added up; `threads` are kept for the sessions that have turns in it."""
    memories: list[list[Any]] = []
    entities: dict[str, _Entity] = {}
    relations: dict[tuple[str, str, str], _Relation] = {}
    sessions: set[str] = set()
    for tally in tallies:
        for name, part in sorted(tally.domains.items()):
            if domain is not None and name != domain:
                continue
            session = None if tally.day else tally.occasion
            if part.memories and session is not None:
                sessions.add(session)
            memories += part.memories
            _add_entities(entities, part, session)
            _add_relations(relations, part)
    return Rows(
        memories,
        [e.row(key) for key, e in entities.items()],
        [r.row() for r in relations.values()],
        [t for t in threads if t.session_id in sessions],
    )


@dataclass
class _Entity:
    kind: str
    label: str
    unnamed: bool
    mentions: int = 0
    sessions: dict[str, None] = field(default_factory=dict)  # in order, each once

    def row(self, key: str) -> IndexedEntity:
        return IndexedEntity(
            key, self.kind, self.label, self.unnamed, self.mentions, tuple(self.sessions)
        )


@dataclass
class _Relation:
    type: str
    src: str = ""
    dst: str = ""
    dst_type: str | None = None
    evidence: list[str] = field(default_factory=list)

    def row(self) -> IndexedRelation:
        return IndexedRelation(self.src, self.type, self.dst, self.dst_type, tuple(self.evidence))


def _add_entities(entities: dict[str, _Entity], part: Part, session: str | None) -> None:
    for key, (kind, label, unnamed, mentions) in part.entities.items():
        entry = entities.get(key)
        if entry is None:
            entry = entities[key] = _Entity(kind, label, unnamed)
        else:  # the newest occasion's label and type: a later naming or merge shows
            entry.kind, entry.label, entry.unnamed = kind, label, unnamed
        entry.mentions += mentions
        if session is not None:
            entry.sessions[session] = None


def _add_relations(relations: dict[tuple[str, str, str], _Relation], part: Part) -> None:
    for src_key, src, kind, dst_key, dst, dst_type, evidence in part.relations:
        entry = relations.setdefault((src_key, kind, dst_key), _Relation(kind))
        # the newest occasion's names: a later naming or merge shows
        entry.src, entry.dst, entry.dst_type = src, dst, dst_type
        entry.evidence += [str(i) for i in evidence]
