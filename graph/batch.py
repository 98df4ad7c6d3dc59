"""Rows for `cypher/write_memories.cypher`: a batch of new memories pre-aggregated into the flat
lists the statement unwinds (memories, entities, mentions, relations, sessions, the NEXT chain).

Pre-aggregating in Python keeps the statement a plain walk over each list, so a batch is one atomic
statement on both engines; only graph/store.py sends it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from extraction.model import KnownEntity
from extraction.resolver import Resolution
from extraction.when import event_interval
from graph.validation import NewMemory
from graph.vectors import to_faiss_id
from graph.vocabulary import SINGLE_VALUED_TYPES


def batch_rows(
    memories: list[NewMemory],
    ids: list[str],
    hashes: list[str],
    resolutions: list[Resolution],
    known: Mapping[str, KnownEntity],
    vectors: list[str],
    model_id: str,
    now: float,
    session_tails: dict[str, str],
    repeat_of: Mapping[str, str] | None = None,
) -> dict[str, list[Any]]:
    """Pre-aggregates a batch into the flat lists write_memories.cypher unwinds.

    `created_at` grows by a microsecond per position so the batch's order is kept, and each
    memory of a session is chained (NEXT) after the session's previous one. `known` (the
    resolver's catalogue) gives what a person known by role carries: gender, unnamed, plural.
    `repeat_of` maps a new memory to the earlier one it repeats (graph/repeats.py)."""
    repeats = dict(repeat_of or {})
    memory_rows: list[dict[str, Any]] = []
    next_edges: list[dict[str, str]] = []
    sessions: dict[str, dict[str, Any]] = {}
    in_session: list[dict[str, str]] = []
    tails = dict(session_tails)
    entities: dict[str, dict[str, Any]] = {}
    mentions: list[dict[str, Any]] = []
    relations: dict[tuple[str, str, str], dict[str, Any]] = {}
    aliases: dict[str, set[str]] = {}
    for resolution in resolutions:
        for key, names in resolution.aliases.items():
            aliases.setdefault(key, set()).update(names)
    for position, (memory, memory_id, digest, resolution, vector) in enumerate(
        zip(memories, ids, hashes, resolutions, vectors, strict=True)
    ):
        extraction = resolution.extraction
        occurred = memory.occurred_at if memory.occurred_at is not None else now
        if memory.session_id:
            if memory.session_id in tails:
                next_edges.append({"from": tails[memory.session_id], "to": memory_id})
            tails[memory.session_id] = memory_id
            session = sessions.setdefault(
                memory.session_id,
                {
                    "id": memory.session_id,
                    "count": 0,
                    "started_at": occurred,
                    "last_turn_at": occurred,
                },
            )
            session["count"] += 1
            session["started_at"] = min(session["started_at"], occurred)
            session["last_turn_at"] = max(session["last_turn_at"], occurred)
            in_session.append({"memory_id": memory_id, "session_id": memory.session_id})
        importance = 1 if memory.importance is None else memory.importance
        pinned = bool(memory.pinned)
        event = event_interval(extraction.dates, occurred)
        memory_rows.append(
            {
                "id": memory_id,
                "text": memory.text,
                "caption": caption(memory.text),
                "speaker": memory.speaker,
                "session_id": memory.session_id,
                "occurred_at": occurred,
                "event_start": event[0] if event else None,
                "event_end": event[1] if event else None,
                "created_at": now + position * 1e-6,
                "external_id": memory.external_id,
                "content_hash": digest,
                "importance": importance,
                "pinned": pinned,
                "category": memory.category,
                "fact_type": memory.fact_type,
                "kind": memory.kind,
                "vector_id": to_faiss_id(memory_id),
                "embedding": vector,
                "embedding_model": model_id,
                "topic_candidates": resolution.candidates or None,
                "repeat_of": repeats.get(memory_id),
            }
        )
        back = [(earlier, key, False) for earlier, key in resolution.back_mentions]
        own = [(memory_id, m.key, m.as_speaker) for m in extraction.mentions]
        labels = {m.key: (m.type, m.label) for m in extraction.mentions}
        for mentioning, key, as_speaker in own + back:
            entity_type, label = labels[key]
            entity = entities.get(key)
            if entity is None:
                facts = known.get(key)
                entity = entities[key] = {
                    "key": key,
                    "type": entity_type,
                    "label": label,
                    "aliases": sorted(aliases.get(key, set())),
                    "count": 0,
                    "first_seen": occurred,
                    "last_seen": occurred,
                    "gender": facts.gender if facts else None,
                    "unnamed": bool(facts and facts.unnamed),
                    "plural": bool(facts and facts.plural),
                }
            entity["count"] += 1
            entity["first_seen"] = min(entity["first_seen"], occurred)
            entity["last_seen"] = max(entity["last_seen"], occurred)
            mentions.append({"memory_id": mentioning, "key": key, "as_speaker": as_speaker})
        for rel in extraction.relations:
            row = relations.setdefault(
                (rel.src, rel.type, rel.dst),
                {
                    "src": rel.src,
                    "type": rel.type,
                    "dst": rel.dst,
                    "role": rel.role,
                    "count": 0,
                    "strong": 0,
                    "evidence": [],
                    "first_seen": occurred,
                    "last_seen": occurred,
                },
            )
            row["count"] += 1
            row["strong"] += 1 if pinned or importance >= 3 else 0
            row["evidence"].append(memory_id)
            row["first_seen"] = min(row["first_seen"], occurred)
            row["last_seen"] = max(row["last_seen"], occurred)
            row["role"] = row["role"] or rel.role
    return {
        "memories": memory_rows,
        "entities": list(entities.values()),
        "mentions": mentions,
        "relations": list(relations.values()),
        # earlier memories said again in this batch, with how often
        "repeated": [
            {"id": original, "count": n} for original, n in Counter(repeats.values()).items()
        ],
        # sources whose one-value-at-a-time facts this batch states: their validity is recomputed
        "single_valued_sources": sorted(
            {r["src"] for r in relations.values() if r["type"] in SINGLE_VALUED_TYPES}
        ),
        "next": next_edges,
        "sessions": list(sessions.values()),
        "in_session": in_session,
    }


def caption(text: str, limit: int = 60) -> str:
    """A short caption for Neo4j Browser."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
