"""The MCP server: the service's calls as tools an agent host attaches with a command (stdio,
`recollect mcp`) or a URL (streamable HTTP at `/mcp` of `recollect serve`).

The tools are module-level functions, thin over the same service calls the GraphQL resolvers
make, over the same memory fields (api/inputs.py), so validation and error messages are the same.
A RecollectError becomes a `RecollectToolError` that carries its code as data and reads
`CODE: field: message` (`BAD_USER_INPUT: memories[1].text: must not be empty`); argument-schema
failures are reported by the SDK with the field's name. The user is fixed per connection: `--user`
on stdio; on HTTP the API key's user, or a `user_id` argument that the key must grant. An agent
therefore never names a user it was not given.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from api.auth import KeyRing, Principal
from api.errors import CLIENT_CODES
from api.inputs import MemoryFields, span, ts
from api.loaders import call
from api.present import iso, profile_dict
from graph import validation
from graph.errors import InvalidInput, NotFound, RecollectError
from graph.limits import DEFAULT_MAX_MEMORIES, MAX_MEMORIES, MAX_PAGE, Limits, check_range
from graph.recall.config import DEFAULT_PROFILE, preset
from graph.records import EntityRecord, MemoryRecord, card_order
from graph.service import ContextRequest, ContextResult, MemoryService

INSTRUCTIONS = (
    "Recollect is this user's long-term memory. Call get_context with the user's message before "
    "you answer, and put its text in your prompt. Call remember with each turn worth keeping "
    "after you answer (the user's turns, and your replies when they state facts). Use "
    "get_entity or list_entities to look up what is known about a person, place or thing."
)
CARD_MEMORIES = 5
log = logging.getLogger("recollect.mcp")
# the token budget a tool description states: the default limit (a deployment may lower or raise
# it with RECOLLECT_MAX_TOKEN_BUDGET; the error then names the configured one)
MAX_TOKENS = Limits().max_token_budget

# told of every tool call: (tool, seconds, error code or None) — /metrics counts them
ToolObserver = Callable[[str, float, str | None], None]


class RecollectToolError(ToolError):
    """A tool error with the code GraphQL would give (BAD_USER_INPUT, NOT_FOUND, …) as data."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.field = field


@dataclass(frozen=True)
class Caller:
    """Who is on the other end of a connection: what their key grants, and the user a tool acts
    for when it is given no `user_id` (the only user the key grants, or the `--user` of stdio)."""

    principal: Principal
    default_user: str | None

    def user(self, user_id: str | None) -> str:
        if user_id is None or not user_id.strip():
            if self.default_user is None:
                raise InvalidInput(
                    "user_id", "is required: this connection's key does not name one user"
                )
            user_id = self.default_user
        validation.check_user_id(user_id, "user_id")
        self.principal.check(user_id)
        return user_id


def stdio_caller(user_id: str) -> Caller:
    """A stdio connection serves exactly one user, given on the command line."""
    validation.check_user_id(user_id, "--user")
    return Caller(Principal(all_users=False, users=frozenset({user_id})), user_id)


def key_caller(keyring: KeyRing, authorization: str | None) -> Caller:
    principal = keyring.authenticate(authorization)
    only = next(iter(principal.users)) if len(principal.users) == 1 else None
    return Caller(principal, None if principal.all_users else only)


class RecollectServer(MCPServer):
    """The MCP server with what its tools need: the service (resolved per call: the HTTP app
    starts it in its lifespan), who the caller of a request is, and who hears of each call."""

    def __init__(
        self,
        service: Callable[[], MemoryService],
        caller: Callable[[Context], Caller],
        observe: ToolObserver | None = None,
    ) -> None:
        super().__init__("recollect", instructions=INSTRUCTIONS)
        self.service = service
        self.caller = caller
        self.observe = observe
        for tool in TOOLS:
            self.add_tool(tool)


def build_server(
    service: Callable[[], MemoryService],
    caller: Callable[[Context], Caller],
    observe: ToolObserver | None = None,
) -> RecollectServer:
    return RecollectServer(service, caller, observe)


# -- errors, timing, the caller -----------------------------------------------------------------


def _snake(field: str) -> str:
    """GraphQL names fields in camelCase; the tools take snake_case arguments."""
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), field)


def _tool_field(field: str, batch: str) -> str:
    """A field as the tool's arguments name it: `inputs[1].text` is `memories[1].text`, the one
    memory of `remember` is `memory.text`, `sessionId` is `session_id`."""
    field = _snake(field)
    if batch == "memory":
        field = re.sub(r"^inputs\[0\]\.", "", field)
        return field if field.startswith("user_id") else f"memory.{field}"
    return re.sub(r"^inputs(?=\[)", batch, field) if batch else field


