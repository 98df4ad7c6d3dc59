"""Plain records read from the graph (the store builds them; api and retrieval read them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from graph.ids import MemoryId

# a row as an engine answers it, and a statement's parameters: what crosses the seam in
# graph/executor.py, turned into the records below by one `from_row` each
Row = dict[str, Any]
Params = dict[str, Any]


@dataclass(frozen=True)
class MemoryRecord:
    id: MemoryId
    user_id: str
    text: str
    speaker: str | None
    session_id: str | None
    occurred_at: float
    created_at: float
    external_id: str | None
    importance: int
    pinned: bool
    category: str | None = None
    fact_type: str | None = None
    last_accessed_at: float | None = None
    access_count: int = 0
    entity_keys: tuple[str, ...] = ()
    kind: str = "turn"  # "episode" for a session summary
    # the time the text speaks of ("last Saturday" → that day), when it names one
    event_start: float | None = None
    event_end: float | None = None
    # near-duplicates (graph/repeats.py): the earlier memory this one says again, and how often
    # this one was said again
    repeat_of: str | None = None
    repeats: int = 0
    # the types the storage policy redacted from the text (graph/write/policy.py)
    redactions: tuple[str, ...] = ()
    # a stated fact merged into another (graph/write/merge_rules.py): the memory that absorbed it
    absorbed_into: str | None = None
    # the part of the user's memory it belongs to ("village-history"), when the writer named one
    domain: str | None = None

    @classmethod
    def from_row(cls, row: Row) -> MemoryRecord:
        return cls(
            id=MemoryId(row["id"]),
            user_id=row["user_id"],
            text=row["text"],
            speaker=row.get("speaker"),
            session_id=row.get("session_id"),
            occurred_at=float(row["occurred_at"]),
            created_at=float(row["created_at"]),
            external_id=row.get("external_id"),
            importance=int(row.get("importance") or 0),
            pinned=bool(row.get("pinned")),
            category=row.get("category"),
            fact_type=row.get("fact_type"),
            last_accessed_at=row.get("last_accessed_at"),
            access_count=int(row.get("access_count") or 0),
            entity_keys=tuple(row.get("entity_keys") or ()),
            kind=row.get("kind") or "turn",
            event_start=row.get("event_start"),
            event_end=row.get("event_end"),
            repeat_of=row.get("repeat_of"),
            repeats=int(row.get("repeats") or 0),
            redactions=tuple(row.get("redactions") or ()),
            absorbed_into=row.get("absorbed_into"),
            domain=row.get("domain"),
        )


@dataclass(frozen=True)
class MemoryFacts:
    """The part of a memory that scoring reads; retrieval fetches full records only of the few
    memories it shows (fewer properties per candidate is most of a context call's graph time)."""

    id: MemoryId
    occurred_at: float
    kind: str
    pinned: bool
    external_id: str | None
    entity_keys: tuple[str, ...]
    event_start: float | None = None
    event_end: float | None = None
    speaker_keys: tuple[str, ...] = ()  # of entity_keys, whoever said it
    session_id: str | None = None
    # keys held on it when it was written, that no entity stood for then: names only an agent
    # said (or only at a sentence start) and topics said once (extraction/resolver.py); a key
    # promoted since is also among entity_keys
    held_keys: tuple[str, ...] = ()

    def within(self, start: float, end: float) -> bool:
        """Whether the time it speaks of, or else when it was said, falls in [start, end)."""
        if self.event_start is not None and self.event_end is not None:
            return self.event_start < end and self.event_end > start
        return start <= self.occurred_at < end

    @classmethod
    def from_row(cls, row: Row) -> MemoryFacts:
        return cls(
            id=MemoryId(row["id"]),
            occurred_at=float(row["occurred_at"]),
            kind=row.get("kind") or "turn",
            pinned=bool(row.get("pinned")),
            external_id=row.get("external_id"),
            entity_keys=tuple(row.get("entity_keys") or ()),
            event_start=row.get("event_start"),
            event_end=row.get("event_end"),
            speaker_keys=tuple(row.get("speaker_keys") or ()),
            session_id=row.get("session_id"),
            held_keys=tuple(row.get("held_keys") or ()),
        )


@dataclass(frozen=True)
class TurnFacts:
    """A memory's facts and the turn before it in its session (cypher/user_facts.cypher): a row
    of the service's copy of the user's facts (graph/memory_facts.py)."""

    facts: MemoryFacts
    before: str | None

    @classmethod
    def from_row(cls, row: Row) -> TurnFacts:
        before = row.get("before")
        return cls(MemoryFacts.from_row(row), str(before) if before else None)


@dataclass(frozen=True)
class StoredText:
    """A memory's text and speaker: what its BM25 entry and its embedding are made of."""

    id: MemoryId
    text: str
    speaker: str | None

    @classmethod
    def from_row(cls, row: Row) -> StoredText:
        return cls(MemoryId(row["id"]), str(row["text"]), row.get("speaker"))


@dataclass(frozen=True)
class StoredVector:
    """A memory's text with its stored embedding and the model that made it: a vector index is
    rebuilt from these without the model when the model matches (graph/reconcile.py)."""

    id: MemoryId
    text: str
    speaker: str | None
    embedding: str | Sequence[float] | None  # base64 of float32s (a list in older graphs)
    embedding_model: str | None

    def ready_for(self, model_id: str) -> bool:
        """Whether the stored embedding is this model's, so it need not be embedded again."""
        return self.embedding_model == model_id and bool(self.embedding)

    @classmethod
    def from_row(cls, row: Row) -> StoredVector:
        return cls(
            id=MemoryId(row["id"]),
            text=str(row["text"]),
            speaker=row.get("speaker"),
            embedding=row.get("embedding"),
            embedding_model=row.get("embedding_model"),
        )


# evidence ids a card carries per relation (a fact restated 500 times keeps its newest few)
MAX_EVIDENCE = 10


@dataclass(frozen=True)
class RelationRecord:
    type: str
    direction: str  # "out" (this entity is the source) or "in"
    target: str  # the other entity's key
    count: int
    strong: int = 0
    role: str | None = None
    first_seen: float | None = None
    last_seen: float | None = None
    # the newest memory ids stating it, oldest first (MAX_EVIDENCE of them on a card)
    evidence: tuple[str, ...] = ()
    # one-value-at-a-time facts (graph/vocabulary.py SINGLE_VALUED): when it held; valid_to is
    # None while it still does (and for every other fact)
    valid_from: float | None = None
    valid_to: float | None = None

    @property
    def current(self) -> bool:
        """False once a newer value superseded it."""
        return self.valid_to is None


# the order in which a card presents its relations, by tier before strength: what was stated of
# the entity first; then encouragement between two people ("you've got this": true, and said
# often, but it says little about either); then co-mentions (whatever was named beside it); then
# history (values a newer one superseded). An agent reading a card learns the stated facts before
# anything else, however often the rest was said. The store reads a card's strongest relations
# (count first) as retrieval expands through them; the presenters order what it read.
STATED, ENCOURAGED, CO_MENTIONED, SUPERSEDED = 0, 1, 2, 3


def card_tier(rel_type: str, this: str, other: str, valid_to: float | None) -> int:
    """The tier of a relation of type `rel_type` between the entity `this` and `other` (keys)."""
    if valid_to is not None:
        return SUPERSEDED
    if rel_type == "RELATED_TO":
        return CO_MENTIONED
    if rel_type == "SUPPORTS" and this.startswith("person:") and other.startswith("person:"):
        return ENCOURAGED
    return STATED


def card_order(key: str, relations: Sequence[RelationRecord]) -> list[RelationRecord]:
    """The relations of the card of `key` as it is presented: by tier, then as read (strongest
    first); history newest first."""
    return sorted(
        relations,
        key=lambda r: (
            card_tier(r.type, key, r.target, r.valid_to),
            -(r.valid_to or 0.0),
        ),
    )


@dataclass(frozen=True)
class EntityRecord:
    key: str
    type: str
    label: str
    aliases: tuple[str, ...]
    mention_count: int
    first_seen: float | None
    last_seen: float | None
    relations: tuple[RelationRecord, ...] = field(default=())


@dataclass(frozen=True)
class Mark:
    """Where a user's change sequence stands (graph/follow.py). `epoch` names one life of the
    user's log (a new one after forgetUser); a user without a log is `Mark(None, 0)`."""

    epoch: str | None
    seq: int

    @classmethod
    def from_row(cls, row: Row | None) -> Mark:
        if not row or row.get("epoch") is None:
            return cls(None, 0)
        return cls(str(row["epoch"]), int(row["seq"] or 0))

    def follows(self, earlier: Mark | None) -> bool:
        """True when this mark is the one change right after `earlier`; the first change of a user
        without a log (which creates it, with a new epoch) follows `Mark(None, 0)`."""
        if earlier is None:
            return False
        if earlier.epoch is None:
            return earlier.seq == 0 and self.seq == 1
        return earlier.epoch == self.epoch and earlier.seq + 1 == self.seq


@dataclass(frozen=True)
class WriteStart:
    """What a write reads under its lock (cypher/write_start.cypher): the user's change mark and
    the newest memory of each session the batch continues."""

    mark: Mark
    tails: dict[str, str]  # session id → its newest memory

    @classmethod
    def from_rows(cls, rows: Sequence[Row]) -> WriteStart:
        mark = Mark.from_row(rows[0] if rows else None)
        tails = {str(r["session"]): str(r["last"]) for r in rows if r.get("session") and r["last"]}
        return cls(mark, tails)


@dataclass(frozen=True)
class EntityMerge:
    """One entity merged into another (cypher/merge_entities.cypher): the change it made, and
    the memories that mentioned the source or backed its relations (the profile tallies of
    their sessions and days name the source: graph/write/profiles.py tallies them again)."""

    mark: Mark
    changed: tuple[str, ...]


@dataclass(frozen=True)
class ChangeLog:
    """The change sequence with the removals it still lists: (sequence value, memory id) pairs
    newer than `trimmed`."""

    mark: Mark
    trimmed: int
    removed: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class ExistingMemory:
    """A memory found by the idempotency look-up (its externalId or content hash)."""

    id: MemoryId
    external_id: str | None
    content_hash: str | None


@dataclass(frozen=True)
class SessionRecord:
    """One session as the window and the user line read it."""

    id: str
    last_turn_at: float | None = None
    started_at: float | None = None
    turn_count: int = 0
    ended: bool = False
    # the window's summary of the middle turns, and the turn count it was made for
    window_summary: tuple[str, ...] | None = None
    window_upto: int | None = None
    episode_id: str | None = None  # the episode written when it ended
    # what the episode found (graph/recall/episodes.py ProfileHints): its topics, expertise
    # shown, topics returned to and topics declined
    topics: tuple[str, ...] = ()
    expertise: tuple[str, ...] = ()
    returning_topics: tuple[str, ...] = ()
    declined_topics: tuple[str, ...] = ()

    @classmethod
    def from_row(cls, row: Row) -> SessionRecord:
        summary = row.get("window_summary")
        upto = row.get("window_upto")
        last = row.get("last_turn_at")
        started = row.get("started_at")
        return cls(
            id=str(row["id"]),
            last_turn_at=float(last) if last is not None else None,
            started_at=float(started) if started is not None else None,
            turn_count=int(row.get("turn_count") or 0),
            ended=bool(row.get("ended")),
            window_summary=tuple(summary) if summary is not None else None,
            window_upto=int(upto) if upto is not None else None,
            episode_id=row.get("episode_id"),
            topics=tuple(row.get("topics") or ()),
            expertise=tuple(row.get("expertise") or ()),
            returning_topics=tuple(row.get("returning_topics") or ()),
            declined_topics=tuple(row.get("declined_topics") or ()),
        )


# -- the explorer's view of the graph (graph/neighbourhood.py) -----------------------------------


@dataclass(frozen=True)
class ViewFilter:
    """What a view of the graph keeps: relation types and neighbour entity types (None: all),
    facts that still hold only (`current`), and relations seen or held in [since, until] (epoch
    seconds; None: unbounded)."""

    relation_types: tuple[str, ...] | None = None
    entity_types: tuple[str, ...] | None = None
    current: bool = False
    since: float | None = None
    until: float | None = None


@dataclass(frozen=True)
class GraphNode:
    """An entity as the explorer draws it; `depth` is its distance in hops from the view's seeds."""

    key: str
    label: str
    type: str
    aliases: tuple[str, ...]
    mention_count: int
    first_seen: float | None
    last_seen: float | None
    depth: int = 0

    @classmethod
    def from_row(cls, row: Row, depth: int = 0) -> GraphNode:
        return cls(
            key=row["key"],
            label=row.get("label") or row["key"],
            type=row.get("type") or row["key"].partition(":")[0],
            aliases=tuple(row.get("aliases") or ()),
            mention_count=int(row.get("mention_count") or 0),
            first_seen=row.get("first_seen"),
            last_seen=row.get("last_seen"),
            depth=depth,
        )


@dataclass(frozen=True)
class GraphEdge:
    """A typed relation between two of a user's entities, from `source` to `target` (entity
    keys), as the graph holds it: what the explorer draws, and what the service's copy of a
    user's relations holds (graph/relation_facts.py, with every evidence id)."""

    type: str
    source: str
    target: str
    count: int
    strong: int = 0
    role: str | None = None
    first_seen: float | None = None
    last_seen: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    evidence: tuple[str, ...] = ()  # the newest memory ids stating it, oldest first

    @property
    def current(self) -> bool:
        return self.valid_to is None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> GraphEdge:
        return cls(
            type=row["type"],
            source=row["source"],
            target=row["target"],
            count=int(row.get("count") or 0),
            strong=int(row.get("strong") or 0),
            role=row.get("role"),
            first_seen=row.get("first_seen"),
            last_seen=row.get("last_seen"),
            valid_from=row.get("valid_from"),
            valid_to=row.get("valid_to"),
            evidence=tuple(row.get("evidence") or ()),
        )


# -- a speaker's profile (built by graph/profile/rules.py, stored by graph/profile_store.py) --


@dataclass(frozen=True)
class ExpertiseItem:
    area: str
    area_key: str
    depth: str
    reason: str
    evidence: tuple[str, ...]
    turns: int
    sessions: int
    specific: int
    types: tuple[str, ...]


@dataclass(frozen=True)
class Style:
    verbosity: str
    provides_structured_data: bool
    responds_to_follow_ups: bool | None
    words_per_turn: float
    structured_share: float
    answered_share: float | None


@dataclass(frozen=True)
class Profile:
    speaker: str
    entity_key: str | None
    style: Style
    expertise: tuple[ExpertiseItem, ...] = ()
    topics_declined: tuple[str, ...] = ()
    sessions_completed: int = 0
    entries_contributed: int = 0
    first_active_at: float | None = None
    last_active_at: float | None = None
    preferred_name: str | None = None
    relationship_stage: str = "NEW"
    disclosures: int = 0
    last_session_id: str | None = None


@dataclass(frozen=True)
class SelfFact:
    """A typed fact whose subject is the speaker of its evidence turn: what someone says about
    their own work, study, practice, making and doing."""

    speaker_key: str
    type: str
    area_key: str
    area_label: str
    evidence: tuple[str, ...]  # this session's turns that state it


# -- what ending a session reads of it (cypher/session_entities.cypher, session_facts.cypher) --


@dataclass(frozen=True)
class SessionEntity:
    """An entity the session's turns mention (not as their speaker), and how often."""

    key: str
    label: str
    type: str
    first_seen: float | None
    mentions: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SessionEntity:
        seen = row.get("first_seen")
        return cls(
            key=str(row["key"]),
            label=str(row["label"]),
            type=str(row["type"]),
            first_seen=float(seen) if seen is not None else None,
            mentions=int(row.get("mentions") or 0),
        )


@dataclass(frozen=True)
class SessionFact:
    """A typed relation first seen in the session: its ends' labels, the target's type, its
    role and its first evidence (one of the session's turns)."""

    src: str
    type: str
    dst: str
    dst_type: str | None = None
    role: str | None = None
    evidence: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SessionFact:
        return cls(
            src=str(row["src"]),
            type=str(row["type"]),
            dst=str(row["dst"]),
            dst_type=row.get("dst_type"),
            role=row.get("role"),
            evidence=row.get("evidence"),
        )


@dataclass(frozen=True)
class OpenThreads:
    """The questions left open at the end of an ended session (cypher/index_threads.cypher)."""

    session_id: str
    at: float
    questions: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Row) -> OpenThreads:
        return cls(
            session_id=str(row["id"]),
            at=float(row.get("at") or 0.0),
            questions=tuple(str(q) for q in row.get("open_threads") or ()),
        )


