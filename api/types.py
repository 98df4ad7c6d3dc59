"""GraphQL types of the contract (DESIGN.md; names fixed, extra fields are additions) and the
mappers from service records to them. Nested fields resolve through the request's DataLoaders
(api/loaders.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum

import strawberry
from strawberry.types import Info

from api.inputs import SESSION, MemoryFields, UserMemoryFields
from api.loaders import Context, call
from api.present import moment
from graph.errors import NotFound
from graph.limits import MAX_PAGE, check_range
from graph.recall.config import WEIGHT_NAMES
from graph.records import MAX_EVIDENCE, EntityRecord, MemoryRecord, card_order
from graph.service import ContextResult, MemoryId, Stored
from graph.service import ScoredMemory as ScoredRecord
from graph.service import SessionSummary as SummaryRecord
from graph.validation import NewMemory


def _ctx(info: Info[Context, None]) -> Context:
    return info.context


@strawberry.type(description="A typed relation between two entities, seen from one of them.")
class Relation:
    type: str
    direction: str = strawberry.field(description="'out' when the card's entity is the source")
    count: int
    last_seen: datetime | None
    first_seen: datetime | None
    role: str | None = strawberry.field(description="e.g. 'sister' for FAMILY_OF")
    valid_from: datetime | None = strawberry.field(
        description="For a fact that holds one value at a time (home, employer, job, project, "
        "partner): when this value was first stated"
    )
    valid_to: datetime | None = strawberry.field(
        description="When a newer value superseded this one; null while it still holds"
    )
    current: bool = strawberry.field(
        description="False for history: a newer value superseded it (its evidence is kept)"
    )
    target_key: strawberry.Private[str]
    evidence_ids: strawberry.Private[list[str]]
    user_id: strawberry.Private[str]

    @strawberry.field(description="The newest memories that state this fact, newest first.")
    async def evidence(self, info: Info[Context, None], first: int | None = 5) -> list[Memory]:
        first = check_range(5 if first is None else first, "first", 1, MAX_EVIDENCE)
        ids = self.evidence_ids[::-1][:first]
        found = await call(_ctx(info).service.store.memories, self.user_id, ids)
        return [Memory.from_record(found[m]) for m in map(MemoryId, ids) if m in found]

    @strawberry.field
    async def target(self, info: Info[Context, None]) -> EntityCard:
        record = await _ctx(info).entity_loader.load((self.user_id, self.target_key))
        if record is None:
            raise NotFound(f"entity {self.target_key!r} no longer exists")
        return EntityCard.from_record(self.user_id, record)


@strawberry.type(description="What the graph knows about one entity.")
class EntityCard:
    key: str
    type: str
    label: str
    aliases: list[str]
    mention_count: int
    first_seen: datetime | None
    last_seen: datetime | None
    relations: list[Relation]
    user_id: strawberry.Private[str]

    @classmethod
    def from_record(cls, user_id: str, record: EntityRecord) -> EntityCard:
        return cls(
            key=record.key,
            type=record.type,
            label=record.label,
            aliases=list(record.aliases),
            mention_count=record.mention_count,
            first_seen=moment(record.first_seen),
            last_seen=moment(record.last_seen),
            user_id=user_id,
            relations=[
                Relation(
                    type=r.type,
                    direction=r.direction,
                    count=r.count,
                    last_seen=moment(r.last_seen),
                    first_seen=moment(r.first_seen),
                    role=r.role,
                    valid_from=moment(r.valid_from),
                    valid_to=moment(r.valid_to),
                    current=r.current,
                    target_key=r.target,
                    evidence_ids=list(r.evidence),
                    user_id=user_id,
                )
                # stated facts first, then encouragement, co-mentions and history (newest
                # superseded first), the store's strongest-first order within each
                for r in card_order(record.key, record.relations)
            ],
        )

    @strawberry.field(description="Newest memories that mention this entity.")
    async def memories(self, info: Info[Context, None], first: int | None = 10) -> list[Memory]:
        first = check_range(10 if first is None else first, "first", 1, MAX_PAGE)
        records = await _ctx(info).entity_memories_loader.load((self.user_id, self.key, first))
        return [Memory.from_record(r) for r in records]


@strawberry.enum(description="How remember stored an item (docs/storage.md).")
class StoredAs(Enum):
    NEW = "NEW"
    REPEAT = "REPEAT"
    MERGED = "MERGED"
    REDACTED = "REDACTED"


@strawberry.type(description="One remembered text.")
class Memory:
    id: strawberry.ID
    user_id: strawberry.ID
    text: str
    speaker: str | None
    session_id: strawberry.ID | None
    occurred_at: datetime | None
    created_at: datetime
    external_id: str | None
    importance: int
    pinned: bool
    category: str | None
    fact_type: str | None
    access_count: int
    last_accessed_at: datetime | None
    kind: str = strawberry.field(description="'turn', or 'episode' for a session summary")
    event_start: datetime | None = strawberry.field(
        default=None,
        description="Start of the time the text speaks of ('last Saturday' said on 20 May 2023: "
        "2023-05-13), resolved against occurredAt; null when it names none",
    )
    event_end: datetime | None = strawberry.field(
        default=None, description="End (exclusive) of the time the text speaks of"
    )
    repeat_of: strawberry.ID | None = strawberry.field(
        default=None,
        description="The earlier memory this one says again (same speaker, same entities, "
        "near-identical text); both are kept",
    )
    repeats: int = strawberry.field(default=0, description="How often this was said again later")
    redactions: list[str] = strawberry.field(
        default_factory=list,
        description="Types of personal data or secrets the storage policy replaced in the text "
        "by [TYPE], in order of appearance, e.g. CREDIT_CARD, PASSWORD",
    )
    merged_into: strawberry.ID | None = strawberry.field(
        default=None,
        description="A stated fact merged into another: that memory (this one is inactive: not "
        "retrieved, readable by id; unmerge restores it)",
    )
    domain: str | None = strawberry.field(
        default=None,
        description="The part of the user's memory it was written to (MemoryInput.domain), "
        "e.g. village-history; the knowledge index is kept per domain",
    )
    stored: StoredAs | None = strawberry.field(
        default=None,
        description="How remember/rememberMany stored this item: NEW, REPEAT (said before), "
        "MERGED (a stated fact merged with an earlier one) or REDACTED; null outside their answer",
    )
    earlier_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="With stored: the earlier memory it repeats or was merged with",
    )
    entity_keys: strawberry.Private[tuple[str, ...]]

    @classmethod
    def from_record(cls, record: MemoryRecord, stored: Stored | None = None) -> Memory:
        return cls(
            id=strawberry.ID(record.id),
            user_id=strawberry.ID(record.user_id),
            text=record.text,
            speaker=record.speaker,
            session_id=strawberry.ID(record.session_id) if record.session_id else None,
            occurred_at=moment(record.occurred_at),
            created_at=moment(record.created_at) or datetime.now(UTC),
            external_id=record.external_id,
            importance=record.importance,
            pinned=record.pinned,
            category=record.category,
            fact_type=record.fact_type,
            access_count=record.access_count,
            last_accessed_at=moment(record.last_accessed_at),
            kind=record.kind,
            event_start=moment(record.event_start),
            event_end=moment(record.event_end),
            repeat_of=strawberry.ID(record.repeat_of) if record.repeat_of else None,
            repeats=record.repeats,
            redactions=list(record.redactions),
            merged_into=strawberry.ID(record.absorbed_into) if record.absorbed_into else None,
            domain=record.domain,
            stored=StoredAs(stored.decision) if stored else None,
            earlier_id=strawberry.ID(stored.earlier) if stored and stored.earlier else None,
            entity_keys=record.entity_keys,
        )

    @strawberry.field(description="Entities this memory mentions (the speaker included).")
    async def entities(self, info: Info[Context, None]) -> list[EntityCard]:
        loader = _ctx(info).entity_loader
        records = await loader.load_many([(str(self.user_id), k) for k in self.entity_keys])
        return [EntityCard.from_record(str(self.user_id), r) for r in records if r is not None]


@strawberry.type
class ScoredMemory:
    memory: Memory
    score: float
    floor_score: float = strawberry.field(
        description="What minScore compares: the blend's score (with its neighbour share). The "
        "same as score without a learnt ranker; under `default` its trees reorder by score, and "
        "the floor reads this (the trees learn an order, not a level)"
    )
    similarity: float
    recency: float
    frequency: float
    neighbour: float = strawberry.field(
        description="Added to score: the profile's share of the best adjacent turn's score"
    )
    via: list[str] = strawberry.field(
        description="Why it was found: entity:…, expanded:…, relation:…, speaker:… (said by the "
        "person the message is about), similarity, lexical, content (close to the message without "
        "the names of the people it is about), time, neighbour, pinned, repeats:N, part (closer "
        "to one part of a message that asks about several things than to the whole)"
    )


@strawberry.type(
    description="The message gives a thing to one person; the graph's typed relations give it to "
    "another (and none to the named one)."
)
class Conflict:
    asked: str = strawberry.field(description="The person the message names (entity key)")
    found: str = strawberry.field(description="The person the graph holds it for (entity key)")
    relation: str = strawberry.field(description="The relation type linking them, e.g. ATTENDED")
    target: str = strawberry.field(description="The thing (entity key), e.g. topic:charity_race")
    evidence: list[strawberry.ID] = strawberry.field(
        description="Ids of the memories that state the relation, newest last"
    )
    note: str = strawberry.field(description="The [NOTE] line of the block's text")


@strawberry.type(description="What an agent pastes into its prompt, as text and as fields.")
class ContextBlock:
    text: str
    tokens: int
    entity_cards: list[EntityCard]
    memories: list[ScoredMemory]
    seeds: list[str] = strawberry.field(description="Entity keys the message resolved to")
    expanded: list[str] = strawberry.field(description="Entity keys added by one-hop expansion")
    episodes: list[ScoredMemory] = strawberry.field(
        description="Summaries of earlier sessions, scored like memories"
    )
    window: TurnWindow | None = strawberry.field(
        description="The current session (with sessionId): first and last turns, middle summary"
    )
    pruned: list[str] = strawberry.field(
        description="What the token budget dropped, in order: window-middle, memory:<id>, "
        "episode:<id>, card:<key>, turn:<id>, nothing-relevant, note"
    )
    confidence: float = strawberry.field(
        description="0-1: the chance that the block holds what the message asks: that the "
        "memory mentions what it asks about at all (the best candidates' match, the words and "
        "the things asked about that no memory holds), times that what it holds is the named "
        "person's (who said the best memories, conflicts); docs/retrieval.md"
    )
    conflicts: list[Conflict] = strawberry.field(
        description="Things the message gives to one person that the graph holds for another"
    )


@strawberry.type(description="The current session as shown in the context block.")
class TurnWindow:
    session_id: strawberry.ID
    turn_count: int
    first: list[Memory]
    middle: list[str] = strawberry.field(
        description="Extractive summary (the episode policy) of the turns between first and last"
    )
    last: list[Memory]


@strawberry.type(description="The episode written when a session ends.")
class SessionSummary:
    session_id: strawberry.ID
    turn_count: int
    episode: Memory
    key_sentences: list[str]
    entities: list[str]
    topics: list[str]
    facts: list[str] = strawberry.field(
        description="Typed relations first seen in the session, as sentences"
    )
    open_threads: list[str]
    expertise: list[str] = strawberry.field(
        description="Profile hint: occupations, studies, practices shown, as 'Name (what)'"
    )
    returning_topics: list[str] = strawberry.field(
        description="Profile hint: topics also mentioned in an earlier session"
    )
    declined_topics: list[str] = strawberry.field(
        description="Profile hint: topics someone would rather not talk about, 'Name (topic)'"
    )


@strawberry.type
class EntityEdge:
    cursor: str
    node: EntityCard


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class EntityConnection:
    edges: list[EntityEdge]
    page_info: PageInfo
    total_count: int


@strawberry.experimental.pydantic.input(
    model=UserMemoryFields, all_fields=True, name="MemoryInput", description=MemoryFields.__doc__
)
class MemoryInput:
    """The fields and their descriptions are api/inputs.py's, shared with MCP; ids are IDs."""

    user_id: strawberry.ID
    session_id: strawberry.ID | None = strawberry.field(default=None, description=SESSION)