def _translated(exc: RecollectError, batch: str) -> RecollectToolError:
    """The one translation of the exception tree into tool errors (the model reads the text)."""
    if isinstance(exc, InvalidInput):
        field = _tool_field(exc.field, batch)
        return RecollectToolError(exc.code, f"{field}: {exc.reason}", field)
    return RecollectToolError(exc.code, str(exc))


T = TypeVar("T")
ToolFunction = Callable[..., Awaitable[T]]


def _tool(name: str, batch: str = "") -> Callable[[ToolFunction[T]], ToolFunction[T]]:
    """A tool's body with its errors translated, timed and reported to the server's observer
    with the error code, if any. `batch` names the argument that holds memories."""

    def wrap(fn: ToolFunction[T]) -> ToolFunction[T]:
        @functools.wraps(fn)
        async def run(ctx: Context, **arguments: Any) -> T:
            started = time.perf_counter()
            code: str | None = None
            try:
                return await fn(ctx, **arguments)
            except RecollectError as exc:
                code = exc.code
                translated = _translated(exc, batch)
                _log(name, exc, translated)
                raise translated from exc
            except Exception:
                code = "INTERNAL_SERVER_ERROR"
                raise
            finally:
                observe = _server(ctx).observe
                if observe is not None:
                    observe(name, time.perf_counter() - started, code)

        return run

    return wrap


def _log(tool: str, exc: RecollectError, translated: RecollectToolError) -> None:
    """As api/errors.py logs GraphQL's: a client's mistake is one INFO line with its code and
    field, never the message (it can quote what the agent sent); ours is ERROR with a traceback."""
    if exc.code in CLIENT_CODES:
        field = f" (field {translated.field})" if translated.field else ""
        log.info("client error %s in tool %s%s", exc.code, tool, field)
    else:
        log.error("%s in tool %s", exc.code, tool, exc_info=exc)


def _server(ctx: Context) -> RecollectServer:
    return cast(RecollectServer, ctx.mcp_server)


def _user(ctx: Context, user_id: str | None) -> tuple[MemoryService, str]:
    """The service and the user this call acts for (the caller's key must grant it)."""
    server = _server(ctx)
    return server.service(), server.caller(ctx).user(user_id)


def _memory(record: MemoryRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "text": record.text,
        "speaker": record.speaker,
        "session_id": record.session_id,
        "occurred_at": iso(record.occurred_at),
        "kind": record.kind,
    }


# -- tools --------------------------------------------------------------------------------------

# the same meaning as `context(minScore:)` in GraphQL
MIN_SCORE = (
    "Relevance floor: memories whose floor score (the hand-set blend's, search_memories' "
    "floor_score) is below it are left out, and a block left with none says nothing relevant "
    "was found. Leave empty for the default."
)
MIN_CONFIDENCE = (
    "Below this confidence (0-1) the block shows no memory and says nothing relevant was found. "
    "Leave empty for the default; 0 keeps all."
)
# the same meaning as `context(speaker:)` in GraphQL
ASKER = (
    "Who is asking, by the name their turns were remembered under: 'I' in the message is then "
    "them, and what they said comes first."
)
UserArg = Annotated[
    str | None,
    Field(description="Leave empty: the connection's user. Only a key for several users needs it."),
]
Limit = Annotated[int, Field(description=f"Most results returned, {span(1, MAX_PAGE)}.")]


async def _remembered(
    ctx: Context, user_id: str | None, items: list[MemoryFields]
) -> list[dict[str, Any]]:
    service, user = _user(ctx, user_id)
    result = await call(service.remember_many, [i.to_new(user) for i in items])
    return [
        {
            "id": r.id,
            "entities": list(r.entity_keys),
            "session_id": r.session_id,
            "stored": s.decision,
            "earlier_id": s.earlier,
            "redactions": list(r.redactions),
        }
        for r, s in zip(result.records, result.stored, strict=True)
    ]


@_tool("remember", batch="memory")
async def remember(ctx: Context, memory: MemoryFields, user_id: UserArg = None) -> dict[str, Any]:
    """Store one conversation turn or fact in long-term memory. Call it after each turn worth
    keeping; people, places and facts in it become entities and relations."""
    (stored,) = await _remembered(ctx, user_id, [memory])
    return stored


