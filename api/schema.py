"""The GraphQL contract of DESIGN.md (names fixed; extra fields are additions).

Resolvers are thin: check the caller's scope, call the synchronous service in a worker thread,
map records to types. Entity cards go through per-request DataLoaders, so a list of N cards (or of
relation targets) costs one query per level, not one per card.
"""

from __future__ import annotations

import base64
import binascii
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import anyio.to_thread
import strawberry
from strawberry.dataloader import DataLoader
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.types import Info

from api.auth import Principal
from extraction.keys import ENTITY_TYPES
from graph import ingest
from graph.errors import InvalidInput, NotFound
from graph.ingest import NewMemory
from graph.recall.retrieval import ContextRequest, ContextResult, retrieve
from graph.recall.retrieval import ScoredMemory as RankedMemory
from graph.recall.scoring import PRESETS, Weights
from graph.recall.sessions import end_session
from graph.records import EntityRecord, MemoryRecord
from graph.service import MemoryService

T = TypeVar("T")
MAX_PAGE = 100
MAX_MEMORIES = 100


async def _call(fn: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(fn, *args)


def _dt(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


def _ts(value: datetime | None) -> float | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


# -- per-request context ---------------------------------------------------------------------


@dataclass
class Context:
    service: MemoryService
    principal: Principal
    max_token_budget: int
    entity_loader: DataLoader[tuple[str, str], EntityRecord | None] = field(init=False)
    entity_memories_loader: DataLoader[tuple[str, str, int], list[MemoryRecord]] = field(init=False)

    def __post_init__(self) -> None:
        self.entity_loader = DataLoader(load_fn=self._load_entities)
        self.entity_memories_loader = DataLoader(load_fn=self._load_entity_memories)

    def scope(self, user_id: str) -> str:
        ingest.check_user_id(user_id)
        self.principal.check(user_id)
        return user_id

    async def _load_entities(self, keys: Sequence[tuple[str, str]]) -> list[EntityRecord | None]:
        by_user: dict[str, list[str]] = defaultdict(list)
        for user_id, key in keys:
            by_user[user_id].append(key)
        found: dict[tuple[str, str], EntityRecord] = {}
        for user_id, wanted in by_user.items():
            records = await _call(self.service.entities, user_id, wanted)
            found.update({(user_id, k): v for k, v in records.items()})
        return [found.get(k) for k in keys]

    async def _load_entity_memories(
        self, keys: Sequence[tuple[str, str, int]]
    ) -> list[list[MemoryRecord]]:
        out: dict[tuple[str, str, int], list[MemoryRecord]] = {}
        groups: dict[tuple[str, int], list[str]] = defaultdict(list)
        for user_id, key, limit in keys:
            groups[(user_id, limit)].append(key)
        for (user_id, limit), entity_keys in groups.items():
            store = self.service.store
            ids = await _call(store.entity_memory_ids, user_id, entity_keys, limit)
            all_ids = [i for v in ids.values() for i in v]
            records = await _call(store.memories, user_id, all_ids)
            for key in entity_keys:
                out[(user_id, key, limit)] = [records[i] for i in ids.get(key, []) if i in records]
        return [out.get(k, []) for k in keys]


def _ctx(info: Info[Context, None]) -> Context:
    return info.context


# -- types -----------------------------------------------------------------------------------


@strawberry.type(description="A typed relation between two entities, seen from one of them.")
class Relation:
    type: str
    direction: str = strawberry.field(description="'out' when the card's entity is the source")
    count: int
    last_seen: datetime | None
    first_seen: datetime | None
    role: str | None = strawberry.field(description="e.g. 'sister' for FAMILY_OF")
    target_key: strawberry.Private[str]
    user_id: strawberry.Private[str]

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
            first_seen=_dt(record.first_seen),
            last_seen=_dt(record.last_seen),
            user_id=user_id,
            relations=[
                Relation(
                    type=r.type,
                    direction=r.direction,
                    count=r.count,
                    last_seen=_dt(r.last_seen),
                    first_seen=_dt(r.first_seen),
                    role=r.role,
                    target_key=r.target,
                    user_id=user_id,
                )
                for r in record.relations
            ],
        )

    @strawberry.field(description="Newest memories that mention this entity.")
    async def memories(self, info: Info[Context, None], first: int | None = 10) -> list[Memory]:
        first = 10 if first is None else first
        if not 1 <= first <= MAX_PAGE:
            raise InvalidInput("first", f"is {first}; allowed 1 to {MAX_PAGE}")
        records = await _ctx(info).entity_memories_loader.load((self.user_id, self.key, first))
        return [Memory.from_record(r) for r in records]


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
    entity_keys: strawberry.Private[tuple[str, ...]]

    @classmethod
    def from_record(cls, record: MemoryRecord) -> Memory:
        return cls(
            id=strawberry.ID(record.id),
            user_id=strawberry.ID(record.user_id),
            text=record.text,
            speaker=record.speaker,
            session_id=strawberry.ID(record.session_id) if record.session_id else None,
            occurred_at=_dt(record.occurred_at),
            created_at=_dt(record.created_at) or datetime.now(UTC),
            external_id=record.external_id,
            importance=record.importance,
            pinned=record.pinned,
            category=record.category,
            fact_type=record.fact_type,
            access_count=record.access_count,
            last_accessed_at=_dt(record.last_accessed_at),
            kind=record.kind,
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
    similarity: float
    recency: float
    frequency: float
    neighbour: float = strawberry.field(
        description="Added to score: the profile's share of the best adjacent turn's score"
    )
    via: list[str] = strawberry.field(
        description="Why it was found: entity:…, expanded:…, relation:…, similarity, lexical, "
        "neighbour, pinned"
    )


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
        "episode:<id>, card:<key>, turn:<id>"
    )


@strawberry.type(description="The current session as shown in the context block.")
class TurnWindow:
    session_id: strawberry.ID
    turn_count: int
    first: list[Memory]
    middle: list[str] = strawberry.field(
        description="Extractive summary (TextRank) of the turns between first and last"
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
    facts: list[str] = strawberry.field(description="Typed relations first seen in the session")
    open_threads: list[str]


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


@strawberry.input
class MemoryInput:
    user_id: strawberry.ID
    text: str
    speaker: str | None = None
    session_id: strawberry.ID | None = None
    occurred_at: datetime | None = None
    external_id: str | None = None
    importance: int | None = None
    pinned: bool | None = None
    category: str | None = None
    fact_type: str | None = None

    def to_new(self) -> NewMemory:
        return NewMemory(
            user_id=str(self.user_id),
            text=self.text,
            speaker=self.speaker,
            session_id=str(self.session_id) if self.session_id is not None else None,
            occurred_at=_ts(self.occurred_at),
            external_id=self.external_id,
            importance=self.importance,
            pinned=self.pinned,
            category=self.category,
            fact_type=self.fact_type,
        )


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


def _cursor(key: str) -> str:
    return base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii")


def _uncursor(cursor: str) -> str:
    try:
        key = base64.b64decode(cursor.encode("ascii"), altchars=b"-_", validate=True).decode()
    except (binascii.Error, UnicodeError, ValueError):
        key = ""
    if not key:
        raise InvalidInput("after", f"{cursor!r} is not a cursor returned by this API")
    return key


def _weights(profile: str, weights: ScoreWeightsInput | None) -> Weights:
    if profile not in PRESETS:
        raise InvalidInput("profile", f"is {profile!r}; allowed {', '.join(PRESETS)}")
    base = PRESETS[profile]
    if weights is None:
        return base
    overrides = {
        name: value
        for name in (
            "similarity",
            "recency",
            "frequency",
            "half_life_days",
            "lexical",
            "neighbours",
        )
        if (value := getattr(weights, name)) is not None
    }
    chosen = replace(base, **overrides)
    try:
        chosen.validate()
    except ValueError as exc:
        raise InvalidInput("weights", str(exc)) from None
    return chosen


def _scored(s: RankedMemory) -> ScoredMemory:
    return ScoredMemory(
        memory=Memory.from_record(s.memory),
        score=s.score,
        similarity=s.similarity,
        recency=s.recency,
        frequency=s.frequency,
        neighbour=s.neighbour,
        via=list(s.via),
    )


def _context_block(user_id: str, result: ContextResult) -> ContextBlock:
    window = result.window
    return ContextBlock(
        text=result.text,
        tokens=result.tokens,
        entity_cards=[EntityCard.from_record(user_id, c) for c in result.cards],
        memories=[_scored(s) for s in result.memories],
        seeds=result.seeds,
        expanded=result.expanded,
        episodes=[_scored(s) for s in result.episodes],
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
    )


# -- root types ------------------------------------------------------------------------------


@strawberry.type
class Query:
    @strawberry.field(description="Entity cards and relevant memories for the next prompt.")
    async def context(
        self,
        info: Info[Context, None],
        user_id: strawberry.ID,
        message: str,
        as_of: datetime | None = None,
        max_memories: int | None = 8,
        token_budget: int | None = None,
        weights: ScoreWeightsInput | None = None,
        profile: str = "default",
        speaker: str | None = None,
        session_id: strawberry.ID | None = None,
    ) -> ContextBlock:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        service = ctx.service
        max_memories = 8 if max_memories is None else max_memories
        if not message.strip():
            raise InvalidInput("message", "must not be empty")
        ingest.check_no_nul(message, "message")
        ingest.check_no_nul(speaker, "speaker")
        if len(message) > service.max_text_chars:
            raise InvalidInput(
                "message", f"is {len(message)} characters; at most {service.max_text_chars} allowed"
            )
        if not 1 <= max_memories <= MAX_MEMORIES:
            raise InvalidInput("maxMemories", f"is {max_memories}; allowed 1 to {MAX_MEMORIES}")
        if token_budget is not None and not 1 <= token_budget <= ctx.max_token_budget:
            raise InvalidInput(
                "tokenBudget", f"is {token_budget}; allowed 1 to {ctx.max_token_budget}"
            )
        request = ContextRequest(
            user_id=user,
            message=message,
            as_of=_ts(as_of),
            max_memories=max_memories,
            token_budget=token_budget,
            weights=_weights(profile, weights),
            speaker=speaker,
            session_id=str(session_id) if session_id is not None else None,
        )
        result = await _call(retrieve, service, request)
        return _context_block(user, result)

    @strawberry.field
    async def entity(
        self, info: Info[Context, None], user_id: strawberry.ID, key: str
    ) -> EntityCard | None:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        ingest.check_no_nul(key, "key")
        record = await ctx.entity_loader.load((user, key))
        return EntityCard.from_record(user, record) if record else None

    @strawberry.field
    async def entities(
        self,
        info: Info[Context, None],
        user_id: strawberry.ID,
        type: str | None = None,
        search: str | None = None,
        first: int | None = 20,
        after: str | None = None,
    ) -> EntityConnection:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        limit = 20 if first is None else first
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInput("first", f"is {limit}; allowed 1 to {MAX_PAGE}")
        if type is not None and type not in ENTITY_TYPES:
            raise InvalidInput("type", f"is {type!r}; allowed {', '.join(ENTITY_TYPES)}")
        ingest.check_no_nul(search, "search")
        needle = search.strip().lower() if search and search.strip() else None
        start = _uncursor(after) if after else None
        store = ctx.service.store
        keys = await _call(store.list_entity_keys, user, type, needle, start, limit + 1)
        total = await _call(store.count_entities, user, type, needle)
        page = keys[:limit]
        records = await ctx.entity_loader.load_many([(user, k) for k in page])
        edges = [
            EntityEdge(cursor=_cursor(r.key), node=EntityCard.from_record(user, r))
            for r in records
            if r is not None
        ]
        return EntityConnection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=len(keys) > limit,
                end_cursor=edges[-1].cursor if edges else None,
            ),
            total_count=total,
        )

    @strawberry.field
    async def memory(
        self, info: Info[Context, None], user_id: strawberry.ID, id: strawberry.ID
    ) -> Memory | None:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        try:
            record = await _call(ctx.service.memory, user, str(id))
        except NotFound:
            return None
        return Memory.from_record(record)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Remember one text; idempotent by externalId or by text.")
    async def remember(self, info: Info[Context, None], input: MemoryInput) -> Memory:
        ctx = _ctx(info)
        ctx.scope(str(input.user_id))
        result = await _call(ctx.service.remember_many, [input.to_new()])
        return Memory.from_record(result.records[0])

    @strawberry.mutation(description="Remember a batch atomically (validated whole first).")
    async def remember_many(
        self, info: Info[Context, None], inputs: list[MemoryInput]
    ) -> list[Memory]:
        ctx = _ctx(info)
        for item in inputs:
            ctx.scope(str(item.user_id))
        result = await _call(ctx.service.remember_many, [i.to_new() for i in inputs])
        return [Memory.from_record(r) for r in result.records]

    @strawberry.mutation
    async def forget(
        self, info: Info[Context, None], user_id: strawberry.ID, id: strawberry.ID
    ) -> bool:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return await _call(ctx.service.forget, user, str(id))

    @strawberry.mutation(description="Delete everything of a user; returns the memories removed.")
    async def forget_user(self, info: Info[Context, None], user_id: strawberry.ID) -> int:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return await _call(ctx.service.forget_user, user)

    @strawberry.mutation(description="End a session now: write its episode (extractive summary).")
    async def end_session(
        self, info: Info[Context, None], user_id: strawberry.ID, session_id: strawberry.ID
    ) -> SessionSummary:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        ingest.check_no_nul(str(session_id), "sessionId")
        summary = await _call(end_session, ctx.service, user, str(session_id))
        return SessionSummary(
            session_id=strawberry.ID(summary.session_id),
            turn_count=summary.turn_count,
            episode=Memory.from_record(summary.episode),
            key_sentences=summary.key_sentences,
            entities=summary.entities,
            topics=summary.topics,
            facts=summary.facts,
            open_threads=summary.open_threads,
        )

    @strawberry.mutation
    async def pin(
        self, info: Info[Context, None], user_id: strawberry.ID, id: strawberry.ID, pinned: bool
    ) -> Memory:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return Memory.from_record(await _call(ctx.service.pin, user, str(id), pinned))


MAX_DEPTH = 10
MAX_ALIASES = 30
MAX_TOKENS = 5_000

# Query depth, alias and token limits reject abusive documents before any resolver runs.
schema = strawberry.Schema(
    query=Query,
    mutation=Mutation,
    extensions=[
        lambda: QueryDepthLimiter(max_depth=MAX_DEPTH),
        lambda: MaxAliasesLimiter(max_alias_count=MAX_ALIASES),
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
    ],
)
