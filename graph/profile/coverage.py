"""The knowledge index of one user (and domain): what the memory holds, by category, theme, time
and place, and its gaps — each with a reason and a question an agent could ask. Pure: the rows
are read by graph/write/knowledge.py.

Categories come from the vocabulary. A *fact group* (work, family, home, …) is a set of relation
types, each a field ("occupation" is WORKS_AS); an *entity type* (people, places, …) is one. Per
category: entries (distinct memories backing it), unique topics (distinct objects or entities),
well covered and weak:

    a field is well covered with >= 3 distinct facts or >= 5 backing memories, weak with <= 1
    memory (never stated counts as weak); an entity-type category's well covered are its
    entities mentioned >= 5 times, its weak those mentioned once (first five of each)

Themes: topics mentioned in at least `THEME_SESSIONS` sessions, chat formulas ("Congrats") left
out. Temporal coverage: each memory at the time it speaks of (its event time), else when it was
said, counted in decades when the span passes 30 years, in years when it passes 2, else in months.
Places: place entities by mentions.

Gaps, ranked by kind, then by weight, at most `GAPS_PER_KIND` of each kind:

    OPEN_THREAD     a question left open at the end of a session (newest first)
    UNNAMED_PERSON  a person known only by role ("Melanie's husband"), most mentioned first
    UNTIMED_FACT    an event-like fact (visited, moved, attended, joined, made, …) whose memories
                    name no time, most restated first
    THIN_CATEGORY   a fact group the memory holds nothing of (a gap never asks for what the graph
                    holds: a pet, a workplace, a date already stated)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph.chat import is_formula
from graph.records import OpenThreads

# category -> field -> relation type, from graph/vocabulary.py's EXAMPLES
FACT_GROUPS: dict[str, dict[str, str]] = {
    "work": {"occupation": "WORKS_AS", "employer": "WORKS_AT", "projects": "WORKS_ON"},
    "education": {"studies": "STUDIES"},
    "family": {"relatives": "FAMILY_OF", "partner": "PARTNER_OF"},
    "friends": {"friends": "FRIEND_OF"},
    "home": {"home": "LIVES_IN", "moves": "MOVED_TO", "origin": "FROM"},
    "travel": {"places visited": "VISITED"},
    "hobbies": {
        "activities": "PRACTICES",
        "games and instruments": "PLAYS",
        "things made": "MADE",
        "likes": "LIKES",
        "dislikes": "DISLIKES",
    },
    "culture": {"books": "READ", "films and shows": "WATCHED"},
    "community": {
        "groups": "MEMBER_OF",
        "volunteering": "VOLUNTEERS_AT",
        "causes": "SUPPORTS",
        "events": "ATTENDED",
    },
    "pets": {"pets": "HAS_PET"},
    "plans": {"plans": "PLANS"},
    "belongings": {"things owned": "OWNS"},
}
ENTITY_CATEGORIES = {
    "people": "person",
    "places": "place",
    "organisations": "org",
    "projects": "project",
    "events": "event",
    "topics": "topic",
}
QUESTIONS = {
    "work": "What do you do for a living, and where?",
    "education": "What have you studied or trained in?",
    "family": "Who is in your family?",
    "friends": "Who are the friends you see most?",
    "home": "Where do you live, and where are you from?",
    "travel": "Where have you travelled?",
    "hobbies": "What do you like to do in your free time?",
    "culture": "What have you been reading or watching lately?",
    "community": "Are you part of any groups or causes?",
    "pets": "Do you have any pets?",
    "plans": "What are you planning or looking forward to?",
    "belongings": "Is there anything you got recently that matters to you?",
}
UNTIMED = {
    "VISITED": "When did {src} visit {dst}?",
    "MOVED_TO": "When did {src} move to {dst}?",
    "ATTENDED": "When did {src} go to {dst}?",
    "MEMBER_OF": "When did {src} join {dst}?",
    "MADE": "When did {src} make {dst}?",
    "HAS_PET": "When did {src} get {dst}?",
    "STUDIES": "When did {src} start studying {dst}?",
    "WORKS_AT": "Since when has {src} worked at {dst}?",
}
KINDS = ("OPEN_THREAD", "UNNAMED_PERSON", "UNTIMED_FACT", "THIN_CATEGORY")
THEME_SESSIONS = 3
GAPS_PER_KIND = 5
SHOWN = 5
_YEAR = 365.25 * 86_400


@dataclass(frozen=True)
class Category:
    name: str
    entry_count: int
    unique_topics: int
    well_covered: tuple[str, ...]
    weak: tuple[str, ...]


@dataclass(frozen=True)
class Gap:
    kind: str
    reason: str
    question: str
    weight: float = 0.0


@dataclass(frozen=True)
class Index:
    total_entries: int
    categories: tuple[Category, ...]
    themes: tuple[str, ...]
    temporal: tuple[tuple[str, int], ...]
    places: tuple[tuple[str, int], ...]
    gaps: tuple[Gap, ...]
    built_at: float | None = None


@dataclass(frozen=True)
class IndexedEntity:
    """An entity of the domain: how often its turns mention it, and in which sessions."""

    key: str
    type: str
    label: str
    unnamed: bool
    mentions: int
    sessions: tuple[str, ...]  # in order, each once


@dataclass(frozen=True)
class IndexedRelation:
    """A typed fact between two named things of the domain, with its turns in the domain."""

    src: str
    type: str
    dst: str
    dst_type: str | None
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Rows:
    """What the index is built from, already limited to the domain."""

    memories: Sequence[Sequence[Any]]  # (id, occurred_at, event_start or None)
    entities: Sequence[IndexedEntity]
    relations: Sequence[IndexedRelation]
    threads: Sequence[OpenThreads] = field(default_factory=list)


def build(rows: Rows, now: float | None = None) -> Index:
    timed = {str(m[0]) for m in rows.memories if m[2] is not None}
    # grouped once: each category reads its own types only
    by_type: dict[str, list[IndexedRelation]] = {}
    for relation in rows.relations:
        by_type.setdefault(relation.type, []).append(relation)
    of_kind: dict[str, list[IndexedEntity]] = {}
    for entity in rows.entities:
        of_kind.setdefault(entity.type, []).append(entity)
    categories = [_group(name, fields, by_type) for name, fields in FACT_GROUPS.items()]
    categories += [_kind(name, of_kind.get(kind, [])) for name, kind in ENTITY_CATEGORIES.items()]
    gaps = _open(rows.threads) + _unnamed(rows.entities) + _untimed(rows.relations, timed)
    # a category the memory holds something of is no gap to ask about: "Do you have any pets?"
    # of a user whose dog the graph knows asks what it knows
    gaps += [
        Gap("THIN_CATEGORY", f"{c.name}: nothing known yet", QUESTIONS[c.name])
        for c in categories
        if c.name in FACT_GROUPS and c.entry_count == 0
    ][:GAPS_PER_KIND]
    return Index(
        total_entries=len(rows.memories),
        categories=tuple(categories),
        themes=_themes(rows.entities),
        temporal=temporal([float(m[2] or m[1]) for m in rows.memories]),
        places=tuple(
            (e.label, e.mentions)
            for e in sorted(of_kind.get("place", []), key=lambda e: (-e.mentions, e.label))
        )[:10],
        gaps=tuple(gaps),
        built_at=now,
    )


def _group(
    name: str, fields: Mapping[str, str], by_type: Mapping[str, Sequence[IndexedRelation]]
) -> Category:
    """A fact-group category from the relations by type."""
    memories: set[str] = set()
    objects: set[str] = set()
    well, weak = [], []
    for label, kind in fields.items():
        facts = by_type.get(kind, ())
        backing = {i for r in facts for i in r.evidence}
        memories |= backing
        objects |= {r.dst for r in facts}
        if len({r.dst for r in facts}) >= 3 or len(backing) >= 5:
            well.append(label)
        elif len(backing) <= 1:
            weak.append(label)
    return Category(name, len(memories), len(objects), tuple(well), tuple(weak))


def _kind(name: str, entities: Sequence[IndexedEntity]) -> Category:
    """An entity-type category from the entities of that type."""
    of_kind = sorted(entities, key=lambda e: (-e.mentions, e.label))
    well = tuple(e.label for e in of_kind if e.mentions >= 5)[:SHOWN]
    weak = tuple(sorted(e.label for e in of_kind if e.mentions == 1))[:SHOWN]
    entries = sum(e.mentions for e in of_kind)
    return Category(name, entries, len(of_kind), well, weak)


def _themes(entities: Sequence[IndexedEntity]) -> tuple[str, ...]:
    topics = [
        e
        for e in entities
        if e.type == "topic"
        and len({s for s in e.sessions if s}) >= THEME_SESSIONS
        and not is_formula(e.label)  # "Congrats" recurs and says nothing
    ]
    topics.sort(key=lambda e: (-len(set(e.sessions)), -e.mentions, e.label))
    return tuple(e.label for e in topics[:10])


def temporal(times: Sequence[float]) -> tuple[tuple[str, int], ...]:
    """Counts per decade, year or month, whichever fits the span."""
    if not times:
        return ()
    span = (max(times) - min(times)) / _YEAR
    counts: Counter[str] = Counter()
    for stamp in times:
        moment = datetime.fromtimestamp(stamp, tz=UTC)
        # four-digit years, so that the buckets sort in time for any year the API accepts
        if span > 30:
            counts[f"{moment.year // 10 * 10:04d}s"] += 1
        elif span > 2:
            counts[f"{moment.year:04d}"] += 1
        else:
            counts[f"{moment.year:04d}-{moment.month:02d}"] += 1
    return tuple(sorted(counts.items()))


def _open(threads: Sequence[OpenThreads]) -> list[Gap]:
    gaps = []
    for session in sorted(threads, key=lambda t: -t.at):
        for question in session.questions:
            reason = f"asked at the end of session {session.session_id} and left open"
            gaps.append(Gap("OPEN_THREAD", reason, question, session.at))
    return gaps[:GAPS_PER_KIND]


def _unnamed(entities: Sequence[IndexedEntity]) -> list[Gap]:
    people = sorted(
        (e for e in entities if e.type == "person" and e.unnamed),
        key=lambda e: (-e.mentions, e.label),
    )
    return [
        Gap(
            "UNNAMED_PERSON",
            f"{e.label} is known only by role ({e.mentions} mentions)",
            f"What is the name of {e.label}?",
            float(e.mentions),
        )
        for e in people[:GAPS_PER_KIND]
    ]


def _untimed(relations: Sequence[IndexedRelation], timed: set[str]) -> list[Gap]:
    facts = [
        r for r in relations if r.type in UNTIMED and r.evidence and not set(r.evidence) & timed
    ]
    facts.sort(key=lambda r: (-len(r.evidence), r.src, r.dst))
    return [
        Gap(
            "UNTIMED_FACT",
            f"{r.src} {r.type.lower().replace('_', ' ')} {r.dst}: "
            f"{len(r.evidence)} memories, none says when",
            UNTIMED[r.type].format(src=r.src, dst=r.dst),
            float(len(r.evidence)),
        )
        for r in facts[:GAPS_PER_KIND]
    ]


def to_json(index: Index) -> str:
    return json.dumps(asdict(index), sort_keys=True)


def from_json(text: str) -> Index:
    raw = json.loads(text)
    return Index(
        total_entries=int(raw["total_entries"]),
        categories=tuple(
            Category(**{**c, "well_covered": tuple(c["well_covered"]), "weak": tuple(c["weak"])})
            for c in raw["categories"]
        ),
        themes=tuple(raw["themes"]),
        temporal=tuple((str(p), int(n)) for p, n in raw["temporal"]),
        places=tuple((str(p), int(n)) for p, n in raw["places"]),
        gaps=tuple(Gap(**g) for g in raw["gaps"]),
        built_at=raw.get("built_at"),
    )
