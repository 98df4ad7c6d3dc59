"""Persistence of memories, entities and relations: named statements in, records out.

Every statement is scoped by `user_id`. Besides this module (and `profiles`,
graph/profile_store.py, which runs through the same seam) only the executor's owners run
statements: api/runtime.py applies the schema, graph/export.py copies users between engines. The
store holds no state of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any
from uuid import uuid4

from extraction.model import KnownEntity
from extraction.resolver import RoleLink
from graph.batch import BatchRows
from graph.executor import Executor
from graph.ids import MemoryId
from graph.profile_store import PROFILE_STATEMENTS, KnowledgeStore, ProfileStore
from graph.records import (
    MAX_EVIDENCE,
    ChangeLog,
    EntityMerge,
    EntityRecord,
    ExistingMemory,
    GraphEdge,
    GraphNode,
    Mark,
    MemoryFacts,
    MemoryRecord,
    Params,
    RelationRecord,
    Row,
    SessionEntity,
    SessionFact,
    SessionRecord,
    StoredText,
    StoredVector,
    TurnFacts,
    ViewFilter,
    WriteStart,
)
from graph.request_cost import count_statement
from graph.vocabulary import DOMAINS, SINGLE_VALUED, SINGLE_VALUED_TYPES

STATEMENTS = {
    "write_memories",
    "find_existing_memories",
    "get_memories",
    "get_absorbed_memories",
    "absorb_memories",
    "unmerge_memory",
    "entity_catalog",
    "role_catalog",
    "topic_candidates",
    "session_people",
    "merge_entities",
    "entity_cards",
    "list_entities",
    "count_entities",
    "entity_memories",
    "memory_facts",
    "user_facts",
    "user_relations",
    "relations_touched",
    "set_pinned",
    "forget_memory",
    "forget_user",
    "touch_memories",
    "list_memory_users",
    "list_memory_texts",
    "last_in_sessions",
    "write_start",
    "neighbour_facts",
    "session_turns",
    "get_session",
    "idle_sessions",
    "session_entities",
    "session_facts",
    "end_session",
    "cache_window_summary",
    "recent_sessions",
    "session_before",
    "facts_outside_domain",
    "speaker_turns",
    "list_memory_vectors",
    "get_memory_embeddings",
    "count_memories",
    "revalidate_facts",
    "memories_in_time",
    "change_mark",
    "change_log",
    "memories_since",
    "neighbourhood_nodes",
    "neighbourhood_top",
    "neighbourhood_step",
    "neighbourhood_edges",
} | PROFILE_STATEMENTS

# removals the change log lists (graph/follow.py): a replica further behind reloads the user
KEEP_REMOVED = 512


# what the statements that keep one-value-at-a-time facts' validity need of the vocabulary
_SINGLE_VALUED = {
    "single_valued_types": list(SINGLE_VALUED_TYPES),
    "single_valued_groups": [list(g) for g in SINGLE_VALUED],
}
_ALL = 2**62  # "no limit" for statements that take one (Cypher has no infinity for integers)


class Store:
    def __init__(self, executor: Executor) -> None:
        executor.queries.require(STATEMENTS)
        self.executor = executor
        self.profiles = ProfileStore(self._run)
        self.knowledge = KnowledgeStore(self._run)

    def _run(self, name: str, **params: Any) -> list[Row]:
        count_statement()
        return self.executor.run(name, params)

    # -- writes -------------------------------------------------------------------------------

    def write_batch(self, user_id: str, rows: BatchRows) -> Mark:
        """Writes one batch atomically; returns the change it made (graph/follow.py)."""
        found = self._run(
            "write_memories",
            user_id=user_id,
            epoch=uuid4().hex,
            **rows.params(),
            **_SINGLE_VALUED,
        )
        return Mark.from_row(found[0] if found else None)

    def forget(self, user_id: str, memory_id: str) -> Mark | None:
        """Forgets one memory; the change it made, or None when there was no such memory."""
        rows = self._run(
            "forget_memory",
            user_id=user_id,
            id=memory_id,
            epoch=uuid4().hex,
            keep_removed=KEEP_REMOVED,
            **_SINGLE_VALUED,
        )
        return Mark.from_row(rows[0]) if rows else None

    def absorb(self, user_id: str, kept: str, absorbed: Sequence[str], now: float) -> Mark:
        """Stated facts folded into `kept` (cypher/absorb_memories.cypher); the change made."""
        rows = self._run(
            "absorb_memories",
            user_id=user_id,
            kept=kept,
            absorbed=list(absorbed),
            now=now,
            epoch=uuid4().hex,
            keep_removed=KEEP_REMOVED,
        )
        return Mark.from_row(rows[0] if rows else None)

    def unmerge(self, user_id: str, memory_id: str) -> tuple[str, list[str]] | None:
        """Undoes the merge `memory_id` is either side of: (kept, restored ids), or None when it
        is part of no merge."""
        rows = self._run("unmerge_memory", user_id=user_id, id=memory_id, epoch=uuid4().hex)
        if not rows:
            return None
        return str(rows[0]["kept"]), [str(i) for i in rows[0]["restored"]]

    def absorbed(self, user_id: str, ids: Iterable[str]) -> dict[MemoryId, MemoryRecord]:
        """Absorbed memories by id (inactive, readable by id)."""
        rows = self._run("get_absorbed_memories", user_id=user_id, ids=list(ids))
        return {r.id: r for r in map(MemoryRecord.from_row, rows)}

    def forget_user(self, user_id: str) -> int:
        rows = self._run("forget_user", user_id=user_id)
        return int(rows[0]["count"]) if rows else 0

    def set_pinned(self, user_id: str, memory_id: str, pinned: bool) -> Mark | None:
        """Pins or unpins one memory; the change it made, or None when there was no such memory."""
        rows = self._run(
            "set_pinned", user_id=user_id, id=memory_id, pinned=pinned, epoch=uuid4().hex
        )
        return Mark.from_row(rows[0]) if rows else None

    def touch(self, user_id: str, ids: Sequence[str], now: float) -> None:
        if ids:
            self._run("touch_memories", user_id=user_id, ids=list(ids), now=now)

    # -- reads --------------------------------------------------------------------------------

    def find_existing(
        self, user_id: str, external_ids: list[str], content_hashes: list[str]
    ) -> list[ExistingMemory]:
        rows = self._run(
            "find_existing_memories",
            user_id=user_id,
            external_ids=external_ids,
            content_hashes=content_hashes,
        )
        return [
            ExistingMemory(MemoryId(r["id"]), r.get("external_id"), r.get("content_hash"))
            for r in rows
        ]

    def memories(self, user_id: str, ids: Iterable[str]) -> dict[MemoryId, MemoryRecord]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._run("get_memories", user_id=user_id, ids=wanted)
        records = (MemoryRecord.from_row(row) for row in rows)
        return {r.id: r for r in records}

    def catalog(self, user_id: str) -> list[KnownEntity]:
        return [
            KnownEntity(
                row["key"],
                row["type"],
                row["label"],
                tuple(row.get("aliases") or ()),
                int(row.get("mention_count") or 0),
                row.get("gender"),
                bool(row.get("unnamed")),
                bool(row.get("plural")),
            )
            for row in self._run("entity_catalog", user_id=user_id)
        ]

    def role_catalog(self, user_id: str) -> list[RoleLink]:
        rows = self._run("role_catalog", user_id=user_id)
        return [RoleLink(row["owner"], row["role"], row["key"]) for row in rows]

    def topic_candidates(self, user_id: str) -> list[tuple[str, list[str]]]:
        rows = self._run("topic_candidates", user_id=user_id)
        return [(row["key"], list(row["memory_ids"])) for row in rows]

    def session_people(
        self, user_id: str, session_id: str, turns: int
    ) -> tuple[list[str], list[str]]:
        """The people of a session's last `turns` turns, oldest mention first, and its speakers."""
        rows = self._run("session_people", user_id=user_id, session_id=session_id, turns=turns)
        people = [row["key"] for row in rows if not row["spoke"]]
        speakers = [row["key"] for row in rows if row["spoke"]]
        return people, speakers

    def merge_entities(self, user_id: str, source: str, target: str) -> EntityMerge | None:
        """The merge made when `source` existed and was merged into `target`, else None."""
        rows = self._run(
            "merge_entities", user_id=user_id, source=source, target=target, epoch=uuid4().hex
        )
        # the target's facts now include the source's: one value at a time again
        self._run("revalidate_facts", user_id=user_id, sources=[target], **_SINGLE_VALUED)
        if not rows:
            return None
        changed = tuple(dict.fromkeys(str(i) for i in rows[0]["changed"] or ()))
        return EntityMerge(Mark.from_row(rows[0]), changed)

    # -- the change sequence (graph/follow.py) ------------------------------------------------

    def change_mark(self, user_id: str) -> Mark:
        rows = self._run("change_mark", user_id=user_id)
        return Mark.from_row(rows[0] if rows else None)

    def change_log(self, user_id: str) -> ChangeLog:
        rows = self._run("change_log", user_id=user_id)
        row = rows[0] if rows else {}
        removed = tuple(
            (int(seq), str(memory_id))
            for seq, memory_id in zip(
                row.get("removed_seq") or [], row.get("removed") or [], strict=True
            )
        )
        return ChangeLog(Mark.from_row(row), int(row.get("trimmed") or 0), removed)

    def memories_since(self, user_id: str, since: int, upto: int) -> list[StoredVector]:
        """Memories written after change `since` up to `upto`, with their stored embeddings."""
        rows = self._run("memories_since", user_id=user_id, since=since, upto=upto)
        return [StoredVector.from_row(row) for row in rows]

    def entities(
        self,
        user_id: str,
        keys: Iterable[str],
        max_relations: int | None = None,
        cued: Iterable[str] = (),
        evidence: int = MAX_EVIDENCE,
        bare: Iterable[str] = (),
    ) -> dict[str, EntityRecord]:
        """Entity cards; with `max_relations`, each card carries its strongest relations and every
        relation of a `cued` type (context cards), without it all of them (`entity(key)`); each
        relation with its newest `evidence` memory ids."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        out: dict[str, EntityRecord] = {}
        relations: dict[str, list[RelationRecord]] = {}
        rows = self._run(
            "entity_cards",
            user_id=user_id,
            keys=wanted,
            limit=_ALL if max_relations is None else max_relations,
            types=sorted(set(cued)),
            evidence=evidence,
            bare=sorted(set(bare)),
        )
        for row in rows:
            key = row["key"]
            if key not in out:
                relations[key] = []
                out[key] = EntityRecord(
                    key=key,
                    type=row["entity_type"],
                    label=row["label"],
                    aliases=tuple(row.get("aliases") or ()),
                    mention_count=int(row.get("mention_count") or 0),
                    first_seen=row.get("entity_first_seen"),
                    last_seen=row.get("entity_last_seen"),
                )
            if row.get("type") is None:
                continue
            relations[key].append(
                RelationRecord(
                    type=row["type"],
                    direction=row["direction"],
                    target=row["target"],
                    count=int(row.get("count") or 0),
                    strong=int(row.get("strong") or 0),
                    role=row.get("role"),
                    first_seen=row.get("first_seen"),
                    last_seen=row.get("last_seen"),
                    evidence=tuple(row.get("evidence") or ()),
                    valid_from=row.get("valid_from"),
                    valid_to=row.get("valid_to"),
                )
            )
        return {k: replace(card, relations=tuple(relations[k])) for k, card in out.items()}

    def list_entity_keys(
        self,
        user_id: str,
        entity_type: str | None,
        search: str | None,
        after: str | None,
        limit: int,
    ) -> list[str]:
        rows = self._run(
            "list_entities",
            user_id=user_id,
            type=entity_type,
            search=search,
            after=after,
            limit=limit,
        )
        return [row["key"] for row in rows]

    def count_entities(self, user_id: str, entity_type: str | None, search: str | None) -> int:
        rows = self._run("count_entities", user_id=user_id, type=entity_type, search=search)
        return int(rows[0]["total"]) if rows else 0

    def entity_memory_ids(
        self, user_id: str, keys: Iterable[str], limit: int
    ) -> dict[str, list[MemoryId]]:
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        rows = self._run("entity_memories", user_id=user_id, keys=wanted, limit=limit)
        return {row["key"]: [MemoryId(i) for i in row["ids"]] for row in rows}

    def entity_memories(
        self, user_id: str, keys: Sequence[str], limit: int
    ) -> dict[str, list[MemoryRecord]]:
        """The newest `limit` memories mentioning each entity."""
        ids = self.entity_memory_ids(user_id, keys, limit)
        records = self.memories(user_id, [i for v in ids.values() for i in v])
        return {key: [records[i] for i in ids.get(key, []) if i in records] for key in keys}

    def memories_in_time(
        self, user_id: str, start: float, end: float, limit: int
    ) -> list[MemoryId]:
        rows = self._run("memories_in_time", user_id=user_id, start=start, end=end, limit=limit)
        # two disjoint branches (an event in the window; said in it, naming no time), each newest
        # first: merged here
        newest = sorted(rows, key=lambda row: float(row["occurred_at"]), reverse=True)
        return [MemoryId(row["id"]) for row in newest[:limit]]

    def write_start(self, user_id: str, sessions: Sequence[str]) -> WriteStart:
        """The change mark and the newest memory of each of `sessions`, read together: what a
        write needs under its lock before it resolves, in one statement instead of two."""
        rows = self._run("write_start", user_id=user_id, sessions=list(sessions))
        return WriteStart.from_rows(rows)

    def last_in_sessions(self, user_id: str, sessions: Sequence[str]) -> dict[str, str]:
        if not sessions:
            return {}
        rows = self._run("last_in_sessions", user_id=user_id, sessions=list(sessions))
        return {row["session"]: row["last"] for row in rows}

    def neighbour_facts(
        self, user_id: str, ids: Sequence[str]
    ) -> tuple[dict[str, tuple[str | None, str | None]], dict[MemoryId, MemoryFacts]]:
        """Each memory's previous and next turn in its session, and the facts of those turns."""
        if not ids:
            return {}, {}
        links: dict[str, list[str | None]] = {i: [None, None] for i in ids}
        facts: dict[MemoryId, MemoryFacts] = {}
        for row in self._run("neighbour_facts", user_id=user_id, ids=list(ids)):
            links[row["of"]][0 if row["side"] == "before" else 1] = row["id"]
            found = MemoryFacts.from_row(row)
            facts[found.id] = found
        return {i: (pair[0], pair[1]) for i, pair in links.items()}, facts

    # -- sessions -----------------------------------------------------------------------------

    def session(self, user_id: str, session_id: str) -> SessionRecord | None:
        rows = self._run("get_session", user_id=user_id, session_id=session_id)
        return SessionRecord.from_row(rows[0]) if rows else None

    def session_turn_ids(self, user_id: str, session_id: str) -> list[str]:
        rows = self._run("session_turns", user_id=user_id, session_id=session_id)
        return [row["id"] for row in rows]

    def session_turns(self, user_id: str, session_id: str) -> list[MemoryRecord]:
        """The session's turns in order (the NEXT chain)."""
        ids = self.session_turn_ids(user_id, session_id)
        records = self.memories(user_id, ids)
        return [records[MemoryId(i)] for i in ids if MemoryId(i) in records]

    def idle_sessions(self, user_id: str, before: float) -> list[str]:
        rows = self._run("idle_sessions", user_id=user_id, before=before)
        return [row["id"] for row in rows]

    def session_entities(self, user_id: str, session_id: str, limit: int) -> list[SessionEntity]:
        """The entities the session's turns mention most, speakers as authors left out."""
        rows = self._run("session_entities", user_id=user_id, session_id=session_id, limit=limit)
        return [SessionEntity.from_row(row) for row in rows]

    def session_facts(self, user_id: str, session_id: str) -> list[SessionFact]:
        """The typed relations first seen in the session (src, type, dst, dst_type, role and
        their first evidence), in the order they were first seen, then by labels and keys. The
        statement is a UNION, whose parts cannot be ordered together, so they are ordered here."""
        rows = self._run("session_facts", user_id=user_id, session_id=session_id)
        rows.sort(key=_first_seen_order)
        return [SessionFact.from_row(row) for row in rows]

    def end_session(
        self,
        user_id: str,
        session_id: str,
        episode_id: str,
        now: float,
        topics: list[str],
        hints: dict[str, list[str]],
    ) -> bool:
        rows = self._run(
            "end_session",
            user_id=user_id,
            session_id=session_id,
            episode_id=episode_id,
            now=now,
            topics=topics,
            expertise=hints.get("expertise", []),
            returning=hints.get("returning", []),
            declined=hints.get("declined", []),
            open_threads=hints.get("open_threads", []),
        )
        return bool(rows)

    def cache_window_summary(
        self, user_id: str, session_id: str, sentences: list[str], upto: int
    ) -> None:
        self._run(
            "cache_window_summary",
            user_id=user_id,
            session_id=session_id,
            sentences=sentences,
            upto=upto,
        )

    def recent_sessions(self, user_id: str) -> list[str]:
        """The ids of the user's two most recent sessions, newest first."""
        return [str(row["id"]) for row in self._run("recent_sessions", user_id=user_id)]

    def facts_outside_domain(self, user_id: str) -> list[tuple[str, str, str]]:
        """The user's typed facts whose subject its relation's domain does not accept: none,
        unless something other than the write path put them there."""
        domains = [{"type": t, "subjects": sorted(s)} for t, s in sorted(DOMAINS.items())]
        rows = self._run("facts_outside_domain", user_id=user_id, domains=domains)
        return [(str(r["source"]), str(r["type"]), str(r["target"])) for r in rows]

    def session_before(self, user_id: str, as_of: float, exclude: str | None) -> str | None:
        """The id of the user's last session said by `as_of`, other than `exclude`."""
        rows = self._run("session_before", user_id=user_id, as_of=as_of, exclude=exclude)
        return str(rows[0]["id"]) if rows else None

    def speaker_turns(self, user_id: str) -> dict[str, int]:
        rows = self._run("speaker_turns", user_id=user_id)
        return {row["speaker"]: int(row["turns"]) for row in rows}

    def memory_facts(self, user_id: str, ids: Iterable[str]) -> dict[MemoryId, MemoryFacts]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._run("memory_facts", user_id=user_id, ids=wanted)
        facts = (MemoryFacts.from_row(row) for row in rows)
        return {f.id: f for f in facts}

    def user_facts(self, user_id: str) -> list[TurnFacts]:
        """Every memory's facts and the turn before it in its session, in write order (the
        service's in-process copy, graph/memory_facts.py)."""
        return [TurnFacts.from_row(row) for row in self._run("user_facts", user_id=user_id)]

    def user_relations(self, user_id: str) -> list[GraphEdge]:
        """Every relation between the user's entities, with all its evidence (the service's
        in-process copy, graph/relation_facts.py)."""
        return [GraphEdge.from_row(row) for row in self._run("user_relations", user_id=user_id)]

    def relations_touched(
        self,
        user_id: str,
        pairs: Iterable[tuple[str, str]],
        sources: Iterable[str],
        around: Iterable[str],
    ) -> list[GraphEdge]:
        """The relations between `pairs` (source, target), the one-value facts of `sources`
        and every relation of the `around` entities, as they stand now (after a write)."""
        rows = self._run(
            "relations_touched",
            user_id=user_id,
            pairs=[[src, dst] for src, dst in pairs],
            sources=list(sources),
            around=list(around),
            single_valued_types=list(SINGLE_VALUED_TYPES),
        )
        return [GraphEdge.from_row(row) for row in rows]

    def count_memories(self, user_id: str) -> int:
        rows = self._run("count_memories", user_id=user_id)
        return int(rows[0]["total"]) if rows else 0

    # -- the explorer (graph/neighbourhood.py) ------------------------------------------------

    def graph_nodes(self, user_id: str, keys: Sequence[str]) -> list[GraphNode]:
        """The entities among `keys` this user has, as the explorer draws them."""
        if not keys:
            return []
        rows = self._run("neighbourhood_nodes", user_id=user_id, keys=list(keys))
        return [GraphNode.from_row(row) for row in rows]

    def graph_top(self, user_id: str, view: ViewFilter, limit: int) -> list[GraphNode]:
        """The user's most-mentioned entities of the types and time `view` keeps (`limit`)."""
        view_params = _view_params(view)
        rows = self._run(
            "neighbourhood_top",
            user_id=user_id,
            limit=limit,
            entity_types=list(view.entity_types or ()),
            all_entity_types=view.entity_types is None,
            since=view_params["since"],
            until=view_params["until"],
        )
        return [GraphNode.from_row(row) for row in rows]

    def graph_step(
        self, user_id: str, frontier: Sequence[str], view: ViewFilter, limit: int, depth: int
    ) -> list[GraphNode]:
        """The entities next to `frontier` through relations `view` keeps, strongest first, at
        most `limit` (the frontier's own members may be among them)."""
        if not frontier:
            return []
        rows = self._run(
            "neighbourhood_step",
            user_id=user_id,
            frontier=list(frontier),
            limit=limit,
            entity_types=list(view.entity_types or ()),
            all_entity_types=view.entity_types is None,
            **_view_params(view),
        )
        return [GraphNode.from_row(row, depth) for row in rows]

    def graph_edges(
        self, user_id: str, keys: Sequence[str], view: ViewFilter, limit: int
    ) -> list[GraphEdge]:
        """The relations among `keys` that `view` keeps, strongest first, at most `limit`."""
        if not keys:
            return []
        rows = self._run(
            "neighbourhood_edges",
            user_id=user_id,
            keys=list(keys),
            limit=limit,
            evidence=MAX_EVIDENCE,
            **_view_params(view),
        )
        return [GraphEdge.from_row(row) for row in rows]

    # -- reconciliation -----------------------------------------------------------------------

    def users(self) -> list[str]:
        return [row["user_id"] for row in self._run("list_memory_users")]

    def memory_vector_ids(self, user_id: str) -> dict[str, str | None]:
        rows = self._run("list_memory_vectors", user_id=user_id)
        return {row["id"]: row.get("embedding_model") for row in rows}

    def memory_texts(self, user_id: str) -> list[StoredText]:
        """Every memory's text and speaker, to build the user's BM25 index."""
        return [StoredText.from_row(row) for row in self._run("list_memory_texts", user_id=user_id)]

    def memory_embeddings(self, user_id: str, ids: Sequence[str]) -> list[StoredVector]:
        rows = self._run("get_memory_embeddings", user_id=user_id, ids=list(ids))
        return [StoredVector.from_row(row) for row in rows]


# an open end of a time range, in epoch seconds: a float, as stored times are (with the integers
# ±2^62 instead, the embedded FalkorDB dropped every current one-value-at-a-time fact from the
# CASE comparison of neighbourhood_step; floats compare as expected)
_NEVER = 1e18


def _view_params(view: ViewFilter) -> Params:
    """The relation filters shared by the explorer's statements."""
    return {
        "types": list(view.relation_types or ()),
        "all_types": view.relation_types is None,
        "current": view.current,
        "since": -_NEVER if view.since is None else float(view.since),
        "until": _NEVER if view.until is None else float(view.until),
    }


# columns of session_facts that only order its rows
def _first_seen_order(row: Row) -> tuple[bool, float, str, str, str, str, str]:
    """A session fact's place: when it was first seen (unknown last, as Cypher orders nulls),
    then its source, type and target labels, then the keys, so equal labels keep one order."""
    seen = row.get("first_seen")
    return (
        seen is None,
        float(seen or 0.0),
        str(row["src"]),
        str(row["type"]),
        str(row["dst"]),
        str(row["src_key"]),
        str(row["dst_key"]),
    )
