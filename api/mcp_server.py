"""The MCP server: the service's calls as tools an agent host attaches with a command (stdio,
`recollect mcp`) or a URL (streamable HTTP at `/mcp` of `recollect serve`).

Tools are thin over the same service calls the GraphQL resolvers make, so validation and error
messages are the same; a RecollectError becomes a tool error that starts with its code
(`BAD_USER_INPUT: text: must not be empty`), and argument-schema failures are reported by the SDK
with the field's name. The user is fixed per connection: `--user` on stdio; on HTTP the API key's
user, or a `user_id` argument that the key must grant. An agent therefore never names a user it
was not given.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from api.auth import KeyRing, Principal
from api.loaders import call
from api.types import ts
from graph import validation
from graph.errors import InvalidInput, NotFound, RecollectError
from graph.limits import DEFAULT_MAX_MEMORIES, MAX_PAGE
from graph.recall import sessions
from graph.recall.config import DEFAULT_PROFILE, preset
from graph.recall.retrieval import ContextRequest, ContextResult, retrieve
from graph.records import EntityRecord, MemoryRecord
from graph.service import MemoryService
from graph.validation import NewMemory

INSTRUCTIONS = (
    "Recollect is this user's long-term memory. Call get_context with the user's message before "
    "you answer, and put its text in your prompt. Call remember with each turn worth keeping "
    "after you answer (the user's turns, and your replies when they state facts). Use "
    "get_entity or list_entities to look up what is known about a person, place or thing."
)
CARD_MEMORIES = 5


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


def _snake(field: str) -> str:
    """GraphQL names fields in camelCase; the tools take snake_case arguments."""
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), field)


@contextlib.contextmanager
def _tool_errors(batch: str = "memories") -> Iterator[None]:
    """The one translation of the exception tree into tool errors (the model reads the text).
    Field names become the tool's: `inputs[1].text` is `memories[1].text` (`text` for a
    single remember, `batch=""`), `sessionId` is `session_id`."""
    try:
        yield
    except InvalidInput as exc:
        message = str(exc).removeprefix(f"{exc.field}: ")
        field = _snake(exc.field)
        field = re.sub(r"^inputs\[0\]\.", "", field) if not batch else field
        field = re.sub(r"^inputs(?=\[)", batch, field) if batch else field
        raise ToolError(f"{exc.code}: {field}: {message}") from exc
    except RecollectError as exc:
        raise ToolError(f"{exc.code}: {exc}") from exc


def _iso(stamp: float | None) -> str | None:
    return None if stamp is None else datetime.fromtimestamp(stamp).astimezone().isoformat()


def _memory(record: MemoryRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "text": record.text,
        "speaker": record.speaker,
        "session_id": record.session_id,
        "occurred_at": _iso(record.occurred_at),
        "kind": record.kind,
    }


class MemoryItem(BaseModel):
    """One text to remember: a turn of a conversation or a fact."""

    text: Annotated[str, Field(description="What was said or learned, as plain text.")]
    speaker: Annotated[str | None, Field(description="Who said it, e.g. the user's name.")] = None
    session_id: Annotated[str | None, Field(description="The conversation it belongs to.")] = None
    occurred_at: Annotated[
        datetime | None, Field(description="When it was said (ISO 8601); default now.")
    ] = None
    importance: Annotated[int | None, Field(description="1 (trivia) to 10 (vital).")] = None
    pinned: Annotated[bool | None, Field(description="Always include in context.")] = None
    external_id: Annotated[
        str | None, Field(description="Your id for it; remembering it again changes nothing.")
    ] = None

    def to_new(self, user_id: str) -> NewMemory:
        return NewMemory(
            user_id=user_id,
            text=self.text,
            speaker=self.speaker,
            session_id=self.session_id,
            occurred_at=ts(self.occurred_at),
            external_id=self.external_id,
            importance=self.importance,
            pinned=self.pinned,
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


# told of every tool call: (tool, seconds, error code or None) — /metrics counts them
ToolObserver = Callable[[str, float, str | None], None]


def build_server(
    service: Callable[[], MemoryService],
    caller: Callable[[Context], Caller],
    observe: ToolObserver | None = None,
) -> MCPServer:
    """The tools over `service()` (resolved per call: the HTTP app starts it in its lifespan),
    acting for `caller(ctx)`; `observe` hears of every call."""
    server = MCPServer("recollect", instructions=INSTRUCTIONS)

    @contextlib.contextmanager
    def tool(name: str, batch: str = "memories") -> Iterator[None]:
        """`_tool_errors`, timed and reported to `observe` with the error code, if any."""
        started = time.perf_counter()
        code: str | None = None
        try:
            with _tool_errors(batch):
                yield
        except ToolError as exc:
            code = str(exc).split(":", 1)[0]
            raise
        except Exception:
            code = "INTERNAL_SERVER_ERROR"
            raise
        finally:
            if observe is not None:
                observe(name, time.perf_counter() - started, code)

    async def remembered(ctx: Context, user_id: str | None, items: list[MemoryItem]) -> list[Any]:
        user = caller(ctx).user(user_id)
        result = await call(service().remember_many, [i.to_new(user) for i in items])
        return [
            {"id": r.id, "entities": list(r.entity_keys), "session_id": r.session_id}
            for r in result.records
        ]

    @server.tool()
    async def remember(
        ctx: Context,
        text: Annotated[str, Field(description="What was said or learned, as plain text.")],
        speaker: Annotated[str | None, Field(description="Who said it.")] = None,
        session_id: Annotated[str | None, Field(description="The conversation's id.")] = None,
        occurred_at: Annotated[
            datetime | None, Field(description="When it was said (ISO 8601); default now.")
        ] = None,
        importance: Annotated[int | None, Field(description="1 (trivia) to 10 (vital).")] = None,
        pinned: Annotated[bool | None, Field(description="Always include in context.")] = None,
        external_id: Annotated[str | None, Field(description="Your id for it.")] = None,
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """Store one conversation turn or fact in long-term memory. Call it after each turn worth
        keeping; people, places and facts in it become entities and relations."""
        item = MemoryItem(
            text=text,
            speaker=speaker,
            session_id=session_id,
            occurred_at=occurred_at,
            importance=importance,
            pinned=pinned,
            external_id=external_id,
        )
        with tool("remember", batch=""):
            (stored,) = await remembered(ctx, user_id, [item])
            return dict(stored)

    @server.tool()
    async def remember_many(
        ctx: Context,
        memories: Annotated[list[MemoryItem], Field(description="The turns, oldest first.")],
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """Store several turns at once (e.g. a whole conversation so far), atomically: either all
        are stored or none, and an error names the bad item."""
        with tool("remember_many"):
            return {"memories": await remembered(ctx, user_id, memories)}

    async def retrieved(
        ctx: Context,
        user_id: str | None,
        message: str,
        max_memories: int,
        token_budget: int | None = None,
        session_id: str | None = None,
        as_of: datetime | None = None,
        speaker: str | None = None,
    ) -> ContextResult:
        request = ContextRequest(
            user_id=caller(ctx).user(user_id),
            message=message,
            speaker=speaker,
            as_of=ts(as_of),
            max_memories=max_memories,
            token_budget=token_budget,
            session_id=session_id,
            config=preset(DEFAULT_PROFILE),
        )
        return await call(retrieve, service(), request)

    @server.tool()
    async def get_context(
        ctx: Context,
        message: Annotated[str, Field(description="The user's message you are answering.")],
        token_budget: Annotated[
            int | None, Field(description="Most tokens the block may take.")
        ] = None,
        session_id: Annotated[
            str | None, Field(description="The current conversation (adds its recent turns).")
        ] = None,
        as_of: Annotated[
            datetime | None, Field(description="Answer as of this time (ISO 8601).")
        ] = None,
        speaker: Annotated[str | None, Field(description=ASKER)] = None,
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """Before answering the user, call this with their message: it returns what memory knows
        that bears on it (people, facts, earlier turns and sessions) as a text block to put in
        your prompt."""
        with tool("get_context"):
            result = await retrieved(
                ctx,
                user_id,
                message,
                DEFAULT_MAX_MEMORIES,
                token_budget,
                session_id,
                as_of,
                speaker,
            )
        return {
            "text": result.text,
            "tokens": result.tokens,
            "memory_ids": [s.memory.id for s in result.memories],
            "episode_ids": [s.memory.id for s in result.episodes],
        }

    @server.tool()
    async def search_memories(
        ctx: Context,
        query: Annotated[str, Field(description="What to look for, in words.")],
        limit: Annotated[int, Field(description="Most memories returned.")] = 10,
        speaker: Annotated[str | None, Field(description=ASKER)] = None,
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """Find remembered turns about something, best first, with why each ranked (similarity,
        recency, frequency, and the entities or relations that led to it)."""
        with tool("search_memories"):
            if limit < 1 or limit > MAX_PAGE:
                raise InvalidInput("limit", f"is {limit}; allowed 1 to {MAX_PAGE}")
            result = await retrieved(ctx, user_id, query, limit, speaker=speaker)
        return {
            "memories": [
                _memory(s.memory)
                | {
                    "score": round(s.score, 4),
                    "similarity": round(s.similarity, 4),
                    "recency": round(s.recency, 4),
                    "frequency": round(s.frequency, 4),
                    "via": list(s.via),
                }
                for s in result.memories
            ]
        }

    async def card(user: str, record: EntityRecord) -> dict[str, Any]:
        svc = service()
        targets = await call(svc.entities, user, sorted({r.target for r in record.relations}))
        memories = await call(svc.entity_memories, user, [record.key], CARD_MEMORIES)
        return {
            "key": record.key,
            "type": record.type,
            "label": record.label,
            "aliases": list(record.aliases),
            "mention_count": record.mention_count,
            "first_seen": _iso(record.first_seen),
            "last_seen": _iso(record.last_seen),
            "relations": [
                {
                    "type": r.type,
                    "direction": r.direction,
                    "role": r.role,
                    "target": r.target,
                    "target_label": targets[r.target].label if r.target in targets else None,
                    "count": r.count,
                    "last_seen": _iso(r.last_seen),
                    "evidence_ids": list(r.evidence[::-1]),
                }
                for r in record.relations
            ],
            "recent_memories": [_memory(m) for m in memories.get(record.key, [])],
        }

    @server.tool()
    async def get_entity(
        ctx: Context,
        key: Annotated[str | None, Field(description="The entity key, e.g. person:ana.")] = None,
        name: Annotated[str | None, Field(description="Or its name or an alias, e.g. Ana.")] = None,
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """What memory knows about one person, place, organisation or thing: its relations to
        other entities (with the memories that state them) and its latest mentions."""
        with tool("get_entity"):
            user = caller(ctx).user(user_id)
            if (key is None) == (name is None):
                raise InvalidInput("key", "give exactly one of key or name")
            svc = service()
            if key is None:
                assert name is not None
                keys, _ = await call(svc.list_entities, user, None, name, None, MAX_PAGE)
                found = await call(svc.entities, user, keys)
                wanted = name.strip().casefold()
                exact = [
                    k
                    for k in keys
                    if k in found
                    and wanted in {found[k].label.casefold(), *map(str.casefold, found[k].aliases)}
                ]
                if not (exact or keys):
                    raise NotFound(f"no entity named {name!r} for this user")
                key = max(exact or keys, key=lambda k: found[k].mention_count if k in found else 0)
            validation.check_no_nul(key, "key")
            records = await call(svc.entities, user, [key])
            if key not in records:
                raise NotFound(f"no entity {key!r} for this user")
            return await card(user, records[key])

    @server.tool()
    async def list_entities(
        ctx: Context,
        type: Annotated[
            str | None, Field(description="Only this type: person, org, place, topic, …")
        ] = None,
        search: Annotated[str | None, Field(description="Part of a name or alias.")] = None,
        limit: Annotated[int, Field(description="Most entities returned.")] = 20,
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """List the people, places, organisations and topics memory knows for this user, to find
        the key get_entity needs or to see who and what has come up."""
        with tool("list_entities"):
            user = caller(ctx).user(user_id)
            if limit < 1 or limit > MAX_PAGE:
                raise InvalidInput("limit", f"is {limit}; allowed 1 to {MAX_PAGE}")
            svc = service()
            keys, total = await call(svc.list_entities, user, type, search, None, limit)
            found = await call(svc.entities, user, keys[:limit])
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

    @server.tool()
    async def forget(
        ctx: Context,
        memory_id: Annotated[str, Field(description="The id remember or search returned.")],
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """Delete one memory for good, when the user asks you to forget it or it is wrong."""
        with tool("forget"):
            user = caller(ctx).user(user_id)
            return {"forgotten": await call(service().forget, user, memory_id)}

    @server.tool()
    async def end_session(
        ctx: Context,
        session_id: Annotated[str, Field(description="The conversation that has ended.")],
        user_id: UserArg = None,
    ) -> dict[str, Any]:
        """Call when a conversation ends: memory writes its summary (an episode), which later
        context blocks show under earlier sessions."""
        with tool("end_session"):
            user = caller(ctx).user(user_id)
            validation.check_no_nul(session_id, "session_id")
            summary = await call(sessions.end_session, service(), user, session_id)
        return {
            "session_id": summary.session_id,
            "turn_count": summary.turn_count,
            "episode": summary.episode.text,
            "facts": summary.facts,
            "open_threads": summary.open_threads,
            "profile_hints": summary.hints.params(),
        }

    return server
