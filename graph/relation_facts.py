"""One user's relations held in process: what a context card shows of each relation between two
of the user's entities (graph/records.py RelationRecord), indexed by entity.

A context call reads the cards of the message's entities and of those it expands to, each with
its strongest relations and every relation of a type the message cues. In the graph that read
walks every relationship of the entity — on FalkorDB the memories' MENTIONS too — and orders
them, so it grew with the user's history: 10 ms of a call at 10,000 real turns, 31 ms at 50,000,
most of it on the few entities mentioned thousands of times (docs/performance.md). Relations change
only through writes the service sees, so the service keeps this copy in step with its own writes:
after a batch it reads back the relations the batch touched (cypher/relations_touched.cypher: the
pairs it wrote, the one-value facts whose validity it recomputed, everything around an entity it
merged), and any other change (a forget, a pin, a change from another process) drops the copy,
which is then read again in the background (cypher/user_relations.cypher). Until it is held,
calls read the graph as before. The graph stays the source of truth.

Cards from this copy equal cypher/entity_cards.cypher's (tests/test_relation_facts.py): the same
order (strong, count, last_seen, newest first; then type and the other entity's key), the
strongest `limit` plus every relation of a cued type, the newest `evidence` ids of each.

Not thread-safe by itself: graph/caches.py reads it under its lock and changes it under the
write lock.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph.records import GraphEdge, RelationRecord

# bytes one relation's entry weighs (its record, its evidence ids, its places in the indexes by
# entity and type and by pair, the entities' strongest lists), for the cache budget
# (graph/residency.py): 1,280 measured with tracemalloc on the 1,760 relations of 3,000 real turns
# of bench/realtext.py (1.3 evidence ids each)
PER_RELATION = 1300

# (source, type, target): one relation of the graph
RelKey = tuple[str, str, str]


@dataclass(frozen=True)
class Capped:
    """The entities whose cards carry at most `cued` relations of a cued type besides their
    strongest (the hubs of a long history: graph/recall/config.py `hub_cued_relations`)."""

    keys: frozenset[str] = frozenset()
    cued: int = 0


def _key(rel: GraphEdge) -> RelKey:
    return (rel.source, rel.type, rel.target)


def _seen_from(rel: GraphEdge, entity: str, evidence: int) -> RelationRecord:
    """The relation on `entity`'s card, with its newest `evidence` ids."""
    out = rel.source == entity
    return RelationRecord(
        type=rel.type,
        direction="out" if out else "in",
        target=rel.target if out else rel.source,
        count=rel.count,
        strong=rel.strong,
        role=rel.role,
        first_seen=rel.first_seen,
        last_seen=rel.last_seen,
        evidence=rel.evidence[-evidence:] if evidence > 0 else (),
        valid_from=rel.valid_from,
        valid_to=rel.valid_to,
    )


def _strength(rel: GraphEdge, entity: str) -> tuple[Any, ...]:
    """The card order as a key to sort ascending: strong, count and last_seen descending, then
    the type and the other entity's key (cypher/entity_cards.cypher's ORDER BY), then the
    direction (both directions of one type between two entities: the outgoing first)."""
    out = rel.source == entity
    return (
        -rel.strong,
        -rel.count,
        -(rel.last_seen if rel.last_seen is not None else float("-inf")),
        rel.type,
        rel.target if out else rel.source,
        not out,
    )