def new_memory(memory: MemoryInput) -> NewMemory:
    """What the service writes for one GraphQL input."""
    fields: UserMemoryFields = memory.to_pydantic()  # type: ignore[attr-defined]
    return fields.to_new(fields.user_id)


@strawberry.input(description="Overrides of the score weights (missing parts keep the profile's).")
class ScoreWeightsInput:
    similarity: float | None = None
    recency: float | None = None
    frequency: float | None = None
    half_life_days: float | None = None
    lexical: float | None = strawberry.field(
        default=None, description="Share of Similarity from BM25, 0 to 1"
    )
    neighbours: float | None = strawberry.field(
        default=None, description="Share of the best adjacent turn's score added, 0 to 1"
    )

    def overrides(self) -> dict[str, float | None]:
        return {name: getattr(self, name) for name in WEIGHT_NAMES}


def scored(s: ScoredRecord) -> ScoredMemory:
    return ScoredMemory(
        memory=Memory.from_record(s.memory),
        score=s.score,
        floor_score=s.floor_score,
        similarity=s.similarity,
        recency=s.recency,
        frequency=s.frequency,
        neighbour=s.neighbour,
        via=list(s.via),
    )


def context_block(user_id: str, result: ContextResult) -> ContextBlock:
    window = result.window
    return ContextBlock(
        text=result.text,
        tokens=result.tokens,
        entity_cards=[EntityCard.from_record(user_id, c) for c in result.cards],
        memories=[scored(s) for s in result.memories],
        seeds=result.seeds,
        expanded=result.expanded,
        episodes=[scored(s) for s in result.episodes],
        window=TurnWindow(
            session_id=strawberry.ID(window.session_id),
            turn_count=window.turn_count,
            first=[Memory.from_record(t) for t in window.first],
            middle=list(window.middle),
            last=[Memory.from_record(t) for t in window.last],
        )
        if window
        else None,
        pruned=result.pruned,
        confidence=result.confidence,
        conflicts=[
            Conflict(
                asked=c.asked,
                found=c.found,
                relation=c.relation,
                target=c.target,
                evidence=[strawberry.ID(i) for i in c.evidence],
                note=c.note,
            )
            for c in result.conflicts
        ],
    )


def session_summary(summary: SummaryRecord) -> SessionSummary:
    return SessionSummary(
        session_id=strawberry.ID(summary.session_id),
        turn_count=summary.turn_count,
        episode=Memory.from_record(summary.episode),
        key_sentences=summary.key_sentences,
        entities=summary.entities,
        topics=summary.topics,
        facts=summary.facts,
        open_threads=summary.open_threads,
        expertise=list(summary.hints.expertise),
        returning_topics=list(summary.hints.returning),
        declined_topics=list(summary.hints.declined),
    )
