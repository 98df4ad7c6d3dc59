"""GraphQL types of the explorer's views (`neighbourhood`, `overview`) and their resolvers, and
`users` (the user ids a key may read).

The page at GET /explore draws exactly what `neighbourhood` returns, and card clients read the
same view. Its checks (depth, limit, keys, types, time range) live in graph/neighbourhood.py, so
every entry point gets the same messages. Evidence memories of all edges of one response load in
one service call (the request's memory DataLoader, api/loaders.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.auth import Denied
from api.inputs import ts
from api.loaders import Context, call
from api.present import moment
from api.types import Memory
from graph.errors import Unauthenticated
from graph.limits import check_range
from graph.neighbourhood import (
    DEFAULT_DEPTH,
    DEFAULT_LIMIT,
    DEFAULT_OVERVIEW,
    MAX_DEPTH,
    MAX_KEYS,
    MAX_NODES,
    Neighbourhood,
    NeighbourhoodRequest,
    read_neighbourhood,
)
from graph.records import MAX_EVIDENCE
from graph.records import GraphEdge as EdgeRecord
from graph.records import GraphNode as NodeRecord


@strawberry.type(description="An entity as the explorer draws it.")
class GraphNode:
    key: str
    label: str
    type: str
    aliases: list[str]
    mention_count: int
    first_seen: datetime | None
    last_seen: datetime | None
    depth: int = strawberry.field(description="Hops from the nearest of the view's keys (0: one)")

    @classmethod
    def from_record(cls, record: NodeRecord) -> GraphNode:
        return cls(
            key=record.key,
            label=record.label,
            type=record.type,
            aliases=list(record.aliases),
            mention_count=record.mention_count,
            first_seen=moment(record.first_seen),
            last_seen=moment(record.last_seen),
            depth=record.depth,
        )


@strawberry.type(description="A typed relation between two entities of a view (keys).")
class GraphEdge:
    type: str
    source: str = strawberry.field(description="Key of the entity the relation starts at")
    target: str = strawberry.field(description="Key of the entity the relation points to")
    role: str | None = strawberry.field(description="e.g. 'sister' for FAMILY_OF")
    count: int = strawberry.field(description="How many statements back it")
    current: bool = strawberry.field(description="False for history: a newer value superseded it")
    first_seen: datetime | None
    last_seen: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    user_id: strawberry.Private[str]
    evidence_ids: strawberry.Private[tuple[str, ...]]

    @classmethod
    def from_record(cls, user_id: str, record: EdgeRecord) -> GraphEdge:
        return cls(
            type=record.type,
            source=record.source,
            target=record.target,
            role=record.role,
            count=record.count,
            current=record.current,
            first_seen=moment(record.first_seen),
            last_seen=moment(record.last_seen),
            valid_from=moment(record.valid_from),
            valid_to=moment(record.valid_to),
            user_id=user_id,
            evidence_ids=record.evidence,
        )

    @strawberry.field(description="The newest memories that state this relation, newest first.")
    async def evidence(self, info: Info[Context, None], first: int | None = 3) -> list[Memory]:
        first = check_range(3 if first is None else first, "first", 1, MAX_EVIDENCE)
        ids = self.evidence_ids[::-1][:first]
        loader = info.context.memory_loader
        found = await loader.load_many([(self.user_id, i) for i in ids])
        return [Memory.from_record(m) for m in found if m is not None]


@strawberry.type(
    name="Neighbourhood",
    description="Entities within some hops of the given ones and the relations among them.",
)
class NeighbourhoodView:
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = strawberry.field(
        description="More entities lie within depth than limit let in (the strongest are kept)"
    )
    edges_truncated: bool = strawberry.field(
        description="More relations among the nodes than 4 × limit (the strongest are kept)"
    )
    missing: list[str] = strawberry.field(description="Keys this user has no entity for")

    @classmethod
    def from_result(cls, user_id: str, view: Neighbourhood) -> NeighbourhoodView:
        return cls(
            nodes=[GraphNode.from_record(n) for n in view.nodes],
            edges=[GraphEdge.from_record(user_id, e) for e in view.edges],
            truncated=view.truncated,
            edges_truncated=view.edges_truncated,
            missing=list(view.missing),
        )


def _arg(description: str) -> object:
    return strawberry.argument(description=description)


async def resolve_neighbourhood(
    info: Info[Context, None],
    user_id: strawberry.ID,
    keys: Annotated[list[str], _arg(f"Entity keys the view starts from (1 to {MAX_KEYS})")],
    depth: Annotated[int | None, _arg(f"Hops from the keys, 0 to {MAX_DEPTH}")] = DEFAULT_DEPTH,
    limit: Annotated[
        int | None, _arg(f"Most entities drawn, the keys included, 1 to {MAX_NODES}")
    ] = DEFAULT_LIMIT,
    types: Annotated[
        list[str] | None, _arg("Relation types to follow (WORKS_AT, …); all when null")
    ] = None,
    current: Annotated[
        bool | None, _arg("True: only facts that still hold; else history too")
    ] = None,
    entity_types: Annotated[
        list[str] | None, _arg("Types of the entities reached (person, place, …); all when null")
    ] = None,
    since: Annotated[
        datetime | None, _arg("Only relations seen or held at or after this time")
    ] = None,
    until: Annotated[
        datetime | None, _arg("Only relations seen or held at or before this time")
    ] = None,
) -> NeighbourhoodView:
    ctx = info.context
    user = ctx.scope(str(user_id))
    request = NeighbourhoodRequest.checked(
        user,
        keys,
        depth=DEFAULT_DEPTH if depth is None else depth,
        limit=DEFAULT_LIMIT if limit is None else limit,
        relation_types=types,
        entity_types=entity_types,
        current=bool(current),
        since=ts(since),
        until=ts(until),
    )
    view = await call(read_neighbourhood, ctx.service.store, request)
    return NeighbourhoodView.from_result(user, view)


async def resolve_overview(
    info: Info[Context, None],
    user_id: strawberry.ID,
    limit: Annotated[
        int | None, _arg(f"How many of the most-mentioned entities, 1 to {MAX_NODES}")
    ] = DEFAULT_OVERVIEW,
    types: Annotated[
        list[str] | None, _arg("Relation types drawn among them (WORKS_AT, …); all when null")
    ] = None,
    current: Annotated[
        bool | None, _arg("True: only facts that still hold; else history too")
    ] = None,
    entity_types: Annotated[
        list[str] | None, _arg("Only entities of these types (person, place, …); all when null")
    ] = None,
    since: Annotated[
        datetime | None, _arg("Only entities and relations seen at or after this time")
    ] = None,
    until: Annotated[
        datetime | None, _arg("Only entities and relations seen at or before this time")
    ] = None,
) -> NeighbourhoodView:
    ctx = info.context
    user = ctx.scope(str(user_id))
    request = NeighbourhoodRequest.overview(
        user,
        limit=DEFAULT_OVERVIEW if limit is None else limit,
        relation_types=types,
        entity_types=entity_types,
        current=bool(current),
        since=ts(since),
        until=ts(until),
    )
    view = await call(read_neighbourhood, ctx.service.store, request)
    return NeighbourhoodView.from_result(user, view)


async def resolve_users(info: Info[Context, None]) -> list[strawberry.ID]:
    """The users holding memories that the caller's key grants (all of them without keys)."""
    principal = info.context.principal
    if isinstance(principal, Denied):
        raise Unauthenticated(principal.reason)
    users = await call(info.context.service.store.users)
    return [strawberry.ID(u) for u in sorted(users) if principal.all_users or u in principal.users]
