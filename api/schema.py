"""The GraphQL schema's root types: thin resolvers that check the caller's scope, call the
synchronous service in a worker thread and map records to types (api/types.py). Argument checks
live below the API (graph/limits.py, graph/recall/retrieval.py, the service), so the CLI and MCP
apply the same ones with the same messages.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.types import ExecutionContext, Info

from api.errors import log_error
from api.inputs import DATE_TIME, ts
from api.loaders import Context, call
from api.metrics import MetricsExtension
from api.neighbourhood import (
    NeighbourhoodView,
    resolve_neighbourhood,
    resolve_overview,
    resolve_users,
)
from api.profiles import (
    KnowledgeIndex,
    Profile,
    resolve_knowledge_index,
    resolve_profile,
    resolve_refresh_profile,
    resolve_set_user_settings,
)
from api.types import (
    ContextBlock,
    EntityCard,
    EntityConnection,
    EntityEdge,
    Memory,
    MemoryInput,
    PageInfo,
    ScoreWeightsInput,
    SessionSummary,
    context_block,
    new_memory,
    session_summary,
)
from graph import validation
from graph.errors import InvalidInput, NotFound
from graph.limits import DEFAULT_MAX_MEMORIES, DEFAULT_PAGE, MAX_PAGE, check_range
from graph.recall.config import DEFAULT_PROFILE, preset
from graph.service import ContextRequest


def _ctx(info: Info[Context, None]) -> Context:
    return info.context


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


@strawberry.type
class Query:
    @strawberry.field(
        description="Entity cards and relevant memories for the next prompt. minScore is the "
        "relevance floor: memories whose floorScore is below it are left out, and a block left "
        "with none says nothing relevant was found; below minConfidence the block shows no memory "
        "and says so (defaults: the profile's; 0 keeps all)."
    )
    async def context(
        self,
        info: Info[Context, None],
        user_id: strawberry.ID,
        message: str,
        as_of: datetime | None = None,
        max_memories: int | None = DEFAULT_MAX_MEMORIES,
        token_budget: int | None = None,
        weights: ScoreWeightsInput | None = None,
        profile: str = DEFAULT_PROFILE,
        speaker: str | None = None,
        session_id: strawberry.ID | None = None,
        min_score: float | None = None,
        min_confidence: float | None = None,
    ) -> ContextBlock:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        request = ContextRequest(
            user_id=user,
            message=message,
            as_of=ts(as_of),
            max_memories=DEFAULT_MAX_MEMORIES if max_memories is None else max_memories,
            token_budget=token_budget,
            speaker=speaker,
            session_id=str(session_id) if session_id is not None else None,
            config=preset(profile, **(weights.overrides() if weights else {})),
            min_score=min_score,
            min_confidence=min_confidence,
        )
        result = await call(ctx.service.context, request)
        return context_block(user, result)

    @strawberry.field
    async def entity(
        self, info: Info[Context, None], user_id: strawberry.ID, key: str
    ) -> EntityCard | None:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        validation.check_no_nul(key, "key")
        record = await ctx.entity_loader.load((user, key))
        return EntityCard.from_record(user, record) if record else None

    @strawberry.field
    async def entities(
        self,
        info: Info[Context, None],
        user_id: strawberry.ID,
        type: str | None = None,
        search: str | None = None,
        first: int | None = DEFAULT_PAGE,
        after: str | None = None,
    ) -> EntityConnection:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        limit = check_range(DEFAULT_PAGE if first is None else first, "first", 1, MAX_PAGE)
        start = _uncursor(after) if after else None
        keys, total = await call(ctx.service.list_entities, user, type, search, start, limit)
        records = await ctx.entity_loader.load_many([(user, k) for k in keys[:limit]])
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
            record = await call(ctx.service.memory, user, str(id))
        except NotFound:
            return None
        return Memory.from_record(record)

    neighbourhood: NeighbourhoodView = strawberry.field(
        resolver=resolve_neighbourhood,
        description="Entities within `depth` hops of `keys` (strongest relations first, at most "
        "`limit`) and the relations among them, filtered by relation and entity type, current "
        "facts and time; what GET /explore draws.",
    )
    overview: NeighbourhoodView = strawberry.field(
        resolver=resolve_overview,
        description="A user's `limit` most-mentioned entities and the relations among them: who "
        "and what the memory holds, at a glance (the explorer's first view).",
    )
    profile: Profile | None = strawberry.field(
        resolver=resolve_profile,
        description="What the memory knows of one person: expertise with its evidence, style, "
        "topics declined, counts, preferred name, relationship stage; null before any session "
        "of theirs ended and with no settings.",
    )
    knowledge_index: KnowledgeIndex = strawberry.field(
        resolver=resolve_knowledge_index,
        description="What the memory knows and lacks about the user (or one domain): categories, "
        "themes, temporal and place coverage, and ranked gaps with questions to ask. Rebuilt "
        "when a session ends.",
    )
    users: list[strawberry.ID] = strawberry.field(
        resolver=resolve_users,
        description="User ids holding memories that this API key may read (all without keys).",
    )


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Remember one text; idempotent by externalId or by text.")
    async def remember(self, info: Info[Context, None], input: MemoryInput) -> Memory:
        ctx = _ctx(info)
        ctx.scope(str(input.user_id))
        result = await call(ctx.service.remember_many, [new_memory(input)])
        return Memory.from_record(result.records[0], result.stored[0])

    @strawberry.mutation(description="Remember a batch atomically (validated whole first).")
    async def remember_many(
        self, info: Info[Context, None], inputs: list[MemoryInput]
    ) -> list[Memory]:
        ctx = _ctx(info)
        for item in inputs:
            ctx.scope(str(item.user_id))
        result = await call(ctx.service.remember_many, [new_memory(i) for i in inputs])
        return [
            Memory.from_record(r, s) for r, s in zip(result.records, result.stored, strict=True)
        ]

    @strawberry.mutation(
        description="Undo the merge of stated facts that a memory (either side) took part in: "
        "the absorbed memories are active again, the kept one has its own text back. Returns "
        "the restored memory."
    )
    async def unmerge(
        self, info: Info[Context, None], user_id: strawberry.ID, id: strawberry.ID
    ) -> Memory:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return Memory.from_record(await call(ctx.service.unmerge, user, str(id)))

    @strawberry.mutation
    async def forget(
        self, info: Info[Context, None], user_id: strawberry.ID, id: strawberry.ID
    ) -> bool:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return await call(ctx.service.forget, user, str(id))

    @strawberry.mutation(description="Delete everything of a user; returns the memories removed.")
    async def forget_user(self, info: Info[Context, None], user_id: strawberry.ID) -> int:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return await call(ctx.service.forget_user, user)

    @strawberry.mutation(description="End a session now: write its episode (extractive summary).")
    async def end_session(
        self, info: Info[Context, None], user_id: strawberry.ID, session_id: strawberry.ID
    ) -> SessionSummary:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        validation.check_no_nul(str(session_id), "sessionId")
        summary = await call(ctx.service.end_session, user, str(session_id))
        return session_summary(summary)

    @strawberry.mutation(
        description="Merge entities by hand (Mel into Melanie): mentions, relations (counts "
        "summed, evidence joined) and names move into `into`; the sources are deleted and "
        "resolve to `into` from now on. Idempotent."
    )
    async def merge_entities(
        self, info: Info[Context, None], user_id: strawberry.ID, sources: list[str], into: str
    ) -> EntityCard:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        record = await call(ctx.service.merge_entities, user, sources, into)
        return EntityCard.from_record(user, record)

    set_user_settings: Profile = strawberry.mutation(
        resolver=resolve_set_user_settings,
        description="Set the user's timezone and preferred name (each only when given); a bad "
        "zone is BAD_USER_INPUT naming `timezone`, and nothing is written.",
    )
    refresh_profile: Profile | None = strawberry.mutation(
        resolver=resolve_refresh_profile,
        description="Rebuild the user's profiles from every ended session now; returns the main "
        "speaker's.",
    )

    @strawberry.mutation
    async def pin(
        self, info: Info[Context, None], user_id: strawberry.ID, id: strawberry.ID, pinned: bool
    ) -> Memory:
        ctx = _ctx(info)
        user = ctx.scope(str(user_id))
        return Memory.from_record(await call(ctx.service.pin, user, str(id), pinned))


MAX_DEPTH = 10
MAX_ALIASES = 30
MAX_TOKENS = 5_000


class RecollectSchema(strawberry.Schema):
    """strawberry's schema, logging errors by whose they are (api/errors.py): its own logs every
    error, a client's typo included, at ERROR with a traceback."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            log_error(error)


# Query depth and alias limits as validation rules, made once: the limiter extensions make new rule
# classes per request, and the validation cache below keys on the rules.
LIMIT_RULES = (
    *QueryDepthLimiter(max_depth=MAX_DEPTH).validation_rules,
    *MaxAliasesLimiter(max_alias_count=MAX_ALIASES).validation_rules,
)
# Documents parsed and validated once per distinct text (at most CACHED_DOCUMENTS of them, so
# unique texts cannot grow memory): a client sends the same few documents with new variables, and
# validating one took 5-6 ms of the event loop per request on the Intel Xeon of
# docs/benchmarks.md, about a tenth of a context call.
CACHED_DOCUMENTS = 256

# The token limit sets the parse's options first, so a document over it is never parsed or cached;
# depth and alias limits reject abusive documents before any resolver runs.
schema = RecollectSchema(
    query=Query,
    mutation=Mutation,
    scalar_overrides={datetime: DATE_TIME},
    extensions=[
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
        lambda: ParserCache(maxsize=CACHED_DOCUMENTS),
        lambda: AddValidationRules(list(LIMIT_RULES)),
        lambda: ValidationCache(maxsize=CACHED_DOCUMENTS),
        MetricsExtension,
    ],
)