class UserRelations:
    def __init__(self) -> None:
        self._rels: dict[RelKey, GraphEdge] = {}
        # entity key → relation type → its relations of that type, both directions
        self._around: dict[str, dict[str, set[RelKey]]] = {}
        self._between: dict[tuple[str, str], set[RelKey]] = {}  # (source, target) → relations
        # entity key → its strongest relations in card order (as many as last asked for), until
        # the entity's relations change
        self._top: dict[str, list[GraphEdge]] = {}

    @classmethod
    def load(cls, relations: Iterable[GraphEdge]) -> UserRelations:
        """From the store's `user_relations`."""
        held = cls()
        for relation in relations:
            held._put(relation)
        return held

    def __len__(self) -> int:
        return len(self._rels)

    @property
    def nbytes(self) -> int:
        return PER_RELATION * len(self._rels) + sys.getsizeof(self._rels)

    # -- reads --------------------------------------------------------------------------------

    def card(
        self,
        entity: str,
        limit: int,
        cued: Iterable[str],
        evidence: int,
        cued_limit: int | None = None,
    ) -> tuple[RelationRecord, ...]:
        """`entity`'s relations as its context card carries them: the strongest `limit`, then
        every other relation of a `cued` type (or the strongest `cued_limit` of them), in card
        order. Costs the entity's relations of the cued types, not all of them: the user's own
        entity holds thousands."""
        by_type = self._around.get(entity, {})
        top = self._strongest(entity, limit)
        shown = {_key(r) for r in top}
        others = (
            self._rels[k]
            for rel_type in dict.fromkeys(cued)
            for k in by_type.get(rel_type, ())
            if k not in shown
        )
        if cued_limit is None:
            extra = sorted(others, key=lambda r: _strength(r, entity))
        else:  # the same as sorting all and keeping the first `cued_limit`
            extra = heapq.nsmallest(cued_limit, others, key=lambda r: _strength(r, entity))
        return tuple(_seen_from(r, entity, evidence) for r in [*top, *extra])

    def _strongest(self, entity: str, limit: int) -> list[GraphEdge]:
        held = self._top.get(entity)
        total = sum(len(keys) for keys in self._around.get(entity, {}).values())
        if held is None or (len(held) < limit and len(held) < total):
            rels = (self._rels[k] for keys in self._around.get(entity, {}).values() for k in keys)
            held = heapq.nsmallest(limit, rels, key=lambda r: _strength(r, entity))
            self._top[entity] = held
        return held[:limit]

    def holds(self, source: str, rel_type: str, target: str | None) -> bool:
        """Whether a `rel_type` relation from `source` to `target` (None: to anyone) is held."""
        if target is not None:
            return (source, rel_type, target) in self._rels
        return bool(self._around.get(source, {}).get(rel_type))

    # -- changes ------------------------------------------------------------------------------

    def replace(
        self,
        relations: Iterable[GraphEdge],
        pairs: Iterable[tuple[str, str]] = (),
        sources: Mapping[str, frozenset[str]] | None = None,
        around: Iterable[str] = (),
    ) -> None:
        """What cypher/relations_touched.cypher read back after a write: every held relation it
        covers — between the `pairs` (source → target, any type), from the `sources` of the
        given types, touching an entity `around` — goes, and the rows (the graph's state of
        exactly those) come in."""
        covered: set[RelKey] = set()
        for pair in pairs:
            covered.update(self._between.get(pair, ()))
        for src, types in (sources or {}).items():
            by_type = self._around.get(src, {})
            covered.update(k for t in types for k in by_type.get(t, ()) if k[0] == src)
        for key in around:
            covered.update(k for keys in self._around.get(key, {}).values() for k in keys)
        for rel_key in covered:
            self._drop(rel_key)
        for relation in relations:
            self._put(relation)

    def _put(self, rel: GraphEdge) -> None:
        key = _key(rel)
        if key in self._rels:
            self._drop(key)
        self._rels[key] = rel
        self._between.setdefault((rel.source, rel.target), set()).add(key)
        for end in (rel.source, rel.target):
            self._around.setdefault(end, {}).setdefault(rel.type, set()).add(key)
            self._top.pop(end, None)

    def _drop(self, key: RelKey) -> None:
        if self._rels.pop(key, None) is None:
            return
        src, rel_type, dst = key
        _discard(self._between, (src, dst), key)
        for end in (src, dst):
            by_type = self._around.get(end)
            if by_type is not None:
                _discard(by_type, rel_type, key)
                if not by_type:
                    del self._around[end]
            self._top.pop(end, None)


def _discard(index: dict[Any, set[RelKey]], at: Any, key: RelKey) -> None:
    """Takes `key` out of `index[at]`, and the entry once it is empty."""
    keys = index.get(at)
    if keys is not None:
        keys.discard(key)
        if not keys:
            del index[at]
