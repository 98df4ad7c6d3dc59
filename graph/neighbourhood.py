"""Views of a user's graph as the explorer draws them (GET /explore; GraphQL `neighbourhood` and
`overview`).

A neighbourhood is a breadth-first walk from seed entities, one statement per hop
(`neighbourhood_step`), then one for the relations among everything reached
(`neighbourhood_edges`). Each hop keeps the strongest neighbours first, so a hub (the user,
related to nearly everything) shows its strongest relations rather than an arbitrary few hundred.
An overview starts from no key: its nodes are the user's most-mentioned entities
(`neighbourhood_top`), with the relations among them — who and what the memory holds, at a glance.

The cost is bounded before any statement runs: at most MAX_KEYS seeds, MAX_DEPTH hops (so at most
MAX_DEPTH + 2 statements), MAX_NODES entities and EDGES_PER_NODE × limit relations; a view cut
short says so (`truncated`, `edges_truncated`) and the page shows a notice. Every bad argument is
an InvalidInput naming the GraphQL argument, its value and what is allowed.

Owns: the checks and the walk. It reads through the store's three explorer statements and never
writes; it imports nothing from api/.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from extraction.keys import ENTITY_TYPES
from extraction.model import RELATION_TYPES
from graph import validation
from graph.errors import InvalidInput
from graph.limits import check_range
from graph.records import GraphEdge, GraphNode, ViewFilter

MAX_DEPTH = 3
MAX_NODES = 2_000
MAX_KEYS = 50
EDGES_PER_NODE = 4
DEFAULT_DEPTH = 1
DEFAULT_LIMIT = 200
DEFAULT_OVERVIEW = 50


class GraphReader(Protocol):
    """What the walk needs of the store (graph/store.py)."""

    def graph_nodes(self, user_id: str, keys: Sequence[str]) -> list[GraphNode]: ...

    def graph_top(self, user_id: str, view: ViewFilter, limit: int) -> list[GraphNode]: ...

    def graph_step(
        self, user_id: str, frontier: Sequence[str], view: ViewFilter, limit: int, depth: int
    ) -> list[GraphNode]: ...

    def graph_edges(
        self, user_id: str, keys: Sequence[str], view: ViewFilter, limit: int
    ) -> list[GraphEdge]: ...


@dataclass(frozen=True)
class NeighbourhoodRequest:
    """Entities within `depth` hops of `keys`, or with no keys (an overview) the most-mentioned."""

    user_id: str
    keys: tuple[str, ...]
    depth: int = DEFAULT_DEPTH
    limit: int = DEFAULT_LIMIT
    view: ViewFilter = ViewFilter()

    @classmethod
    def checked(
        cls,
        user_id: str,
        keys: Sequence[str],
        depth: int = DEFAULT_DEPTH,
        limit: int = DEFAULT_LIMIT,
        relation_types: Sequence[str] | None = None,
        entity_types: Sequence[str] | None = None,
        current: bool = False,
        since: float | None = None,
        until: float | None = None,
    ) -> NeighbourhoodRequest:
        """A request whose every argument is within bounds, else InvalidInput naming it."""
        validation.check_user_id(user_id)
        seeds = _check_keys(keys)
        check_range(depth, "depth", 0, MAX_DEPTH)
        check_range(limit, "limit", 1, MAX_NODES)
        if len(seeds) > limit:
            raise InvalidInput(
                "limit", f"is {limit}; the view starts with {len(seeds)} keys, so at least that"
            )
        view = _view(relation_types, entity_types, current, since, until)
        return cls(user_id=user_id, keys=seeds, depth=depth, limit=limit, view=view)

    @classmethod
    def overview(
        cls,
        user_id: str,
        limit: int = DEFAULT_OVERVIEW,
        relation_types: Sequence[str] | None = None,
        entity_types: Sequence[str] | None = None,
        current: bool = False,
        since: float | None = None,
        until: float | None = None,
    ) -> NeighbourhoodRequest:
        """The `limit` most-mentioned entities (of `entity_types`, mentioned within the time
        range) and the relations among them that the filters keep."""
        validation.check_user_id(user_id)
        check_range(limit, "limit", 1, MAX_NODES)
        view = _view(relation_types, entity_types, current, since, until)
        return cls(user_id=user_id, keys=(), depth=0, limit=limit, view=view)


@dataclass(frozen=True)
class Neighbourhood:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    truncated: bool  # more entities lie within `depth` (in an overview: at all) than `limit`
    edges_truncated: bool  # more relations among the nodes than EDGES_PER_NODE × limit
    missing: tuple[str, ...]  # seed keys this user has no entity for


def read_neighbourhood(store: GraphReader, request: NeighbourhoodRequest) -> Neighbourhood:
    user = request.user_id
    truncated = False
    if request.keys:
        seeds = store.graph_nodes(user, request.keys)
    else:  # an overview: one more than the limit tells whether there are more
        seeds = store.graph_top(user, request.view, request.limit + 1)
        truncated = len(seeds) > request.limit
        seeds = seeds[: request.limit]
    nodes: dict[str, GraphNode] = {n.key: n for n in seeds}
    missing = tuple(k for k in request.keys if k not in nodes)
    frontier = list(nodes)
    for depth in range(1, request.depth + 1):
        if not frontier:
            break
        room = request.limit - len(nodes)
        # the frontier's neighbours include nodes drawn already; ask for enough to fill the room
        # and one more, which tells a cut-off walk from a complete one
        found = store.graph_step(user, frontier, request.view, room + len(nodes) + 1, depth)
        fresh = [n for n in found if n.key not in nodes]
        if len(fresh) > room:
            truncated = True
            fresh = fresh[:room]
        nodes.update((n.key, n) for n in fresh)
        frontier = [n.key for n in fresh]
        if truncated:
            break
    edge_cap = EDGES_PER_NODE * request.limit
    edges = store.graph_edges(user, list(nodes), request.view, edge_cap + 1)
    return Neighbourhood(
        nodes=tuple(nodes.values()),
        edges=tuple(edges[:edge_cap]),
        truncated=truncated,
        edges_truncated=len(edges) > edge_cap,
        missing=missing,
    )


def _view(
    relation_types: Sequence[str] | None,
    entity_types: Sequence[str] | None,
    current: bool,
    since: float | None,
    until: float | None,
) -> ViewFilter:
    if since is not None and until is not None and since > until:
        raise InvalidInput("since", "is after until; a time range runs from since to until")
    return ViewFilter(
        relation_types=_check_names(relation_types, "types", RELATION_TYPES),
        entity_types=_check_names(entity_types, "entityTypes", ENTITY_TYPES),
        current=current,
        since=since,
        until=until,
    )


def _check_keys(keys: Sequence[str]) -> tuple[str, ...]:
    if not keys:
        raise InvalidInput("keys", "is empty; give at least one entity key, e.g. 'person:mary'")
    if len(keys) > MAX_KEYS:
        raise InvalidInput("keys", f"holds {len(keys)} keys; at most {MAX_KEYS} allowed")
    for i, key in enumerate(keys):
        validation.check_no_nul(key, f"keys[{i}]")
        if ":" not in key or not key.partition(":")[2].strip():
            raise InvalidInput(f"keys[{i}]", f"is {key!r}; an entity key looks like 'person:mary'")
    return tuple(dict.fromkeys(keys))


def _check_names(
    names: Sequence[str] | None, field: str, allowed: Sequence[str]
) -> tuple[str, ...] | None:
    if names is None:
        return None
    for i, name in enumerate(names):
        if name not in allowed:
            raise InvalidInput(f"{field}[{i}]", f"is {name!r}; allowed {', '.join(allowed)}")
    return tuple(dict.fromkeys(names))