# -- what the knowledge index tallies of some turns (cypher/coverage_*.cypher) -----------------


@dataclass(frozen=True)
class CoverageMention:
    """An entity a turn mentions, not as its speaker."""

    memory_id: str
    key: str
    type: str
    label: str
    unnamed: bool = False

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CoverageMention:
        return cls(
            memory_id=str(row["id"]),
            key=str(row["key"]),
            type=str(row["type"]),
            label=str(row["label"]),
            unnamed=bool(row.get("unnamed")),
        )


@dataclass(frozen=True)
class CoverageRelation:
    """A typed relation with the given turns among its evidence (`evidence`: those turns)."""

    src_key: str
    src: str
    type: str
    dst_key: str
    dst: str
    dst_type: str | None
    evidence: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CoverageRelation:
        return cls(
            src_key=str(row["src_key"]),
            src=str(row["src"]),
            type=str(row["type"]),
            dst_key=str(row["dst_key"]),
            dst=str(row["dst"]),
            dst_type=row.get("dst_type"),
            evidence=tuple(str(i) for i in row.get("evidence") or ()),
        )

    @property
    def ends(self) -> tuple[str, str, str, str, str, str | None]:
        return (self.src_key, self.src, self.type, self.dst_key, self.dst, self.dst_type)


def appliable(held: Mark | None, log: ChangeLog) -> TypeGuard[Mark]:
    """True when the changes from `held` to the log's mark can be applied as a delta."""
    target = log.mark
    return (
        held is not None
        and held.epoch is not None
        and held.epoch == target.epoch
        and log.trimmed <= held.seq <= target.seq
    )
