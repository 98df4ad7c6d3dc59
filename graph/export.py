"""Copying users between engines (`recollect export --to bolt://…`) and GraphML export.

The copy is idempotent: memories merge on (user_id, id), entities on (user_id, key), edges once
each, so a second run creates nothing new. User settings are copied; profiles and knowledge
indexes are derived, and folded again on the target from the session tallies that come with the
sessions. Reads and writes go through the executor seam in pages; lists sent to the target are
never empty (FalkorDB's Bolt endpoint crashes on an empty list parameter).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph.executor import Executor
from graph.records import Params, Row
from graph.store import Store
from graph.write.profiles import Due, fold

EDGES = ("mentions", "next", "relations", "in_session", "summaries")
EXPORT_STATEMENTS = {
    f"{verb}_{noun}"
    for verb in ("export", "import")
    for noun in ("memories", "entities", "sessions", "user_settings", *EDGES)
}

COUNTED = (
    "memories",
    "entities",
    "sessions",
    "mentions",
    "next",
    "relations",
    "in_session",
    "summaries",
)

Progress = Callable[[str, int], None]


@dataclass
class ExportCounts:
    memories: int = 0
    entities: int = 0
    mentions: int = 0
    next: int = 0
    relations: int = 0
    sessions: int = 0
    in_session: int = 0
    summaries: int = 0
    users: list[str] = field(default_factory=list)

    def add(self, other: ExportCounts) -> None:
        """Adds another user's counts (and users) to these."""
        for name in COUNTED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.users.extend(other.users)

    def summary(self) -> str:
        parts = ", ".join(f"{getattr(self, name)} {name.replace('_', '-')}" for name in COUNTED)
        return f"{len(self.users)} users: {parts}"


def _pages(rows: list[Row], size: int) -> Iterator[list[Row]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _memories(source: Executor, user_id: str, page: int) -> Iterator[list[Row]]:
    after: str | None = None
    while True:
        rows = source.run("export_memories", {"user_id": user_id, "after": after, "limit": page})
        if not rows:
            return
        yield [dict(r["props"]) for r in rows]
        after = rows[-1]["props"]["id"]


class Exporter:
    def __init__(self, source: Executor, target: Executor, page: int = 200) -> None:
        source.queries.require({n for n in EXPORT_STATEMENTS if n.startswith("export_")})
        target.queries.require({n for n in EXPORT_STATEMENTS if n.startswith("import_")})
        self.source = source
        self.target = target
        self.page = page

    def copy_user(self, user_id: str, progress: Progress | None = None) -> ExportCounts:
        counts = ExportCounts(users=[user_id])
        tick = progress or (lambda _kind, _n: None)
        params = {"user_id": user_id}
        entities = [dict(r["props"]) for r in self.source.run("export_entities", params)]
        for rows in _pages(entities, self.page):
            self.target.run("import_entities", {**params, "rows": rows})
            counts.entities += len(rows)
            tick("entities", len(rows))
        for rows in _memories(self.source, user_id, self.page):
            self.target.run("import_memories", {**params, "rows": rows})
            counts.memories += len(rows)
            tick("memories", len(rows))
        sessions = [dict(r["props"]) for r in self.source.run("export_sessions", params)]
        for rows in _pages(sessions, self.page):
            self.target.run("import_sessions", {**params, "rows": rows})
            counts.sessions += len(rows)
            tick("sessions", len(rows))
        for name in EDGES:
            edges = self.source.run(f"export_{name}", params)
            for rows in _pages(edges, self.page):
                self.target.run(f"import_{name}", {**params, "rows": rows})
                setattr(counts, name, getattr(counts, name) + len(rows))
                tick(name, len(rows))
        settings = [dict(r["props"]) for r in self.source.run("export_user_settings", params)]
        if settings:
            self.target.run("import_user_settings", {**params, "rows": settings})
        # profiles and knowledge indexes are derived: folded on the target from the sessions'
        # tallies, which came with the sessions, and the sessionless days' tallies, made again
        # there (graph/write/profiles.py)
        target = Store(self.target)
        fold(target, user_id, Due(days=set(target.profiles.sessionless_days(user_id))))
        return counts


def write_graphml(source: Executor, users: list[str], path: Path) -> ExportCounts:
    """One GraphML file with the users' entities, memories and edges (for Gephi or yEd).

    GraphML attributes are scalars: a list property (a relation's evidence, an entity's aliases,
    a session's topics) is written as its JSON text; embeddings are left out."""
    import networkx as nx

    graph = nx.MultiDiGraph()
    counts = ExportCounts(users=list(users))
    for user_id in users:
        _graphml_nodes(source, user_id, graph, counts)
        _graphml_edges(source, user_id, graph, counts)
    nx.write_graphml(graph, str(path))
    return counts


def _scalars(props: Row) -> Params:
    out: Params = {}
    for key, value in props.items():
        if isinstance(value, str | int | float | bool) and key != "embedding":
            out[key] = value
        elif isinstance(value, list):
            out[key] = json.dumps(value)
    return out


def _graphml_nodes(source: Executor, user_id: str, graph: Any, counts: ExportCounts) -> None:
    params = {"user_id": user_id}
    for row in source.run("export_entities", params):
        props = dict(row["props"])
        props["aliases"] = props.get("aliases") or []
        graph.add_node(f"{user_id}/{props['key']}", kind="entity", **_scalars(props))
        counts.entities += 1
    for rows in _memories(source, user_id, 500):
        for props in rows:
            attrs = _scalars(props)
            attrs["memory_kind"] = attrs.pop("kind", "turn")  # turn or episode
            graph.add_node(f"{user_id}/{props['id']}", kind="memory", **attrs)
            counts.memories += 1
    for row in source.run("export_sessions", params):
        props = dict(row["props"])
        graph.add_node(f"{user_id}/session/{props['id']}", kind="session", **_scalars(props))
        counts.sessions += 1


def _graphml_edges(source: Executor, user_id: str, graph: Any, counts: ExportCounts) -> None:
    params = {"user_id": user_id}
    for row in source.run("export_in_session", params):
        session = f"{user_id}/session/{row['session_id']}"
        graph.add_edge(f"{user_id}/{row['memory_id']}", session, type="IN_SESSION")
        counts.in_session += 1
    for row in source.run("export_summaries", params):
        session = f"{user_id}/session/{row['session_id']}"
        graph.add_edge(session, f"{user_id}/{row['memory_id']}", type="SUMMARIZED_BY")
        counts.summaries += 1
    for row in source.run("export_mentions", params):
        graph.add_edge(
            f"{user_id}/{row['memory_id']}",
            f"{user_id}/{row['key']}",
            type="MENTIONS",
            as_speaker=bool(row["as_speaker"]),
        )
        counts.mentions += 1
    for row in source.run("export_next", params):
        graph.add_edge(f"{user_id}/{row['from']}", f"{user_id}/{row['to']}", type="NEXT")
        counts.next += 1
    for row in source.run("export_relations", params):
        props = _scalars(dict(row["props"]))
        props.pop("type", None)
        graph.add_edge(
            f"{user_id}/{row['src']}", f"{user_id}/{row['dst']}", type=row["type"], **props
        )
        counts.relations += 1