@_tool("remember_many", batch="memories")
async def remember_many(
    ctx: Context,
    memories: Annotated[list[MemoryFields], Field(description="The turns, oldest first.")],
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Store several turns at once (e.g. a whole conversation so far), atomically: either all are
    stored or none, and an error names the bad item."""
    return {"memories": await _remembered(ctx, user_id, memories)}


@dataclass(frozen=True)
class _Asked:
    """What a tool asks of `context`, beside the message (the user is the caller's)."""

    max_memories: int = DEFAULT_MAX_MEMORIES
    token_budget: int | None = None
    session_id: str | None = None
    as_of: float | None = None
    speaker: str | None = None
    min_score: float | None = None
    min_confidence: float | None = None


async def _retrieved(
    ctx: Context, user_id: str | None, message: str, asked: _Asked
) -> ContextResult:
    service, user = _user(ctx, user_id)
    request = ContextRequest(
        user_id=user,
        message=message,
        as_of=asked.as_of,
        max_memories=asked.max_memories,
        token_budget=asked.token_budget,
        speaker=asked.speaker,
        session_id=asked.session_id,
        config=preset(DEFAULT_PROFILE),
        min_score=asked.min_score,
        min_confidence=asked.min_confidence,
    )
    return await call(service.context, request)


@_tool("get_context")
async def get_context(
    ctx: Context,
    message: Annotated[str, Field(description="The user's message you are answering.")],
    max_memories: Annotated[
        int, Field(description=f"Most memories in the block, {span(1, MAX_MEMORIES)}.")
    ] = DEFAULT_MAX_MEMORIES,
    token_budget: Annotated[
        int | None,
        Field(
            description=f"Most tokens the block may take: at most {MAX_TOKENS}, and at least what "
            "its time and user lines need."
        ),
    ] = None,
    session_id: Annotated[
        str | None, Field(description="The current conversation (adds its recent turns).")
    ] = None,
    as_of: Annotated[
        datetime | None, Field(description="Answer as of this time (ISO 8601).")
    ] = None,
    speaker: Annotated[str | None, Field(description=ASKER)] = None,
    min_score: Annotated[float | None, Field(description=MIN_SCORE)] = None,
    min_confidence: Annotated[float | None, Field(description=MIN_CONFIDENCE)] = None,
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Before answering the user, call this with their message: it returns what memory knows that
    bears on it (people, facts, earlier turns and sessions) as a text block to put in your
    prompt, with a confidence (0-1). When it says nothing relevant was found, or confidence is
    low, say you do not know or ask; a [NOTE] line means the message gives one person's fact to
    another."""
    asked = _Asked(
        max_memories, token_budget, session_id, ts(as_of), speaker, min_score, min_confidence
    )
    result = await _retrieved(ctx, user_id, message, asked)
    return {
        "text": result.text,
        "tokens": result.tokens,
        "memory_ids": [s.memory.id for s in result.memories],
        "episode_ids": [s.memory.id for s in result.episodes],
        "confidence": result.confidence,
        "conflicts": [
            {
                "asked": c.asked,
                "found": c.found,
                "relation": c.relation,
                "target": c.target,
                "evidence": list(c.evidence),
                "note": c.note,
            }
            for c in result.conflicts
        ],
    }


@_tool("search_memories")
async def search_memories(
    ctx: Context,
    query: Annotated[str, Field(description="What to look for, in words.")],
    limit: Limit = 10,
    speaker: Annotated[str | None, Field(description=ASKER)] = None,
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Find remembered turns about something, best first, with why each ranked (similarity,
    recency, frequency, and the entities or relations that led to it)."""
    check_range(limit, "limit", 1, MAX_PAGE)
    result = await _retrieved(ctx, user_id, query, _Asked(max_memories=limit, speaker=speaker))
    return {
        "memories": [
            _memory(s.memory)
            | {
                "score": round(s.score, 4),
                "floor_score": round(s.floor_score, 4),
                "similarity": round(s.similarity, 4),
                "recency": round(s.recency, 4),
                "frequency": round(s.frequency, 4),
                "via": list(s.via),
            }
            for s in result.memories
        ]
    }


async def _card(service: MemoryService, user: str, record: EntityRecord) -> dict[str, Any]:
    store = service.store
    targets = await call(store.entities, user, sorted({r.target for r in record.relations}))
    memories = await call(store.entity_memories, user, [record.key], CARD_MEMORIES)
    return {
        "key": record.key,
        "type": record.type,
        "label": record.label,
        "aliases": list(record.aliases),
        "mention_count": record.mention_count,
        "first_seen": iso(record.first_seen),
        "last_seen": iso(record.last_seen),
        "relations": [
            {
                "type": r.type,
                "direction": r.direction,
                "role": r.role,
                "target": r.target,
                "target_label": targets[r.target].label if r.target in targets else None,
                "count": r.count,
                "last_seen": iso(r.last_seen),
                "current": r.current,
                "evidence_ids": list(r.evidence[::-1]),
            }
            for r in card_order(record.key, record.relations)
        ],
        "recent_memories": [_memory(m) for m in memories.get(record.key, [])],
    }


@_tool("get_entity")
async def get_entity(
    ctx: Context,
    key: Annotated[str | None, Field(description="The entity key, e.g. person:ana.")] = None,
    name: Annotated[str | None, Field(description="Or its name or an alias, e.g. Ana.")] = None,
    user_id: UserArg = None,
) -> dict[str, Any]:
    """What memory knows about one person, place, organisation or thing: its relations to other
    entities (with the memories that state them) and its latest mentions."""
    service, user = _user(ctx, user_id)
    if (key is None) == (name is None):
        raise InvalidInput("key", "give exactly one of key or name")
    if key is None:
        key = await call(service.key_named, user, name or "")
    validation.check_no_nul(key, "key")
    records = await call(service.store.entities, user, [key])
    if key not in records:
        raise NotFound(f"no entity {key!r} for this user")
    return await _card(service, user, records[key])


@_tool("list_entities")
async def list_entities(
    ctx: Context,
    type: Annotated[
        str | None, Field(description="Only this type: person, org, place, topic, …")
    ] = None,
    search: Annotated[str | None, Field(description="Part of a name or alias.")] = None,
    limit: Limit = 20,
    user_id: UserArg = None,
) -> dict[str, Any]:
    """List the people, places, organisations and topics memory knows for this user, to find the
    key get_entity needs or to see who and what has come up."""
    service, user = _user(ctx, user_id)
    check_range(limit, "limit", 1, MAX_PAGE)
    keys, total = await call(service.list_entities, user, type, search, None, limit)
    found = await call(service.store.entities, user, keys[:limit])
    return {
        "total": total,
        "entities": [
            {
                "key": k,
                "type": found[k].type,
                "label": found[k].label,
                "mention_count": found[k].mention_count,
            }
            for k in keys[:limit]
            if k in found
        ],
    }


@_tool("forget")
async def forget(
    ctx: Context,
    memory_id: Annotated[str, Field(description="The id remember or search returned.")],
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Delete one memory for good, when the user asks you to forget it or it is wrong."""
    service, user = _user(ctx, user_id)
    return {"forgotten": await call(service.forget, user, memory_id)}


@_tool("unmerge")
async def unmerge(
    ctx: Context,
    memory_id: Annotated[
        str,
        Field(
            description="Either side of the merge: the fact that answered MERGED, or one "
            "it absorbed (its earlier_id)."
        ),
    ],
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Undo a merge of stated facts when the user says two facts were about different things:
    the absorbed facts are remembered separately again. Returns the restored memory."""
    service, user = _user(ctx, user_id)
    return _memory(await call(service.unmerge, user, memory_id))


@_tool("end_session")
async def end_session(
    ctx: Context,
    session_id: Annotated[str, Field(description="The conversation that has ended.")],
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Call when a conversation ends: memory writes its summary (an episode), which later context
    blocks show under earlier sessions."""
    service, user = _user(ctx, user_id)
    validation.check_no_nul(session_id, "session_id")
    summary = await call(service.end_session, user, session_id)
    return {
        "session_id": summary.session_id,
        "turn_count": summary.turn_count,
        "episode": summary.episode.text,
        "facts": summary.facts,
        "open_threads": summary.open_threads,
        "profile_hints": summary.hints.params(),
    }


@_tool("get_profile")
async def get_profile(
    ctx: Context,
    speaker: Annotated[
        str | None, Field(description="Whose profile; the user's main speaker when omitted.")
    ] = None,
    user_id: UserArg = None,
) -> dict[str, Any]:
    """Who this person is: what they know well (each area with its depth, the reason and the ids
    of the turns that show it), how they talk, topics they decline, how long you have known them
    and what to call them. Ask an expert for details, greet a returning user by what they told."""
    service, user = _user(ctx, user_id)
    view = await call(service.profile, user, speaker)
    if view is None:
        return {"profile": None}
    return {"profile": profile_dict(view)}


@_tool("get_knowledge_gaps")
async def get_knowledge_gaps(
    ctx: Context,
    domain: Annotated[
        str | None, Field(description="One domain of the memories, e.g. village-history.")
    ] = None,
    user_id: UserArg = None,
) -> dict[str, Any]:
    """What memory lacks about this user, ranked, each with a question you could ask (an open
    thread, a person known only by role, an event with no date, a thin category), beside what it
    covers well: ask these when the conversation allows, to fill the gaps."""
    service, user = _user(ctx, user_id)
    index = await call(service.knowledge_index, user, domain)
    return {
        "total_entries": index.total_entries,
        "gaps": [{"kind": g.kind, "reason": g.reason, "question": g.question} for g in index.gaps],
        "well_covered": {c.name: list(c.well_covered) for c in index.categories if c.well_covered},
        "themes": list(index.themes),
        "temporal_coverage": [{"period": p, "count": n} for p, n in index.temporal],
    }


TOOLS: tuple[Callable[..., Awaitable[dict[str, Any]]], ...] = (
    remember,
    remember_many,
    get_context,
    search_memories,
    get_entity,
    list_entities,
    forget,
    unmerge,
    end_session,
    get_profile,
    get_knowledge_gaps,
)
