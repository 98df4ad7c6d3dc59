"""A batch of new memories as the rows `cypher/write_memories.cypher` unwinds: memories, entities,
mentions, relations, sessions, session membership, the NEXT chain, earlier memories said again and
facts that stopped holding.

Value types only, no I/O: the write path builds them (graph/write/rows.py), the store turns them
into parameters (`BatchRows.params`) and the memory-facts copy reads them (graph/memory_facts.py),
each by field. They live below all three so neither the store nor the caches import the write path.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

from graph.records import Params


@dataclass(frozen=True)
class MemoryRow:
    id: str
    text: str
    caption: str  # a short caption for Neo4j Browser
    speaker: str | None
    session_id: str | None
    occurred_at: float
    event_start: float | None  # the time the text speaks of (extraction/when.py)
    event_end: float | None
    created_at: float
    external_id: str | None
    content_hash: str
    importance: int
    pinned: bool
    category: str | None
    fact_type: str | None
    kind: str
    vector_id: int
    embedding: str  # base64 of little-endian float32
    embedding_model: str
    topic_candidates: list[str] | None
    repeat_of: str | None
    redactions: list[str] | None = None  # the types the storage policy redacted from the text
    # a stated fact that absorbed others (graph/write/merge_rules.py): its own text and embedding,
    # restored by unmerge; `text` and `embedding` are the merged ones
    own_text: str | None = None
    own_embedding: str | None = None
    domain: str | None = None  # the knowledge index is kept per (user, domain)
    # what the graph holds unique for a memory with an externalId (`external_key`)
    external_key: str | None = None


def external_key(user_id: str, external_id: str | None) -> str | None:
    """A memory's externalId within its user as the graph's uniqueness constraint holds it: a
    digest in hex, whatever the two strings hold (FalkorDB's constraint crashed the engine on
    values with leading or trailing whitespace or control characters: found by the fuzzer);
    graph/executor.py's Namespace prefixes it like the user id."""
    if external_id is None:
        return None
    return hashlib.sha256(
        f"{user_id}\x00{external_id}".encode("utf-8", "surrogatepass")
    ).hexdigest()


@dataclass(frozen=True)
class EntityRow:
    key: str
    type: str
    label: str
    aliases: tuple[str, ...]
    count: int  # mentions this batch adds
    first_seen: float
    last_seen: float
    gender: str | None
    unnamed: bool
    plural: bool


@dataclass(frozen=True)
class MentionRow:
    memory_id: str
    key: str
    as_speaker: bool


@dataclass(frozen=True)
class RelationRow:
    src: str
    type: str
    dst: str
    role: str | None
    count: int
    strong: int  # of `count`, said by pinned or importance-3 memories
    evidence: tuple[str, ...]
    first_seen: float
    last_seen: float


@dataclass(frozen=True)
class EndingRow:
    """A fact a memory says stopped holding ("I quit the club"): every `type` relation from `src`
    to `dst` (None: to anyone) stated before `at` is history from `at` on; `at` is by when the
    memory says it happened when it names a time ("when I visited Rome in 2019" ends no plan
    made since), else when it was said."""

    src: str
    type: str
    dst: str | None
    at: float
    memory_id: str


@dataclass(frozen=True)
class NextRow:
    """One link of a session's chain of turns: `before` is followed by `after`."""

    before: str
    after: str


@dataclass(frozen=True)
class SessionRow:
    id: str
    count: int
    started_at: float
    last_turn_at: float


@dataclass(frozen=True)
class InSessionRow:
    memory_id: str
    session_id: str


@dataclass(frozen=True)
class RepeatRow:
    """An earlier memory said again in this batch, and how often (graph/repeats.py)."""

    id: str
    count: int


@dataclass(frozen=True)
class BatchRows:
    memories: tuple[MemoryRow, ...]
    entities: tuple[EntityRow, ...]
    mentions: tuple[MentionRow, ...]
    relations: tuple[RelationRow, ...]
    next: tuple[NextRow, ...]
    sessions: tuple[SessionRow, ...]
    in_session: tuple[InSessionRow, ...]
    repeated: tuple[RepeatRow, ...]
    # sources whose one-value-at-a-time facts this batch states: their validity is recomputed
    single_valued_sources: tuple[str, ...]
    # facts the batch's memories say stopped holding (extraction/endings.py)
    endings: tuple[EndingRow, ...] = ()

    def params(self) -> Params:
        """The statement's parameters: lists of maps (tuples become lists; the engines' clients
        send lists)."""
        return {
            "memories": [asdict(r) for r in self.memories],
            "entities": [asdict(r) | {"aliases": list(r.aliases)} for r in self.entities],
            "mentions": [asdict(r) for r in self.mentions],
            "relations": [asdict(r) | {"evidence": list(r.evidence)} for r in self.relations],
            "next": [{"from": r.before, "to": r.after} for r in self.next],
            "sessions": [asdict(r) for r in self.sessions],
            "in_session": [asdict(r) for r in self.in_session],
            "repeated": [asdict(r) for r in self.repeated],
            "single_valued_sources": list(self.single_valued_sources),
            "endings": [asdict(r) for r in self.endings if r.dst is not None],
            "endings_any": [asdict(r) for r in self.endings if r.dst is None],
        }
